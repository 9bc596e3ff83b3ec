"""Transposition table, both layouts: store/probe round trips (mate scores re-based on the
probing ply), replacement (depth-preferred within a search, exact bounds always taken),
the search generation wrapping around, and the memory a full table costs on CPython."""

import platform
import random
import sys

import pytest

from engine.tt import (TranspositionTable, SplitTranspositionTable, new_table, BOUND_EXACT, BOUND_LOWER, BOUND_UPPER, ENTRY_BYTES,
                       REPLACE_DEPTH_MARGIN, entry_count)
from engine.types import VALUE_INFINITE, VALUE_MATE, VALUE_MATE_IN_MAX_PLY, VALUE_NONE, MAX_PLY

both_layouts = pytest.mark.parametrize("table", [TranspositionTable, SplitTranspositionTable],
                                       ids=["packed", "split"])

KEY = 0x9D39247E33776D41     # a Polyglot key: 64 bits, upper half non-zero


def score_to_tt(score, ply):
    """Reference: a root-relative mate score made relative to the storing node."""
    if score >= VALUE_MATE_IN_MAX_PLY:
        return score + ply
    if score <= -VALUE_MATE_IN_MAX_PLY:
        return score - ply
    return score


def score_from_tt(score, ply):
    """Reference: a node-relative mate score made relative to the root again."""
    if score >= VALUE_MATE_IN_MAX_PLY:
        return score - ply
    if score <= -VALUE_MATE_IN_MAX_PLY:
        return score + ply
    return score


def same_slot(tt, key, n=1):
    """Another key that lands on key's slot but differs in the verification bits."""
    other = key + n * tt.size * (1 << 32)
    assert other % tt.size == key % tt.size and other >> 32 != key >> 32
    return other


# ---------------------------------------------------------------------- round trips
@both_layouts
def test_every_field_survives_a_round_trip(table):
    tt = table(1)
    rng = random.Random(7)
    for _ in range(2000):
        key = rng.getrandbits(64)
        move = rng.randrange(1 << 16)
        score = rng.randrange(-VALUE_MATE_IN_MAX_PLY + 1, VALUE_MATE_IN_MAX_PLY)
        static_eval = rng.choice([VALUE_NONE, rng.randrange(-VALUE_INFINITE, VALUE_INFINITE + 1)])
        depth = rng.randrange(-8, MAX_PLY + 1)
        bound = rng.choice([BOUND_UPPER, BOUND_LOWER, BOUND_EXACT])
        tt.clear()
        tt.store(key, rng.randrange(MAX_PLY), move, score, static_eval, depth, bound)
        assert tt.probe(key, rng.randrange(MAX_PLY)) == (move, score, static_eval, depth, bound)


@both_layouts
def test_mate_scores_are_rebased_on_the_probing_ply(table):
    tt = table(1)
    # stored at ply 5: the side to move mates at ply 9, i.e. 4 plies from this node ...
    tt.store(KEY, 5, 77, VALUE_MATE - 9, 12, 6, BOUND_EXACT)
    # ... is mated at ply 12, 7 plies from this node ...
    mated_key = KEY + 1                     # the next slot
    tt.store(mated_key, 5, 0, -VALUE_MATE + 12, VALUE_NONE, 3, BOUND_UPPER)
    for ply in range(MAX_PLY):
        # ... so reached again at another ply, the mates are as far from that node
        assert tt.probe(KEY, ply) == (77, VALUE_MATE - 4 - ply, 12, 6, BOUND_EXACT)
        assert tt.probe(mated_key, ply)[1] == -VALUE_MATE + 7 + ply


@both_layouts
@pytest.mark.parametrize("score", [0, 1, -1, 999, VALUE_MATE_IN_MAX_PLY - 1, -VALUE_MATE_IN_MAX_PLY + 1,
                                   VALUE_MATE_IN_MAX_PLY, -VALUE_MATE_IN_MAX_PLY,
                                   VALUE_MATE - MAX_PLY, -VALUE_MATE + MAX_PLY])
