"""Lazy SMP: helper processes that search the same root through a shared hash table.

CPython's threads share one interpreter lock, so ``Threads`` N means N - 1 helper
processes beside the main search, which alone speaks UCI and picks the move.  All of them
use one transposition table in shared memory (``Hash`` is its total size).  A helper runs
the same iterative deepening with histories of its own, leaving out depths so that it is
a ply beside or ahead of the main search (Stockfish 8's SkipSize/SkipPhase); what it
finds reaches the main search only through the table.

    pool = HelperPool(helpers=1, hash_mb=64)     # starts the processes
    searcher.set_table(pool.table)               # the main search's view of the table
    pool.start(pos, searchmoves)                 # just before the main search
    searcher.search(pos, limits, timeman)
    pool.stop(); pool.collect(grace)             # the lines that come at once vote
    ... bestmove ...
    pool.start(...)                              # the next search: a helper still ending
                                                 # the last joins when done, or is replaced
    pool.close()                                 # no process outlives the engine

The shared block starts with CONTROL_WORDS words: [0] the number of the search the
helpers may run (0: none), [1 + i] helper i's node count (written every CHECK_INTERVAL
nodes).  Commands go down each helper's stdin, pickled; a helper exits the moment its stdin
closes, so `quit`, a crash or a kill of the main process leaves none behind.  Helpers
are fresh interpreters (the same executable, not forks), so they start clean on every
platform and interpreter, and never write to the GUI's stdout.
"""

import os
import pickle
import queue
import signal
import subprocess
import sys
import threading
import time
from multiprocessing import shared_memory

from engine.runtime import tune_collector
from engine.search import Searcher, BENCH_POSITIONS, WARM_UP, WARM_UP_HASH_MB, line_score, warm_up
from engine.timeman import Limits
from engine.tt import SharedTranspositionTable, entry_count, new_table
from engine.tunables import apply_overrides
from engine.types import VALUE_MATE_IN_MAX_PLY

CONTROL_WORDS = 64          # the head of the shared block: the search number, node counts
WORD_BYTES = 8
ENTRY_BYTES = SharedTranspositionTable.ENTRY_BYTES
LINE_KEYS = ("depth", "seldepth", "score", "mate", "pv")   # what a helper's line says
_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STOP_WAIT_SECONDS = 1.0     # how long a stopped helper may stay silent before it is replaced
# How long a search waits for its stopped helpers' last lines before its bestmove (the
# rest are taken by the next search's start): a helper the OS has not scheduled would otherwise make the
# move late (Threads 2 on a loaded 2-core machine: `go movetime 200` answered after up to
# 280 ms, 1,000 after up to 1,176; `stop` after up to 170 ms)
STOP_GRACE_SECONDS = 0.015
QUIT_WAIT_SECONDS = 1.0     # how long close() gives a helper to exit before killing it
GONE_WAIT_SECONDS = 0.1     # a helper whose output has ended is exiting: its status comes soon
# A helper ended by one of these was most likely ended with its whole process group (a GUI's
# or a service manager's SIGTERM, a terminal's hang-up), and this process is ending too: it
# is replaced by the next search's start, if one comes, not at once
GROUP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP", "SIGINT")
                      if hasattr(signal, name))
# The helpers' lines vote on the move played (pick_line); 0 plays the main search's move.
# Not yet measured on its own; with it and depth skipping on, Threads 2 scored +61 +/- 35
# Elo against Threads 1 (200 games at 10 s + 0.1 s, one game at a time).
USE_VOTE = True
# Stockfish 8's Lazy SMP: helper i (from 0) leaves out depth d when
# ((d + game ply + SKIP_PHASE[i % 20]) // SKIP_SIZE[i % 20]) is odd.
SKIP_SIZE = (1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4)
SKIP_PHASE = (0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7)
USE_DEPTH_SKIPPING = True   # 0: every helper searches every depth (for an A/B match)

# BASILISK_SMP overrides the switches above at import, e.g. USE_VOTE=0 (in helpers too:
# they inherit the environment)
apply_overrides(globals(), os.environ.get("BASILISK_SMP", ""), "Threads tunable")


def table_entries(mb):
    return entry_count(mb, ENTRY_BYTES)


