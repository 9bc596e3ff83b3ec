"""The UCI protocol: commands in, lines out, and the `d` and `eval` texts.

``main()`` runs the loop on stdin/stdout.  The input thread (engine.streams) timestamps
each line -- a `go`'s clock starts when its line arrived -- and the main thread runs the
commands in order, driving the engine facade (engine.engine), whose searches, `go perft`
and `bench` run in a worker thread, so `isready`, `stop`, `ponderhit` and `quit` are
obeyed while it thinks (on PyPy, until the first search, each command once the facade
exists also starts or resumes its silent JIT warm-up, which the next
go/position/setoption/ucinewgame/bench/quit ends before it runs).  The facade,
with the board and search tables (~100 ms to build), is imported by a loader thread once
the first command has been answered, so `uci` gets `uciok` at once; the commands that
need it wait for it.  This module reaches the board only through that module
(``self.core``).

Robustness: a problem with a command is reported as ``info string error: ...`` (a
traceback, if any, goes to stderr) and the engine carries on.  Unknown leading tokens are
skipped up to the first known command ("joho debug on" switches debug on).  End of input
acts as `quit`.  A malformed FEN keeps the previous position entirely; an illegal move in
``moves ...`` keeps the moves before it, as Stockfish does.  `bestmove` is sent exactly
once per `go` (not for `go perft`), only after `stop` or `ponderhit` for `go infinite` /
`go ponder`, and is always legal (``0000`` when there is no legal move).  `go` with no
limit at all is `go infinite`.  With OwnBook on, a `go` is answered from the opening
book while the game is in it (``UciSession.book_reply`` says when).
"""

import math
import os
import queue
import signal
import sys
import threading
import time

from engine import __version__, streams
from engine.streams import (Output, SIGNAL_SLICE_SECONDS, main_thread_waits, start_reader,
                            wait_in_slices)
from engine.timeman import Limits, plan_search
from engine.types import MAX_DEPTH, MAX_PLY, PIECE_SYMBOLS, SQUARE_NAMES

ENGINE_NAME = "Basilisk"
ENGINE_AUTHOR = "the Basilisk developers"
ERROR_ECHO_CHARS = 60           # how much of a bad token an error message quotes
REPO_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUIT_JOIN_SECONDS = 0.5         # how long `quit` waits for a stopped search to end
TERMINATE_GRACE_SECONDS = 3.0   # after SIGTERM/SIGINT the process ends within this, however stuck
READY_WAIT_SECONDS = 5.0        # how long `isready` waits for Threads' helpers to start
LOADER_HEAD_START_S = 0.25      # the loader waits this long for the first command to be done
# the commands that end the engine's warm-up before they run (PyPy: it starts, or resumes,
# after each command once the engine exists, until the first search)
ENDS_WARM_UP = ("go", "position", "setoption", "ucinewgame", "quit", "bench")

# UCI_ShowWDL: when the search gives no wdl, a logistic model of the cp score.
WDL_CP_AT_EVEN = 150            # cp at which win and draw are equally likely
WDL_CP_SCALE = 70

GO_KEYWORDS = ("searchmoves", "ponder", "wtime", "btime", "winc", "binc", "movestogo",
               "depth", "nodes", "mate", "movetime", "infinite", "perft")
GO_NUMBERS = ("wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "mate",
              "movetime", "perft")


class UciError(Exception):
    """A problem with a command, reported as `info string error: <message>`."""


def _quote(text):
    """Text from input, made safe and short for an error message: printable ASCII, with
    control characters (a NUL, a lone CR) and non-ASCII ones as Python escapes."""
    text = text.encode("unicode_escape").decode("ascii")
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
    """One UCI option: its name, the EngineOptions field it sets (a button: the action it
    names), type ('spin', 'check', 'button', 'string'), default and range."""

    def __init__(self, name, field, kind, default=None, minimum=None, maximum=None, help_text=""):
        self.name = name
        self.field = field
        self.kind = kind
        self.default = default
        self.minimum = minimum
        self.maximum = maximum
        self.help_text = help_text

    def help_line(self):
        """The option for a person reading `help`: name, type and values, what it does."""
        if self.kind == "spin":
            values = "spin %d..%d, default %d" % (self.minimum, self.maximum, self.default)
        elif self.kind == "check":
            values = "check, default %s" % ("true" if self.default else "false")
        elif self.kind == "string":
            values = "string, default %s" % (self.default or "empty")
        else:
            values = self.kind
        return "  %s (%s): %s" % (self.name, values, self.help_text)

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


