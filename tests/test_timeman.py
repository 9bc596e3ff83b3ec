"""Time management: the limits chosen from a `go`, the rules that depend on the position
(one legal move, no time at all), ponder/stop behaviour, and simulated games that must
never lose on time.  Nothing here depends on how loaded the machine is: clocks are
checked against perf_counter() readings taken around the call, and costs in CPU time."""

import time

import pytest

from engine.timeman import (Limits, TimeManager, allocate, plan_search, HARD_FRACTION,
                            HARD_FRACTION_LAST_MOVE, MAX_MOVES_TO_GO, ONLY_MOVE_MS)

WHITE, BLACK = 0, 1
INF = float("inf")


def limits(**kw):
    lim = Limits()
    for key, value in kw.items():
        setattr(lim, key, value)
    return lim


def test_no_limits_means_no_deadline():
    for lim in (limits(), limits(infinite=True), limits(depth=5), limits(nodes=1000), limits(mate=3)):
        tm = TimeManager(lim, WHITE, 50)
        assert not tm.has_deadline()
        assert not tm.hard_expired() and not tm.soft_expired()


def test_movetime_less_overhead():
    assert allocate(limits(movetime=1000), WHITE, 50) == (950, 950)
    # below two overheads, half the budget: a depth-1 move would waste what was given
    assert allocate(limits(movetime=100), WHITE, 50) == (50, 50)
    assert allocate(limits(movetime=60), WHITE, 50) == (30, 30)
    assert allocate(limits(movetime=20), WHITE, 50) == (10, 10)
    assert allocate(limits(movetime=1), WHITE, 50) == (0, 0)
    assert allocate(limits(movetime=-5), WHITE, 50) == (0, 0)


@pytest.mark.parametrize("own", [0, -1, -1000, 10, 50])
def test_no_time_left_moves_at_once(own):
    soft, hard = allocate(limits(wtime=own, btime=60000), WHITE, 50)
    assert soft == hard == 0
    tm = TimeManager(limits(wtime=own, btime=60000), WHITE, 50)
    assert tm.hard_expired() and tm.soft_expired()


def test_missing_own_clock_counts_as_zero():
    assert allocate(limits(btime=60000), WHITE, 50) == (0, 0)
    assert allocate(limits(wtime=60000), WHITE, 50)[0] > 0
    assert allocate(limits(wtime=60000), BLACK, 50) == (0, 0)


def test_uses_the_side_to_move_clock():
    lim = limits(wtime=60000, btime=1000, winc=0, binc=0)
    assert allocate(lim, WHITE, 10)[0] > 10 * allocate(lim, BLACK, 10)[0]


def test_sudden_death_spends_a_small_share():
    soft, hard = allocate(limits(wtime=60000, btime=60000), WHITE, 50)
    assert 60000 / 40 < soft < 60000 / 25
    assert soft < hard <= (60000 - 50) * HARD_FRACTION


def test_increment_is_spent():
    without = allocate(limits(wtime=10000, btime=10000), WHITE, 50)[0]
    with_inc = allocate(limits(wtime=10000, btime=10000, winc=1000, binc=1000), WHITE, 50)[0]
    assert with_inc > without + 500


def test_movestogo_divides_the_time():
    soft40, _ = allocate(limits(wtime=40000, movestogo=40), WHITE, 10)
    soft10, _ = allocate(limits(wtime=40000, movestogo=10), WHITE, 10)
    assert 800 < soft40 < 1000
    assert 3500 < soft10 < 4000
    soft1, hard1 = allocate(limits(wtime=1000, movestogo=1), WHITE, 10)
    assert hard1 <= (1000 - 10) * HARD_FRACTION_LAST_MOVE
    assert soft1 <= hard1


@pytest.mark.parametrize("mtg", [MAX_MOVES_TO_GO + 1, 1000, 10 ** 9])
def test_a_huge_movestogo_plans_as_the_longest_control(mtg):
    """A GUI may send any movestogo; past MAX_MOVES_TO_GO the plan is that of
    MAX_MOVES_TO_GO, so a billion moves to go does not shrink a move to nothing."""
    clamped = allocate(limits(wtime=60000, btime=60000, movestogo=MAX_MOVES_TO_GO), WHITE, 50)
    assert allocate(limits(wtime=60000, btime=60000, movestogo=mtg), WHITE, 50) == clamped
    assert clamped[0] > 60000 / MAX_MOVES_TO_GO / 2


