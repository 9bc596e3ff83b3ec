"""The UCI protocol loop, and the `d`, `eval`, `go perft` and `bench` extras.

Threads: an input thread reads stdin (with os.read, so it never blocks shutdown),
timestamps each line -- a `go`'s clock starts when its line arrived -- and queues it; the
main thread runs the commands in order; a search (or `go perft`, or `bench`) runs in a
worker thread, so `isready`, `stop`, `ponderhit` and `quit` are obeyed while it thinks.
A loader thread imports the board, search and evaluation modules (building their tables
takes ~100 ms) once the first command has been answered, so `uci` gets `uciok` at once;
`isready`, `position`, `go` and friends wait for it.  Every line goes out through one lock
with a flush, so the threads never interleave lines.

Robustness: each command runs inside a catch-all; a problem is reported as
``info string error: ...`` on stdout (a traceback, if any, goes to stderr), and the engine
carries on.  Unknown leading tokens are skipped up to the first known command, as the UCI
specification asks ("joho debug on" switches debug on).  End of input acts as `quit`.

What `position` leaves behind when something is wrong:
- a malformed FEN (or a `position` with neither `startpos` nor `fen`): the previous
  position is kept entirely, moves and all;
- an illegal or unparsable move in ``moves ...``: like Stockfish, the moves before it are
  kept and it and everything after it are dropped, so the position is the FEN plus the
  legal prefix of the move list.

`bestmove` is sent exactly once per `go` (not for `go perft`), only after `stop` or
`ponderhit` for `go infinite` / `go ponder`, and is always legal: if the search fails or
returns something illegal, the first legal move (within `searchmoves`, if given) is sent.
`bestmove 0000` means there is no legal move.  `go` with no limit at all is `go infinite`.
"""

import math
import os
import sys
import threading
import time

from engine import __version__
from engine.timeman import Limits, TimeManager

ENGINE_NAME = "Basilisk"
ENGINE_AUTHOR = "the Basilisk developers"
MAX_LINE_BYTES = 1 << 20        # a longer input line is rejected whole
ERROR_ECHO_CHARS = 60           # how much of a bad token an error message quotes
STOP_JOIN_SECONDS = 10.0        # how long `go`/`quit` wait for a stopped search to end
QUIT_JOIN_SECONDS = 0.5
ONLY_MOVE_MS = 50               # think at most this long when there is one legal move
LOADER_HEAD_START_S = 0.25      # the loader waits this long for the first command to be done

# `bench`: engine.search.run_bench searches its fixed positions to its BENCH_DEPTH, each
# with a fresh Searcher; the total node count is the search's signature.
BENCH_HASH_MB = 16

# UCI_ShowWDL: when the search gives no wdl, a logistic model of the cp score.
WDL_CP_AT_EVEN = 150            # cp at which win and draw are equally likely
WDL_CP_SCALE = 70

COMMANDS = ("uci", "debug", "isready", "setoption", "register", "ucinewgame", "position",
            "go", "stop", "ponderhit", "quit", "d", "eval", "bench")
GO_KEYWORDS = ("searchmoves", "ponder", "wtime", "btime", "winc", "binc", "movestogo",
               "depth", "nodes", "mate", "movetime", "infinite", "perft")


class UciError(Exception):
    """A problem with a command, reported as `info string error: <message>`."""


def _quote(text):
    """Text from input, made safe and short for an error message."""
    text = text.encode("ascii", "backslashreplace").decode("ascii")
    if len(text) > ERROR_ECHO_CHARS:
        text = text[:ERROR_ECHO_CHARS] + "...(%d chars)" % len(text)
    return "'%s'" % text


