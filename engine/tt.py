"""Transposition table: one preallocated list of packed ints, indexed by ``key % size``.

An entry is one int (0 = empty), 96 bits, laid out as

    bits  0..31  verification: the key's upper 32 bits (the index uses the key modulo
                 the size, so these bits are independent of it)
         32..47  best move (0 = none)
         48..63  score + 32768     (mate scores stored relative to this node, see below)
         64..79  static eval + 32768 (VALUE_NONE when the node was in check)
         80..87  depth + DEPTH_OFFSET
         88..89  bound (BOUND_UPPER, BOUND_LOWER, BOUND_EXACT)
         90..95  age (the search generation, modulo 64)

``Hash`` MB holds ``MB * 2**20 // ENTRY_BYTES`` entries once full.  Mate scores are
stored as distance from the storing node.  Replacement is depth-preferred with aging (see
``store``); storing a position without a move keeps the stored move.

On PyPy ``new_table`` gives ``SplitTranspositionTable``: the same fields in two lists of
machine-sized ints (16 bytes an entry), because PyPy boxes a 96-bit int.

``SharedTranspositionTable`` keeps those two words in a buffer that several processes map
(Threads > 1, engine.smp).  Writers do not lock: the first word is the check XOR the
data, so an entry torn by two writers fails its check instead of giving another
position's score (Hyatt's lockless hashing).
"""

import sys

from engine.types import VALUE_MATE_IN_MAX_PLY, VALUE_NONE, MOVE_BITS

BOUND_NONE, BOUND_UPPER, BOUND_LOWER, BOUND_EXACT = 0, 1, 2, 3
DEPTH_OFFSET = 8          # qsearch stores depth 0; a stored depth is always >= -8
ENTRY_BYTES = 56          # a 96-bit int, 48 bytes, + its 8-byte list slot (CPython 3.11; tracemalloc in tests/test_search.py)
REPLACE_DEPTH_MARGIN = 3  # a shallower entry may still replace a deeper one from this search
HASHFULL_SAMPLE = 1000

_CHECK_MASK = 0xFFFFFFFF