def _check_shared_memory(size):
    """Raise OSError if /dev/shm (Linux) cannot hold size bytes: a block larger than its
    room is created all the same, and the process dies (SIGBUS) when it fills up.
    Containers often give /dev/shm only 64 MB."""
    try:
        stat = os.statvfs("/dev/shm")
    except (AttributeError, OSError):
        return                  # not Linux, or no /dev/shm: the platform's own rules
    free = stat.f_bavail * stat.f_frsize
    if free < size:
        raise OSError("Hash %d MB does not fit in /dev/shm (%d MB free)"
                      % (size >> 20, free >> 20))


def _word_view(buf, keep):
    """Signed 64-bit words over buf: a cffi array on PyPy (its JIT reads a memoryview
    ~50x slower), else a memoryview cast to 'q'.  keep gets what must be released."""
    if sys.implementation.name == "pypy":
        try:
            import cffi     # part of PyPy's own distribution
            ffi = cffi.FFI()
            words = ffi.from_buffer("int64_t[]", buf, require_writable=True)
            keep.append(lambda: ffi.release(words))
            return words
        except (ImportError, TypeError, AttributeError):
            pass
    words = buf.cast("q")
    keep.append(words.release)
    return words


def _views(buf, entries, leader):
    """(control words, SharedTranspositionTable, release) over the shared block buf;
    release() frees the views, so that the block can be closed."""
    keep = []
    raw = memoryview(buf)
    head = CONTROL_WORDS * WORD_BYTES
    front, body = raw[:head], raw[head:head + entries * ENTRY_BYTES]
    control = _word_view(front, keep)
    table = SharedTranspositionTable(_word_view(body, keep), entries, body, leader)
    keep += [front.release, body.release, raw.release]

    def release():
        for free in keep:
            free()
    return control, table, release


def pick_line(lines):
    """The line to play among the processes' last complete ones (the main search's
    first): Stockfish's vote.  Each line votes for its move with (its score - the lowest
    score + 14) * its depth; the move with the most votes wins, except that a proven mate
    wins outright, the shortest one first, and a line being mated never does."""
    values = [line_score(line) for line in lines]
    low = min(values)
    votes = {}
    for line, value in zip(lines, values):
        move = line["pv"][0]
        votes[move] = votes.get(move, 0) + (value - low + 14) * line["depth"]
    best, best_value = lines[0], values[0]
    for line, value in zip(lines[1:], values[1:]):
        if abs(best_value) >= VALUE_MATE_IN_MAX_PLY:
            better = value > best_value
        else:
            better = value >= VALUE_MATE_IN_MAX_PLY or (
                value > -VALUE_MATE_IN_MAX_PLY and votes[line["pv"][0]] > votes[best["pv"][0]])
        if better:
            best, best_value = line, value
    return best


def skip_rule(helper_index, game_ply):
    """The helper's skip_depth for engine.search (see SKIP_SIZE); None with it off."""
    if not USE_DEPTH_SKIPPING:
        return None
    size = SKIP_SIZE[helper_index % 20]
    phase = SKIP_PHASE[helper_index % 20] + game_ply
    return lambda depth: (depth + phase) // size % 2 == 1


# A helper process: Ctrl-C in a terminal reaches the whole process group, so a helper
# ignores SIGINT from its first line (its imports build tables for a while); the main
# process stops the search, and a helper ends by its word or with its pipe, not by a traceback
HELPER_COMMAND = ("import signal; signal.signal(signal.SIGINT, signal.SIG_IGN); "
                  "from engine.smp import helper_main; helper_main()")