def _cores():
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


# Threads' declared ceiling: no more than the shared block's head counts nodes for
# (engine.smp.CONTROL_WORDS: the search number, then a word per helper).  Declared whatever
# the machine, so a client's usual setting is accepted anywhere (python-chess refuses a
# value above the maximum, and lichess-bot's default config asks for Threads 2)
MAX_THREADS = 64
# the processes actually started: one per usable CPU at most (more would only share the
# cores, and each slows the main search it shares one with)
CORES = min(_cores(), MAX_THREADS)

# The `uci` answer lists them in this order.  A new option is one line here, plus an entry
# in UciSession.option_handlers if setting it must do more than store the value.
OPTIONS = (
    Option("Debug Log File", "debug_log_file", "string", "",
           help_text="append all input and output to this file"),
    Option("Threads", "threads", "spin", 1, 1, MAX_THREADS,
           "search processes (Lazy SMP: helpers share the hash table; one per usable CPU at most)"),
    Option("Hash", "hash", "spin", 16, 1, 1024, "transposition table size in MB (all Threads together)"),
    Option("Clear Hash", "clear_hash", "button", help_text="empty the transposition table"),
    Option("Ponder", "ponder", "check", False,
           help_text="the GUI may let the engine think on the opponent's time"),
    Option("MultiPV", "multipv", "spin", 1, 1, 64, "number of best lines to search and show"),
    # 50 ms rather than Stockfish's 10: a CPython search checks its clock every few hundred
    # nodes (~10 ms), and each move crosses several threads and processes, which on a
    # loaded 2-core machine costs tens of ms (measured with python-chess as the GUI)
    Option("Move Overhead", "move_overhead", "spin", 50, 0, 5000,
           "ms kept back per move for GUI and network lag"),
    Option("UCI_Chess960", "uci_chess960", "check", False,
           help_text="Chess960 castling notation (king takes rook)"),
    Option("UCI_ShowWDL", "show_wdl", "check", False,
           help_text="add win/draw/loss permille to info lines"),
    Option("OwnBook", "own_book", "check", False,
           help_text="answer from the Polyglot book in Book File while the game is in it"),
    Option("Book File", "book_file", "string", "",
           help_text="the Polyglot book (.bin); a relative path is also tried in the repository"),
    Option("Book Best Move", "book_best_move", "check", False,
           help_text="play the book's highest-weight move instead of a weighted random one"),
    # Strength levels (engine.skill, whose MIN_ELO, MAX_ELO and DEFAULT_ELO these are):
    # UCI_LimitStrength with UCI_Elo wins over Skill Level; skill.ELO_AT_LEVEL says which
    # Skill Level plays at which UCI_Elo; the top of each range is full strength.
    Option("UCI_LimitStrength", "limit_strength", "check", False,
           help_text="play at the strength UCI_Elo asks for"),
    Option("UCI_Elo", "uci_elo", "spin", 1500, 800, 1990,
           "the strength (Stockfish's scale) with UCI_LimitStrength; its top is full strength"),
    Option("Skill Level", "skill_level", "spin", 20, 0, 20,
           "0 (beginner) to 20 (full strength), unless UCI_LimitStrength is on"),
)


class EngineOptions:
    """The current option values, one attribute per OPTIONS field (buttons have none)."""

    __slots__ = tuple(opt.field for opt in OPTIONS if opt.kind != "button")

    def __init__(self):
        for opt in OPTIONS:
            if opt.kind != "button":
                setattr(self, opt.field, opt.default)