def test_probe_agrees_with_score_to_and_from_tt(table, score):
    """store/probe re-base mate scores on the ply as the reference functions above do."""
    tt = table(1)
    for store_ply in (0, 3, 40):
        tt.clear()
        tt.store(KEY, store_ply, 0, score, 0, 1, BOUND_LOWER)
        for probe_ply in (0, 3, 40, MAX_PLY - 1):
            assert tt.probe(KEY, probe_ply)[1] == score_from_tt(score_to_tt(score, store_ply),
                                                                probe_ply)
    shifted = score_from_tt(score_to_tt(score, 0), 10) != score
    assert shifted == (abs(score) >= VALUE_MATE_IN_MAX_PLY)


@both_layouts
def test_a_depth_below_the_field_is_stored_as_its_floor(table):
    tt = table(1)
    tt.store(KEY, 0, 5, 10, 20, -30, BOUND_UPPER)
    assert tt.probe(KEY, 0) == (5, 10, 20, -8, BOUND_UPPER)


@both_layouts
def test_only_the_stored_key_hits(table):
    tt = table(1)
    assert tt.probe(KEY, 0) is None                   # empty
    tt.store(KEY, 0, 5, 10, 20, 3, BOUND_LOWER)
    assert tt.probe(same_slot(tt, KEY), 0) is None    # same slot, other verification bits
    assert tt.probe(KEY + 1, 0) is None               # another slot
    tt.clear()
    assert tt.probe(KEY, 0) is None


# ---------------------------------------------------------------------- replacement
@both_layouts
def test_a_much_shallower_bound_does_not_evict_a_deep_entry_of_this_search(table):
    tt = table(1)
    other = same_slot(tt, KEY)
    tt.store(KEY, 0, 11, 100, 0, 12, BOUND_LOWER)
    tt.store(other, 0, 22, 50, 0, 12 - REPLACE_DEPTH_MARGIN - 1, BOUND_UPPER)
    assert tt.probe(KEY, 0)[0] == 11 and tt.probe(other, 0) is None
    tt.store(other, 0, 22, 50, 0, 12 - REPLACE_DEPTH_MARGIN, BOUND_LOWER)   # within the margin
    assert tt.probe(other, 0)[:2] == (22, 50) and tt.probe(KEY, 0) is None


@both_layouts
def test_an_exact_bound_replaces_a_deeper_entry(table):
    tt = table(1)
    other = same_slot(tt, KEY)
    tt.store(KEY, 0, 11, 100, 0, 30, BOUND_LOWER)
    tt.store(other, 0, 22, 50, 7, 1, BOUND_EXACT)
    assert tt.probe(other, 0) == (22, 50, 7, 1, BOUND_EXACT)
    assert tt.probe(KEY, 0) is None
    # the same position, too: a shallow exact score overwrites a deep bound
    tt.store(KEY, 0, 11, 100, 0, 30, BOUND_UPPER)
    tt.store(KEY, 0, 33, -40, 0, 2, BOUND_EXACT)
    assert tt.probe(KEY, 0) == (33, -40, 0, 2, BOUND_EXACT)


@both_layouts
def test_anything_replaces_an_entry_from_an_earlier_search(table):
    tt = table(1)
    other = same_slot(tt, KEY)
    tt.store(KEY, 0, 11, 100, 0, 40, BOUND_LOWER)
    tt.new_search()
    tt.store(other, 0, 22, 50, 0, -2, BOUND_UPPER)
    assert tt.probe(other, 0) == (22, 50, 0, -2, BOUND_UPPER)
    assert tt.probe(KEY, 0) is None


@both_layouts
def test_a_store_without_a_move_keeps_the_move_of_the_same_position_only(table):
    tt = table(1)
    tt.store(KEY, 0, 11, 100, 0, 5, BOUND_LOWER)
    tt.store(KEY, 0, 0, 120, 0, 6, BOUND_LOWER)
    assert tt.probe(KEY, 0)[:2] == (11, 120)
    other = same_slot(tt, KEY)
    tt.store(other, 0, 0, 120, 0, 7, BOUND_LOWER)
    assert tt.probe(other, 0)[0] == 0       # another position's move would be garbage here


