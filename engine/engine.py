"""The engine facade: what a front end (the UCI loop, the command line) drives.

``Engine`` owns the state that outlives a position: the Searcher (hash table, histories)
and the one job that runs in a worker thread -- a search, a perft or the benchmark.  Its
methods are called from the front end's thread; results come back through callbacks,
called in the worker thread, as move ints (0 = none) and engine.search's report dicts:
formatting them is the front end's business, and every pv, best and ponder move it
passes on is legal.  Searcher changes asked for while a job runs wait for its end: they
apply at the next `isready` or `go` (asked for while no job runs, at once).

    engine = Engine(hash_mb=16)
    legal = root_moves(pos)
    engine.go(pos, limits, plan_search(limits, pos.turn, len(legal)), legal,
              on_info=print, on_bestmove=lambda best, ponder: print(best))
    engine.wait_idle()          # or stop(), ponderhit(), stop_and_wait("go") ...

A ``strength`` level (engine.skill; None: full strength) weakens a `go` for people to
play against: the GUI sees the search's normal lines, and the bestmove is the level's
choice among MULTIPV candidates.
The opening book (``set_book``, ``book_move``) is consulted by the front end before it
starts a search; the Engine only keeps it and draws its moves.
``run_bench`` is the benchmark that both the UCI `bench` and ``basilisk bench`` print.
On PyPy, ``warm_up()`` (the UCI front end calls it after each command until the first
search) runs a short silent search with a Searcher of its own so the JIT has compiled the
search before the first `go`; every other job, searcher change and ``end_warm_up()`` ends it
at once, and the next ``warm_up()`` resumes it, until the first real job ends it for good.
The module also hands the front end the board functions it needs (see ``__all__``):
importing it is the one expensive import (the tables take ~100 ms to build).
"""

import gc
import queue
import random
import sys
import threading
import time

from engine.book import Book, BookError, pick
from engine.evaluate import evaluate, evaluate_terms
from engine.movegen import generate_moves
from engine.nnue import PROBLEM as NETWORK_PROBLEM
from engine.notation import move_to_uci, parse_uci_move
from engine.perft import divide
from engine.position import Position, FenError, STARTING_FEN
from engine.search import Searcher, NoDeadline, BENCH_DEPTH, BENCH_POSITIONS
from engine.search import WARM_UP, WARM_UP_HASH_MB, warm_up as warm_up_search
from engine.search import run_bench as search_bench
from engine.skill import SkillPlan, strength_level
from engine.streams import wait_in_slices
from engine.zobrist import polyglot_key

__all__ = [
    "Engine", "run_bench", "root_moves", "legal_prefix", "BENCH_DEPTH", "BENCH_MAX_DEPTH",
    "BookError", "strength_level", "NETWORK_PROBLEM",
    # the board, for front ends that reach it only through this module
    "Position", "FenError", "STARTING_FEN", "generate_moves", "move_to_uci",
    "parse_uci_move", "evaluate", "evaluate_terms", "polyglot_key",
]

STOP_JOIN_SECONDS = 10.0        # how long a new job waits for a stopped one to end
BENCH_HASH_MB = 16              # the hash of each bench position's fresh Searcher
BENCH_MAX_DEPTH = 64            # `bench N` takes N in 1..this
_PYPY = sys.implementation.name == "pypy"


def _print_error(message):
    sys.stderr.write("error: %s\n" % message)


def _print_exception(what, exc):
    import traceback    # only when something went wrong
    sys.stderr.write("%s:\n" % what)
    traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)


def legal_prefix(pos, moves):
    """The longest prefix of moves that is legal from pos (pos is restored)."""
    out = []
    try:
        for move in moves:
            if move not in generate_moves(pos):
                break
            pos.make(move)
            out.append(move)
    finally:
        for _ in out:
            pos.unmake()
    return out


def root_moves(pos, searchmoves=()):
    """The legal moves of pos, only those in searchmoves when it is not empty."""
    legal = generate_moves(pos)
    if searchmoves:
        legal = [m for m in legal if m in searchmoves]
    return legal