# What `help` prints: free text for a person (a GUI never sends `help`); no line starts
# with a word a GUI reads from an engine (id, option, info, bestmove, readyok ...).
HELP_LINES = (
    "Basilisk is a chess engine for a UCI GUI. Commands, one a line:",
    "  uci                     name, options, then uciok",
    "  isready                 answered with readyok, also while thinking",
    "  setoption name <name> [value <value>]   the options are listed by uci",
    "  ucinewgame              a new game follows",
    "  position startpos|fen <fen> [moves <move>...]   moves as e2e4, e7e8q",
    "  go [searchmoves <move>...] [ponder] [wtime <ms>] [btime <ms>] [winc <ms>]",
    "     [binc <ms>] [movestogo <n>] [depth <n>] [nodes <n>] [mate <n>]",
    "     [movetime <ms>] [infinite]      nothing at all: think until stop",
    "  stop                    move now",
    "  ponderhit               the pondered move was played: think on our own clock",
    "  debug on|off            more info strings",
    "  quit                    exit (as does end of input)",
    "Extras: d (board, FEN, key), eval (evaluation terms), bench [depth] (node count",
    "  of fixed searches), go perft <depth> (leaf nodes per move), help (this text).",
)


def resolve_path(path):
    """A file path from an option: ~ expanded; a relative path not found in the working
    directory is looked up in the repository (GUIs start engines in folders of their own)."""
    path = os.path.expanduser(path)
    if not os.path.isabs(path) and not os.path.exists(path):
        in_repo = os.path.join(REPO_DIR, path)
        if os.path.exists(in_repo):
            return in_repo
    return path


# ---------------------------------------------------------------------- loading
class _Loader:
    """Imports the engine facade (and so the board and search modules) in a background
    thread; wait() blocks until done and returns the module.

    It lets the first command (normally `uci`) be answered before it starts, so the
    answer does not queue behind the import for the interpreter lock.
    """

    def __init__(self):
        self.done = threading.Event()
        self.go_ahead = threading.Event()
        self.module = None
        self.error = None

    def start(self):
        threading.Thread(target=self._run, name="basilisk-loader", daemon=True).start()

    def _run(self):
        self.go_ahead.wait(LOADER_HEAD_START_S)
        try:
            # the one import of engine.engine, and so of the board and search modules
            import engine.engine
            self.module = engine.engine
        except BaseException as exc:   # reported by wait(), in the thread that needs it
            import traceback
            self.error = exc
            traceback.print_exc(file=sys.stderr)
        finally:
            self.done.set()

    def wait(self, timeout=None):
        self.go_ahead.set()
        wait_in_slices(self.done, timeout)
        if self.error is not None:
            raise UciError("engine modules failed to load: %r" % (self.error,))
        return self.module


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


def board_lines(pos, key, shredder_fen=False):
    """The `d` text: the board as Stockfish draws it, then FEN, key (Polyglot's, as
    Stockfish's: pos.key is 63-bit on PyPy) and checkers."""
    sep = " +---+---+---+---+---+---+---+---+"
    lines = [""]
    for rank in range(7, -1, -1):
        lines.append(sep)
        cells = [PIECE_SYMBOLS.get(pos.board[rank * 8 + f], " ") for f in range(8)]
        lines.append(" | " + " | ".join(cells) + " | %d" % (rank + 1))
    lines.append(sep)
    lines.append("   a   b   c   d   e   f   g   h")
    lines.append("")
    lines.append("Fen: " + pos.fen(shredder=shredder_fen))
    lines.append("Key: %016X" % key)
    checkers = pos.checkers()
    names = [SQUARE_NAMES[sq] for sq in range(64) if checkers >> sq & 1]
    lines.append("Checkers: " + " ".join(names))
    return lines


def eval_lines(terms, score, turn):
    """The `eval` text: each term's (mg, eg) in white's view, then the final score."""
    lines = []
    if terms is not None:
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
    white = score if turn == 0 else -score
    lines.append("Final evaluation: %+.2f (white side)" % (white / 100.0))
    return lines