class HelperPool:
    """helpers processes and the shared table; see the module docstring."""

    def __init__(self, helpers, hash_mb, on_error=None):
        self.on_error = on_error or (lambda message: sys.stderr.write("error: %s\n" % message))
        self.entries = table_entries(hash_mb)
        self.hash_mb = hash_mb
        size = CONTROL_WORDS * WORD_BYTES + self.entries * ENTRY_BYTES
        _check_shared_memory(size)
        self.shm = shared_memory.SharedMemory(create=True, size=size)
        self.unlinked = False
        self.control = self.table = None
        self._release_views = lambda: None
        self.search_id = 0
        self.procs = [None] * helpers
        self.inboxes = [None] * helpers     # what each helper said, read by a thread each
        self.ready = [False] * helpers      # has it said it is ready?
        self.active = []                    # the helpers searching (told to go)
        self.waiting = []                   # those still starting up when the search began
        self.late_go = b""                  # their word to join it (pickled at its start)
        self.lines = []                     # their last complete lines of the last search
        self.stopped_at = 0.0               # time.monotonic() of the last stop()
        self.late = {}                      # helper -> since when it owes its end of search
        self.signalled = {}                 # helper -> the GROUP_SIGNALS signal that ended it
        self.closed = False
        try:
            # (the views under the try as well: whatever fails there, the block goes)
            self.control, self.table, self._release_views = _views(self.shm.buf, self.entries,
                                                                   leader=True)
            for index in range(helpers):
                self._spawn(index)
        except BaseException:
            self.procs = [proc for proc in self.procs if proc is not None]
            self.close()
            raise

    @property
    def helpers(self):
        return len(self.procs)

    def _spawn(self, index):
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [_PACKAGE_PARENT] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        proc = subprocess.Popen(
            [sys.executable, "-c", HELPER_COMMAND, self.shm.name, str(self.entries), str(index)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, close_fds=True)
        inbox = queue.Queue()
        threading.Thread(target=_read_messages, args=(proc.stdout, inbox),
                         name="basilisk-helper-%d-reader" % (index + 1), daemon=True).start()
        self.procs[index] = proc
        self.inboxes[index] = inbox
        self.ready[index] = False

    def _send(self, index, message):
        return self._send_pickled(index, pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))

    def _send_pickled(self, index, data):
        try:
            pipe = self.procs[index].stdin
            pipe.write(data)
            pipe.flush()
            return True
        except (OSError, ValueError):
            return False

    def _next_message(self, index, timeout):
        """The helper's next message, None if none came within timeout seconds."""
        try:
            return self.inboxes[index].get(timeout=timeout) if timeout > 0 else \
                self.inboxes[index].get_nowait()
        except queue.Empty:
            return None

    def _check_ready(self, index, timeout=0.0):
        """Has helper index said it is ready (waiting for its word within timeout)?"""
        if index in self.signalled:
            return False                    # gone: nothing more will come from it
        deadline = time.monotonic() + timeout
        while not self.ready[index]:
            message = self._next_message(index, deadline - time.monotonic())
            if message is None:
                break
            if message[0] == "ready":
                self.ready[index] = True
            elif message[0] == "gone":
                self._gone(index)
                break
        return self.ready[index]

    def wait_ready(self, timeout):
        """Wait (at most timeout seconds) until every helper can search; True if all can."""
        deadline = time.monotonic() + timeout
        for index in range(self.helpers):
            self._check_ready(index, max(deadline - time.monotonic(), 0.0))
        return all(self.ready)

    def start(self, pos, searchmoves=()):
        """Set the ready helpers searching pos (call it just before the main search,
        which ages the table: the helpers are given the age it will have).  A helper
        still starting up joins this search once ready (join_late); one still ending the
        last search joins this one when it has (its pipe holds the command), unless it
        has been silent for STOP_WAIT_SECONDS since it was told to stop: then it is
        replaced, as is one that a signal of GROUP_SIGNALS ended.  Nothing here waits, so
        a search never starts late because of the one before it."""
        if self.active:
            self.collect(0.0)
        for index, signum in sorted(self.signalled.items()):
            self._replace(index, "helper %d was ended by %s"
                          % (index + 1, _signal_name(signum)))
        now = time.monotonic()
        for index, since in list(self.late.items()):
            if now - since > STOP_WAIT_SECONDS:
                self._replace(index, "helper %d did not stop" % (index + 1))
        self.search_id = self.search_id % 1000000 + 1
        control = self.control
        control[0] = self.search_id
        for index in range(self.helpers):
            control[1 + index] = 0
        age = (self.table.age + 1) & 31
        self.active = []
        self.lines = []
        # pickled now: the search is about to move pos about
        go = pickle.dumps(("go", self.search_id, age, pos, list(searchmoves)),
                          protocol=pickle.HIGHEST_PROTOCOL)
        self.waiting = []
        for index in range(self.helpers):
            if not self._check_ready(index):
                if index not in self.signalled:
                    self.waiting.append(index)      # still starting: join_late
                continue
            if self._send_pickled(index, go):
                self.active.append(index)
            else:
                self._replace(index, "helper %d has gone" % (index + 1))
        self.late_go = go if self.waiting else b""

    def join_late(self):
        """Set searching the helpers that were still starting up when the search began
        and are ready now (the search asks between its iterations, in its own thread): a
        `go` right behind `setoption name Threads` has them from its first second or so,
        not from the next search."""
        for index in list(self.waiting):
            if self._check_ready(index):
                self.waiting.remove(index)
                if self._send_pickled(index, self.late_go):
                    self.active.append(index)
            elif index in self.signalled:
                self.waiting.remove(index)

    def stop(self):
        """Tell the helpers to stop (safe from any thread; they end within CHECK_INTERVAL nodes)."""
        control = self.control
        if control is not None:
            control[0] = 0
        self.stopped_at = time.monotonic()

    def helper_nodes(self):
        control = self.control
        return sum(control[1 + index] for index in range(self.helpers))

    def collect(self, timeout=STOP_GRACE_SECONDS):
        """Take the end of search of each stopped helper that reports it within timeout
        seconds (its nodes, and its last line into ``lines``); True once none is left.  A
        helper that has gone is replaced; a late one is left for the next call."""
        deadline = time.monotonic() + timeout
        still = []
        for index in self.active:
            while True:
                message = self._next_message(index, deadline - time.monotonic())
                if message is None:
                    still.append(index)
                    break
                if message[0] == "gone":
                    self._gone(index)
                    break
                if message[0] == "done" and message[1] == self.search_id:
                    self.control[1 + index] = message[2]
                    if message[3]:
                        self.lines.append(message[3])
                    self.late.pop(index, None)
                    break
        for index in still:
            self.late.setdefault(index, self.stopped_at)
        self.active = still
        return not still

    def _gone(self, index):
        """Helper index's output has ended: replace it, unless one of GROUP_SIGNALS ended
        it (then a later start() does, if one comes)."""
        try:
            code = self.procs[index].wait(GONE_WAIT_SECONDS)
        except subprocess.TimeoutExpired:
            code = None
        if code is not None and -code in GROUP_SIGNALS:
            self.signalled[index] = -code
            self.ready[index] = False
            self.late.pop(index, None)
        else:
            self._replace(index, "helper %d has gone" % (index + 1))

    def _replace(self, index, why):
        if self.closed:
            return              # (a helper ended by our own shutdown is not replaced)
        self.on_error("%s; starting a new one" % why)
        self.late.pop(index, None)
        self.signalled.pop(index, None)
        self._end(index, kill=True)
        self._spawn(index)

    def clear_histories(self):
        """ucinewgame: the helpers forget their move-ordering histories (the table is
        cleared by its leader)."""
        for index in range(self.helpers):
            self._send(index, ("clear",))

    def _end(self, index, kill=False):
        proc = self.procs[index]
        if not kill:
            self._send(index, ("quit",))
        try:
            proc.stdin.close()          # the helper exits at the end of its input
        except (OSError, ValueError):
            pass
        try:
            proc.wait(0.05 if kill else QUIT_WAIT_SECONDS)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def close(self):
        """End every helper and free the shared memory (safe to call twice)."""
        if self.closed:
            return
        self.closed = True
        try:
            self.stop()
            for index in range(self.helpers):
                self._end(index)
        finally:                                # interrupted or not, the block goes
            self.control = self.table = None
            try:
                self._release_views()           # a search still using the table now fails
                self.shm.close()
            except BufferError:
                pass        # views half made by an interrupted start: the mapping goes at exit
            finally:
                self.unlink()

    def unlink(self):
        """Remove the shared block's name (its memory goes with the last process mapping
        it): from close(), or for an exit that cannot wait for close() (safe to call twice)."""
        if not self.unlinked:
            self.unlinked = True
            self.shm.unlink()


