"""Time management: how long one `go` may think.

``plan_search(limits, us, legal_count, move_overhead_ms, start)`` makes the TimeManager of
one `go` (and applies the rules that need the position: one legal move, no time at all).
It sets two limits, both measured from the moment our clock starts (the `go`, or the
`ponderhit` of a pondering search): the soft limit (``soft_ms``), which the search asks
between iterations (``soft_expired()``), and the hard limit (``hard_ms``), which it asks
every few hundred nodes (``hard_expired()``, one attribute test and one clock read).
``allocate`` says how they are chosen.

For the search (all cheap, all safe to call from the search thread): ``elapsed_ms()`` (ms
since the `go`, what `info time` shows), ``clock_ms()`` (ms since our clock started),
``hard_expired()`` / ``soft_expired()`` (both True once ``stop()`` was called),
``scale_soft(factor)`` (the soft limit times factor, e.g. 1.5 while the best move keeps
changing; calls do not compound; a `go movetime` without a clock is not scaled: it is
spent in full, as in Stockfish), ``has_deadline()`` (False for infinite, ponder until
ponderhit, and depth/nodes/mate-only searches).

For the front end: ``start=`` (the perf_counter() time the `go` line was read, so time
spent before the search starts is counted), ``stop()`` (both limits expire, even before
the search has started) and ``ponderhit()`` (our clock starts now).
"""

import os
import time

from engine.tunables import apply_overrides

# Sudden death: plan as if this many moves remain (keeps ~3% of the clock per move).
SUDDEN_DEATH_MOVES = 32
# With less time than the reserved overheads, still plan with this share of the clock.
MIN_SHARE = 0.25
# The hard limit is this many times the soft limit ...
HARD_RATIO = 4.0
# ... but never more than this fraction of the time left (after the overhead) ...
HARD_FRACTION = 1.0 / 3.0
# ... except just before a movestogo control, where up to this much of it may go.
HARD_FRACTION_LAST_MOVE = 0.8
# ... of the time left after this many move overheads in sudden death, or one per move to
# go with movestogo (so a search that keeps hitting its hard limit, with per-move lag near
# the overhead, still reaches the time control; before its last move only that move's).
HARD_RESERVE_OVERHEADS = 4
# movestogo beyond this is treated as this (keeps huge values from starving a move).
MAX_MOVES_TO_GO = 50
# With one legal move and a clock running, think at most this long (the search still
# gives the GUI a score and a ponder move).
ONLY_MOVE_MS = 50

_INF = float("inf")

# BASILISK_TIME overrides the constants above at import (``SUDDEN_DEATH_MOVES=24``), for
# A/B matches at a clock.
apply_overrides(globals(), os.environ.get("BASILISK_TIME", ""), "time tunable")


class Limits:
    """The parameters of one `go` command (None = not given)."""

    def __init__(self):
        self.wtime = self.btime = self.winc = self.binc = self.movestogo = None
        self.depth = self.nodes = self.mate = self.movetime = None
        self.infinite = False
        self.ponder = False
        self.searchmoves = []   # move ints; empty = all moves
        self.perft = None

    def uses_clock(self):
        """Was any clock (wtime/btime) given?"""
        return self.wtime is not None or self.btime is not None

    def __repr__(self):
        fields = ", ".join("%s=%r" % (k, v) for k, v in sorted(vars(self).items())
                           if v not in (None, False, []))
        return "Limits(%s)" % fields


