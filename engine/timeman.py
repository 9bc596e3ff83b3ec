"""Time management (stub interface; to be made real).

A TimeManager is made per `go`.  The search calls ``hard_expired()`` often (cheap) and
``soft_expired()`` between iterations.  Deadlines are absolute perf_counter() times.
"""

import time


class Limits:
    """The parameters of one `go` command (None = not given)."""

    def __init__(self):
        self.wtime = self.btime = self.winc = self.binc = self.movestogo = None
        self.depth = self.nodes = self.mate = self.movetime = None
        self.infinite = False
        self.ponder = False
        self.searchmoves = []   # move ints; empty = all moves
        self.perft = None


class TimeManager:
    def __init__(self, limits, us, move_overhead_ms=10, ply=0):
        self.start = time.perf_counter()
        self.limits = limits
        self.soft_deadline = self.hard_deadline = float("inf")
        if limits.movetime is not None:
            self.soft_deadline = self.hard_deadline = self.start + max(limits.movetime - move_overhead_ms, 1) / 1000.0

    def elapsed_ms(self):
        return (time.perf_counter() - self.start) * 1000.0

    def hard_expired(self):
        return time.perf_counter() >= self.hard_deadline

    def soft_expired(self):
        return time.perf_counter() >= self.soft_deadline

    def ponderhit(self):
        pass