def _signal_name(signum):
    try:
        return signal.Signals(signum).name
    except ValueError:
        return "signal %d" % signum


def _read_messages(pipe, inbox):
    """A helper's messages into inbox, then ("gone",) when its output ends."""
    try:
        while True:
            inbox.put(pickle.load(pipe))
    except Exception:       # EOFError at the end; anything else means the pipe is unusable
        inbox.put(("gone",))


# ---------------------------------------------------------------------- the helper process
class _HelperClock:
    """A helper's time manager: it runs while the control word holds its search's number,
    and publishes its node count every time the search checks."""

    def __init__(self, control, search_id, slot, searcher):
        self.control = control
        self.search_id = search_id
        self.slot = slot
        self.searcher = searcher
        self.start = time.perf_counter()

    def elapsed_ms(self):
        return (time.perf_counter() - self.start) * 1000.0

    def hard_expired(self):
        if self.control[0] != self.search_id:
            return True         # (the slot may already count the next search's nodes)
        self.control[self.slot] = self.searcher.nodes
        return False

    soft_expired = hard_expired


def _listen(pipe, inbox):
    """Pass the main process's commands on; exit the process when its pipe closes."""
    while True:
        try:
            message = pickle.load(pipe)
        except Exception:   # EOFError: the main process has quit, crashed or been killed
            os._exit(0)
        inbox.put(message)
        if message[0] == "quit":
            return