def _parse_number(text):
    """An int from text, accepting "2.5" as 2 as GUIs sometimes send; None if not a number."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return int(float(text))
    except (ValueError, OverflowError):
        return None


# ---------------------------------------------------------------------- options
class Option:
    """One UCI option: name, type ('spin', 'check', 'button', 'string'), default, range."""

    def __init__(self, name, kind, default=None, minimum=None, maximum=None, help_text=""):
        self.name = name
        self.kind = kind
        self.default = default
        self.minimum = minimum
        self.maximum = maximum
        self.help_text = help_text

    def uci_line(self):
        line = "option name %s type %s" % (self.name, self.kind)
        if self.kind == "check":
            line += " default %s" % ("true" if self.default else "false")
        elif self.kind == "spin":
            line += " default %d min %d max %d" % (self.default, self.minimum, self.maximum)
        elif self.kind == "string":
            line += " default %s" % (self.default or "<empty>")
        return line

    def parse(self, text, warn):
        """The value written as text (None for a button); raises UciError if invalid."""
        if self.kind == "button":
            return None
        if self.kind == "string":
            return "" if text in (None, "<empty>") else text
        if text is None:
            raise UciError("option %s needs a value" % self.name)
        if self.kind == "check":
            low = text.lower()
            if low not in ("true", "false"):
                raise UciError("option %s takes true or false, not %s" % (self.name, _quote(text)))
            return low == "true"
        value = _parse_number(text)
        if value is None:
            raise UciError("option %s needs a whole number, not %s" % (self.name, _quote(text)))
        if not self.minimum <= value <= self.maximum:
            clamped = min(max(value, self.minimum), self.maximum)
            warn("option %s value %d is outside %d..%d, clamped to %d"
                 % (self.name, value, self.minimum, self.maximum, clamped))
            value = clamped
        return value


OPTIONS = (
    Option("Debug Log File", "string", "", help_text="append all input and output to this file"),
    Option("Hash", "spin", 16, 1, 1024, "transposition table size in MB"),
    Option("Clear Hash", "button", help_text="empty the transposition table"),
    Option("Ponder", "check", False, help_text="the GUI may let the engine think on the opponent's time"),
    Option("MultiPV", "spin", 1, 1, 64, "number of best lines to search and show"),
    # 50 ms rather than Stockfish's 10: a CPython search checks its clock every few hundred
    # nodes (~10 ms), and each move crosses several threads and processes, which on a
    # loaded 2-core machine costs tens of ms (measured with python-chess as the GUI)
    Option("Move Overhead", "spin", 50, 0, 5000, "ms kept back per move for GUI and network lag"),
    Option("UCI_Chess960", "check", False, help_text="Chess960 castling notation (king takes rook)"),
    Option("UCI_ShowWDL", "check", False, help_text="add win/draw/loss permille to info lines"),
)


# ---------------------------------------------------------------------- loading
class _Loader:
    """Imports the heavy modules in a background thread; wait() blocks until done.

    It lets the first command (normally `uci`) be answered before it starts, so the
    answer does not queue behind the import for the interpreter lock.
    """

    MODULES = ("engine.position", "engine.movegen", "engine.notation", "engine.evaluate",
               "engine.perft", "engine.search")

    def __init__(self):
        self.done = threading.Event()
        self.go_ahead = threading.Event()
        self.error = None

    def start(self):
        threading.Thread(target=self._run, name="basilisk-loader", daemon=True).start()

    def _run(self):
        import importlib
        self.go_ahead.wait(LOADER_HEAD_START_S)
        try:
            for name in self.MODULES:
                importlib.import_module(name)
        except BaseException as exc:   # reported by wait(), in the thread that needs it
            import traceback
            self.error = exc
            traceback.print_exc(file=sys.stderr)
        finally:
            self.done.set()

    def wait(self, timeout=None):
        self.go_ahead.set()
        self.done.wait(timeout)
        if self.error is not None:
            raise UciError("engine modules failed to load: %r" % (self.error,))


# ---------------------------------------------------------------------- output
class Output:
    """Line-at-a-time writer shared by the threads: one lock, a flush per line."""

    def __init__(self, stream=None):
        stream = stream or sys.stdout
        self.binary = getattr(stream, "buffer", None)
        self.text = stream
        self.lock = threading.Lock()
        self.log_file = None
        self.broken = False

    def write_lines(self, lines):
        data = "".join(line + "\n" for line in lines)
        with self.lock:
            if self.broken:
                return
            try:
                if self.binary is not None:
                    self.binary.write(data.encode("ascii", "backslashreplace"))
                    self.binary.flush()
                else:
                    self.text.write(data)
                    self.text.flush()
            except (OSError, ValueError):   # the GUI went away: nothing left to tell it
                self.broken = True
            if self.log_file is not None:
                self.log(">> ", lines)

    def log(self, prefix, lines):
        try:
            for line in lines:
                self.log_file.write(prefix + line + "\n")
            self.log_file.flush()
        except (OSError, ValueError):
            pass

    def set_log(self, path):
        with self.lock:
            if self.log_file is not None:
                try:
                    self.log_file.close()
                except OSError:
                    pass
                self.log_file = None
            if path:
                self.log_file = open(path, "a", encoding="utf-8")

    def log_input(self, line):
        if self.log_file is not None:
            with self.lock:
                if self.log_file is not None:
                    self.log("<< ", [line])


# ---------------------------------------------------------------------- formatting
def wdl_from_score(info):
    """(win, draw, loss) permille for the side to move from a report dict."""
    mate = info.get("mate")
    if mate is not None:
        return (1000, 0, 0) if mate > 0 else (0, 0, 1000)
    cp = info.get("score") or 0
    win = 1000.0 / (1.0 + math.exp((WDL_CP_AT_EVEN - cp) / WDL_CP_SCALE))
    loss = 1000.0 / (1.0 + math.exp((WDL_CP_AT_EVEN + cp) / WDL_CP_SCALE))
    w, l = int(round(win)), int(round(loss))
    return w, 1000 - w - l, l


def format_info(info, move_text, show_wdl=False):
    """One `info` line from a search report dict (see engine.search)."""
    if "string" in info and len(info) == 1:
        return "info string %s" % info["string"]
    parts = ["info"]
    for key in ("depth", "seldepth", "multipv"):
        if info.get(key) is not None:
            parts.append("%s %d" % (key, info[key]))
    if info.get("mate") is not None:
        parts.append("score mate %d" % info["mate"])
    elif info.get("score") is not None:
        parts.append("score cp %d" % info["score"])
    if info.get("mate") is not None or info.get("score") is not None:
        bound = info.get("bound")
        if bound == "lower":
            parts.append("lowerbound")
        elif bound == "upper":
            parts.append("upperbound")
        if show_wdl:
            wdl = info.get("wdl") or wdl_from_score(info)
            parts.append("wdl %d %d %d" % tuple(wdl))
    for key in ("nodes", "nps", "hashfull", "tbhits", "time"):
        if info.get(key) is not None:
            parts.append("%s %d" % (key, info[key]))
    if info.get("currmove"):
        parts.append("currmove %s" % move_text(info["currmove"]))
        if info.get("currmovenumber") is not None:
            parts.append("currmovenumber %d" % info["currmovenumber"])
    pv = info.get("pv")
    if pv:
        parts.append("pv " + " ".join(move_text(m) for m in pv))
    return " ".join(parts)


def legal_prefix(pos, moves):
    """The longest prefix of moves that is legal from pos (pos is restored)."""
    from engine.movegen import generate_moves
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


# ---------------------------------------------------------------------- jobs
class Job:
    """Work run in the worker thread: a search, `go perft` or `bench`."""

    done = False            # set just before the last line goes out (the thread then ends)

    def __init__(self, session):
        self.session = session
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self._guarded_run, name="basilisk-" + self.kind,
                                       daemon=True)

    kind = "job"

    def start(self):
        self.thread.start()

    def alive(self):
        return self.thread.is_alive()

    def join(self, timeout=None):
        self.thread.join(timeout)
        return not self.thread.is_alive()

    def stop(self):
        self.stop_event.set()

    def ponderhit(self):
        return False

    def _guarded_run(self):
        try:
            self.run()
        except BaseException as exc:
            self.session.report_exception("%s failed" % self.kind, exc)
            self.failed()
        finally:
            self.done = True

    def failed(self):
        pass


class SearchJob(Job):
    """One `go`: runs the search, then sends bestmove (after stop/ponderhit if must wait)."""

    kind = "search"

    def __init__(self, session, pos, limits, timeman, multipv, chess960, legal):
        super().__init__(session)
        self.pos = pos
        self.limits = limits
        self.timeman = timeman
        self.multipv = multipv
        self.chess960 = chess960
        self.legal = legal                 # legal root moves (within searchmoves)
        self.root = pos.copy()             # for checking pv lines and the best move
        self.searcher = session.searcher
        self.cond = threading.Condition()
        self.stopped = False
        self.pondering = bool(limits.ponder)
        self.bestmove_sent = False
        self.result = (0, 0)
        self.show_wdl = session.options["uci_showwdl"]

    def move_text(self, move):
        from engine.notation import move_to_uci
        return move_to_uci(move, self.chess960)

    def stop(self):
        with self.cond:
            self.stopped = True
            self.timeman.stop()
            self.searcher.stop()
            self.cond.notify_all()
        super().stop()

    def ponderhit(self):
        with self.cond:
            if not self.pondering:
                return False
            self.pondering = False
            self.timeman.ponderhit()
            self.cond.notify_all()
        return True

    def report(self, info):
        if info.get("pv"):
            # a GUI rejects a line with an illegal move: send only its legal prefix
            info = dict(info, pv=legal_prefix(self.root, list(info["pv"])))
        self.session.send(format_info(info, self.move_text, self.show_wdl))
        limits = self.limits
        mate = info.get("mate")
        if (limits.mate and mate is not None and 0 < mate <= limits.mate
                and not info.get("bound")):
            # `go mate N`: found one, so stop (bestmove still waits for stop if infinite)
            self.timeman.stop()
            self.searcher.stop()

    def run(self):
        best = ponder = 0
        try:
            if not self.legal:
                self.session.send("info depth 0 score %s" % ("mate 0" if self.root.in_check() else "cp 0"))
            else:
                best, ponder = self.searcher.search(self.pos, self.limits, self.timeman,
                                                    report=self.report, multipv=self.multipv)
        except Exception as exc:
            self.session.report_exception("search failed", exc)
        self.result = (best, ponder)
        self.finish()

    def failed(self):
        if not self.bestmove_sent:
            self.finish()

    def finish(self):
        # `go infinite` and an unanswered `go ponder` hold bestmove until stop/ponderhit
        with self.cond:
            while not self.stopped and (self.limits.infinite or self.pondering):
                self.cond.wait()
        if self.bestmove_sent:
            return
        self.bestmove_sent = True
        line = self.bestmove_line()
        self.done = True
        self.session.send(line)

    def bestmove_line(self):
        best, ponder = self.result
        if not self.legal:
            return "bestmove 0000"
        if best not in self.legal:
            if best:
                self.session.error("search returned the illegal move %s; playing %s instead"
                                   % (self.move_text(best), self.move_text(self.legal[0])))
            best, ponder = self.legal[0], 0
        line = "bestmove " + self.move_text(best)
        if ponder:
            from engine.movegen import generate_moves
            self.root.make(best)
            try:
                if ponder in generate_moves(self.root):
                    line += " ponder " + self.move_text(ponder)
            finally:
                self.root.unmake()
        return line


class PerftJob(Job):
    """`go perft N`: per-move counts then the total, as Stockfish prints them."""

    kind = "perft"

    def __init__(self, session, pos, depth, chess960):
        super().__init__(session)
        self.pos = pos
        self.depth = depth
        self.chess960 = chess960

    def run(self):
        from engine.movegen import generate_moves
        from engine.notation import move_to_uci
        from engine.perft import perft
        total = 0
        start = time.perf_counter()
        for move in generate_moves(self.pos):
            if self.stop_event.is_set():
                self.session.send("info string perft stopped")
                return
            self.pos.make(move)
            count = perft(self.pos, self.depth - 1)
            self.pos.unmake()
            total += count
            self.session.send("%s: %d" % (move_to_uci(move, self.chess960), count))
        elapsed = time.perf_counter() - start
        self.session.send_lines(["", "Nodes searched: %d" % total])
        if self.session.debug:
            self.session.send("info string perft %.3f s, %d nodes/s"
                              % (elapsed, total / max(elapsed, 1e-9)))


class BenchJob(Job):
    """`bench [depth]` inside the UCI loop (`stop` ends it after the current position)."""

    kind = "bench"

    def __init__(self, session, depth):
        super().__init__(session)
        self.depth = depth

    def run(self):
        lines = run_bench(self.depth, progress=sys.stderr, stop_event=self.stop_event)
        if lines is None:
            self.session.send("info string bench stopped")
        else:
            self.session.send_lines(lines)


class _BenchStopped(Exception):
    pass


def run_bench(depth=None, progress=None, stop_event=None):
    """engine.search.run_bench at ``depth`` (default: the search's BENCH_DEPTH) as
    Stockfish prints it: the summary lines, or None if stop_event was set."""
    import engine.search as search_module
    if depth is None:
        depth = search_module.BENCH_DEPTH
    count = [0]

    def report(fen, nodes, seconds, best_move):
        count[0] += 1
        if progress is not None:
            progress.write("Position: %d (%s): %d nodes, %.2f s\n" % (count[0], fen, nodes, seconds))
            progress.flush()
        if stop_event is not None and stop_event.is_set():
            raise _BenchStopped

    try:
        nodes, seconds = search_module.run_bench(depth, BENCH_HASH_MB, report)
    except _BenchStopped:
        return None
    return ["===========================",
            "Total time (ms) : %d" % int(seconds * 1000),
            "Nodes searched  : %d" % nodes,
            "Nodes/second    : %d" % int(nodes / max(seconds, 1e-9))]


# ---------------------------------------------------------------------- input
def _raw_lines(stream):
    """(bytes line, too_long) pairs from a binary stream until end of input.

    Reads the file descriptor with os.read when there is one: a thread blocked in a
    buffered readline() holds the buffer's lock and would abort interpreter shutdown.
    """
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        fd = None

    def chunks():
        while True:
            try:
                data = os.read(fd, 65536) if fd is not None else stream.read1(65536)
            except InterruptedError:
                continue
            except (OSError, ValueError):
                return
            if not data:
                return
            yield data

    buf = b""
    skipping = False            # inside a line that is too long, up to its newline
    for data in chunks():
        buf += data
        start = 0
        while True:
            end = buf.find(b"\n", start)
            if end < 0:
                break
            if skipping:
                skipping = False
            else:
                yield buf[start:end + 1], False
            start = end + 1
        buf = buf[start:]
        if len(buf) > MAX_LINE_BYTES:
            if not skipping:
                yield b"", True
            skipping = True
            buf = b""
    if buf and not skipping:
        yield buf, False


# ---------------------------------------------------------------------- the session
class UciSession:
    """The engine's side of one UCI conversation."""

    def __init__(self, out=None, loader=None):
        self.out = Output(out)
        self.loader = loader or _Loader()
        self.debug = False
        self.options = {opt.name.lower(): opt.default for opt in OPTIONS}
        self.option_by_key = {opt.name.lower(): opt for opt in OPTIONS}
        self.pos = None
        self.pos_source = None          # (FEN, UCI_Chess960, move tokens) self.pos was made from
        self.chess960_game = False      # does the current game need king-takes-rook castling?
        self.searcher = None
        self.job = None
        self.pending = []               # searcher calls deferred until no search runs
        self.quitting = False
        self.line_time = None           # perf_counter() when the current command was read
        self.handlers = {
            "uci": self.cmd_uci, "debug": self.cmd_debug, "isready": self.cmd_isready,
            "setoption": self.cmd_setoption, "register": self.cmd_register,
            "ucinewgame": self.cmd_ucinewgame, "position": self.cmd_position,
            "go": self.cmd_go, "stop": self.cmd_stop, "ponderhit": self.cmd_ponderhit,
            "quit": self.cmd_quit, "d": self.cmd_d, "eval": self.cmd_eval,
            "bench": self.cmd_bench,
        }

    # -------------------------------------------------------------- output helpers
    def send(self, line):
        self.out.write_lines([line])

    def send_lines(self, lines):
        self.out.write_lines(lines)

    def error(self, message):
        self.send("info string error: " + message)

    def info(self, message):
        self.send("info string " + message)

    def report_exception(self, what, exc):
        import traceback
        self.error("%s: %s" % (what, _quote(repr(exc))[1:-1]))
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        try:
            sys.stderr.write(text)
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        if self.out.log_file is not None:
            with self.out.lock:
                self.out.log("!! ", text.splitlines())

    # -------------------------------------------------------------- state helpers
    def ensure_ready(self):
        """Wait for the heavy modules; create the searcher and start position once."""
        self.loader.wait()
        if self.searcher is None:
            from engine.search import Searcher
            self.searcher = Searcher(hash_mb=self.options["hash"])
            self.pending = [p for p in self.pending if p[0] != "set_hash"]
            self.apply_pending()
        if self.pos is None:
            from engine.position import Position
            self.pos = Position()
            self.chess960_game = False

    def chess960(self):
        return bool(self.options["uci_chess960"] or self.chess960_game)

    def searching(self):
        return self.job is not None and not self.job.done and self.job.alive()

    def searcher_call(self, name, *args):
        """Call a Searcher method now, or after the running search if there is one."""
        if self.searching() or self.searcher is None:
            self.pending.append((name, args))
        else:
            getattr(self.searcher, name)(*args)

    def apply_pending(self):
        pending, self.pending = self.pending, []
        for name, args in pending:
            getattr(self.searcher, name)(*args)

    def finish_job(self, why):
        """Stop the running job (if any) and wait for it, so a new one may start."""
        job = self.job
        if job is None or not job.alive():
            return True
        if job.done:
            job.join(STOP_JOIN_SECONDS)
            return True
        if why and not job.stop_event.is_set():
            # after a `stop` the job is merely winding down: wait quietly, as Stockfish does
            self.error("%s while %s is running: stopping it first" % (why, job.kind))
        job.stop()
        if not job.join(STOP_JOIN_SECONDS):
            self.error("the running %s did not stop" % job.kind)
            return False
        return True

    # -------------------------------------------------------------- the loop
    def handle_line(self, line):
        """Run one input line; never raises (except SystemExit from nothing)."""
        if self.out.log_file is not None:
            self.out.log_input(line)
        tokens = line.split()
        if not tokens:
            return
        skipped = []
        while tokens and tokens[0] not in self.handlers:
            skipped.append(tokens.pop(0))
        if skipped:
            what = " ".join(skipped)
            if tokens:
                self.error("unknown command %s skipped" % _quote(what))
            else:
                self.error("unknown command %s" % _quote(what))
                return
        try:
            self.handlers[tokens[0]](tokens[1:])
        except UciError as exc:
            self.error(str(exc))
        except Exception as exc:
            self.report_exception("%s failed" % tokens[0], exc)

    def read_input(self, stream, lines):
        """The input reader thread: timestamps each line as it arrives and queues it.

        Queues (time, line, problem); line None means end of input.  A `quit` (or end of
        input) also stops a running search at once, before the main thread gets to it.
        """
        for raw, too_long in _raw_lines(stream):
            now = time.perf_counter()
            if too_long:
                lines.put((now, "", "input line too long (more than %d bytes), ignored"
                           % MAX_LINE_BYTES))
                continue
            line = raw.decode("utf-8", "replace")
            if line.split()[:1] == ["quit"]:
                self.stop_for_quit()
            lines.put((now, line, None))
        self.stop_for_quit()
        lines.put((time.perf_counter(), None, None))

    def stop_for_quit(self):
        job = self.job
        if job is not None:
            job.stop()

    def run(self, stdin=None):
        """Read and run commands until `quit` or end of input."""
        import queue
        stream = stdin if stdin is not None else sys.stdin.buffer
        lines = queue.Queue()
        threading.Thread(target=self.read_input, args=(stream, lines), name="basilisk-input",
                         daemon=True).start()
        while not self.quitting:
            try:
                self.line_time, line, problem = lines.get()
                if line is None:
                    break               # end of input is quit
                if problem:
                    self.error(problem)
                else:
                    self.handle_line(line)
            except KeyboardInterrupt:
                break
            self.loader.go_ahead.set()
        self.shutdown()

    def shutdown(self):
        self.quitting = True
        job = self.job
        if job is not None and job.alive():
            job.stop()
            job.join(QUIT_JOIN_SECONDS)
        self.out.set_log(None)

    # -------------------------------------------------------------- commands
    def cmd_uci(self, args):
        lines = ["id name %s %s" % (ENGINE_NAME, __version__), "id author %s" % ENGINE_AUTHOR]
        lines += [opt.uci_line() for opt in OPTIONS]
        lines.append("uciok")
        self.send_lines(lines)

    def cmd_debug(self, args):
        if not args or args[0] not in ("on", "off"):
            raise UciError("debug takes on or off, not %s" % _quote(" ".join(args)))
        self.debug = args[0] == "on"

    def cmd_isready(self, args):
        try:
            self.ensure_ready()
        except UciError as exc:
            self.error(str(exc))
        self.send("readyok")

    def cmd_register(self, args):
        pass        # nothing to register

    def cmd_setoption(self, args):
        if not args or args[0] != "name":
            raise UciError("setoption needs 'name <option> [value <value>]'")
        try:
            split = args.index("value")
        except ValueError:
            split = len(args)
        name = " ".join(args[1:split])
        value = " ".join(args[split + 1:]) if split < len(args) else None
        opt = self.option_by_key.get(name.lower())
        if opt is None:
            raise UciError("unknown option %s" % _quote(name))
        parsed = opt.parse(value, self.error)
        key = opt.name.lower()
        if opt.kind == "button":
            if key == "clear hash":
                self.searcher_call("clear")
            return
        self.options[key] = parsed
        if key == "hash":
            self.searcher_call("set_hash", parsed)
        elif key == "debug log file":
            try:
                self.out.set_log(parsed)
            except OSError as exc:
                self.options[key] = ""
                raise UciError("cannot open debug log file %s: %s" % (_quote(parsed), exc.strerror))
        if self.debug:
            self.info("%s set to %s" % (opt.name, parsed))

    def cmd_ucinewgame(self, args):
        self.ensure_ready()
        self.searcher_call("clear")

    def cmd_position(self, args):
        self.ensure_ready()
        from engine.position import Position, FenError, STARTING_FEN
        from engine.notation import parse_uci_move
        if not args or args[0] not in ("startpos", "fen"):
            raise UciError("position needs startpos or fen (position unchanged)")
        try:
            moves_at = args.index("moves")
        except ValueError:
            moves_at = len(args)
        if args[0] == "startpos":
            fen = STARTING_FEN
            if moves_at > 1:
                self.error("unexpected %s after startpos ignored" % _quote(" ".join(args[1:moves_at])))
        else:
            fields = args[1:moves_at]
            if len(fields) == 5 and fields[4].isdigit():
                fields = fields + ["1"]     # fullmove number missing: be lenient
            fen = " ".join(fields)
        move_tokens = args[moves_at + 1:]
        source = self.pos_source
        option_960 = bool(self.options["uci_chess960"])
        if (source is not None and source[0] == fen and source[1] == option_960
                and move_tokens[:len(source[2])] == source[2]):
            # the usual GUI case, the previous game plus a move or two: apply only those
            pos = self.pos.copy()
            done = len(source[2])
            chess960_game = self.chess960_game
        else:
            try:
                pos = Position(fen)
            except FenError as exc:
                raise UciError("bad FEN %s: %s (position unchanged)" % (_quote(fen), exc)) from None
            done = 0
            chess960_game = pos.is_chess960_layout()
        chess960 = option_960 or chess960_game
        for i in range(done, len(move_tokens)):
            move = parse_uci_move(pos, move_tokens[i], chess960)
            if move is None:
                self.error("illegal move %s (move %d of %d): keeping the position after the "
                           "%d move(s) before it" % (_quote(move_tokens[i]), i + 1,
                                                     len(move_tokens), i))
                move_tokens = move_tokens[:i]
                break
            pos.make(move)
        self.pos = pos
        self.pos_source = (fen, option_960, list(move_tokens))
        self.chess960_game = chess960_game

    def parse_go(self, args):
        """Limits from `go` arguments; bad parts are reported and skipped."""
        from engine.notation import parse_uci_move
        from engine.movegen import generate_moves
        limits = Limits()
        number_keys = ("wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes",
                       "mate", "movetime", "perft")
        legal = None
        i = 0
        n = len(args)
        while i < n:
            token = args[i]
            i += 1
            if token == "infinite":
                limits.infinite = True
            elif token == "ponder":
                limits.ponder = True
            elif token == "searchmoves":
                if legal is None:
                    legal = generate_moves(self.pos)
                while i < n and args[i] not in GO_KEYWORDS:
                    move = parse_uci_move(self.pos, args[i], self.chess960(), legal)
                    if move is None:
                        self.error("searchmoves: %s is not a legal move here, ignored" % _quote(args[i]))
                    elif move not in limits.searchmoves:
                        limits.searchmoves.append(move)
                    i += 1
            elif token in number_keys:
                if i >= n or args[i] in GO_KEYWORDS:
                    self.error("go %s needs a number" % token)
                    continue
                text = args[i]
                i += 1
                value = _parse_number(text)
                if value is None:
                    self.error("go %s: %s is not a number, ignored" % (token, _quote(text)))
                    continue
                setattr(limits, token, self.check_go_number(token, value))
            else:
                self.error("go: unknown token %s ignored" % _quote(token))
        if limits.movestogo is not None and limits.movestogo <= 0:
            self.error("go movestogo must be positive, ignored")
            limits.movestogo = None
        if limits.mate is not None and limits.mate <= 0:
            self.error("go mate must be positive, ignored")
            limits.mate = None
        if not (limits.uses_clock() or limits.depth or limits.nodes or limits.mate
                or limits.movetime is not None or limits.perft or limits.ponder):
            limits.infinite = True       # no limit at all means infinite
        return limits

    def check_go_number(self, key, value):
        from engine.types import MAX_PLY
        if key in ("depth", "perft"):
            if value < 1 or value > MAX_PLY:
                clamped = min(max(value, 1), MAX_PLY)
                self.error("go %s %d is outside 1..%d, using %d" % (key, value, MAX_PLY, clamped))
                value = clamped
        elif key == "nodes" and value < 1:
            self.error("go nodes %d is below 1, using 1" % value)
            value = 1
        elif key == "movetime" and value < 0:
            self.error("go movetime %d is negative, moving at once" % value)
            value = 0
        return value

    def fallback_bestmove(self):
        """`bestmove` with the first legal move, for a `go` that cannot be searched."""
        from engine.movegen import generate_moves
        from engine.notation import move_to_uci
        moves = generate_moves(self.pos)
        return "bestmove " + (move_to_uci(moves[0], self.chess960()) if moves else "0000")

    def cmd_go(self, args):
        self.ensure_ready()
        try:
            self.start_go(args)
        except Exception as exc:
            # whatever went wrong, this go still gets its one legal bestmove
            self.report_exception("go failed", exc)
            self.send(self.fallback_bestmove())

    def start_go(self, args):
        limits = self.parse_go(args)
        if not self.finish_job("go"):
            # the old search is stuck: answer this go at once
            self.send(self.fallback_bestmove())
            return
        self.apply_pending()
        pos = self.pos.copy()
        if limits.perft:
            self.job = PerftJob(self, pos, limits.perft, self.chess960())
            self.job.start()
            return
        from engine.movegen import generate_moves
        legal = generate_moves(pos)
        if limits.searchmoves:
            legal = [m for m in legal if m in limits.searchmoves]
        ply = 2 * (pos.fullmove - 1) + pos.turn
        timeman = TimeManager(limits, pos.turn, self.options["move overhead"], ply,
                              start=self.line_time)
        if len(legal) == 1 and limits.uses_clock():
            timeman.cap(ONLY_MOVE_MS)
        if timeman.hard_ms == 0 and not (limits.ponder or limits.infinite) and not limits.depth:
            # no time at all: a depth-1 search is quick (under the search's first clock
            # check) and still better than whatever move an aborted search has at hand
            limits.depth = 1
        if self.debug:
            self.info("go %r: soft %.0f ms, hard %.0f ms" % (limits, timeman.soft_ms, timeman.hard_ms))
        self.job = SearchJob(self, pos, limits, timeman, self.options["multipv"],
                             self.chess960(), legal)
        self.job.start()

    def cmd_stop(self, args):
        if self.searching():
            self.job.stop()
        elif self.debug:
            self.info("stop: no search running")

    def cmd_ponderhit(self, args):
        if not (self.searching() and self.job.ponderhit()) and self.debug:
            self.info("ponderhit: not pondering")

    def cmd_quit(self, args):
        self.quitting = True

    def cmd_d(self, args):
        self.ensure_ready()
        from engine.types import PIECE_SYMBOLS, SQUARE_NAMES
        pos = self.pos
        sep = " +---+---+---+---+---+---+---+---+"
        lines = [""]
        for rank in range(7, -1, -1):
            lines.append(sep)
            cells = [PIECE_SYMBOLS.get(pos.board[rank * 8 + f], " ") for f in range(8)]
            lines.append(" | " + " | ".join(cells) + " | %d" % (rank + 1))
        lines.append(sep)
        lines.append("   a   b   c   d   e   f   g   h")
        lines.append("")
        lines.append("Fen: " + pos.fen(shredder=self.chess960() and pos.is_chess960_layout()))
        lines.append("Key: %016X" % pos.key)
        checkers = pos.checkers()
        names = [SQUARE_NAMES[sq] for sq in range(64) if checkers >> sq & 1]
        lines.append("Checkers: " + " ".join(names))
        self.send_lines(lines)

    def cmd_eval(self, args):
        self.ensure_ready()
        import engine.evaluate as evaluate_module
        pos = self.pos
        lines = []
        terms_fn = getattr(evaluate_module, "evaluate_terms", None)
        if terms_fn is not None:
            terms = terms_fn(pos)
            width = max([len(str(name)) for name in terms] + [4])
            rule = " " + "-" * (width + 1) + "+---------------+"
            lines.append(" %-*s |    MG     EG  | (cp, white's view)" % (width, "Term"))
            lines.append(rule)
            for name, value in terms.items():
                if isinstance(value, (tuple, list)) and len(value) == 2:
                    lines.append(" %-*s | %6d %6d |" % (width, name, value[0], value[1]))
                else:
                    lines.append(" %-*s | %13s |" % (width, name, value))
            lines.append(rule)
        score = evaluate_module.evaluate(pos)
        white = score if pos.turn == 0 else -score
        lines.append("Final evaluation: %+.2f (white side)" % (white / 100.0))
        self.send_lines(lines)

    def cmd_bench(self, args):
        self.ensure_ready()
        depth = None
        if args:
            try:
                depth = int(args[0])
            except ValueError:
                raise UciError("bench [depth]: %s is not a number" % _quote(args[0])) from None
            if not 1 <= depth <= 64:
                raise UciError("bench depth must be 1..64")
        if not self.finish_job("bench"):
            return
        self.job = BenchJob(self, depth)
        self.job.start()


def bench_command(argv):
    """`basilisk bench [depth]` from the shell; progress on stderr, summary on stdout."""
    depth = None
    if argv:
        try:
            depth = int(argv[0])
        except ValueError:
            sys.stderr.write("usage: basilisk bench [depth]\n")
            return 2
    lines = run_bench(depth, progress=sys.stderr)
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.flush()
    return 0


def main(argv=None):
    """The UCI loop on stdin/stdout (``basilisk bench`` runs the benchmark instead)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "bench":
        return bench_command(argv[1:])
    if argv:
        sys.stderr.write("basilisk: unknown arguments %s (try: basilisk, basilisk bench, "
                         "basilisk perft --depth N)\n" % " ".join(argv))
        return 2
    # hand the interpreter lock over faster (default 5 ms) when the input thread has a
    # command for a busy search thread; without contention this costs nothing
    sys.setswitchinterval(0.001)
    loader = _Loader()
    loader.start()
    session = UciSession(loader=loader)
    session.run()
    job = session.job
    if job is not None and job.alive():
        # a search that would not stop must not hold the process
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(0)
    return 0