# ---------------------------------------------------------------------- the facade
class Engine:
    """The Searcher and the worker-thread job of one front end; see the module docstring.

    ``on_error(message)`` receives problems worth telling the user; ``on_exception(what,
    exc)`` an exception a job or the search raised (both may be called from any thread).
    """

    def __init__(self, hash_mb=16, on_error=None, on_exception=None):
        self.searcher = Searcher(hash_mb=hash_mb)
        self.worker = Worker()
        self.on_error = on_error or _print_error
        self.on_exception = on_exception or _print_exception
        self.job = None
        self.pending = []               # searcher calls deferred until no job runs
        self.book = None                # the opening book, once set_book() loaded one
        self.book_rng = random.Random()
        self.skill_rng = random.Random()     # a weakened go's choice (seed it to replay one)
        # what the PyPy warm-up has still to search; emptied for good by the first real job
        self.warm_fens = list(BENCH_POSITIONS) if WARM_UP else []
        self.threads = 1
        self.pool = None                # the Lazy SMP helpers while Threads > 1
        # Threads and Hash as last asked for: both applied together once no job runs
        self.wanted = {"threads": 1, "mb": hash_mb}

    # -------------------------------------------------------------- searcher state
    def busy(self):
        """Is a job still working (not merely sending its last line)?  A warm-up is not."""
        job = self.job
        return job is not None and not job.done and job.alive() and not job.silent

    def _when_idle(self, call, *args):
        """call(*args) now, after what the last job deferred; during a job, once it has
        ended (queued once: a call already queued runs in its place in the queue)."""
        self.end_warm_up()
        if self.busy():
            if (call, args) not in self.pending:
                self.pending.append((call, args))
            return
        queued = (call, args) in self.pending
        if self.settle() and queued:
            return
        call(*args)

    def settle(self):
        """Apply the calls deferred while a job ran (Threads, Hash, Clear Hash, ucinewgame)
        once that job has ended (`isready` asks this, so the next search starts set up);
        True when it has (or nothing waits), False while a job still works or winds down."""
        if not self.pending:
            return True                 # (a running PyPy warm-up is left alone)
        self.end_warm_up()
        if self.busy():
            return False
        job = self.job
        if job is not None and job.alive() and not job.join(STOP_JOIN_SECONDS):
            return False                # its bestmove is out; it is still winding down
        pending, self.pending = self.pending, []
        for call, args in pending:
            call(*args)
        return True

    def set_hash(self, mb):
        """Resize the transposition table (after the running job, if any)."""
        self.wanted["mb"] = mb
        self._configure_when_idle()

    def set_threads(self, threads):
        """Search with threads processes from now on (after the running job, if any)."""
        self.wanted["threads"] = threads
        self._configure_when_idle()

    def _configure_when_idle(self):
        """Threads and Hash as last asked for, applied together once no job runs (queued
        once: a change of one during a search does not undo a change of the other)."""
        self._when_idle(self._configure_wanted)

    def _configure_wanted(self):
        self._configure(self.wanted["threads"], self.wanted["mb"])

    def _configure(self, threads, mb):
        """Threads 1: the Searcher's own table, as ever; more: a HelperPool and its
        shared table of mb MB in total."""
        pool = self.pool
        if pool is not None and threads == self.threads and mb == pool.hash_mb:
            return
        self.threads = threads
        if pool is not None:
            self.pool = None
            pool.close()
        if threads > 1:
            try:
                # engine.smp (multiprocessing) is imported only here: at start-up it cost
                # PyPy about 100 ms and CPython about 30 of the facade's load
                from engine.smp import HelperPool
                self.pool = HelperPool(threads - 1, mb, on_error=self.on_error)
            except (OSError, ValueError, ImportError) as exc:
                self.on_error("Threads %d: cannot start helper processes (%s); searching "
                              "with one" % (threads, exc))
                self.threads = self.wanted["threads"] = 1  # not tried again at each Hash change
        if self.pool is not None:
            self.searcher.set_table(self.pool.table)
            self.searcher.orderer.clear()
        else:
            self.searcher.set_hash(mb)
        _collect_garbage()

    def clear_hash(self):
        """Empty the hash table; the Searcher forgets its move-ordering histories too."""
        self._when_idle(self._clear)

    def new_game(self):
        """Forget everything learnt: the next search starts fresh."""
        self._when_idle(self._clear)

    def _clear(self):
        self.searcher.clear()
        if self.pool is not None:
            self.pool.clear_histories()
        _collect_garbage()

    def wait_ready(self, timeout):
        """Wait (at most timeout seconds, and only while idle) for the helper processes
        to be able to search; True when they are (or there are none)."""
        if self.pool is None or self.busy():
            return True
        return self.pool.wait_ready(timeout)

    def abandon(self):
        """The process is about to end without waiting for a job that would not stop: the
        shared block of Threads > 1 is unlinked now (its helpers end with our pipes)."""
        pool = self.pool
        if pool is not None:
            try:
                pool.unlink()
            except OSError:         # (already gone: a close() under way beat us to it)
                pass

    def close(self):
        """End the helper processes, if any (quit); the Engine can still search alone."""
        self.stop_and_wait()
        pool, self.pool = self.pool, None
        if pool is not None:
            pool.close()
            self.threads = 1
            self.searcher.set_hash(self.searcher.hash_mb)

    # -------------------------------------------------------------- opening book
    def set_book(self, path):
        """Use the Polyglot book at path from now on ('' or None: none).

        Raises BookError (and then has no book) if the file cannot be used.
        """
        self.book = None
        if path:
            self.book = Book(path)

    def book_move(self, pos, legal, best_only=False):
        """(move, weight, total) from the book for pos, None if the book has no move here.

        The move is drawn by weight (or is the highest-weight one if best_only) among the
        book moves in ``legal`` (the root moves within searchmoves); move is 0, and total
        the weights of all the book's moves, when none of them is in legal.
        """
        if self.book is None:
            return None
        candidates = self.book.candidates(pos)
        if not candidates:
            return None
        allowed = [(move, weight) for move, weight in candidates if move in legal]
        if not allowed:
            return 0, 0, sum(weight for _, weight in candidates)
        return pick(allowed, self.book_rng, best_only)

    # -------------------------------------------------------------- jobs
    def warm_up(self):
        """On PyPy, until the first real job: start or resume the silent warm-up search (see
        WarmUpJob) unless a job runs or nothing is left to warm; True if started."""
        if not WARM_UP or not self.warm_fens or (self.job is not None and self.job.alive()):
            return False
        self.job = WarmUpJob(self)
        self.job.start()
        return True

    def _start(self, job):
        """Run a search, perft or bench in the worker thread (True); once one has run there
        is no more warm-up."""
        self.warm_fens = []
        self.job = job
        job.start()
        return True

    def end_warm_up(self):
        """Stop the warm-up, if it runs, and wait for it (within CHECK_INTERVAL nodes)."""
        job = self.job
        if job is not None and job.silent:
            job.stop()
            job.join(STOP_JOIN_SECONDS)

    def stop(self):
        """Tell the job to stop, if there is one (safe from any thread)."""
        job = self.job
        if job is not None:
            job.stop()

    def stop_for_quit(self):
        """`quit` or end of input: stop a search (or the warm-up) at once; a count (`go
        perft`, `bench`) runs to its end, as Stockfish's do, so a piped one prints its total.
        True if such a count is left running (safe from any thread)."""
        job = self.job
        if job is None:
            return False
        if job.finishes_at_quit and job.alive():
            return True
        job.stop()
        return False

    def ponderhit(self):
        """The pondered move was played; False if no search was pondering."""
        job = self.job
        return job is not None and not job.done and job.alive() and job.ponderhit()

    def stop_and_wait(self, why=None, timeout=STOP_JOIN_SECONDS):
        """Make sure no job runs: a job still working is stopped, then waited for.

        ``why`` names what needs the engine (e.g. "go"): when given, stopping a job that
        had not already been told to stop is reported to on_error.  False if the job
        would not end within ``timeout`` seconds.
        """
        self.end_warm_up()
        job = self.job
        if job is None or not job.alive():
            return True
        if job.done:
            job.join(timeout)
            return True
        if why and not job.stop_event.is_set():
            # after a `stop` the job is merely winding down: wait quietly, as Stockfish does
            self.on_error("%s while %s is running: stopping it first" % (why, job.kind))
        job.stop()
        if not job.join(timeout):
            self.on_error("the running %s did not stop" % job.kind)
            return False
        return True

    def let_bounded_job_finish(self):
        """Wait for a running job that ends by itself (a search with a clock, movetime, depth
        or nodes, a perft, the bench), as Stockfish's `go` waits for the search before it:
        piped commands then each get their whole search.  A search that waits for `stop`
        or `ponderhit` (infinite, ponder, mate alone) is left to stop_and_wait, which stops
        it (Stockfish would wait for ever).  `quit` still stops it (from the input thread)."""
        self.end_warm_up()
        job = self.job
        if (job is not None and job.alive() and not job.done and not job.stop_event.is_set()
                and job.ends_by_itself()):
            job.join()

    def wait_idle(self, timeout=None):
        """Wait for the job to end, without stopping it; False if it is still running."""
        job = self.job
        return job is None or job.join(timeout)

    def go(self, pos, limits, timeman, legal, multipv=1, chess960=False, on_info=None,
           on_bestmove=None, strength=None):
        """Search pos (the job keeps it) in the worker thread.

        ``legal``: the legal root moves (within searchmoves); ``on_info(info)`` gets each
        report; ``on_bestmove(best, ponder)`` is called exactly once, at the end (for `go
        infinite` and an unanswered `go ponder` only after stop/ponderhit), with a legal
        move, or 0 when there is none.  ``chess960`` only affects error messages.
        ``strength``: a level from engine.skill.strength_level, None for full strength.
        A job still running is stopped first (quietly: ``stop_and_wait(why)`` reports it);
        False, and nothing started, if it would not stop.
        """
        if not self.stop_and_wait():
            return False
        self.settle()                   # the job has ended: what it deferred applies now
        skill = SkillPlan(strength) if strength is not None else None
        return self._start(SearchJob(self, pos, limits, timeman, legal, multipv, chess960,
                                     on_info, on_bestmove, skill))

    def perft(self, pos, depth, on_count=None, on_done=None):
        """Count the leaves below each root move of pos in the worker thread.

        ``on_count(move, count)`` for each root move, then ``on_done(total, seconds,
        stopped)``; ``stop()`` ends it after the current root move (total is then None).
        False if a running job would not stop.
        """
        if not self.stop_and_wait():
            return False
        return self._start(PerftJob(self, pos, depth, on_count, on_done))

    def bench(self, depth=None, on_done=None, progress=None):
        """``run_bench`` in the worker thread; ``on_done(lines)``, lines None if stopped.

        False if a running job would not stop.
        """
        if not self.stop_and_wait():
            return False
        return self._start(BenchJob(self, depth, on_done, progress))