def _attach(name):
    """The main process's shared block, without registering it with a resource tracker:
    before Python 3.13 attaching does so, which starts a tracker process per helper and
    unlinks the block when the helper ends.  The main process owns the block."""
    try:
        return shared_memory.SharedMemory(name=name, track=False)      # Python >= 3.13
    except TypeError:
        pass
    try:
        from multiprocessing import resource_tracker
    except ImportError:         # a platform without one (it has nothing to register then)
        return shared_memory.SharedMemory(name=name)
    register = resource_tracker.register
    resource_tracker.register = lambda *args: None
    try:
        return shared_memory.SharedMemory(name=name)
    finally:
        resource_tracker.register = register


class _WarmUpClock:
    """Runs until the main process has something to say."""

    def __init__(self, inbox):
        self.inbox = inbox

    def elapsed_ms(self):
        return 0.0

    def hard_expired(self):
        return not self.inbox.empty()

    soft_expired = hard_expired


def _warm_up(searcher, inbox):
    """PyPy: compile the search while idle (as engine.WarmUpJob does for the main
    process), once, on a table of its own; the first message from the main process, of
    any kind, ends it for good."""
    table = searcher.tt
    searcher.set_table(new_table(WARM_UP_HASH_MB))
    try:
        warm_up(searcher, BENCH_POSITIONS, _WarmUpClock(inbox))
    finally:
        searcher.set_table(table)
        searcher.orderer.clear()


def helper_main(argv=None):
    """A helper process (argv: shared block name, table entries, helper index): search
    what the main process sends on stdin until it says quit or the pipe closes."""
    tune_collector()
    shm_name, entries, index = argv or sys.argv[1:4]
    entries, index = int(entries), int(index)
    commands = sys.stdin.buffer
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)           # whatever else a helper prints goes to stderr, not to the pipe
    sys.stdout = sys.stderr
    try:
        shm = _attach(shm_name)
    except FileNotFoundError:
        return              # the main process ended its pool (or itself) while we started
    control, table, release_views = _views(shm.buf, entries, leader=False)
    searcher = Searcher(hash_mb=1)
    searcher.set_table(table)
    inbox = queue.Queue()
    threading.Thread(target=_listen, args=(commands, inbox), daemon=True).start()

    def reply(message):
        try:
            pickle.dump(message, replies, protocol=pickle.HIGHEST_PROTOCOL)
            replies.flush()
        except (OSError, ValueError):
            os._exit(0)

    reply(("ready",))
    if WARM_UP:
        _warm_up(searcher, inbox)
    while True:
        message = inbox.get()
        kind = message[0]
        if kind == "go":
            _, search_id, age, pos, searchmoves = message
            table.age = age
            nodes = 0
            last = {}

            def keep(info):     # the last complete iteration's line (not the search's closing one)
                if not info["bound"] and info["multipv"] == 1 and not info.get("final"):
                    last.clear()
                    last.update((key, info[key]) for key in LINE_KEYS if key in info)

            if control[0] == search_id:
                limits = Limits()
                limits.infinite = True
                limits.searchmoves = searchmoves
                clock = _HelperClock(control, search_id, 1 + index, searcher)
                try:
                    searcher.search(pos, limits, clock, report=keep,
                                    skip_depth=skip_rule(index, len(pos.stack)))
                except Exception as exc:   # never silently: the main search goes on alone
                    sys.stderr.write("helper %d: search failed: %r\n" % (index + 1, exc))
                nodes = searcher.nodes
            reply(("done", search_id, nodes, last))
        elif kind == "clear":
            searcher.orderer.clear()
        elif kind == "quit":
            break
    searcher.tt = None
    release_views()
    shm.close()