def allocate(limits, us, move_overhead_ms=10):
    """(soft_ms, hard_ms) for a search; (inf, inf) when nothing limits the time.

    All figures in ms, ``overhead`` = the Move Overhead option:

    - ``movetime T``: soft = hard = T - overhead, but at least T / 2, so a budget below
      two overheads (python-chess's ``Limit(time=0.05)``) still searches for half of it.
    - clock (wtime/btime given): plan for ``mtg`` more moves (``movestogo``, or
      ``SUDDEN_DEATH_MOVES`` without it).  As Stockfish does, the time for them is our
      time plus the increments still to come, less the overhead of every one of those
      moves: ``time_left = time + inc * (mtg - 1) - overhead * (2 + mtg)`` (but at least
      ``MIN_SHARE`` of what is left after one overhead, so a short clock still searches a
      little), and the soft limit is ``time_left / mtg``.  The overhead is charged per
      move because each move really costs it (GUI, pipes, process switches), so the
      clock settles well above zero in increment games instead of drifting down to it.
      The hard limit is ``HARD_RATIO`` times the soft limit, but at most a fraction
      (``HARD_FRACTION``; more when few moves remain before a movestogo control) of the
      time left after ``HARD_RESERVE_OVERHEADS`` overheads (with movestogo: one per move
      to go); below that, both limits are 0.  A missing own clock while the opponent's is
      given counts as 0, as in Stockfish.
    - zero, negative or tiny time: both limits are 0 and the search stops at its first
      check, returning the best move it has (``plan_search`` makes that a depth-1 search).
    - several limits together (e.g. movetime and wtime): the smaller deadline wins.
    """
    soft = hard = _INF
    overhead = max(move_overhead_ms or 0, 0)
    if limits.uses_clock():
        own = limits.wtime if us == 0 else limits.btime
        inc = limits.winc if us == 0 else limits.binc
        remaining = max(own or 0, 0)
        inc = max(inc or 0, 0)
        avail = remaining - overhead
        if avail <= 0:
            soft = hard = 0.0
        else:
            mtg = limits.movestogo
            if mtg is not None and mtg > 0:
                mtg = min(mtg, MAX_MOVES_TO_GO)
                fraction = HARD_FRACTION_LAST_MOVE if mtg == 1 else max(
                    HARD_FRACTION, min(HARD_FRACTION_LAST_MOVE, 1.5 / mtg))
                reserve = mtg
            else:
                mtg = SUDDEN_DEATH_MOVES
                fraction = HARD_FRACTION
                reserve = HARD_RESERVE_OVERHEADS
            time_left = remaining + inc * (mtg - 1) - overhead * (2 + mtg)
            time_left = max(time_left, avail * MIN_SHARE)
            soft = time_left / mtg
            hard = min(soft * HARD_RATIO,
                       max(remaining - overhead * reserve, 0) * fraction)
            # with a big increment and little time left the soft limit could pass the hard one
            soft = min(soft, hard)
    if limits.movetime is not None:
        fixed = max(limits.movetime - overhead, limits.movetime // 2, 0)
        soft = min(soft, fixed)
        hard = min(hard, fixed)
    return soft, hard


class TimeManager:
    """The clock of one `go`; see the module docstring."""

    def __init__(self, limits, us, move_overhead_ms=10, start=None):
        # start: the perf_counter() time the `go` arrived, when known (the clock runs from there)
        self.start = time.perf_counter() if start is None else start
        self.limits = limits
        self.soft_ms, self.hard_ms = allocate(limits, us, move_overhead_ms)
        self.base_soft_ms = self.soft_ms
        self.stopped = False
        self.pondering = bool(limits.ponder)
        self.clock_start = self.start
        if self.pondering or limits.infinite:
            # no deadline until ponderhit (infinite: until stop)
            self.soft_deadline = self.hard_deadline = _INF
        else:
            self._set_deadlines()

    def _set_deadlines(self):
        self.soft_deadline = self.clock_start + self.soft_ms / 1000.0
        self.hard_deadline = self.clock_start + self.hard_ms / 1000.0

    def elapsed_ms(self):
        """Milliseconds since the `go`."""
        return (time.perf_counter() - self.start) * 1000.0

    def clock_ms(self):
        """Milliseconds since our clock started (the ponderhit, for a pondering search)."""
        return (time.perf_counter() - self.clock_start) * 1000.0

    def hard_expired(self):
        return self.stopped or time.perf_counter() >= self.hard_deadline

    def soft_expired(self):
        return self.stopped or time.perf_counter() >= self.soft_deadline

    def has_deadline(self):
        return self.hard_deadline != _INF

    def scale_soft(self, factor):
        """Set the soft limit to factor x its base value (never past the hard limit); a
        fixed movetime (no clock) keeps its soft limit equal to the hard one."""
        if not self.limits.uses_clock():
            return
        self.soft_ms = min(self.base_soft_ms * max(factor, 0.0), self.hard_ms)
        if self.soft_deadline != _INF:
            self.soft_deadline = self.clock_start + self.soft_ms / 1000.0

    def cap(self, ms):
        """Think at most ms (both limits), e.g. when there is only one legal move."""
        self.hard_ms = min(self.hard_ms, ms)
        self.soft_ms = min(self.soft_ms, ms)
        self.base_soft_ms = min(self.base_soft_ms, ms)
        if self.hard_deadline != _INF:
            self._set_deadlines()

    def stop(self):
        """Make both limits expire now (the UCI `stop`, `quit`, or a mate found)."""
        self.stopped = True

    def ponderhit(self):
        """The pondered move was played: our clock starts now and the limits apply."""
        if not self.pondering:
            return
        self.pondering = False
        self.clock_start = time.perf_counter()
        if not self.limits.infinite:
            self._set_deadlines()


def plan_search(limits, us, legal_count, move_overhead_ms=10, start=None):
    """The TimeManager of one `go` with ``legal_count`` legal root moves (within searchmoves).

    On top of ``allocate``: with one legal move and a clock, think at most ONLY_MOVE_MS;
    with no time at all (a hard limit of 0, not pondering, not infinite, no depth given),
    ``limits.depth`` is set to 1, since a depth-1 search ends before the search's first
    clock check and still beats whatever move an aborted search has at hand.
    """
    timeman = TimeManager(limits, us, move_overhead_ms, start=start)
    if legal_count == 1 and limits.uses_clock():
        timeman.cap(ONLY_MOVE_MS)
    if timeman.hard_ms == 0 and not (limits.ponder or limits.infinite) and not limits.depth:
        limits.depth = 1
    return timeman