def entry_count(mb, entry_bytes=ENTRY_BYTES):
    """Entries in a table of mb MB whose entries cost entry_bytes each (at least 1024)."""
    return max(1024, int(mb * 1024 * 1024) // entry_bytes)


class TranspositionTable:
    def __init__(self, mb=16):
        self.age = 0
        self.resize(mb)

    def resize(self, mb):
        self.mb = mb
        self.size = entry_count(mb)
        self.table = [0] * self.size

    def clear(self):
        self.table = [0] * self.size
        self.age = 0

    def new_search(self):
        self.age = (self.age + 1) & 63

    def probe(self, key, ply):
        """(move, score, eval, depth, bound) for this key, or None; score is root-relative."""
        # literals for _CHECK_MASK, VALUE_MATE_IN_MAX_PLY (31000), MOVE_BITS and DEPTH_OFFSET
        # (8), pinned in tests/test_types.py; an empty slot (81% of bench's probes) told first
        e = self.table[key % self.size]
        if not e or e & 0xFFFFFFFF != key >> 32:
            return None
        score = (e >> 48 & 0xFFFF) - 32768
        # a mate counted from the storing node becomes one counted from the root (the
        # two lines are written out here and in store(): a helper call costs ~30 ns)
        if score >= 31000:
            score -= ply
        elif score <= -31000:
            score += ply
        return (e >> 32 & 0xFFFF, score, (e >> 64 & 0xFFFF) - 32768,
                (e >> 80 & 0xFF) - 8, e >> 88 & 3)

    def store(self, key, ply, move, score, static_eval, depth, bound):
        """Replace the slot's entry unless it comes from this search, is deeper by more than
        REPLACE_DEPTH_MARGIN, and the new bound is not exact."""
        # literals as in probe() (3 BOUND_EXACT, 11 DEPTH_OFFSET + REPLACE_DEPTH_MARGIN)
        table = self.table
        i = key % self.size
        old = table[i]
        check = key >> 32
        age = self.age
        if old:
            if not move and old & 0xFFFFFFFF == check:
                move = old >> 32 & 0xFFFF
            if old >> 90 == age and bound != 3 and depth + 11 < (old >> 80 & 0xFF):
                return
        if score >= 31000:      # a mate counted from this node (see probe)
            score += ply
        elif score <= -31000:
            score -= ply
        if depth < -8:
            depth = -8
        # the fields by + and * (specialized on CPython 3.11; | and << are not), their
        # offsets added once (0x8800080000000: DEPTH_OFFSET << 48 | 32768 << 32 | 32768 << 16),
        # the check ORed last so that the int is allocated no bigger than ORing every field
        table[i] = ((((((age * 4 + bound) * 256 + depth) * 65536 + static_eval) * 65536 + score)
                     * 65536 + move + 0x8800080000000) << 32 | check)

    def hashfull(self):
        """Permille of a sample of slots filled during the current search."""
        table = self.table
        age = self.age
        n = min(HASHFULL_SAMPLE, self.size)
        used = sum(1 for i in range(n) if table[i] and table[i] >> 90 == age)
        return used * 1000 // n


class SplitTranspositionTable(TranspositionTable):
    """The same table as two lists of machine-sized ints, for PyPy.

    PyPy stores a list of ints below 2**63 unboxed (8 bytes each) but boxes a 96-bit
    entry as a big integer, which made probes and stores the search's main cost there.
    ``checks[i]`` holds the key's upper 32 bits; ``data[i]`` packs move (bits 0..15),
    score (16..31), eval (32..47), depth (48..55), bound (56..57), age (58..62, so
    ages wrap at 32 here).
    """

    ENTRY_BYTES = 16

    def resize(self, mb):
        self.mb = mb
        self.size = entry_count(mb, self.ENTRY_BYTES)
        self.checks = [0] * self.size
        self.data = [0] * self.size
        self.table = self.data

    def clear(self):
        self.checks = [0] * self.size
        self.data = [0] * self.size
        self.table = self.data
        self.age = 0

    def new_search(self):
        self.age = (self.age + 1) & 31

    def probe(self, key, ply):
        i = key % self.size
        e = self.data[i]
        if not e or self.checks[i] != key >> 32:
            return None
        score = (e >> 16 & 0xFFFF) - 32768
        if score >= VALUE_MATE_IN_MAX_PLY:
            score -= ply
        elif score <= -VALUE_MATE_IN_MAX_PLY:
            score += ply
        return (e & MOVE_BITS, score, (e >> 32 & 0xFFFF) - 32768,
                (e >> 48 & 0xFF) - DEPTH_OFFSET, e >> 56 & 3)

    def store(self, key, ply, move, score, static_eval, depth, bound):
        data = self.data
        i = key % self.size
        old = data[i]
        check = key >> 32
        if old:
            if not move and self.checks[i] == check:
                move = old & MOVE_BITS
            if (old >> 58 == self.age and bound != BOUND_EXACT
                    and depth + DEPTH_OFFSET + REPLACE_DEPTH_MARGIN < (old >> 48 & 0xFF)):
                return
        if score >= VALUE_MATE_IN_MAX_PLY:
            score += ply
        elif score <= -VALUE_MATE_IN_MAX_PLY:
            score -= ply
        if depth < -DEPTH_OFFSET:
            depth = -DEPTH_OFFSET
        self.checks[i] = check
        data[i] = (move | (score + 32768) << 16 | (static_eval + 32768) << 32
                   | (depth + DEPTH_OFFSET) << 48 | bound << 56 | self.age << 58)

    def hashfull(self):
        data = self.data
        age = self.age
        n = min(HASHFULL_SAMPLE, self.size)
        used = sum(1 for i in range(n) if data[i] and data[i] >> 58 == age)
        return used * 1000 // n


class SharedTranspositionTable(SplitTranspositionTable):
    """The split table's entries in a shared buffer of signed 64-bit words.

    ``words`` is any object indexable by word (a memoryview cast to 'q'; on PyPy a cffi
    array, which its JIT reads ~50x faster than a memoryview); entry i is words[2 i]
    (check ^ data) and words[2 i + 1] (data).  Only the process that owns the table
    (``leader``) ages it: followers are told the age of each search.  ``raw``, the
    same bytes as a writable memoryview, makes clear() a block copy.  Every search
    starts with ``new_search()``, so a table none has started on since it was made or
    cleared holds only zeros, and clear() leaves it alone.
    """

    def __init__(self, words, entries, raw, leader=True):
        self.age = 0
        self.searched = False
        self.words = words
        self.raw = raw
        self.size = entries
        self.mb = entries * self.ENTRY_BYTES / (1024 * 1024)
        self.leader = leader

    def resize(self, mb):
        raise NotImplementedError("a shared table is resized by making a new one (engine.smp)")

    def clear(self):
        self.age = 0
        if not self.searched:
            return      # zeros written to a fresh block commit its pages (Hash 1024: 2.4 s, 1 GB)
        self.searched = False
        raw = self.raw
        chunk = bytes(min(len(raw), 1 << 20))
        for start in range(0, len(raw), len(chunk)):
            end = min(start + len(chunk), len(raw))
            raw[start:end] = chunk[:end - start]

    def new_search(self):
        self.searched = True
        if self.leader:
            self.age = (self.age + 1) & 31

    def probe(self, key, ply):
        words = self.words
        i = (key % self.size) << 1
        e = words[i + 1]
        if not e or words[i] ^ e != key >> 32:
            return None
        score = (e >> 16 & 0xFFFF) - 32768
        if score >= VALUE_MATE_IN_MAX_PLY:
            score -= ply
        elif score <= -VALUE_MATE_IN_MAX_PLY:
            score += ply
        return (e & MOVE_BITS, score, (e >> 32 & 0xFFFF) - 32768,
                (e >> 48 & 0xFF) - DEPTH_OFFSET, e >> 56 & 3)

    def store(self, key, ply, move, score, static_eval, depth, bound):
        words = self.words
        i = (key % self.size) << 1
        old = words[i + 1]
        check = key >> 32
        if old:
            if not move and words[i] ^ old == check:
                move = old & MOVE_BITS
            if (old >> 58 == self.age and bound != BOUND_EXACT
                    and depth + DEPTH_OFFSET + REPLACE_DEPTH_MARGIN < (old >> 48 & 0xFF)):
                return
        if score >= VALUE_MATE_IN_MAX_PLY:
            score += ply
        elif score <= -VALUE_MATE_IN_MAX_PLY:
            score -= ply
        if depth < -DEPTH_OFFSET:
            depth = -DEPTH_OFFSET
        data = (move | (score + 32768) << 16 | (static_eval + 32768) << 32
                | (depth + DEPTH_OFFSET) << 48 | bound << 56 | self.age << 58)
        words[i + 1] = data
        words[i] = check ^ data

    def hashfull(self):
        words = self.words
        age = self.age
        n = min(HASHFULL_SAMPLE, self.size)
        used = 0
        for i in range(n):
            e = words[2 * i + 1]
            if e and e >> 58 == age:
                used += 1
        return used * 1000 // n


def new_table(mb):
    """The table layout that suits this interpreter (packed on CPython, split on PyPy)."""
    if sys.implementation.name == "pypy":
        return SplitTranspositionTable(mb)
    return TranspositionTable(mb)


__all__ = ["TranspositionTable", "SplitTranspositionTable", "SharedTranspositionTable", "new_table", "BOUND_NONE", "BOUND_UPPER",
           "BOUND_LOWER", "BOUND_EXACT", "VALUE_NONE"]