def _collect_garbage():
    """Under PyPy, free the tables a clear or resize has just dropped: its collector runs a
    full collection only as the program allocates, which the search hardly does, so
    without this an engine grew by some 20 MB each `ucinewgame` (2.4 GB over a 77-minute
    match; scripts/bench_memory.py --games).  About 35 ms there; CPython frees them at once."""
    if _PYPY:
        gc.collect()


# ---------------------------------------------------------------------- jobs
class Worker:
    """The one thread an Engine's jobs run in, one after another, for the life of the process.

    Not a thread per job: under PyPy 7.3 an ended thread's stack is freed only by a full
    collection, which a search that hardly allocates seldom causes (a thread a `go` held
    about 0.5 MB more after each search).
    """

    def __init__(self):
        self._jobs = queue.Queue()
        self._thread = None
        self._lock = threading.Lock()

    def submit(self, job):
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name="basilisk-worker",
                                                daemon=True)
                self._thread.start()
        self._jobs.put(job)

    def _serve(self):
        while True:
            self._jobs.get()._guarded_run()


class Job:
    """Work run in the worker thread: a search, a perft or the bench."""

    kind = "job"
    done = False            # set just before the last result goes out (the run then ends)
    silent = False          # a warm-up: no output, and nothing waits for it to end
    finishes_at_quit = False    # a count: `quit` waits for its result (Engine.stop_for_quit)

    def __init__(self, engine):
        self.engine = engine
        self.stop_event = threading.Event()
        self.started = False
        self.finished = threading.Event()

    def start(self):
        self.started = True
        self.engine.worker.submit(self)

    def alive(self):
        """Started (queued or running) and not yet ended."""
        return self.started and not self.finished.is_set()

    def join(self, timeout=None):
        return not self.started or wait_in_slices(self.finished, timeout)

    def stop(self):
        self.stop_event.set()

    def ponderhit(self):
        return False

    def ends_by_itself(self):
        """Does the job end without a `stop` (see Engine.let_bounded_job_finish)?"""
        return True

    def _guarded_run(self):
        try:
            self.run()
        except BaseException as exc:
            self.engine.on_exception("%s failed" % self.kind, exc)
            self.failed()
        finally:
            self.done = True
            self.finished.set()

    def run(self):
        raise NotImplementedError

    def failed(self):
        pass