@pytest.mark.parametrize("mtg", [1, 2, 3])
def test_few_moves_before_the_control_keep_back_only_their_overheads(mtg):
    """With movestogo, the hard limit keeps back one Move Overhead per move to go: 200 ms
    before the last move of a control still buys a search (Stockfish spends 76 ms), where
    four overheads kept back (50 ms each) would leave nothing."""
    soft, hard = allocate(limits(wtime=200, btime=200, movestogo=mtg), WHITE, 50)
    assert 0 < soft <= hard <= 200 - 50 * mtg
    assert hard >= (20 if mtg < 3 else 1)


def test_movetime_and_clock_together_take_the_smaller():
    soft, hard = allocate(limits(wtime=60000, movetime=100), WHITE, 10)
    assert soft == hard == 90


@pytest.mark.parametrize("remaining", [0, 1, 30, 100, 300, 1000, 5000, 30000, 600000, 10 ** 9])
@pytest.mark.parametrize("inc", [0, 10, 100, 2000])
@pytest.mark.parametrize("mtg", [None, 1, 2, 5, 40, 1000])
@pytest.mark.parametrize("overhead", [0, 10, 50, 1000])
def test_limits_are_sane(remaining, inc, mtg, overhead):
    lim = limits(wtime=remaining, btime=remaining, winc=inc, binc=inc, movestogo=mtg)
    soft, hard = allocate(lim, WHITE, overhead)
    assert 0 <= soft <= hard
    assert hard <= max(remaining - overhead, 0)


def test_hard_expired_is_cheap():
    tm = TimeManager(limits(wtime=60000, btime=60000), WHITE, 10)
    # CPU time, not wall-clock time: other processes on a busy machine do not count
    start = time.process_time()
    for _ in range(100000):
        tm.hard_expired()
    per_call_us = (time.process_time() - start) * 10
    assert per_call_us < 5, "%.2f us per call" % per_call_us


def test_stop_expires_both():
    tm = TimeManager(limits(infinite=True), WHITE, 10)
    assert not tm.hard_expired()
    tm.stop()
    assert tm.hard_expired() and tm.soft_expired()


def test_ponder_has_no_deadline_until_ponderhit():
    tm = TimeManager(limits(ponder=True, wtime=100, btime=100), WHITE, 10)
    assert not tm.has_deadline()
    time.sleep(0.15)                     # longer than the whole clock: still no deadline
    assert not tm.hard_expired()
    before = time.perf_counter()
    tm.ponderhit()
    after = time.perf_counter()
    assert tm.has_deadline()
    assert before <= tm.clock_start <= after    # our clock starts at the ponderhit
    assert tm.hard_deadline == pytest.approx(tm.clock_start + tm.hard_ms / 1000.0)
    assert tm.elapsed_ms() >= 150
    time.sleep((tm.hard_ms + 5) / 1000.0)
    assert tm.hard_expired()


def test_ponder_infinite_stays_infinite_after_ponderhit():
    tm = TimeManager(limits(ponder=True, infinite=True), WHITE, 10)
    tm.ponderhit()
    assert not tm.has_deadline()


def test_start_time_counts_time_before_the_search():
    start = time.perf_counter() - 0.2
    tm = TimeManager(limits(movetime=150), WHITE, 0, start=start)
    assert tm.hard_expired() and tm.elapsed_ms() >= 200


def test_scale_soft_leaves_a_fixed_movetime_whole():
    """`go movetime T` is spent in full: no early stop when the best move is stable."""
    tm = TimeManager(limits(movetime=1000), WHITE, 10)
    assert tm.soft_ms == tm.hard_ms == 990
    for factor in (0.5, 0.7, 2.0):
        tm.scale_soft(factor)
        assert tm.soft_ms == tm.hard_ms == 990
        assert tm.soft_deadline == pytest.approx(tm.hard_deadline)