# ---------------------------------------------------------------------- the session
class UciSession:
    """The engine's side of one UCI conversation."""

    def __init__(self, out=None, loader=None):
        self.out = Output(out)
        self.loader = loader or _Loader()
        self.debug = False
        self.options = EngineOptions()
        self.option_by_key = {opt.name.lower(): opt for opt in OPTIONS}
        # what setting an option does beyond storing its value (by field)
        self.option_handlers = {"hash": self.set_hash, "threads": self.set_threads,
                                "clear_hash": self.clear_hash,
                                "debug_log_file": self.set_debug_log_file,
                                "own_book": self.set_own_book, "book_file": self.set_book_file}
        self.core = None                # the engine.engine module, once loaded
        self.engine = None              # its Engine, made on first need
        self.pos = None
        self.pos_source = None          # (FEN, UCI_Chess960, move tokens) self.pos was made from
        self.chess960_game = False      # does the current game need king-takes-rook castling?
        self.book_miss = None           # the pos_source at which the book last had no move
        self.bookless_noted = False     # said once that OwnBook is on with no Book File
        self.quitting = False
        self.terminated = False         # SIGTERM/SIGINT came (in shutdown: a count is not waited for)
        self.quit_read = threading.Event()  # the input thread has read `quit` or end of input
        self.line_time = None           # perf_counter() when the current command was read
        self.handlers = {
            "uci": self.cmd_uci, "debug": self.cmd_debug, "isready": self.cmd_isready,
            "setoption": self.cmd_setoption, "register": self.cmd_register,
            "ucinewgame": self.cmd_ucinewgame, "position": self.cmd_position,
            "go": self.cmd_go, "stop": self.cmd_stop, "ponderhit": self.cmd_ponderhit,
            "quit": self.cmd_quit, "d": self.cmd_d, "eval": self.cmd_eval,
            "bench": self.cmd_bench, "help": self.cmd_help,
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
        import traceback    # not at the top: it costs start-up time and is rarely needed
        self.error("%s: %s" % (what, _quote(repr(exc))[1:-1]))
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        try:
            sys.stderr.write(text)
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        self.out.log_lines("!! ", text.splitlines())

    # -------------------------------------------------------------- state helpers
    def ensure_ready(self):
        """Wait for the facade module; make the Engine and the start position once."""
        self.core = self.loader.wait()
        if self.engine is None:
            self.engine = self.core.Engine(hash_mb=self.options.hash, on_error=self.error,
                                           on_exception=self.report_exception)
            if self.options.threads > 1:
                self.engine.set_threads(min(self.options.threads, CORES))
            if self.core.NETWORK_PROBLEM:      # a network file that did not load
                self.error(self.core.NETWORK_PROBLEM)
        if self.pos is None:
            self.pos = self.core.Position()
            self.chess960_game = False

    def chess960(self):
        return bool(self.options.uci_chess960 or self.chess960_game)

    def searching(self):
        return self.engine is not None and self.engine.busy()

    def move_text(self, move, chess960=None):
        return self.core.move_to_uci(move, self.chess960() if chess960 is None else chess960)

    # -------------------------------------------------------------- the loop
    def handle_line(self, line):
        """Run one input line; never raises (except SystemExit from nothing)."""
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
            if self.engine is not None and tokens[0] in ENDS_WARM_UP:
                self.engine.end_warm_up()
            self.handlers[tokens[0]](tokens[1:])
            if self.quit_read.is_set() and self.engine is not None:
                # a search started after `quit` was read (piped behind it) ends at once:
                # its bestmove comes out, and the `quit` is not kept waiting
                self.engine.stop_for_quit()
            if self.engine is not None and not (self.quitting or self.quit_read.is_set()):
                # PyPy only, until the first search: resumed after every command (a GUI
                # sends several before its first `go`), ended by the next one of
                # ENDS_WARM_UP; a warm-up that runs on is left alone
                self.engine.warm_up()
        except UciError as exc:
            self.error(str(exc))
        except Exception as exc:
            self.report_exception("%s failed" % tokens[0], exc)

    def on_input(self, line):
        """In the input thread: a `quit` (or end of input, None) stops a running search
        at once, before the main thread gets to it (a `go perft` or `bench` runs on)."""
        if line is None or line.split()[:1] == ["quit"]:
            self.quit_read.set()
            engine = self.engine
            if engine is not None:
                engine.stop_for_quit()

    def run(self, stdin=None):
        """Read and run commands until `quit`, end of input, a signal (_on_terminate) or
        output that can no longer be written (the GUI closed its end: Stockfish dies of the
        SIGPIPE there, and a search left running would burn its cores for nobody); then
        shutdown(), whose answer it returns."""
        interrupted = False
        out = self.out
        try:
            lines = start_reader(stdin if stdin is not None else sys.stdin.buffer,
                                 self.on_input)
            while not (self.quitting or self.terminated or out.broken):
                try:
                    # (in slices: engine.streams.SIGNAL_SLICE_SECONDS says why)
                    with main_thread_waits:
                        self.line_time, line, problem = lines.get(timeout=SIGNAL_SLICE_SECONDS)
                except queue.Empty:
                    continue
                if line is None:
                    self.quitting = True    # end of input is quit
                    break
                if problem:
                    self.error(problem)
                else:
                    self.handle_line(line)
                self.loader.go_ahead.set()
        except KeyboardInterrupt:
            interrupted = True
        # with the output gone, a count or bench has no one to tell its result either
        return self.shutdown(interrupted or self.terminated or out.broken)

    def shutdown(self, interrupted=False):
        """End the session: a search stops, a `go perft` or `bench` is let finish (unless
        interrupted: Ctrl-C stops it too), helper processes end.  False if a job would not
        stop, and so the engine could not be ended (main() then exits at once)."""
        self.quitting = True
        engine = self.engine
        if engine is not None:
            if interrupted:
                engine.stop()
            elif engine.stop_for_quit():
                try:
                    # the count's result comes out first, unless SIGTERM or Ctrl-C ends it
                    while not engine.wait_idle(SIGNAL_SLICE_SECONDS):
                        if self.terminated:
                            engine.stop()
                            break
                except KeyboardInterrupt:
                    engine.stop()
            if not engine.wait_idle(QUIT_JOIN_SECONDS):
                return False            # a worker stuck (writing to a full pipe, say) may
                                        # hold the output lock: main() exits at once
            engine.close()              # helper processes end (they also end with our stdin)
        self.out.set_log(None)
        return True

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
        if self.engine is not None:
            self.engine.settle()        # Threads, Hash ... sent during the last search
            self.engine.wait_ready(READY_WAIT_SECONDS)     # helper processes starting up
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
        if opt.kind != "button":
            setattr(self.options, opt.field, parsed)
        handler = self.option_handlers.get(opt.field)
        if handler is not None:
            handler(parsed)
        if self.debug and opt.kind != "button":
            self.info("%s set to %s" % (opt.name, parsed))

    def set_hash(self, mb):
        if self.engine is not None:     # otherwise the Engine is made with this size
            self.engine.set_hash(mb)

    def set_threads(self, threads):
        if threads > CORES:
            self.info("Threads %d: %d usable CPU%s here, so %d search process%s"
                      % (threads, CORES, "" if CORES == 1 else "s", CORES,
                         "" if CORES == 1 else "es"))
        if self.engine is not None:     # otherwise the Engine is made with them
            self.engine.set_threads(min(threads, CORES))

    def clear_hash(self, _value):
        if self.engine is not None:     # otherwise the Engine starts empty anyway
            self.engine.clear_hash()

    def set_debug_log_file(self, path):
        try:
            self.out.set_log(path)
        except (OSError, ValueError) as exc:    # the log before, if any, goes on
            self.options.debug_log_file = self.out.log_path
            raise UciError("cannot open debug log file %s: %s (%s)" % (
                _quote(path), getattr(exc, "strerror", None) or exc,
                "still logging to %s" % _quote(self.out.log_path) if self.out.log_path
                else "no log"))

    def set_own_book(self, _on):
        """OwnBook or Book File changed: the book is loaded while OwnBook is on, and
        dropped while it is off (loaded again when it is switched on)."""
        self.book_miss = None
        self.bookless_noted = False
        if self.options.own_book:
            self.load_book()
        elif self.engine is not None:
            self.engine.set_book(None)

    set_book_file = set_own_book

    def load_book(self):
        """Load Book File (the engine has no book if it is empty or unusable)."""
        path = self.options.book_file
        if not path and self.engine is None:
            return
        self.ensure_ready()
        try:
            self.engine.set_book(resolve_path(path) if path else None)
        except self.core.BookError as exc:
            raise UciError("%s; playing without a book" % exc) from None
        if self.debug and path:
            self.info("book %s: %d entries" % (_quote(path), len(self.engine.book)))

    def cmd_ucinewgame(self, args):
        self.ensure_ready()
        self.engine.new_game()
        self.book_miss = None

    def cmd_position(self, args):
        self.ensure_ready()
        core = self.core
        if not args or args[0] not in ("startpos", "fen"):
            raise UciError("position needs startpos or fen (position unchanged)")
        try:
            moves_at = args.index("moves")
        except ValueError:
            moves_at = len(args)
        if args[0] == "startpos":
            fen = core.STARTING_FEN
            if moves_at > 1:
                self.error("unexpected %s after startpos ignored" % _quote(" ".join(args[1:moves_at])))
        else:
            fields = args[1:moves_at]
            if len(fields) == 5 and fields[4].isdigit():
                fields = fields + ["1"]     # fullmove number missing: be lenient
            fen = " ".join(fields)
        move_tokens = args[moves_at + 1:]
        source = self.pos_source
        option_960 = bool(self.options.uci_chess960)
        if (source is not None and source[0] == fen and source[1] == option_960
                and move_tokens[:len(source[2])] == source[2]):
            # the usual GUI case, the previous game plus a move or two: apply only those
            pos = self.pos.copy()
            done = len(source[2])
            chess960_game = self.chess960_game
        else:
            repairs = []
            try:
                pos = core.Position(fen, repairs)
            except core.FenError as exc:
                raise UciError("bad FEN %s: %s (position unchanged)" % (_quote(fen), exc)) from None
            for repair in repairs:
                # what the board contradicts is dropped, as Stockfish does, and said
                self.info("FEN %s: %s" % (_quote(fen), repair))
            done = 0
            chess960_game = pos.is_chess960_layout()
        chess960 = option_960 or chess960_game
        for i in range(done, len(move_tokens)):
            move = core.parse_uci_move(pos, move_tokens[i], chess960)
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
        limits = Limits()
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
                    legal = self.core.generate_moves(self.pos)
                while i < n and args[i] not in GO_KEYWORDS:
                    move = self.core.parse_uci_move(self.pos, args[i], self.chess960(), legal)
                    if move is None:
                        self.error("searchmoves: %s is not a legal move here, ignored" % _quote(args[i]))
                    elif move not in limits.searchmoves:
                        limits.searchmoves.append(move)
                    i += 1
            elif token in GO_NUMBERS:
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
        if key in ("depth", "perft"):
            most = MAX_DEPTH if key == "depth" else MAX_PLY
            if value < 1 or value > most:
                clamped = min(max(value, 1), most)
                self.error("go %s %d is outside 1..%d, using %d" % (key, value, most, clamped))
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
        moves = self.core.generate_moves(self.pos)
        return "bestmove " + (self.move_text(moves[0]) if moves else "0000")

    def cmd_go(self, args):
        self.ensure_ready()
        try:
            self.start_go(args)
        except Exception as exc:
            # whatever went wrong, this go still gets its one legal bestmove
            self.report_exception("go failed", exc)
            self.send(self.fallback_bestmove())

    def start_go(self, args):
        # the old search ends (its last lines and bestmove out) before this go says anything:
        # one that ends by itself is waited for, as Stockfish does; one that waits for
        # stop/ponderhit is stopped
        self.engine.let_bounded_job_finish()
        if not self.engine.stop_and_wait("go"):
            # the old search is stuck: answer this go at once
            self.send(self.fallback_bestmove())
            return
        limits = self.parse_go(args)
        pos = self.pos.copy()
        chess960 = self.chess960()
        if limits.perft:
            self.start_perft(pos, limits.perft, chess960)
            return
        legal = self.core.root_moves(pos, limits.searchmoves)
        if legal and self.book_reply(pos, limits, legal, chess960):
            return
        timeman = plan_search(limits, pos.turn, len(legal), self.options.move_overhead,
                              start=self.line_time)
        if self.debug:
            self.info("go %r: soft %.0f ms, hard %.0f ms" % (limits, timeman.soft_ms, timeman.hard_ms))
        if not legal:
            self.send("info depth 0 score %s" % ("mate 0" if pos.in_check() else "cp 0"))
        show_wdl = self.options.show_wdl

        def move_text(move):
            return self.move_text(move, chess960)

        def on_info(info):
            self.send(format_info(info, move_text, show_wdl))

        def on_bestmove(best, ponder):
            self.send("bestmove %s%s" % (move_text(best),
                                         " ponder " + move_text(ponder) if ponder else ""))

        options = self.options
        strength = self.core.strength_level(options.limit_strength, options.uci_elo,
                                            options.skill_level)
        if limits.mate:
            strength = None     # `go mate N` asks for a mate search, not a move of a level
        if self.debug and strength is not None:
            self.info("strength level %.1f" % strength)
        if not self.engine.go(pos, limits, timeman, legal, options.multipv, chess960,
                              on_info=on_info, on_bestmove=on_bestmove, strength=strength):
            # the job before would not stop after all (start_go waited for it): this go
            # still gets its one legal bestmove
            self.send(self.fallback_bestmove())

    def game_source(self):
        """What the current position was made from: (FEN, UCI_Chess960, move tokens)."""
        return self.pos_source or (self.core.STARTING_FEN, bool(self.options.uci_chess960), [])

    def out_of_book(self):
        """Is the current position a continuation of the one where the book ran out?"""
        miss = self.book_miss
        if miss is None:
            return False
        fen, option_960, moves = self.game_source()
        return fen == miss[0] and option_960 == miss[1] and moves[:len(miss[2])] == miss[2]

    def book_reply(self, pos, limits, legal, chess960):
        """Answer this `go` from the book if OwnBook is on and the book has a move among
        ``legal``: the move (bestmove sent), else 0 (search).

        Not for Chess960 (a standard book has no Chess960 openings), nor for `go
        infinite`, `go ponder` or `go mate`, which ask for a search.  Once the book has no
        move here, it is not asked again until `ucinewgame`, a new book, or a position
        that does not continue this game.
        """
        if not self.options.own_book:
            return 0
        if self.engine.book is None:
            # said at the first go, not when OwnBook is set: a GUI may set Book File after it
            if not self.options.book_file and not self.bookless_noted:
                self.bookless_noted = True
                self.info("OwnBook is on but Book File is empty: searching")
            return 0
        if chess960:
            why_not = "Chess960"
        elif limits.infinite or limits.ponder or limits.mate:
            why_not = "go infinite, ponder or mate"
        elif self.out_of_book():
            why_not = "out of book in this game"
        else:
            found = self.engine.book_move(pos, legal, self.options.book_best_move)
            if found is None:
                self.book_miss = self.game_source()
                why_not = "no book move here"
            elif not found[0]:
                why_not = "no book move among searchmoves"
            else:
                move, weight, total = found
                text = self.move_text(move, chess960)
                self.info("book move %s (weight %d of total %d)" % (text, weight, total))
                self.send("bestmove " + text)
                return move
        if self.debug:
            self.info("book not used: " + why_not)
        return 0

    def start_perft(self, pos, depth, chess960):
        """`go perft N`: per-move counts then the total, as Stockfish prints them."""
        def on_count(move, count):
            self.send("%s: %d" % (self.move_text(move, chess960), count))

        def on_done(total, seconds, stopped):
            if stopped:
                self.info("perft stopped")
                return
            self.send_lines(["", "Nodes searched: %d" % total])
            if self.debug:
                self.info("perft %.3f s, %d nodes/s" % (seconds, total / max(seconds, 1e-9)))

        self.engine.perft(pos, depth, on_count=on_count, on_done=on_done)

    def cmd_stop(self, args):
        if self.searching():
            self.engine.stop()
        elif self.debug:
            self.info("stop: no search running")

    def cmd_ponderhit(self, args):
        if not (self.searching() and self.engine.ponderhit()) and self.debug:
            self.info("ponderhit: not pondering")

    def cmd_quit(self, args):
        self.quitting = True

    def cmd_d(self, args):
        self.ensure_ready()
        pos = self.pos
        self.send_lines(board_lines(pos, self.core.polyglot_key(pos),
                                    shredder_fen=self.chess960() and pos.is_chess960_layout()))

    def cmd_eval(self, args):
        self.ensure_ready()
        pos = self.pos
        if pos.in_check():
            # a static evaluation means nothing where the side to move must answer a check
            self.send("Final evaluation: none (in check)")    # Stockfish's words
            return
        self.send_lines(eval_lines(self.core.evaluate_terms(pos), self.core.evaluate(pos), pos.turn))

    def cmd_help(self, args):
        self.send_lines(HELP_LINES + ("Options (setoption name <name> value <value>):",)
                        + tuple(opt.help_line() for opt in OPTIONS))

    def cmd_bench(self, args):
        self.ensure_ready()
        depth = None
        max_depth = self.core.BENCH_MAX_DEPTH
        if args:
            try:
                depth = int(args[0])
            except ValueError:
                raise UciError("bench [depth]: %s is not a number" % _quote(args[0])) from None
            if not 1 <= depth <= max_depth:
                raise UciError("bench depth must be 1..%d" % max_depth)
        self.engine.let_bounded_job_finish()    # as `go` does: piped commands run in turn
        if not self.engine.stop_and_wait("bench"):
            return

        def on_done(lines):
            if lines is None:
                self.info("bench stopped")
            else:
                self.send_lines(lines)

        self.engine.bench(depth, on_done=on_done, progress=sys.stderr)


def _on_terminate(session):
    """The SIGTERM and SIGINT handler (a GUI whose `quit` went unanswered, a match runner
    ending a game, Ctrl-C): the session ends as on `quit` (the search stopped, helper
    processes and their shared memory ended cleanly), but a `go perft` or `bench` is not
    waited for.  A second signal of the kind kills at once.

    It leaves a flag, which the main loop reads after each command and each
    SIGNAL_SLICE_SECONDS of waiting for input, and shutdown's wait too; a watchdog thread
    (_end_if_stuck) ends the process should the main thread stay stuck in a wait the flag
    cannot reach (a write to a stdout nobody reads, say).  Only where the main thread
    waits in slices (a command for a search, the loop for input) does the handler also
    raise KeyboardInterrupt, to end that wait now: elsewhere an interrupt could land
    halfway through making a thread or a shared block.  And only where the code it lands in
    is the wait's own (_WAIT_FILES): PyPy runs weakref callbacks (importlib's, after an
    import in any thread) wherever its garbage collector stops the main thread, inside a
    wait too, and an interrupt raised in one is swallowed there and printed on stderr (that
    wait ends on the flag, or by the watchdog, instead).  It never stops the search itself:
    the main thread may be inside Job.stop(), holding a lock a second stop would wait for
    forever."""
    def terminate(signum, frame):
        signal.signal(signum, signal.SIG_DFL)
        session.terminated = True
        if (not session.quitting and main_thread_waits.depth and frame is not None
                and frame.f_code.co_filename in _WAIT_FILES):
            raise KeyboardInterrupt
    return terminate


# the files of the code a sliced wait of the main thread runs: the slice (threading's
# Condition and Event, queue's get) and the loops around it
_WAIT_FILES = frozenset((threading.__file__, queue.__file__, streams.__file__, __file__))


TERMINATING_SIGNALS = (signal.SIGTERM, signal.SIGINT)


def _end_if_stuck(session):
    """The watchdog of _on_terminate (a daemon thread): once a signal has come, the process
    ends within TERMINATE_GRACE_SECONDS, with status 0 and the shared block unlinked,
    whatever the main thread waits for.  It reads only the flag: no lock."""
    while not session.terminated:
        time.sleep(SIGNAL_SLICE_SECONDS)
    time.sleep(TERMINATE_GRACE_SECONDS)
    try:
        if session.engine is not None:
            session.engine.abandon()
    finally:
        os._exit(0)


def main():
    """The UCI loop on stdin/stdout, until `quit` or end of input; the exit status."""
    # hand the interpreter lock over faster (default 5 ms) when the input thread has a
    # command for a busy search thread; without contention this costs nothing
    sys.setswitchinterval(0.001)
    loader = _Loader()
    loader.start()
    session = UciSession(loader=loader)
    for signum in TERMINATING_SIGNALS:
        # a signal the shell started us ignoring (a background job's SIGINT) stays ignored
        if signal.getsignal(signum) is not signal.SIG_IGN:
            signal.signal(signum, _on_terminate(session))
    threading.Thread(target=_end_if_stuck, args=(session,), name="basilisk-watchdog",
                     daemon=True).start()
    ended_cleanly = session.run()
    # the session is over: a signal now (a GUI's SIGTERM right behind its `quit`) must not
    # kill the exit under way with status -15 or -2 (the interpreter restores the default
    # handlers while it shuts down, but leaves an ignored signal ignored)
    for signum in TERMINATING_SIGNALS:
        signal.signal(signum, signal.SIG_IGN)
    if not ended_cleanly:
        # a job that would not stop (a search stuck writing to a full pipe, one never
        # started) must not hold the process; the shared memory of Threads > 1 goes first
        try:
            session.engine.abandon()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(0)
    return 0