class SearchJob(Job):
    """One `go`: runs the search, then gives the best move (after stop/ponderhit if it must wait)."""

    kind = "search"

    def __init__(self, engine, pos, limits, timeman, legal, multipv, chess960, on_info,
                 on_bestmove, skill=None):
        super().__init__(engine)
        self.pos = pos
        self.limits = limits
        self.timeman = timeman
        self.legal = legal                 # legal root moves (within searchmoves)
        self.multipv = multipv
        self.skill = skill                 # a SkillPlan, None for full strength
        self.chess960 = chess960
        self.on_info = on_info or (lambda info: None)
        self.on_bestmove = on_bestmove or (lambda best, ponder: None)
        self.root = pos.copy()             # for checking pv lines and the best move
        self.searcher = engine.searcher
        # Lazy SMP helpers join a full-strength search without a node limit (a `go nodes`
        # stays one process's fixed amount of work, and its count reproducible)
        self.pool = engine.pool if skill is None and not limits.nodes else None
        self.last_line = None               # the main search's last complete first line
        self.cond = threading.Condition()
        self.stopped = False
        self.pondering = bool(limits.ponder)
        self.bestmove_sent = False
        self.result = (0, 0)

    def stop(self):
        with self.cond:
            self.stopped = True
            self.timeman.stop()
            self.searcher.stop()
            if self.pool is not None:
                self.pool.stop()
            self.cond.notify_all()
        super().stop()

    def ends_by_itself(self):
        limits = self.limits
        return not (self.pondering or limits.infinite) and bool(
            self.timeman.has_deadline() or limits.depth or limits.nodes)

    def ponderhit(self):
        with self.cond:
            if not self.pondering:
                return False
            self.pondering = False
            # the search reads limits.ponder at each iteration's end: from now on a proven
            # mate ends it there, as in a search that never pondered (Stockfish's ponder flag)
            self.limits.ponder = False
            self.timeman.ponderhit()
            self.cond.notify_all()
        return True

    def report(self, info):
        if self.pool is not None:       # the nodes of every process, as Stockfish counts
            if self.pool.waiting:
                self.pool.join_late()
            nodes = info["nodes"] + self.pool.helper_nodes()
            info = dict(info, nodes=nodes, nps=nodes * 1000 // max(info["time"], 1))
            if (not info["bound"] and info["multipv"] == 1 and info.get("pv")
                    and not info.get("final")):     # a complete iteration's line
                self.last_line = info
        if info.get("pv"):
            # a GUI rejects a line with an illegal move: pass on only its legal prefix
            info = dict(info, pv=legal_prefix(self.root, list(info["pv"])))
        self.on_info(info)
        limits = self.limits
        mate = info.get("mate")
        if (limits.mate and mate is not None and 0 < mate <= limits.mate
                and not info.get("bound")):
            # `go mate N`: found one, so stop (bestmove still waits for stop if infinite)
            self.timeman.stop()
            self.searcher.stop()

    def run(self):
        best = ponder = 0
        pool = self.pool
        try:
            if self.legal and self.skill is None:
                if pool is not None:
                    pool.start(self.pos, self.limits.searchmoves)
                best, ponder = self.searcher.search(self.pos, self.limits, self.timeman,
                                                    report=self.report, multipv=self.multipv)
            elif self.legal:
                best, ponder = self.weakened_search()
        except Exception as exc:
            self.engine.on_exception("search failed", exc)
        finally:
            if pool is not None:
                # the helpers' last lines vote, those that come at once: the bestmove waits
                # no longer (engine.smp.STOP_GRACE_SECONDS); the rest are waited for after it
                pool.stop()
                pool.collect()
        if pool is not None and pool.lines and self.multipv == 1 and not self.limits.depth:
            best, ponder = self.vote(best, ponder, pool)    # (Stockfish: not for `go depth`)
        if best and not ponder:
            ponder = self.table_ponder(best)
        self.result = (best, ponder)
        self.finish()       # a helper still ending its search is left to pool.start

    def table_ponder(self, best):
        """A ponder move for a line played that ends at its first move (a cut or shallow
        search): the table's reply, as Stockfish gives one; 0 if none."""
        try:
            return self.searcher.ponder_move(self.pos, best)
        except Exception as exc:
            self.engine.on_exception("ponder move failed", exc)
            return 0

    def vote(self, best, ponder, pool):
        """(best, ponder) from the line the processes vote for (engine.smp.pick_line); a
        helper's line is shown before it is played.  The main search's move stands when
        its last iteration was cut short with another move (it has no complete line)."""
        from engine import smp      # loaded with the pool (Engine._configure)
        main = self.last_line
        if not smp.USE_VOTE or main is None or main["pv"][0] != best:
            return best, ponder
        lines = [main] + [line for line in pool.lines
                          if line.get("pv") and line["pv"][0] in self.legal]
        chosen = smp.pick_line(lines)
        if chosen is main:
            return best, ponder
        shown = {key: value for key, value in main.items() if key not in ("score", "mate")}
        shown.update(chosen)
        self.report_played(shown, self.searcher.nodes)
        pv = chosen["pv"]
        return pv[0], (pv[1] if len(pv) > 1 else 0)

    def report_played(self, line, nodes):
        """Show ``line``, played though the search ended on another, as the last line, with
        what the whole search cost (``nodes``)."""
        elapsed = max(self.timeman.elapsed_ms(), 1.0)
        self.report(dict(line, multipv=1, nodes=nodes, time=int(elapsed),
                         nps=int(nodes * 1000 / elapsed)))

    def weakened_search(self):
        """The skill level's search and choice: (best, ponder).

        The search looks at more lines than the GUI asked for; the GUI is shown only the
        ones it asked for and, with MultiPV 1, the chosen line last if it is another.
        """
        plan = self.skill
        picker = plan.picker(len(self.legal), self.multipv)
        shown = self.multipv

        def report(info):
            picker.add(info)
            # a cut iteration's closing lines lead with the full-strength move: not shown,
            # so the last line the GUI sees is the one played
            if info.get("multipv", 1) <= shown and not info.get("final"):
                self.report(info)

        best, ponder = self.searcher.search(self.pos, plan.limits(self.limits), self.timeman,
                                            report=report, multipv=plan.multipv(shown))
        line = picker.choose(self.engine.skill_rng)
        if line is not None:
            if shown == 1 and line is not picker.complete[0]:
                self.report_played(line, self.searcher.nodes)
            pv = line["pv"]
            best, ponder = pv[0], (pv[1] if len(pv) > 1 else 0)
        return best, ponder

    def think_pause(self):
        """With a clock, wait (until stop) for the level's minimum think time on our clock
        (which a pondering search starts at ponderhit)."""
        timeman = self.timeman
        if timeman.stopped or not timeman.has_deadline():
            return
        deadline = (time.perf_counter()
                    + (self.skill.think_ms(timeman.soft_ms) - timeman.clock_ms()) / 1000.0)
        with self.cond:
            while not self.stopped:
                left = deadline - time.perf_counter()
                if left <= 0:
                    break
                self.cond.wait(left)

    def failed(self):
        if not self.bestmove_sent:
            self.finish()

    def finish(self):
        # `go infinite` and an unanswered `go ponder` hold bestmove until stop/ponderhit
        with self.cond:
            while not self.stopped and (self.limits.infinite or self.pondering):
                self.cond.wait()
        if self.skill is not None:
            # a weak level's quick search does not answer at once, also after a ponderhit
            self.think_pause()
        if self.bestmove_sent:
            return
        self.bestmove_sent = True
        best, ponder = self.checked_result()
        self.done = True
        self.on_bestmove(best, ponder)

    def checked_result(self):
        """(best, ponder) with best a legal root move (0 if none) and ponder legal after it."""
        best, ponder = self.result
        if not self.legal:
            return 0, 0
        if best not in self.legal:
            if best:
                self.engine.on_error("search returned the illegal move %s; playing %s instead"
                                     % (move_to_uci(best, self.chess960),
                                        move_to_uci(self.legal[0], self.chess960)))
            best, ponder = self.legal[0], 0
        if ponder:
            self.root.make(best)
            try:
                if ponder not in generate_moves(self.root):
                    ponder = 0
            finally:
                self.root.unmake()
        return best, ponder


class PerftJob(Job):
    """`go perft N`: the count below each root move, then the total."""

    kind = "perft"
    finishes_at_quit = True

    def __init__(self, engine, pos, depth, on_count, on_done):
        super().__init__(engine)
        self.pos = pos
        self.depth = depth
        self.on_count = on_count
        self.on_done = on_done or (lambda total, seconds, stopped: None)

    def run(self):
        start = time.perf_counter()
        counts = divide(self.pos, self.depth, stop=self.stop_event.is_set, report=self.on_count)
        elapsed = time.perf_counter() - start
        self.done = True
        if counts is None:
            self.on_done(None, elapsed, True)
        else:
            self.on_done(sum(count for _, count in counts), elapsed, False)


class BenchJob(Job):
    """The benchmark in the worker thread (`stop` ends it within CHECK_INTERVAL nodes)."""

    kind = "bench"
    finishes_at_quit = True

    def __init__(self, engine, depth, on_done, progress):
        super().__init__(engine)
        self.depth = depth
        self.on_done = on_done or (lambda lines: None)
        self.progress = progress

    def run(self):
        lines = run_bench(self.depth, progress=self.progress, stop_event=self.stop_event)
        self.done = True
        self.on_done(lines)


class WarmUpJob(Job):
    """PyPy's JIT warm-up: WARM_UP_NODES on each bench position not yet warmed, with a small
    Searcher of its own (the engine's Searcher, position and output are never touched)."""

    kind = "warm-up"
    silent = True

    def __init__(self, engine):
        super().__init__(engine)
        self.searcher = Searcher(hash_mb=WARM_UP_HASH_MB)
        self.nodes = 0

    def run(self):
        warm_fens = self.engine.warm_fens

        def done(fen):              # a resumed warm-up skips it
            if fen in warm_fens:
                warm_fens.remove(fen)

        try:
            self.nodes = warm_up_search(self.searcher, warm_fens,
                                        NoDeadline(self.stop_event.is_set), done)
        except Exception as exc:
            # never on stdout: the GUI did not ask for this search
            _print_exception("warm-up failed", exc)
        self.done = True


# ---------------------------------------------------------------------- bench
class _BenchStopped(Exception):
    pass


def run_bench(depth=None, progress=None, stop_event=None):
    """engine.search.run_bench at ``depth`` (default: the search's BENCH_DEPTH) as
    Stockfish prints it: the summary lines, or None if stop_event was set.

    ``progress``, a text stream, gets one line per position as it is done.
    """
    if depth is None:
        depth = BENCH_DEPTH
    count = [0]

    def report(fen, nodes, seconds, best_move):
        count[0] += 1
        if progress is not None:
            progress.write("Position: %d (%s): %d nodes, %.2f s\n" % (count[0], fen, nodes, seconds))
            progress.flush()
        if stop_event is not None and stop_event.is_set():
            raise _BenchStopped

    try:
        nodes, seconds = search_bench(depth, BENCH_HASH_MB, report,
                                      stop=stop_event.is_set if stop_event is not None else None)
    except _BenchStopped:
        return None
    return ["===========================",
            "Total time (ms) : %d" % int(seconds * 1000),
            "Nodes searched  : %d" % nodes,
            "Nodes/second    : %d" % int(nodes / max(seconds, 1e-9))]