def test_scale_soft():
    tm = TimeManager(limits(wtime=60000, btime=60000), WHITE, 10)
    base = tm.soft_ms
    tm.scale_soft(2.0)
    assert tm.soft_ms == pytest.approx(2 * base)
    tm.scale_soft(2.0)                   # does not compound
    assert tm.soft_ms == pytest.approx(2 * base)
    tm.scale_soft(100.0)
    assert tm.soft_ms == tm.hard_ms
    tm.scale_soft(0.5)
    assert tm.soft_ms == pytest.approx(base / 2)
    assert tm.soft_deadline == pytest.approx(tm.clock_start + tm.soft_ms / 1000.0)


def simulate(base, inc, mtg=None, overhead=50, latency=20, spend="hard", moves=150):
    """Play `moves` moves, each taking the soft or hard limit plus `latency` ms (the time a
    GUI sees beyond what the search measured); the lowest clock reached, in ms."""
    clock = base
    lowest = clock
    to_go = mtg
    for _ in range(moves):
        lim = limits(wtime=clock, btime=clock, winc=inc, binc=inc, movestogo=to_go)
        soft, hard = allocate(lim, WHITE, overhead)
        clock -= (hard if spend == "hard" else soft) + latency
        lowest = min(lowest, clock)
        if clock < 0:
            return clock
        clock += inc
        if mtg:
            to_go -= 1
            if to_go == 0:
                to_go = mtg
                clock += base
    return lowest


@pytest.mark.parametrize("base, inc, mtg", [
    (2000, 50, None), (10000, 100, None), (60000, 600, None), (1000, 100, None),
    (20000, 0, 40), (5000, 0, 10), (60000, 0, 40),
])
def test_simulated_games_never_flag(base, inc, mtg):
    # typical: soft limit and 20 ms of latency (under the 50 ms overhead)
    assert simulate(base, inc, mtg, spend="soft") > 0
    # worst case every move: the full hard limit, latency near the overhead
    assert simulate(base, inc, mtg, spend="hard", latency=40) > 0


def test_sudden_death_without_increment_lasts_long():
    # no increment: the clock can only shrink, but 60 typical moves must fit in 10 s
    assert simulate(10000, 0, None, spend="soft", moves=60) > 0


def test_one_legal_move_with_a_clock_is_capped():
    lim = limits(wtime=60000, btime=60000)
    assert allocate(lim, WHITE, 50)[1] > 10 * ONLY_MOVE_MS
    tm = plan_search(lim, WHITE, 1, 50)
    assert tm.soft_ms <= ONLY_MOVE_MS and tm.hard_ms <= ONLY_MOVE_MS
    assert tm.hard_deadline == pytest.approx(tm.clock_start + tm.hard_ms / 1000.0)
    assert plan_search(limits(wtime=60000, btime=60000), WHITE, 2, 50).hard_ms > 10 * ONLY_MOVE_MS
    # no clock: depth, nodes, movetime and infinite searches are left alone
    assert plan_search(limits(movetime=1000), WHITE, 1, 50).hard_ms == 950
    assert not plan_search(limits(depth=3), WHITE, 1, 50).has_deadline()
    # pondering on one legal move: capped from the ponderhit on
    tm = plan_search(limits(ponder=True, wtime=60000, btime=60000), WHITE, 1, 50)
    assert not tm.has_deadline()
    tm.ponderhit()
    assert tm.hard_ms <= ONLY_MOVE_MS and tm.has_deadline()


@pytest.mark.parametrize("fields", [dict(wtime=0, btime=1000), dict(wtime=-5, btime=1000),
                                    dict(wtime=10, btime=1000, movestogo=1), dict(movetime=0),
                                    dict(movetime=1)])
def test_no_time_at_all_searches_depth_1(fields):
    lim = limits(**fields)
    tm = plan_search(lim, WHITE, 20, 50)
    assert tm.hard_ms == 0 and lim.depth == 1


@pytest.mark.parametrize("fields", [dict(wtime=0, btime=1000, depth=4), dict(movetime=0, ponder=True),
                                    dict(movetime=0, infinite=True), dict(wtime=5000, btime=5000),
                                    dict(movetime=1000)])
def test_depth_1_only_when_nothing_else_says_so(fields):
    lim = limits(**fields)
    plan_search(lim, WHITE, 20, 50)
    assert lim.depth == fields.get("depth")