# ---------------------------------------------------------------------- generations
@both_layouts
def test_the_generation_wraps_and_an_entry_that_old_counts_as_current(table):
    """The age is a few bits, so it wraps: an entry written exactly one period ago is taken
    for this search's own (protected from shallow stores, counted by hashfull) until it
    is overwritten.  Harmless (it only keeps a deep entry longer), and every field still
    round-trips at every age, the wrapped ones included."""
    period = 64 if table is TranspositionTable else 32
    for searches in range(2 * period + 2):
        tt = table(0)                          # the smallest table: 1024 slots
        other = same_slot(tt, KEY)
        tt.store(KEY, 0, 11, 100, -5, 20, BOUND_LOWER)
        for _ in range(searches):
            tt.new_search()
        assert tt.probe(KEY, 0) == (11, 100, -5, 20, BOUND_LOWER), searches
        looks_current = searches % period == 0
        assert (tt.hashfull() == 1) == looks_current, searches     # 1 of 1000 sampled slots
        tt.store(other, 0, 22, 50, 3, 1, BOUND_UPPER)
        kept = tt.probe(other, 0) is None
        assert kept == looks_current, searches
        if not kept:
            assert tt.probe(other, 0) == (22, 50, 3, 1, BOUND_UPPER), searches
            assert tt.hashfull() == 1, searches


def test_split_entries_stay_machine_sized_at_every_age():
    """PyPy stores a list of ints below 2**63 unboxed; the widest entry at the oldest
    wrapped age must still fit."""
    tt = SplitTranspositionTable(0)
    for _ in range(100):
        tt.new_search()
        tt.store(KEY, MAX_PLY, 0xFFFF, VALUE_MATE - 1, VALUE_NONE, MAX_PLY, BOUND_EXACT)
        assert 0 < max(tt.data) < 1 << 63
        assert tt.probe(KEY, MAX_PLY) == (0xFFFF, VALUE_MATE - 1, VALUE_NONE, MAX_PLY, BOUND_EXACT)


@both_layouts
def test_clear_forgets_entries_and_restarts_the_generation(table):
    tt = table(0)
    for _ in range(5):
        tt.new_search()
    tt.store(KEY, 0, 11, 100, 0, 20, BOUND_LOWER)
    tt.clear()
    assert tt.probe(KEY, 0) is None and tt.hashfull() == 0
    tt.store(KEY, 0, 11, 100, 0, 20, BOUND_LOWER)
    assert tt.hashfull() == 1


def test_new_table_picks_the_layout_of_this_interpreter():
    expected = SplitTranspositionTable if sys.implementation.name == "pypy" else TranspositionTable
    assert type(new_table(1)) is expected


# ---------------------------------------------------------------------- memory
@pytest.mark.skipif(platform.python_implementation() != "CPython",
                    reason="ENTRY_BYTES and tracemalloc describe CPython's int objects")
def test_memory_matches_hash_option():
    """A full table costs Hash MB: 8 bytes of list slot plus one int object per entry."""
    import tracemalloc
    mb = 2
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    tt = TranspositionTable(mb)
    for _ in range(3):
        tt.new_search()                              # a high age: the widest entries
    for i in range(tt.size):
        tt.store(i | (0xFEDCBA98 + i) << 32, 0, 4095, -123, -45, 9, BOUND_EXACT)
    used = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    assert tt.size == entry_count(mb) == mb * 2 ** 20 // ENTRY_BYTES
    entry = tt.table[tt.size // 2]
    assert used < tt.size * (8 + sys.getsizeof(entry)) * 1.02
    # tracemalloc counts requested bytes; pymalloc hands out 16-byte multiples
    assert 8 + -(-sys.getsizeof(entry) // 16) * 16 == ENTRY_BYTES
    assert tt.hashfull() == 1000
