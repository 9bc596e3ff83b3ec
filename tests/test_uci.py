"""The UCI front end, driven as a GUI drives it: real `python -m engine` subprocesses.

Raw sessions check every command, the bad-input corpus (tests/uci_bad_input.txt), stop
latency, quit/EOF, start-up time and the command line; python-chess's `chess.engine` then
acts as a strict, independent client (options, MultiPV analysis, complete timed games, also
against Debian's stockfish when installed).  In-process tests drive the engine facade
(engine.engine) without the protocol.  Timings are printed (run with -s to see them).

Wall-clock checks must hold on a loaded 2-core machine: a figure from the issue is met by
the best of several runs; a single run gets a bound far above what the engine needs and
below what a real bug costs; and where the engine can tell us its plan (`debug on` prints
each `go`'s soft and hard limits), the plan is checked instead of the clock.
"""

import codecs
import contextlib
import logging
import os
import queue
import random
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import chess  # noqa: E402  (the oracle: missing, the run must fail, not skip)
import chess.engine  # noqa: E402

from conftest import data_file, read_perft_suite  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
CORPUS = Path(__file__).resolve().parent / "uci_bad_input.txt"
STOCKFISH = "/usr/games/stockfish"
ENGINE_CMD = [sys.executable, "-m", "engine"]

STOP_LIMIT_MS = 50              # bestmove after stop (the figure)
PROMPT_MS = 3000                # a single prompt answer, however loaded the machine; a
                                # blocked thread or an ignored limit takes longer
MOVE_OVERHEAD_MS = 50           # the engine's default Move Overhead
ONLY_MOVE_MS = 50               # engine.timeman.ONLY_MOVE_MS, the figure
TIMEOUT = 10.0                  # python-chess's own handshake/isready time-out
START_FEN_AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
PROTOCOL_PREFIXES = ("id name ", "id author ", "option name ", "uciok", "readyok", "info ",
                     "bestmove ")


# ---------------------------------------------------------------------- raw sessions
class Session:
    """A `python -m engine` process with line-level access and timestamps."""

    def __init__(self, args=(), env=None, cwd=REPO, sigint=signal.SIG_DFL):
        """`sigint`: SIGINT's disposition the engine starts with.  By default the one a
        terminal gives a program, whatever pytest was started with: a shell without job
        control starts a background job (`make test &`) with SIGINT ignored, which its
        children inherit, and an engine started so keeps ignoring it.  A child inherits
        only an ignored SIGINT (a handler resets at exec), so it is set in the child only
        when that differs from what is asked."""
        ignored = signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        set_sigint = (None if ignored == (sigint is signal.SIG_IGN)
                      else lambda: signal.signal(signal.SIGINT, sigint))
        if Path(cwd) != REPO:
            # elsewhere `-m engine` would find only what is installed, perhaps another
            # checkout: this one's package comes first
            env = dict(os.environ if env is None else env)
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
        self.spawned = time.perf_counter()
        self.proc = subprocess.Popen(ENGINE_CMD + list(args), cwd=str(cwd), env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, bufsize=0, preexec_fn=set_sigint)
        self.queue = queue.Queue()
        self.ended = False              # the end of output has been read
        self.transcript = []
        self.stderr = []
        threading.Thread(target=self._pump_stdout, daemon=True).start()
        self.stderr_pump = threading.Thread(target=self._pump_stderr, daemon=True)
        self.stderr_pump.start()

    def _pump_stdout(self):
        # a line that breaks the rules ends the output with the error, which read() raises
        # in the test's own thread (an exception here would only be a warning)
        try:
            for raw in iter(self.proc.stdout.readline, b""):
                if not raw.endswith(b"\n"):
                    raise AssertionError("line without newline: %r" % raw)
                line = raw[:-1].decode("ascii")     # the engine must write plain ASCII
                self.transcript.append(line)
                self.queue.put((time.perf_counter(), line))
        except (AssertionError, UnicodeDecodeError) as exc:
            self.queue.put((time.perf_counter(), exc))
            return
        self.queue.put((time.perf_counter(), None))

    def _pump_stderr(self):
        for raw in iter(self.proc.stderr.readline, b""):
            self.stderr.append(raw.decode("utf-8", "replace"))

    def all_stderr(self, timeout=10.0):
        """Everything written to stderr, once every process holding it (the engine, its
        helpers, a resource tracker) has closed it."""
        self.stderr_pump.join(timeout)
        assert not self.stderr_pump.is_alive(), "stderr still open after %.0f s" % timeout
        return "".join(self.stderr)

    def send(self, text):
        data = text if isinstance(text, bytes) else text.encode("utf-8")
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def read(self, timeout=TIMEOUT):
        """(timestamp, line) of the next line; line None at end of output."""
        try:
            stamp, line = self.queue.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError("no output within %.1f s; transcript tail: %r"
                                 % (timeout, self.transcript[-10:])) from None
        return self._received(stamp, line)

    def _received(self, stamp, line):
        """(stamp, line) taken from the queue; a bad line the pump found fails the test."""
        if isinstance(line, Exception):
            self.queue.put((stamp, line))       # every later read fails the same way
            raise AssertionError("bad output line: %s" % line)
        if line is None:
            self.ended = True
        return stamp, line

    def read_until(self, predicate, timeout=TIMEOUT):
        """Lines up to and including the first one matching predicate."""
        deadline = time.perf_counter() + timeout
        lines = []
        while True:
            _, line = self.read(max(deadline - time.perf_counter(), 0.001))
            assert line is not None, "engine exited; got %r" % lines[-10:]
            lines.append(line)
            if predicate(line):
                return lines

    def expect(self, prefix, timeout=TIMEOUT):
        return self.read_until(lambda line: line.startswith(prefix), timeout)

    def sync(self, timeout=TIMEOUT):
        """isready -> readyok; the lines that came before readyok."""
        self.send("isready")
        return self.read_until(lambda line: line == "readyok", timeout)[:-1]

    def quiet_for(self, seconds):
        """Lines printed within the next `seconds` (normally expected to be none)."""
        lines = []
        deadline = time.perf_counter() + seconds
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                return lines
            try:
                stamp, line = self.queue.get(timeout=left)
            except queue.Empty:
                return lines
            lines.append(self._received(stamp, line)[1])

    def fen(self):
        self.send("d")
        lines = self.expect("Checkers:")
        return next(line[5:] for line in lines if line.startswith("Fen: "))

    def bestmove(self, timeout=TIMEOUT):
        """The next bestmove's (move, ponder) texts and the info lines before it."""
        lines = self.expect("bestmove ", timeout)
        tokens = lines[-1].split()
        ponder = tokens[3] if len(tokens) >= 4 and tokens[2] == "ponder" else None
        return tokens[1], ponder, lines[:-1]

    def close(self, timeout=5.0):
        if self.proc.poll() is None:
            try:
                self.send("quit")
            except OSError:
                pass
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        assert "Traceback" not in "".join(self.stderr), "".join(self.stderr)
        while not self.ended:           # a bad line no read came to
            try:
                _, line = self.queue.get(timeout=1.0)
            except queue.Empty:
                return
            if line is None:
                return
            assert not isinstance(line, Exception), "bad output line: %s" % line


@pytest.fixture
def uci():
    session = Session()
    session.send("uci")
    session.expect("uciok")
    yield session
    session.close()


def assert_legal(fen, move_text, chess960=False, ponder=None):
    board = chess.Board(fen, chess960=chess960)
    move = chess.Move.from_uci(move_text)
    assert move in board.legal_moves, "illegal bestmove %s in %s" % (move_text, fen)
    if ponder:
        board.push(move)
        assert chess.Move.from_uci(ponder) in board.legal_moves, \
            "illegal ponder move %s after %s in %s" % (ponder, move_text, fen)


def errors(lines):
    return [line for line in lines if line.startswith("info string error:")]


def parse_info(line):
    """A dict of an info line's fields (pv as a list)."""
    tokens = line.split()
    assert tokens[0] == "info"
    out = {}
    i = 1
    while i < len(tokens):
        key = tokens[i]
        if key == "pv":
            out["pv"] = tokens[i + 1:]
            break
        if key == "string":
            out["string"] = " ".join(tokens[i + 1:])
            break
        if key == "score":
            out["score"] = (tokens[i + 1], int(tokens[i + 2]))
            i += 3
            continue
        if key in ("lowerbound", "upperbound"):
            out[key] = True
            i += 1
            continue
        if key == "wdl":
            out["wdl"] = tuple(int(t) for t in tokens[i + 1:i + 4])
            i += 4
            continue
        if key == "currmove":
            out[key] = tokens[i + 1]
            i += 2
            continue
        out[key] = int(tokens[i + 1])
        i += 2
    return out


def check_pv(fen, pv, chess960=False):
    board = chess.Board(fen, chess960=chess960)
    for text in pv:
        move = chess.Move.from_uci(text)
        assert move in board.legal_moves, "illegal pv move %s in %s (pv %s)" % (text, board.fen(), pv)
        board.push(move)


# ---------------------------------------------------------------------- handshake, start-up
def test_handshake_lists_options():
    s = Session()
    s.send("uci")
    lines = s.expect("uciok")
    s.close()
    assert lines[0].startswith("id name Basilisk ")
    assert lines[1].startswith("id author ")
    options = {}
    for line in lines[2:-1]:
        m = re.match(r"option name (.+?) type (\w+)(.*)$", line)
        assert m, line
        options[m.group(1)] = (m.group(2), m.group(3))
    assert set(options) >= {"Hash", "Clear Hash", "MultiPV", "Ponder", "Move Overhead",
                            "UCI_Chess960"}
    assert options["Threads"] == ("spin", " default 1 min 1 max 64")    # whatever the machine
    assert options["Hash"][0] == "spin" and "default 16" in options["Hash"][1]
    assert options["Clear Hash"][0] == "button"
    assert options["UCI_Chess960"] == ("check", " default false")
    for line in lines:
        assert line.startswith(PROTOCOL_PREFIXES), line


def _precompile():
    # A real installation keeps .pyc files; this environment may not write them
    # (PYTHONDONTWRITEBYTECODE), so compile once, as `pip install` would.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "engine")],
                   check=True, stdout=subprocess.DEVNULL)


def _time_to_uciok():
    start = time.perf_counter()
    proc = subprocess.Popen(ENGINE_CMD, cwd=str(REPO), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, bufsize=0)
    proc.stdin.write(b"uci\n")
    proc.stdin.flush()
    while True:
        line = proc.stdout.readline()
        assert line, "no uciok"
        if line.strip() == b"uciok":
            break
    elapsed = (time.perf_counter() - start) * 1000
    proc.stdin.write(b"isready\n")
    proc.stdin.flush()
    while proc.stdout.readline().strip() != b"readyok":
        pass
    ready = (time.perf_counter() - start) * 1000
    proc.stdin.write(b"quit\n")
    proc.stdin.flush()
    proc.wait(5)
    return elapsed, ready


def test_uciok_startup_time():
    _precompile()
    times = [_time_to_uciok() for _ in range(5)]
    uciok = sorted(t[0] for t in times)
    ready = sorted(t[1] for t in times)
    print("\nuciok after spawn (ms): %s; readyok: %s"
          % (" ".join("%.0f" % t for t in uciok), " ".join("%.0f" % t for t in ready)))
    # GUIs give up on an engine that does not answer `uci` within seconds: that is the bug
    # this catches, on any machine.  The figure itself (~45 ms on CPython, ~60 ms on PyPy
    # to uciok, idle machine) is measured by scripts/bench_compare.py --go; what keeps it
    # low (no board module before uciok) is checked exactly by
    # test_the_front_end_starts_without_the_board_modules.
    assert uciok[2] < PROMPT_MS and ready[2] < PROMPT_MS


# GUIs remember these; a changed name, type, default or range breaks their settings
OPTION_LINES = [
    "option name Debug Log File type string default <empty>",
    "option name Threads type spin default 1 min 1 max 64",
    "option name Hash type spin default 16 min 1 max 1024",
    "option name Clear Hash type button",
    "option name Ponder type check default false",
    "option name MultiPV type spin default 1 min 1 max 64",
    "option name Move Overhead type spin default 50 min 0 max 5000",
    "option name UCI_Chess960 type check default false",
    "option name UCI_ShowWDL type check default false",
    "option name OwnBook type check default false",
    "option name Book File type string default <empty>",
    "option name Book Best Move type check default false",
    "option name UCI_LimitStrength type check default false",
    "option name UCI_Elo type spin default 1500 min 800 max 1990",
    "option name Skill Level type spin default 20 min 0 max 20",
]


def test_option_lines_are_unchanged(uci):
    assert [line for line in uci.transcript if line.startswith("option ")] == OPTION_LINES


def test_options_are_named_fields():
    from engine.uci import OPTIONS, EngineOptions, UciSession
    values = EngineOptions()
    fields = [opt.field for opt in OPTIONS]
    assert len(set(fields)) == len(fields)
    for opt in OPTIONS:
        if opt.kind != "button":
            assert getattr(values, opt.field) == opt.default, opt.name
    assert values.show_wdl is False and values.move_overhead == 50
    with pytest.raises(AttributeError):
        values.show_wld = True          # a misspelt option is an error, not a new value
    import io
    session = UciSession(out=io.StringIO())
    assert set(session.option_handlers) <= set(fields)
    session.handle_line("setoption name uci_showwdl value true")
    session.handle_line("setoption name Move Overhead value 7")
    assert session.options.show_wdl is True and session.options.move_overhead == 7


def test_a_go_the_engine_cannot_start_still_gets_a_bestmove(monkeypatch):
    """Engine.go answers False when the job before would not stop: the `go` then gets the
    first legal move, as a `go` that fails does, instead of no bestmove at all."""
    import io
    from engine.engine import Engine
    from engine.uci import UciSession
    from engine.uci import _Loader
    monkeypatch.setattr(Engine, "go", lambda self, *args, **kwargs: False)
    out = io.StringIO()
    loader = _Loader()
    loader.start()
    session = UciSession(out=out, loader=loader)
    session.handle_line("position startpos moves e2e4")
    session.handle_line("go depth 3")
    moves = [line for line in out.getvalue().splitlines() if line.startswith("bestmove")]
    assert len(moves) == 1, out.getvalue()
    board = chess.Board()
    board.push_uci("e2e4")
    assert_legal(board.fen(), moves[0].split()[1])
    session.shutdown()


def test_the_front_end_starts_without_the_board_modules():
    """What `python -m engine` imports before it can answer `uci`: no tables are built."""
    code = ("import sys, engine.__main__, engine.uci; "
            "print(' '.join(sorted(m for m in sys.modules if m.startswith('engine'))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=str(REPO), capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    loaded = set(out.stdout.split())
    light = {"engine", "engine.__main__", "engine.runtime", "engine.uci", "engine.streams",
             "engine.timeman",
             "engine.types", "engine.tunables"}     # tunables: a parser, no tables
    assert loaded <= light, "imported at start-up: %s" % sorted(loaded - light)


def run_cli(*args):
    return subprocess.run(ENGINE_CMD + list(args), cwd=str(REPO), capture_output=True,
                          text=True, timeout=120)


def test_command_line_help_version_and_errors():
    from engine import __version__
    for flag in ("--help", "-h"):
        out = run_cli(flag)
        assert out.returncode == 0 and out.stderr == ""
        assert out.stdout.startswith("usage: basilisk")
        assert "basilisk bench" in out.stdout and "basilisk perft" in out.stdout
        assert "--version" in out.stdout
    out = run_cli("--version")
    assert (out.returncode, out.stdout, out.stderr) == (0, "Basilisk %s\n" % __version__, "")
    for bad in (["--nonsense"], ["uci"], ["bench", "x"], ["bench", "0"], ["perft"]):
        out = run_cli(*bad)
        assert out.returncode == 2, bad
        assert out.stdout == "" and "usage" in out.stderr, (bad, out.stderr)
        assert "Traceback" not in out.stderr


def test_command_line_perft():
    fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    out = run_cli("perft", "--depth", "2", "--fen", fen)
    assert out.returncode == 0, out.stderr
    board = chess.Board(fen)
    expected = 0
    for move in board.legal_moves:
        board.push(move)
        expected += board.legal_moves.count()
        board.pop()
    assert out.stdout.splitlines()[-1] == "Nodes searched: %d" % expected


def test_unknown_first_command_is_not_fatal():
    s = Session()
    s.send("xboard")
    s.send("protover 2")
    s.send("uci")
    lines = s.expect("uciok")
    assert lines[0] == "info string error: unknown command 'xboard'"
    assert lines[1].startswith("info string error: unknown command 'protover 2'")
    assert lines[2].startswith("id name Basilisk")
    s.send("position startpos")
    s.send("go depth 1")
    move, _, _ = s.bestmove()
    assert_legal(chess.STARTING_FEN, move)
    s.close()


def test_byte_order_mark_before_the_first_command_is_not_a_command():
    """Windows tools that write a command file may start it with a UTF-8 byte-order mark;
    only at the very start of input is it skipped (later it is part of a line)."""
    REPO = Path(__file__).resolve().parents[1]
    data = b"\xef\xbb\xbfuci\n\xef\xbb\xbfisready\nquit\n"
    proc = subprocess.run([sys.executable, "-m", "engine"], input=data, capture_output=True,
                          cwd=str(REPO), timeout=60)
    lines = proc.stdout.decode("ascii").splitlines()
    assert lines[0].startswith("id name Basilisk") and "uciok" in lines, lines
    assert [line for line in lines if line.startswith("info string error")] == [
        "info string error: unknown command '\\ufeffisready'"], lines
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr


def test_control_characters_in_input_are_escaped_in_errors():
    """A NUL, an escape or a lone CR inside a line is echoed as an escape, never raw."""
    REPO = Path(__file__).resolve().parents[1]
    data = b"uci\nposition startpos moves e2e4\x00\nfoo\x1bbar\rbaz\nisready\nquit\n"
    proc = subprocess.run([sys.executable, "-m", "engine"], input=data, capture_output=True,
                          cwd=str(REPO), timeout=60)
    text = proc.stdout.decode("ascii")
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", text), text
    found = [line for line in text.splitlines() if line.startswith("info string error")]
    assert found[0].startswith("info string error: illegal move 'e2e4\\x00'"), found
    assert "readyok" in text and proc.returncode == 0 and b"Traceback" not in proc.stderr


def test_go_before_anything_else():
    s = Session()
    s.send("go depth 1")        # no uci, no isready, no position: the start position
    move, _, _ = s.bestmove()
    assert_legal(chess.STARTING_FEN, move)
    s.close()


def test_help_lists_the_commands_as_plain_text(uci):
    uci.send("help")
    lines = uci.sync()
    assert lines and errors(lines) == []
    text = "\n".join(lines)
    for command in ("uci", "isready", "setoption", "ucinewgame", "position", "go", "searchmoves",
                    "wtime", "movetime", "infinite", "stop", "ponderhit", "quit", "debug", "d",
                    "eval", "bench", "go perft", "help"):
        assert re.search(r"(^|[\s(,[])%s\b" % re.escape(command), text, re.M), command
    # free text for a person: no line reads as something an engine says to a GUI
    engine_words = {"id", "uciok", "readyok", "bestmove", "copyprotection", "registration",
                    "info", "option"}
    for line in lines:
        assert line.split()[0] not in engine_words, line
    # and the options, each with its values and what it does
    from engine.uci import OPTIONS
    for opt in OPTIONS:
        assert any(line.startswith("  %s (" % opt.name) and line.endswith(opt.help_text)
                   and opt.help_text for line in lines), opt.name
    assert "  Hash (spin 1..1024, default 16): " in text
    uci.send("go depth 1")                  # the session carries on
    move, _, _ = uci.bestmove()
    assert_legal(chess.STARTING_FEN, move)


def test_unknown_leading_tokens_are_skipped(uci):
    uci.send("joho debug on")
    uci.send("stop")            # with debug on, a stop with no search is mentioned
    lines = uci.sync()
    assert lines[0] == "info string error: unknown command 'joho' skipped"
    assert any(line.startswith("info string stop") for line in lines)


# ---------------------------------------------------------------------- search control
def test_isready_answered_during_search_without_stopping_it(uci):
    uci.send("position startpos moves e2e4")
    uci.send("go infinite")
    time.sleep(0.3)
    start = time.perf_counter()
    lines = uci.sync()
    took = (time.perf_counter() - start) * 1000
    print("\nreadyok during search: %.1f ms" % took)
    assert not any(line.startswith("bestmove") for line in lines)
    assert took < PROMPT_MS             # a readyok that waited for the search would never come
    uci.quiet_for(0.5)
    assert not any(line.startswith("bestmove") for line in uci.transcript)
    uci.send("stop")
    move, ponder, _ = uci.bestmove()
    assert_legal(START_FEN_AFTER_E4, move, ponder=ponder)


def test_stop_latency(uci):
    latencies = []
    for fen in (chess.STARTING_FEN, "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQ1RK1 w - - 0 8",
                "8/5pk1/6p1/8/3R4/6P1/5PK1/1r6 b - - 0 40"):
        uci.send("position fen " + fen)
        uci.send("go infinite")
        time.sleep(0.6)
        uci.sync()
        start = time.perf_counter()
        uci.send("stop")
        move, ponder, _ = uci.bestmove()
        latencies.append((time.perf_counter() - start) * 1000)
        assert_legal(fen, move, ponder=ponder)
    print("\nstop -> bestmove (ms): %s" % " ".join("%.1f" % t for t in latencies))
    # the best run meets the figure (the search checks often enough), and every stop is
    # obeyed promptly even when the machine is busy
    assert min(latencies) < STOP_LIMIT_MS
    assert max(latencies) < PROMPT_MS


def test_infinite_and_ponder_hold_bestmove_until_released(uci):
    # a mate in one is found at once, but bestmove must still wait for stop / ponderhit
    fen = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"
    uci.send("position fen " + fen)
    uci.send("go infinite")
    lines = uci.quiet_for(1.0)
    assert not any(line.startswith("bestmove") for line in lines)
    uci.send("stop")
    move, _, _ = uci.bestmove()
    assert move == "d1d8"
    uci.send("go ponder wtime 5000 btime 5000")
    lines = uci.quiet_for(1.0)
    assert not any(line.startswith("bestmove") for line in lines)
    start = time.perf_counter()
    uci.send("ponderhit")
    move, _, _ = uci.bestmove()
    print("\nponderhit -> bestmove: %.1f ms" % ((time.perf_counter() - start) * 1000))
    assert move == "d1d8"
    uci.send("go ponder wtime 5000 btime 5000")
    time.sleep(0.2)
    uci.send("stop")
    move, _, _ = uci.bestmove()
    assert_legal(fen, move)


def test_a_proven_mate_is_played_at_once_after_ponderhit(uci):
    # without ponder a proven mate ends the search at once (60 ms here); after ponderhit it
    # must too, as Stockfish's does, not think on to the soft limit (seconds at this clock)
    fen = "r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1"       # mate in 3: Ra6
    uci.send("position fen " + fen)
    uci.send("go ponder wtime 600000 btime 600000")
    lines = uci.quiet_for(0.5)
    # the mate proven before the ponderhit (a cold PyPy beside other work can take longer)
    for _ in range(20):
        if any("score mate 3" in line for line in lines):
            break
        lines += uci.quiet_for(0.5)
    assert not any(line.startswith("bestmove") for line in lines)
    assert any("score mate 3" in line for line in lines)
    start = time.perf_counter()
    uci.send("ponderhit")
    move, _, infos = uci.bestmove(timeout=30)
    took = (time.perf_counter() - start) * 1000
    print("\nponderhit on a proven mate -> bestmove after %.0f ms" % took)
    assert move == "f6a6"
    assert "score mate 3" in infos[-1]
    assert took < 300       # before the fix: 670-880 ms (on to depth 120), after: 5-10 ms


def planned_limits(lines):
    """(soft_ms, hard_ms) from the `debug on` line a `go` prints."""
    for line in lines:
        m = re.match(r"info string go .*: soft (\S+) ms, hard (\S+) ms$", line)
        if m:
            return float(m.group(1)), float(m.group(2))
    raise AssertionError("no plan line in %r" % lines)


def test_ponderhit_starts_the_clock(uci):
    uci.send("debug on")
    uci.send("position startpos")
    uci.send("go ponder wtime 3000 btime 3000")
    lines = uci.quiet_for(1.5)               # far beyond the move's time budget
    assert not any(line.startswith("bestmove") for line in lines)
    _, hard = planned_limits(lines)
    assert hard <= 3000 / 3                  # at most a third of the clock
    start = time.perf_counter()
    uci.send("ponderhit")
    move, ponder, _ = uci.bestmove(timeout=5)
    took = (time.perf_counter() - start) * 1000
    print("\nponderhit at 3 s on the clock (hard limit %.0f ms) -> bestmove after %.0f ms"
          % (hard, took))
    assert took < 3000                       # later, and we would have lost on time
    assert_legal(chess.STARTING_FEN, move, ponder=ponder)


def test_bestmove_exactly_once_per_go(uci):
    uci.send("position startpos")
    for command in ("go depth 2", "go nodes 500", "go movetime 100", "go wtime 500 btime 500",
                    "go infinite", "go ponder wtime 1000 btime 1000", "go depth 3"):
        uci.send(command)
    # each go gets its own bestmove: a go waits for a search that ends by itself and
    # stops one that waits for stop (infinite, ponder)
    time.sleep(0.5)
    uci.send("stop")
    uci.sync()
    time.sleep(0.3)
    uci.sync()
    bestmoves = [line for line in uci.transcript if line.startswith("bestmove")]
    assert len(bestmoves) == 7, bestmoves
    for line in bestmoves:
        assert_legal(chess.STARTING_FEN, line.split()[1])


def test_piped_goes_each_get_their_whole_search(uci):
    """A `go` that arrives while a search that ends by itself runs waits for it, as
    Stockfish's does: a script that pipes its commands gets every search to its depth."""
    uci.send("position startpos")
    uci.send("go depth 5")
    uci.send("position startpos moves e2e4")
    uci.send("go depth 5")
    first = uci.bestmove(timeout=60)
    second = uci.bestmove(timeout=60)
    for (move, _, lines), fen in ((first, chess.STARTING_FEN), (second, START_FEN_AFTER_E4)):
        assert not errors(lines), lines
        assert_legal(fen, move)
        depths = [parse_info(line).get("depth") for line in lines if line.startswith("info depth")]
        assert depths and max(depths) == 5, lines


def test_a_go_stops_a_search_that_would_wait_for_stop(uci):
    """... but one that would run until `stop` (infinite, ponder) is stopped, with a note:
    Stockfish would wait for ever."""
    uci.send("position startpos")
    uci.send("go infinite")
    time.sleep(0.3)
    uci.send("go depth 2")
    first = uci.bestmove(timeout=PROMPT_MS / 1000)
    second = uci.bestmove(timeout=30)
    assert errors(first[2]) or errors(second[2])
    for move, _, _ in (first, second):
        assert_legal(chess.STARTING_FEN, move)


def test_stop_then_go_at_once_is_not_an_error(uci):
    """A GUI's `stop` followed at once by the next `go` is normal: no error, two bestmoves."""
    uci.send("position startpos")
    uci.send("go infinite")
    time.sleep(0.3)
    uci.send("stop")
    uci.send("position startpos moves e2e4")
    uci.send("go depth 2")
    first, _, lines = uci.bestmove()
    second, _, more = uci.bestmove()
    assert_legal(chess.STARTING_FEN, first)
    board = chess.Board()
    board.push_uci("e2e4")
    assert_legal(board.fen(), second)
    assert not errors(lines + more + uci.sync()), uci.transcript


def test_quit_mid_search_exits_promptly():
    s = Session()
    s.send("uci")
    s.expect("uciok")
    s.send("go infinite")
    time.sleep(0.5)
    start = time.perf_counter()
    s.send("quit")
    s.proc.wait(5)
    took = (time.perf_counter() - start) * 1000
    print("\nquit mid-search -> exit: %.0f ms" % took)
    assert took < PROMPT_MS
    assert s.proc.returncode == 0
    # the search obeyed the quit: it ended (and said so) before the process gave up on it
    s.read_until(lambda line: line.startswith("bestmove"))
    s.close()


@pytest.mark.parametrize("ending", [b"quit\n", None])
def test_quit_behind_piped_goes_ends_them(ending):
    """`go`s piped ahead of a `quit` (or of the end of input) each get a bestmove at once,
    and the process ends promptly (the checklist), instead of searching the first to its
    depth while the quit waits behind the second."""
    s = Session()
    s.send("uci")
    s.expect("uciok")
    s.sync()
    start = time.perf_counter()
    s.send(b"go depth 40\ngo depth 40\n" + (ending or b""))
    if ending is None:
        s.proc.stdin.close()
    s.proc.wait(10)
    took = time.perf_counter() - start
    moves = [line for line in s.transcript if line.startswith("bestmove")]
    print("\ngo, go, %s: exit after %.0f ms" % ("quit" if ending else "end of input", took * 1000))
    assert len(moves) == 2 and took < PROMPT_MS / 1000.0 and s.proc.returncode == 0
    for line in moves:
        assert_legal(chess.STARTING_FEN, line.split()[1])


@pytest.mark.parametrize("ending", [b"quit\n", None])
def test_a_count_piped_before_quit_prints_its_total(ending):
    """`go perft` and `bench` are counts, not searches: a `quit` (or the end of input) piped
    behind them waits for their result, as Stockfish's does (`printf 'go perft 3' | engine`
    is how perft results are compared), while a search before them still ends at once."""
    s = Session()
    s.send(b"position startpos\ngo infinite\ngo perft 3\nbench 1\n" + (ending or b""))
    if ending is None:
        s.proc.stdin.close()
    s.read_until(lambda line: line.startswith("Nodes/second"), timeout=60)
    s.proc.wait(10)
    out = s.transcript
    moves = [line for line in out if line.startswith("bestmove")]
    assert len(moves) == 1 and s.proc.returncode == 0
    assert_legal(chess.STARTING_FEN, moves[0].split()[1])
    assert "Nodes searched: 8902" in out, out
    assert any(line.startswith("Nodes searched  :") for line in out), out
    assert "info string perft stopped" not in out and "info string bench stopped" not in out


@pytest.mark.parametrize("searching", [False, True])
def test_end_of_input_acts_as_quit(searching):
    s = Session()
    s.send("uci")
    s.expect("uciok")
    if searching:
        s.send("go infinite")
        time.sleep(0.3)
    start = time.perf_counter()
    s.proc.stdin.close()
    s.proc.wait(5)
    took = (time.perf_counter() - start) * 1000
    print("\nEOF (%s) -> exit: %.0f ms" % ("searching" if searching else "idle", took))
    assert took < PROMPT_MS
    if searching:
        s.read_until(lambda line: line.startswith("bestmove"))
    assert s.proc.returncode == 0
    s.close()


@pytest.mark.parametrize("go, fen", [
    ("go depth 1", chess.STARTING_FEN),
    ("go nodes 1", chess.STARTING_FEN),
    ("go wtime 0 btime 0", chess.STARTING_FEN),
    ("go wtime 0 btime 0", "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 2 3"),
    ("go wtime -5 btime 1000 winc 0 binc 0", chess.STARTING_FEN),
    ("go btime 1000 wtime 10 movestogo 1", chess.STARTING_FEN),
    ("go movetime 0", chess.STARTING_FEN),
    ("go movetime 1", chess.STARTING_FEN),
    ("go depth 3", "4k3/8/8/8/8/8/3r4/K7 w - - 0 1"),               # one legal move
    ("go wtime 60000 btime 60000", "4k3/8/8/8/8/8/3r4/K7 w - - 0 1"),
    ("go depth 2", "7k/5Q2/8/8/8/8/8/K7 b - - 0 1"),                # stalemate: 0000
    ("go infinite", "R5k1/5ppp/8/8/8/8/8/K7 b - - 0 1"),             # mated: 0000 at once
])
def test_go_always_gives_a_legal_move(uci, go, fen):
    uci.send("debug on")
    uci.send("position fen " + fen)
    start = time.perf_counter()
    uci.send(go)
    if go == "go infinite":
        time.sleep(0.2)
        uci.send("stop")
    move, ponder, infos = uci.bestmove()
    took = (time.perf_counter() - start) * 1000
    board = chess.Board(fen)
    if board.is_game_over():
        assert move == "0000"
        assert any("score" in line for line in infos)
        return
    assert_legal(fen, move, ponder=ponder)
    _, hard = planned_limits(infos)
    plan = [line for line in infos if line.startswith("info string go ")][0]
    no_time = (go.startswith(("go wtime 0", "go wtime -5", "go btime 1000 wtime 10"))
               or go.startswith("go movetime"))
    if no_time:
        # no time at all: move at once, after a depth-1 search
        assert hard == 0 and "depth=1" in plan, plan
    if board.legal_moves.count() == 1 and "wtime" in go:
        assert hard <= ONLY_MOVE_MS, plan
    if no_time or board.legal_moves.count() == 1:
        assert took < PROMPT_MS, "%s took %.0f ms" % (go, took)


def test_go_mate_finds_the_mate(uci):
    uci.send("position fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")
    uci.send("go mate 1")
    move, _, infos = uci.bestmove(timeout=10)
    assert move == "d1d8"
    assert "score mate 1" in infos[-1]


def test_go_subparameters_in_any_order(uci):
    fen = START_FEN_AFTER_E4
    uci.send("position startpos moves e2e4")
    uci.send("go movestogo 5 binc 10 winc 10 btime 2000 wtime 2000")
    move, _, _ = uci.bestmove()
    assert_legal(fen, move)
    uci.send("go nodes 2000 depth 2 searchmoves g8f6 b8c6")
    move, _, _ = uci.bestmove()
    assert move in ("g8f6", "b8c6")
    uci.send("go searchmoves a7a6 depth 2")
    move, _, _ = uci.bestmove()
    assert move == "a7a6"
    uci.send("go depth 2 searchmoves h7h6 movetime 5000")
    move, _, _ = uci.bestmove()
    assert move == "h7h6"


def test_movetime_counts_from_the_go_even_while_loading():
    s = Session()                 # no isready: `go` arrives while the tables are still built
    start = time.perf_counter()
    s.send("uci")
    s.send("position startpos")
    s.send("go movetime 100")
    move, _, _ = s.bestmove()
    took = (time.perf_counter() - start) * 1000
    print("\nuci, position, go movetime 100 at start-up -> bestmove after %.0f ms" % took)
    assert_legal(chess.STARTING_FEN, move)
    s.close()
    assert took < PROMPT_MS             # a go lost while loading would time out instead


def test_movetime_is_respected(uci):
    uci.send("debug on")
    uci.send("position startpos")
    uci.sync()
    for movetime in (100, 300):
        took, own = [], []
        for _ in range(3):
            start = time.perf_counter()
            uci.send("go movetime %d" % movetime)
            move, _, infos = uci.bestmove()
            took.append((time.perf_counter() - start) * 1000)
            assert planned_limits(infos) == (movetime - MOVE_OVERHEAD_MS,) * 2
            # the engine's own clock, from the `go` it read
            own.append(parse_info([i for i in infos if i.startswith("info depth")
                                   and " time " in i][-1])["time"])
            assert_legal(chess.STARTING_FEN, move)
            assert took[-1] < movetime + PROMPT_MS
        print("\ngo movetime %d -> bestmove after %s ms (engine's clock %s)"
              % (movetime, ["%.0f" % t for t in took], own))
        # the plan ends one Move Overhead early, which the last clock check may overrun,
        # not a whole one more; and the whole round trip, pipes and two processes' threads
        # included, within the overhead: at least once (a single run may be starved on a
        # loaded machine), and never by more than another overhead
        assert min(own) < movetime and max(own) < movetime + MOVE_OVERHEAD_MS
        assert min(took) < movetime + MOVE_OVERHEAD_MS
    uci.send("setoption name Move Overhead value 7")
    uci.send("go movetime 300")
    _, _, infos = uci.bestmove()
    assert planned_limits(infos) == (293, 293)


def test_info_lines(uci):
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    uci.send("position fen " + fen)
    uci.send("go depth 3")
    move, ponder, infos = uci.bestmove()
    assert_legal(fen, move, ponder=ponder)
    searched = [parse_info(line) for line in infos if " pv " in line]
    assert searched, infos
    depths = [info["depth"] for info in searched]
    assert depths == sorted(depths) and max(depths) == 3
    for info in searched:
        for key in ("depth", "seldepth", "score", "nodes", "nps", "time", "pv"):
            assert key in info, (key, info)
        assert info["score"][0] in ("cp", "mate")
        check_pv(fen, info["pv"])
    assert searched[-1]["pv"][0] == move
    # mate scores in moves, from the side to move's view
    uci.send("position fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")
    uci.send("go depth 2")
    _, _, infos = uci.bestmove()
    assert parse_info([i for i in infos if " pv " in i][-1])["score"] == ("mate", 1)
    uci.send("position fen k7/8/1K6/8/8/8/8/7R b - - 0 1")      # Kb8 forced, then Rh8#
    uci.send("go depth 4")
    _, _, infos = uci.bestmove()
    score = parse_info([i for i in infos if " pv " in i][-1])["score"]
    assert score[0] == "mate" and score[1] < 0


@pytest.mark.parametrize("nodes", [1, 2, 10])
def test_a_node_budget_lets_the_first_iteration_end(uci, nodes):
    # as Stockfish: however small the budget, depth 1 is searched to its end, so the move
    # played is a searched one (here the mate in one) and a score is reported for it
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 2 3"
    uci.send("ucinewgame")
    uci.send("position fen " + fen)
    uci.send("go nodes %d" % nodes)
    move, _, infos = uci.bestmove()
    lines = [parse_info(line) for line in infos if " pv " in line]
    assert move == "f3f7", infos
    assert lines and lines[-1]["depth"] >= 1 and lines[-1]["score"] == ("mate", 1), infos
    assert lines[-1]["pv"][0] == move


def test_go_depth_reaches_its_depth_past_a_proven_mate(uci):
    # a timed search stops once a mate is proven well beyond its length; `go depth N` asks
    # for depth N and gets it, as from Stockfish (here a mate in 2, proven by depth 10)
    uci.send("ucinewgame")
    uci.send("position fen r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4 w - - 0 1")
    uci.send("go depth 15")
    move, _, infos = uci.bestmove(30)
    lines = [parse_info(line) for line in infos if " pv " in line]
    assert lines[-1]["depth"] == 15 and lines[-1]["score"] == ("mate", 2), infos
    assert lines[-1]["pv"][0] == move


def test_a_line_of_one_move_still_gets_a_ponder_move_from_the_table(uci):
    # as Stockfish: where the line played ends at its first move (here `go depth 1` after a
    # deeper search filled the table), the table's reply is offered for pondering
    uci.send("ucinewgame")
    uci.send("position startpos")
    uci.send("go depth 6")
    uci.bestmove()
    uci.send("go depth 1")
    move, ponder, infos = uci.bestmove()
    lines = [parse_info(line) for line in infos if " pv " in line]
    assert lines[-1]["pv"] == [move], infos          # the line ends at the move played
    assert ponder is not None, infos
    board = chess.Board()
    board.push_uci(move)
    assert chess.Move.from_uci(ponder) in board.legal_moves


def test_a_cut_search_ends_with_a_line_counting_every_node(uci):
    # as Stockfish does: after an iteration cut short, one more line gives the move played
    # and the whole search's nodes and time (a GUI shows them, a match runner's nodes/s)
    for fen, nodes in (("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", 3000),
                       ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 7000)):
        uci.send("ucinewgame")
        uci.send("position fen " + fen)
        uci.send("go nodes %d" % nodes)
        move, ponder, infos = uci.bestmove()
        lines = [parse_info(line) for line in infos if " pv " in line]
        last = lines[-1]
        assert last["nodes"] == nodes, infos
        assert last["pv"][0] == move
        assert not ponder or last["pv"][1] == ponder
        check_pv(fen, last["pv"])
        assert last["depth"] >= max(line["depth"] for line in lines[:-1])


def _last_pv_info(uci, position, go="go depth 4"):
    uci.send(position)
    uci.send(go)
    _, _, infos = uci.bestmove()
    return parse_info([i for i in infos if " pv " in i][-1])


def test_show_wdl(uci):
    """W/D/L follows the score: a mate to give is a sure win, one to take a sure loss, and
    a centipawn score favours the side it favours; the option off, no wdl field."""
    uci.send("setoption name UCI_ShowWDL value true")
    info = _last_pv_info(uci, "position fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")
    assert info["score"] == ("mate", 1) and info["wdl"] == (1000, 0, 0)
    info = _last_pv_info(uci, "position fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1 moves d1c1")
    assert info["score"][0] == "cp" and info["score"][1] < -200    # black, to move, a rook down
    w, d, l = info["wdl"]
    assert l > w and w + d + l == 1000 and min(w, d, l) >= 0
    info = _last_pv_info(uci, "position fen 6k1/5ppp/8/8/8/8/5PPP/6K1 w - - 0 1 moves g1f1 g8f8")
    assert info["score"][0] == "cp" and abs(info["score"][1]) < 100 # pawns only, level
    w, d, l = info["wdl"]
    assert d > w and d > l and w + d + l == 1000
    info = _last_pv_info(uci, "position fen k7/8/1K6/8/8/8/8/7R b - - 0 1")
    assert info["score"] == ("mate", -1) and info["wdl"] == (0, 0, 1000)
    uci.send("setoption name UCI_ShowWDL value false")
    uci.send("position startpos")
    uci.send("go depth 2")
    _, _, infos = uci.bestmove()
    assert infos and not [i for i in infos if " wdl " in i]


# ---------------------------------------------------------------------- position
def test_position_startpos_fen_and_moves(uci):
    uci.send("position startpos moves e2e4 e7e5 g1f3")
    board = chess.Board()
    for m in ("e2e4", "e7e5", "g1f3"):
        board.push_uci(m)
    assert uci.fen() == board.fen()
    fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    uci.send("position fen %s moves e1g1 a6e2" % fen)
    board = chess.Board(fen)
    board.push_uci("e1g1")
    board.push_uci("a6e2")
    assert uci.fen() == board.fen()
    # 4-field FEN, and tabs and extra spaces between tokens
    uci.send("position\tfen  8/8/8/8/8/8/2k5/K7 b - -   moves  c2c3 \r")
    board = chess.Board("8/8/8/8/8/8/2k5/K7 b - - 0 1")
    board.push_uci("c2c3")
    assert uci.fen() == board.fen()
    # 5 fields (no fullmove number: 1), and a fullmove number 0 (read as 1, as python-chess)
    uci.send("position fen 8/8/8/8/8/8/2k5/K7 b - - 7 moves c2c3")
    board = chess.Board("8/8/8/8/8/8/2k5/K7 b - - 7 1")
    board.push_uci("c2c3")
    assert uci.fen() == board.fen()
    fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 0"
    uci.send("position fen %s moves e7e5" % fen)
    board = chess.Board(fen)
    board.push_uci("e7e5")
    assert uci.fen() == board.fen() and board.fullmove_number == 2


def test_chess960_castling_in_moves_with_the_option_off(uci):
    """A Chess960 layout sent while UCI_Chess960 is off: its castling moves are read king
    takes rook (the only notation such a game has), and toggling the option between two
    identical `position` commands changes nothing in the position."""
    fen = "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1"
    moves = ["e2e4", "e7e5", "f1g1"]        # white castles king side (f1g1 as a step is
                                            # onto its own rook)
    board = chess.Board(fen, chess960=True)
    for m in moves:
        board.push_uci(m)
    assert board.king(chess.WHITE) == chess.G1 and board.piece_at(chess.F1).piece_type == chess.ROOK
    command = "position fen %s moves %s" % (fen, " ".join(moves))
    uci.send(command)
    assert errors(uci.sync()) == []
    shown, expected = uci.fen().split(), board.fen().split()
    assert shown[:2] + shown[3:] == expected[:2] + expected[3:]     # castling: X-FEN or not
    uci.send("setoption name UCI_Chess960 value true")
    uci.send(command)
    assert errors(uci.sync()) == []
    assert uci.fen().split()[0] == board.board_fen()
    uci.send("setoption name UCI_Chess960 value false")
    uci.send(command)
    assert uci.fen().split()[0] == board.board_fen()
    uci.send("go depth 2")
    move, _, _ = uci.bestmove()
    assert chess.Move.from_uci(move) in board.legal_moves


def test_illegal_move_keeps_the_moves_before_it(uci):
    uci.send("position startpos moves e2e4 e7e5 g1f3 e8e6 b8c6")
    lines = uci.sync()
    assert errors(lines) and "e8e6" in errors(lines)[0]
    board = chess.Board()
    for m in ("e2e4", "e7e5", "g1f3"):
        board.push_uci(m)
    assert uci.fen() == board.fen()


def test_bad_fen_keeps_the_previous_position(uci):
    uci.send("position startpos moves d2d4 d7d5")
    before = uci.fen()
    uci.send("position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1 moves e2e4")
    lines = uci.sync()
    assert errors(lines) and "position unchanged" in errors(lines)[0]
    assert uci.fen() == before


def test_repetition_history_is_kept(uci):
    # after Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1, Ng8 repeats the position a third time; black,
    # a queen down, takes the draw only if the moves' history reached the search
    moves = "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1"
    fen = "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    uci.send("position fen %s moves %s" % (fen, moves))
    uci.send("go depth 3")
    move, _, infos = uci.bestmove()
    assert move == "f6g8", infos[-1]


def test_chess960_castling(uci):
    fen = "bqnbrnkr/pppppppp/8/8/8/8/PPPPPPPP/BQNBRNKR w HEhe - 0 1"
    uci.send("setoption name UCI_Chess960 value true")
    board = chess.Board(fen, chess960=True)
    for m in ("f1e3", "f8e6"):
        board.push_uci(m)
    assert chess.Move.from_uci("g1h1") in board.legal_moves      # O-O as king takes rook
    uci.send("position fen %s moves f1e3 f8e6 g1h1" % fen)
    board.push_uci("g1h1")
    assert uci.fen() == board.fen(shredder=True)     # `d` shows Shredder-FEN in Chess960, as Stockfish
    uci.send("go depth 2 searchmoves g8h8")
    move, _, _ = uci.bestmove()
    assert move == "g8h8"                                        # black's O-O, 960 style
    # X-FEN KQkq castling letters on a Chess960 layout
    fen = "bqnbrnkr/pppppppp/8/8/8/8/PPPPPPPP/BQNBRNKR w KQkq - 0 1"
    uci.send("position fen " + fen)
    assert uci.fen() == chess.Board(fen, chess960=True).fen(shredder=True)      # HEhe
    # standard chess with UCI_Chess960 on: castling is written king takes rook
    fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    uci.send("position fen %s moves e1h1" % fen)
    assert uci.fen().startswith("r3k2r/8/8/8/8/8/8/R4RK1 b kq")
    uci.send("position fen %s" % fen)
    uci.send("go depth 1 searchmoves e1a1")
    assert uci.bestmove()[0] == "e1a1"
    uci.send("setoption name UCI_Chess960 value false")
    uci.send("position fen %s" % fen)
    uci.send("go depth 1 searchmoves e1c1")
    assert uci.bestmove()[0] == "e1c1"


# ---------------------------------------------------------------------- options
def test_setoption(uci):
    uci.send("setoption name hash value 32")
    uci.send("setoption name MULTIPV value 2")
    uci.send("setoption name move overhead value 50")
    uci.send("setoption name Clear Hash")
    uci.send("setoption name Ponder value TRUE")
    lines = uci.sync()
    assert errors(lines) == []
    uci.send("setoption name Hash value 100000")
    uci.send("setoption name MultiPV value 0")
    uci.send("setoption name Move Overhead value x")
    uci.send("setoption name Thread value 2")
    lines = errors(uci.sync())
    assert len(lines) == 4, lines
    assert "clamped to 1024" in lines[0]
    assert "clamped to 1" in lines[1]
    assert "whole number" in lines[2]
    assert "unknown option" in lines[3]
    uci.send("position startpos")
    uci.send("go depth 2")
    move, _, infos = uci.bestmove()
    assert_legal(chess.STARTING_FEN, move)


def test_setoption_and_ucinewgame_mid_search(uci):
    uci.send("position startpos")
    uci.send("go infinite")
    time.sleep(0.2)
    uci.send("setoption name Hash value 8")
    uci.send("setoption name Clear Hash")
    uci.send("ucinewgame")
    uci.send("position startpos moves d2d4")   # for the next search, not this one
    lines = uci.sync()
    assert errors(lines) == []
    uci.send("stop")
    move, _, _ = uci.bestmove()
    assert_legal(chess.STARTING_FEN, move)
    uci.send("go depth 1")
    move, _, _ = uci.bestmove()
    assert_legal("rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1", move)


def test_commands_interleaved_mid_search(uci):
    uci.send("position startpos moves e2e4")
    uci.send("go infinite")
    time.sleep(0.2)
    for line in (b"\xff\xfe garbage", b"position fen nonsense", b"setoption name Nope",
                 b"go depth x", b"", b"ponderhit", b"register later", b"d", b"eval",
                 b"debug on", b"debug off", b"position startpos moves e2e4 e7e5 e1e8"):
        uci.send(line)
        uci.sync()
    # `go depth x` replaced the first search (which sent its bestmove) with an infinite one
    uci.send("stop")
    uci.bestmove()
    uci.sync()
    bestmoves = [line.split()[1] for line in uci.transcript if line.startswith("bestmove")]
    assert len(bestmoves) == 2, bestmoves
    for move in bestmoves:
        assert_legal(START_FEN_AFTER_E4, move)
    uci.send("go depth 1")
    move, _, _ = uci.bestmove()
    board = chess.Board()
    board.push_uci("e2e4")
    board.push_uci("e7e5")
    assert_legal(board.fen(), move)


def test_a_go_right_after_stop_speaks_after_the_old_search_ends(uci):
    """The old search's bestmove comes before anything the new `go` says (here its error)."""
    uci.send("position startpos")
    uci.send("go infinite")
    time.sleep(0.3)
    uci.send("stop")
    uci.send("go depth abc movetime 100")
    lines = uci.expect("bestmove ")
    assert not [line for line in lines if "error" in line], lines
    lines = uci.expect("bestmove ")
    assert "not a number" in lines[0], lines


def test_go_depth_beyond_the_deepest_iteration_is_clamped_to_it(uci):
    """`go depth N` above the search's deepest iteration says so and searches to that
    depth, the one it names (a bare-kings position gets there in a moment)."""
    from engine.types import MAX_DEPTH
    uci.send("position fen 8/8/4k3/8/8/4K3/8/8 w - - 0 1")
    for asked in (MAX_DEPTH, MAX_DEPTH + 5, 100000):
        uci.send("go depth %d" % asked)
        move, _, lines = uci.bestmove()
        said = errors(lines)
        if asked == MAX_DEPTH:
            assert said == []
        else:
            assert said == ["info string error: go depth %d is outside 1..%d, using %d"
                            % (asked, MAX_DEPTH, MAX_DEPTH)], said
        depths = [parse_info(line)["depth"] for line in lines if line.startswith("info depth")]
        assert max(depths) == MAX_DEPTH
        assert_legal("8/8/4k3/8/8/4K3/8/8 w - - 0 1", move)


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGINT"])
def test_a_signal_ends_the_engine_like_quit(signame):
    """SIGTERM or SIGINT (Ctrl-C), during a search or right behind `quit`: the engine exits
    with status 0 and writes nothing to stderr."""
    for quit_first in (False, True):
        session = Session()
        session.send("uci")
        session.expect("uciok")
        session.send("position startpos")
        session.send("go infinite")
        session.sync()
        if quit_first:
            session.send("quit")
            time.sleep(0.02)
        session.proc.send_signal(getattr(signal, signame))
        assert session.proc.wait(10) == 0, quit_first
        assert session.all_stderr() == ""


def test_an_inherited_ignored_sigint_stays_ignored():
    """Started with SIGINT ignored (a shell's background job, or a match runner that keeps
    Ctrl-C for itself), the engine does not take it up: a Ctrl-C in the terminal does not
    end a search the GUI or runner still wants, and `stop` still answers."""
    session = Session(sigint=signal.SIG_IGN)
    session.send("uci")
    session.expect("uciok")
    session.send("position startpos")
    session.send("go infinite")
    session.sync()
    session.proc.send_signal(signal.SIGINT)
    time.sleep(0.5)
    assert session.proc.poll() is None
    session.send("stop")
    session.expect("bestmove")
    session.send("quit")
    assert session.proc.wait(10) == 0
    assert session.all_stderr() == ""


# The main thread waits for input while the search thread runs; a signal the kernel hands
# to the search thread must still reach the main thread's handler, which runs only when
# the main thread runs Python code.  Sent here to a thread of its own, deliberately.
_SIGNAL_TO_ANOTHER_THREAD = r"""
import os, signal, sys, threading, time
from engine.uci import UciSession, _on_terminate
session = UciSession()
signal.signal(signal.SIGUSR1, _on_terminate(session))
read_end, write_end = os.pipe()

def poke():
    time.sleep(0.5)
    signal.pthread_kill(threading.get_ident(), signal.SIGUSR1)
    time.sleep(8)
    os.write(write_end, b"quit\n")      # what an unsliced wait would have needed

start = time.monotonic()        # before the poke's sleep starts, however late we run
threading.Thread(target=poke, daemon=True).start()
session.run(os.fdopen(read_end, "rb"))
sys.stderr.write("ended %.2f\n" % (time.monotonic() - start))
"""


@pytest.mark.skipif(not hasattr(__import__("signal"), "pthread_kill"), reason="needs pthread_kill")
def test_a_signal_taken_by_another_thread_still_ends_the_session():
    out = subprocess.run([sys.executable, "-c", _SIGNAL_TO_ANOTHER_THREAD], cwd=str(REPO),
                         capture_output=True, text=True, timeout=60)
    ended = float(re.search(r"ended ([\d.]+)", out.stderr).group(1))
    assert 0.5 <= ended < 3.0, out.stderr


def test_sigterm_after_quit_ends_a_count():
    """`quit` lets a `go perft` finish (its total is what a pipe waits for); a SIGTERM
    after that `quit` ends the count, and the engine exits with status 0, silently."""
    session = Session()
    session.send("uci")
    session.expect("uciok")
    session.send("position startpos")
    session.send("go perft 7")          # minutes of counting on any machine
    session.sync()
    session.send("quit")
    time.sleep(0.3)
    assert session.proc.poll() is None  # still counting
    session.proc.send_signal(signal.SIGTERM)
    assert session.proc.wait(10) == 0
    assert session.all_stderr() == ""


def test_a_swallowed_interrupt_still_ends_the_session():
    """The handler's KeyboardInterrupt can be swallowed (raised inside a weakref callback,
    as PyPy's import machinery runs them); the flag it sets first still ends the session
    at the loop's next turn."""
    import io
    from engine.uci import UciSession
    session = UciSession(out=io.StringIO())
    read_end, write_end = os.pipe()
    threading.Timer(0.3, setattr, (session, "terminated", True)).start()
    fallback = threading.Timer(8, os.write, (write_end, b"quit\n"))
    fallback.start()
    start = time.monotonic()
    with os.fdopen(read_end, "rb") as stdin:
        session.run(stdin)
        fallback.cancel()
        os.close(write_end)             # (the input thread ends at end of input)
    assert time.monotonic() - start < 3


@pytest.mark.parametrize("threads", [1, 2])
def test_a_search_whose_output_breaks_ends_the_engine(threads):
    """A GUI whose reader went away (or `| head`) while its end of stdin stays open: the
    first line that cannot be written ends the session as `quit` would, search, helper
    processes and all, with status 0 and nothing on stderr (Stockfish dies of the
    SIGPIPE); a search left running would burn its cores for nobody."""
    proc = subprocess.Popen(ENGINE_CMD, cwd=str(REPO), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        proc.stdin.write(b"uci\nsetoption name Threads value %d\nisready\n" % threads)
        proc.stdin.flush()
        for line in iter(proc.stdout.readline, b""):
            if line.strip() == b"readyok":
                break
        else:
            pytest.fail("the engine ended before readyok")
        proc.stdin.write(b"position startpos\ngo infinite\n")
        proc.stdin.flush()
        time.sleep(0.5)
        proc.stdout.close()
        assert proc.wait(15) == 0       # (the next iteration's line fails to be written)
        assert proc.stderr.read() == b""
    finally:
        proc.kill()
        proc.wait()
        proc.stdin.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="sizes a pipe the Linux way")
def test_a_signal_ends_an_engine_stuck_on_a_full_stdout():
    """A GUI that stops reading: the search thread blocks writing its info lines, the main
    thread blocks behind it on `isready`.  SIGTERM still ends the process (status 0)
    within TERMINATE_GRACE_SECONDS, through the watchdog."""
    import fcntl
    from engine.uci import TERMINATE_GRACE_SECONDS
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, getattr(fcntl, "F_SETPIPE_SZ", 1031), 4096)  # (PyPy 3.9: no name)
    proc = subprocess.Popen(ENGINE_CMD, cwd=str(REPO), stdin=subprocess.PIPE, stdout=write_end,
                            stderr=subprocess.DEVNULL)
    os.close(write_end)
    try:
        proc.stdin.write(b"uci\n" * 4 + b"isready\nposition startpos\ngo infinite\n")
        proc.stdin.flush()
        time.sleep(3)
        proc.stdin.write(b"isready\n")
        proc.stdin.flush()
        time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(TERMINATE_GRACE_SECONDS + 10) == 0
    finally:
        proc.kill()
        proc.wait()
        os.close(read_end)


def test_sigterm_during_shutdown_takes_no_lock(monkeypatch):
    """The SIGTERM handler runs between two bytecodes of the main thread, which during
    shutdown may be inside Job.stop() holding the stop event's lock: there the handler only
    leaves a flag, where a second stop would wait for that lock forever."""
    import io
    from engine import uci
    out = io.StringIO()
    session = uci.UciSession(out=out)
    session.loader.start()
    session.handle_line("position startpos")
    session.handle_line("go infinite")
    job = session.engine.job
    session.quitting = True
    handler = uci._on_terminate(session)
    monkeypatch.setattr(signal, "signal", lambda *args: None)  # main thread only: not here
    returned = threading.Event()

    def interrupted_inside_stop():
        with job.stop_event._cond:      # where Event.set() holds it
            handler(signal.SIGTERM, None)
        returned.set()

    threading.Thread(target=interrupted_inside_stop, daemon=True).start()
    assert returned.wait(5), "the handler waits for a lock its own thread holds"
    assert session.terminated
    session.shutdown()
    assert session.engine.wait_idle(5)
    assert out.getvalue().count("bestmove") == 1


def test_the_signal_handler_interrupts_only_the_main_threads_own_wait(monkeypatch):
    """In a sliced wait of the main thread the SIGTERM handler raises KeyboardInterrupt to
    end it now, but not inside other code that runs there (a weakref callback of importlib,
    run by PyPy's garbage collector, would swallow the interrupt and print it on stderr),
    nor outside a wait; the flag is left either way."""
    import io
    import types
    from engine import streams, uci
    monkeypatch.setattr(signal, "signal", lambda *args: None)

    def frame_in(path):
        return types.SimpleNamespace(f_code=types.SimpleNamespace(co_filename=path))

    for path, in_wait, raises in ((threading.__file__, True, True),
                                  (streams.__file__, True, True),
                                  (uci.__file__, True, True),
                                  ("<frozen importlib._bootstrap>", True, False),
                                  (__file__, True, False),
                                  (threading.__file__, False, False)):
        session = uci.UciSession(out=io.StringIO())
        handler = uci._on_terminate(session)
        with streams.main_thread_waits if in_wait else contextlib.nullcontext():
            if raises:
                with pytest.raises(KeyboardInterrupt):
                    handler(signal.SIGTERM, frame_in(path))
            else:
                handler(signal.SIGTERM, frame_in(path))
        assert session.terminated, path


def test_clear_hash_and_ucinewgame_forget_what_was_searched(uci):
    """A second search of a position profits from the first (fewer nodes); after `Clear
    Hash` or `ucinewgame` the same search costs exactly what it cost the first time."""
    fen = "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQ1RK1 w - - 0 8"

    def nodes():
        return _last_pv_info(uci, "position fen " + fen, "go depth 6")["nodes"]

    first = nodes()
    assert nodes() < first
    uci.send("setoption name Clear Hash")
    assert nodes() == first
    assert nodes() < first
    uci.send("ucinewgame")
    assert nodes() == first


def test_debug_log_file(uci, tmp_path):
    log = tmp_path / "basilisk.log"
    uci.send("setoption name Debug Log File value %s" % log)
    uci.send("position startpos")
    uci.send("go depth 1")
    uci.bestmove()
    uci.send("setoption name Debug Log File value %s" % (tmp_path / "no such folder" / "x.log"))
    assert "still logging to" in errors(uci.sync())[0]
    uci.send("go depth 2")          # the log goes on where it was
    uci.bestmove()
    uci.send("setoption name Debug Log File value <empty>")
    uci.sync()
    text = log.read_text()
    assert "<< go depth 1\n" in text and ">> bestmove" in text
    assert "<< go depth 2\n" in text
    assert "\n\n" not in text and "\r" not in text      # one log line per protocol line


# ---------------------------------------------------------------------- extras
def test_d_shows_board_fen_key_checkers(uci):
    fen = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
    uci.send("position fen " + fen)
    uci.send("d")
    lines = uci.expect("Checkers:")
    assert " | r | n | b |   | k | b | n | r | 8" in lines
    assert "Fen: " + fen in lines
    import chess.polyglot
    key = [line for line in lines if line.startswith("Key: ")][0][5:]
    assert int(key, 16) == chess.polyglot.zobrist_hash(chess.Board(fen))
    checkers = chess.Board(fen).checkers()
    assert len(checkers) == 1
    assert lines[-1] == "Checkers: " + " ".join(chess.square_name(sq) for sq in checkers)


def test_eval(uci):
    uci.send("position startpos moves e2e4")
    uci.send("eval")
    lines = uci.expect("Final evaluation")
    assert re.match(r"Final evaluation: [+-]\d+\.\d\d \(white side\)", lines[-1])
    # in check (checkmated, or with a reply) there is no static evaluation, as Stockfish says
    for fen in ("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", "4k3/8/8/8/8/8/4r3/4K3 w - - 0 1"):
        uci.send("position fen " + fen)
        uci.send("eval")
        assert uci.expect("Final evaluation") == ["Final evaluation: none (in check)"]


def test_go_perft_matches_python_chess(uci):
    fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    uci.send("position fen " + fen)
    uci.send("go perft 2")
    lines = uci.expect("Nodes searched:")
    counts = dict(line.split(": ") for line in lines if re.match(r"^[a-h][1-8][a-h][1-8][nbrq]?: ", line))
    board = chess.Board(fen)
    expected = {}
    for move in board.legal_moves:
        board.push(move)
        expected[move.uci()] = str(board.legal_moves.count())
        board.pop()
    assert counts == expected
    assert lines[-1] == "Nodes searched: 2039"
    assert uci.sync() == []         # no bestmove for go perft


def test_go_perft_can_be_stopped(uci):
    # depth 5 from the start: a few seconds per root move, ~20 root moves
    uci.send("position startpos")
    uci.send("go perft 5")
    time.sleep(0.5)
    start = time.perf_counter()
    uci.send("stop")
    lines = uci.expect("info string perft stopped", timeout=60)
    print("\nstop -> perft stopped after %.0f ms (it stops between root moves)"
          % ((time.perf_counter() - start) * 1000))
    assert len(lines) < 20 + 1                       # not every root move was counted
    assert not any(line.startswith(("Nodes searched", "bestmove")) for line in lines)
    assert uci.sync() == []
    uci.send("go depth 1")                           # the engine is free again
    move, _, _ = uci.bestmove()
    assert_legal(chess.STARTING_FEN, move)


def test_bench_in_the_loop_and_from_the_shell(uci):
    uci.send("bench 2")
    lines = uci.expect("Nodes/second", timeout=60)
    nodes = int([line for line in lines if line.startswith("Nodes searched  :")][0].split(":")[1])
    assert nodes > 0
    out = subprocess.run(ENGINE_CMD + ["bench", "2"], cwd=str(REPO), capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    shell_nodes = int(re.search(r"Nodes searched  : (\d+)", out.stdout).group(1))
    assert re.search(r"Nodes/second    : \d+", out.stdout)
    assert shell_nodes == nodes     # the signature is deterministic


@pytest.mark.parametrize("command", ["go perft 7", "bench 30"])
def test_stop_ends_a_deep_perft_or_bench_at_once_and_the_next_go_is_searched(uci, command):
    """`stop` acts inside a root move's perft and inside a bench position's search: the
    next `go` is searched (its info lines come), not answered with a stand-in move after
    waiting for a job that would not stop."""
    uci.send("position startpos")
    uci.send(command)
    time.sleep(0.5)
    uci.send("stop")
    start = time.perf_counter()
    uci.sync()
    uci.send("position startpos moves e2e4")
    uci.send("go depth 3")
    move, _, lines = uci.bestmove()
    assert time.perf_counter() - start < 5.0       # the engine gives a job 10 s to stop
    assert any(line.startswith("info depth 3 ") for line in lines), lines
    assert_legal("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", move)
    assert not [line for line in uci.transcript if "did not stop" in line]


def test_stdout_holds_only_protocol_lines(uci):
    uci.send("position startpos")
    uci.send("setoption name Hash value 0")
    uci.send("go depth 2")
    uci.bestmove()
    uci.send("go infinite")
    time.sleep(0.3)
    uci.send("stop")
    uci.bestmove()
    uci.sync()
    for line in uci.transcript:
        assert line.startswith(PROTOCOL_PREFIXES), line


# ---------------------------------------------------------------------- bad input corpus
def load_corpus():
    cases = []
    for number, raw in enumerate(CORPUS.read_text(encoding="utf-8").split("\n"), 1):
        if not raw or raw.startswith("#"):
            continue
        fields = raw.split("\t")
        assert len(fields) in (2, 3), "corpus line %d: %r" % (number, raw)
        expect, text = fields[0], fields[1]
        text = re.sub(r"\{long:(\d+):([^}]*)\}",
                      lambda m: (m.group(2) * (int(m.group(1)) // len(m.group(2)) + 1))[:int(m.group(1))],
                      text)
        data = codecs.decode(text, "unicode_escape").encode("latin-1")
        moves = None
        if len(fields) == 3:
            moves = [] if fields[2] == "-" else fields[2].split()
        cases.append((number, expect, data, moves))
    return cases


def test_a_rejected_setoption_keeps_every_option(tmp_path):
    """The corpus's bad `setoption` lines, in-process, after every option has been given a
    value other than its default: each is answered with an error and leaves every option's
    value as it was (the last valid state kept), but for an out-of-range number, which sets
    the nearest bound and says so (the checklist, ../shared/docs/UCI.md: clamp, stated)."""
    import io
    from engine.uci import OPTIONS, UciSession
    out = io.StringIO()
    session = UciSession(out=out)
    log = tmp_path / "basilisk.log"
    for line in ("Hash value 8", "MultiPV value 2", "Move Overhead value 7",
                 "UCI_ShowWDL value true", "Ponder value true", "UCI_Chess960 value true",
                 "Debug Log File value %s" % log, "Skill Level value 12",
                 "UCI_LimitStrength value true", "UCI_Elo value 1700", "Book Best Move value true"):
        session.handle_line("setoption name " + line)
    assert "error" not in out.getvalue(), out.getvalue()
    fields = [opt.field for opt in OPTIONS if opt.kind != "button"]
    before = {field: getattr(session.options, field) for field in fields}
    defaults = [opt.name for opt in OPTIONS if opt.kind != "button"
                and before[opt.field] == opt.default]
    assert defaults == ["Threads", "OwnBook", "Book File"], defaults    # left at defaults
    try:
        cases = [(number, data) for number, expect, data, _ in load_corpus()
                 if data.startswith(b"setoption") and expect == "error"]
        assert len(cases) >= 15
        clamps = 0
        for number, data in cases:
            out.seek(0)
            out.truncate()
            session.handle_line(data.decode("utf-8", "replace"))
            said = out.getvalue()
            assert "info string error: " in said, (number, said)
            expected = dict(before)
            clamp = re.search(r"option (.+) value -?\d+ is outside -?\d+\.\.\d+, clamped to (\d+)", said)
            if clamp:
                option = next(opt for opt in OPTIONS if opt.name == clamp.group(1))
                expected[option.field] = int(clamp.group(2))
            after = {field: getattr(session.options, field) for field in fields}
            assert after == expected, "corpus line %d %r changed %r" % (
                number, data, {k: (expected[k], after[k]) for k in fields if expected[k] != after[k]})
            if clamp:
                session.handle_line("setoption name %s value %s" % (option.name, before[option.field]))
            clamps += bool(clamp)
        assert clamps >= 5      # Hash -5 and 10^12, MultiPV 0 and 1000, Move Overhead -1, ...
    finally:
        session.handle_line("setoption name Debug Log File value ")


def test_bad_input_corpus(uci):
    cases = load_corpus()
    failures = []
    for number, expect, data, moves in cases:
        kind, _, search = expect.partition("+")
        uci.send("position startpos moves e2e4")
        uci.sync()
        seen = len(uci.transcript)
        uci.send(data)
        lines = uci.sync(timeout=20)
        if search:
            uci.send("stop")
            lines += uci.sync()
            if not any(line.startswith("bestmove") for line in lines):
                lines += uci.expect("bestmove")
        lines = uci.transcript[seen:]
        board = chess.Board()
        for m in (["e2e4"] if moves is None else moves):
            board.push_uci(m)
        where = "corpus line %d %r" % (number, data[:60])
        produced = [line for line in lines if line != "readyok"]
        bestmoves = [line for line in produced if line.startswith("bestmove")]
        try:
            for line in produced:
                assert line.startswith(PROTOCOL_PREFIXES), "non-protocol output %r" % line
            if kind == "error":
                assert errors(produced), "no `info string error:`"
            elif kind == "quiet":
                assert produced == [], "expected no output, got %r" % produced
            else:
                assert kind == "any", kind
            assert len(bestmoves) == (1 if search else 0), "bestmoves: %r" % bestmoves
            for line in bestmoves:
                tokens = line.split()
                assert_legal(START_FEN_AFTER_E4, tokens[1],
                             ponder=tokens[3] if len(tokens) > 3 else None)
            fen = uci.fen()
            assert fen == board.fen(), "position %s, expected %s" % (fen, board.fen())
            uci.send("go depth 1")
            move, ponder, _ = uci.bestmove()
            assert_legal(board.fen(), move, ponder=ponder)
        except AssertionError as exc:
            failures.append("%s: %s" % (where, exc))
    assert "Traceback" not in "".join(uci.stderr), "".join(uci.stderr)
    assert not failures, "\n".join(failures)
    uci.sync()
    total = sum(1 for line in uci.transcript if line.startswith("bestmove"))
    assert total == len(cases) + sum(1 for case in cases if "+search" in case[1])
    print("\n%d bad-input cases passed" % len(cases))


# ---------------------------------------------------------------------- python-chess as client
def basilisk():
    return chess.engine.SimpleEngine.popen_uci(ENGINE_CMD, cwd=str(REPO), timeout=TIMEOUT)


class ProtocolProblems(logging.Handler):
    """Collects the warnings and errors python-chess logs about an engine's output."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.records = []

    def emit(self, record):
        self.records.append(record.getMessage())


@pytest.fixture
def protocol_problems():
    handler = ProtocolProblems()
    logger = logging.getLogger("chess.engine")
    logger.addHandler(handler)
    yield handler.records
    logger.removeHandler(handler)


def test_python_chess_configure_and_analyse(protocol_problems):
    engine = basilisk()
    try:
        assert engine.id["name"].startswith("Basilisk")
        for name in ("Hash", "Clear Hash", "MultiPV", "Ponder", "Move Overhead", "UCI_Chess960"):
            assert name in engine.options
        engine.configure({"Hash": 32, "Move Overhead": 20, "UCI_ShowWDL": True})
        engine.configure({"Clear Hash": None})
        board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
        infos = engine.analyse(board, chess.engine.Limit(depth=3), multipv=3)
        assert [info["multipv"] for info in infos] == [1, 2, 3]
        assert len({info["pv"][0] for info in infos}) == 3
        for info in infos:
            assert info["pv"][0] in board.legal_moves and info["depth"] == 3
        scores = [info["score"].relative.score(mate_score=100000) for info in infos]
        assert scores == sorted(scores, reverse=True)
        assert "wdl" in infos[0]
        result = engine.play(board, chess.engine.Limit(time=0.2))
        assert result.move in board.legal_moves
        engine.ping()
    finally:
        engine.quit()
    assert protocol_problems == []


def load_frc_positions():
    fens = []
    for line in data_file("openings", "FRC_openings.epd").read_text().splitlines():
        fields = line.split()
        if len(fields) >= 4:
            fens.append(" ".join(fields[:4]) + " 0 1")
    return fens


def stockfish_1350():
    if not os.access(STOCKFISH, os.X_OK):
        pytest.skip("%s is not installed (make install-opponents installs it)" % STOCKFISH)
    engine = chess.engine.SimpleEngine.popen_uci(STOCKFISH, timeout=TIMEOUT)
    options = {"Threads": 1, "Hash": 16, "UCI_LimitStrength": True}
    elo = engine.options.get("UCI_Elo")
    if elo is not None:
        options["UCI_Elo"] = min(max(1350, elo.min), elo.max)
    engine.configure(options)
    return engine


def play_game(white, black, fen=chess.STARTING_FEN, chess960=False, base=2.0, inc=0.05,
              ponder=(False, False), max_plies=400, game_id=None, moves_per_control=None,
              movetime=None):
    """Play one game with our own clocks; returns (result, plies, board).

    Time control: ``base`` s + ``inc`` s per move; with ``moves_per_control`` N, ``base``
    is added again every N moves (cutechess-cli's tc=N/base); with ``movetime``, every
    move gets exactly that long (cutechess-cli's st=).

    Fails on an illegal move, a protocol error (raised by python-chess) or a time loss by
    Basilisk (a move that took longer than its clock, as cutechess-cli would judge it).
    An opponent's time loss ends the game (on a loaded machine even Stockfish flags).
    """
    board = chess.Board(fen, chess960=chess960)
    engines = {chess.WHITE: white, chess.BLACK: black}
    pondering = {chess.WHITE: ponder[0], chess.BLACK: ponder[1]}
    clock = {chess.WHITE: base, chess.BLACK: base}
    game_id = game_id if game_id is not None else object()
    history = {chess.WHITE: [], chess.BLACK: []}
    while not board.is_game_over(claim_draw=True) and board.ply() < max_plies:
        turn = board.turn
        if movetime is not None:
            clock[turn] = movetime
            limit = chess.engine.Limit(time=movetime)
        elif moves_per_control:
            to_go = moves_per_control - (board.ply() // 2) % moves_per_control
            limit = chess.engine.Limit(white_clock=clock[chess.WHITE], black_clock=clock[chess.BLACK],
                                       remaining_moves=to_go)
        else:
            limit = chess.engine.Limit(white_clock=clock[chess.WHITE], black_clock=clock[chess.BLACK],
                                       white_inc=inc, black_inc=inc)
        start = time.perf_counter()
        result = engines[turn].play(board, limit, game=game_id, ponder=pondering[turn])
        spent = time.perf_counter() - start
        assert result.move is not None, "no move in %s" % board.fen()
        assert result.move in board.legal_moves, "illegal move %s in %s" % (result.move, board.fen())
        history[turn].append("%d:%.0f-%.0f" % (board.ply(), clock[turn] * 1000, spent * 1000))
        clock[turn] -= spent
        name = engines[turn].id.get("name", "?")
        if clock[turn] <= 0 and not name.startswith("Basilisk"):
            return ("%s lost on time" % name), board.ply(), board
        assert clock[turn] > 0, "%s (%s) lost on time (%.3f s over) at ply %d in %s; ply:clock-spent ms %s" % (
            name, "white" if turn else "black", -clock[turn], board.ply(), board.fen(),
            " ".join(history[turn][-12:]))
        clock[turn] += inc
        if moves_per_control and (board.ply() // 2) % moves_per_control == moves_per_control - 1:
            clock[turn] += base       # this side's last move of the control: time is added
        board.push(result.move)
    outcome = board.outcome(claim_draw=True)
    return (outcome.result() if outcome else "1/2-1/2 (adjudicated)"), board.ply(), board


def test_python_chess_self_play_games(protocol_problems):
    """Two complete 2 s + 0.05 s games, Basilisk against itself (one pondering, one 960)."""
    fens = load_frc_positions()
    white, black = basilisk(), basilisk()
    try:
        start = time.perf_counter()
        result, plies, _ = play_game(white, black, ponder=(True, False), game_id=1)
        print("\nself-play (white pondering): %s in %d plies, %.1f s"
              % (result, plies, time.perf_counter() - start))
        fen = random.Random(3).choice(fens)
        start = time.perf_counter()
        result, plies, _ = play_game(black, white, fen=fen, chess960=True, game_id=2)
        print("self-play Chess960 %s: %s in %d plies, %.1f s"
              % (fen.split()[0], result, plies, time.perf_counter() - start))
    finally:
        white.quit()
        black.quit()
    assert protocol_problems == []


def test_python_chess_game_against_stockfish(protocol_problems):
    opponent = stockfish_1350()
    engine = basilisk()
    try:
        start = time.perf_counter()
        result, plies, _ = play_game(engine, opponent, game_id=1)
        print("\nBasilisk-Stockfish(1350): %s in %d plies, %.1f s"
              % (result, plies, time.perf_counter() - start))
    finally:
        engine.quit()
        opponent.quit()
    assert protocol_problems == []


SERIES_GAMES = 60


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(6))
def test_long_series(chunk, protocol_problems):
    """≥ 50 games in all (6 chunks of 10): standard and Chess960, against itself and
    against stockfish at 1350 when installed, zero illegal moves / protocol errors /
    time losses."""
    fens = load_frc_positions()
    rng = random.Random(1000 + chunk)
    have_stockfish = os.access(STOCKFISH, os.X_OK)
    ours = basilisk()
    other = stockfish_1350() if have_stockfish else basilisk()
    results = []
    try:
        for game in range(SERIES_GAMES // 6):
            chess960 = game % 2 == 1
            fen = rng.choice(fens) if chess960 else chess.STARTING_FEN
            pair = (ours, other) if game % 4 < 2 else (other, ours)
            result, plies, _ = play_game(*pair, fen=fen, chess960=chess960,
                                         ponder=(game % 3 == 0, False), game_id=(chunk, game))
            results.append((result, plies, chess960, pair[0] is ours))
    finally:
        ours.quit()
        other.quit()
    print("\nchunk %d: %s" % (chunk, results))
    assert protocol_problems == []


# ---------------------------------------------------------------------- faults, in-process
class FaultySearcher:
    """Stands in for engine.search.Searcher and misbehaves in one chosen way."""

    def __init__(self, mode):
        self.mode = mode
        self.nodes = 0

    def stop(self):
        pass

    def clear(self):
        pass

    def set_hash(self, mb):
        pass

    def search(self, pos, limits, timeman, report=None, multipv=1):
        a1a8 = 0 | 56 << 6                      # never legal from the start position
        if self.mode == "raise":
            raise RuntimeError("boom")
        if self.mode == "illegal":
            return a1a8, 0
        if self.mode == "badpv":
            from engine.movegen import generate_moves
            move = generate_moves(pos)[0]
            report({"depth": 1, "seldepth": 1, "score": 7, "nodes": 1, "nps": 1, "time": 1,
                    "pv": [move, a1a8]})
            return move, a1a8
        return 0, 0


@pytest.mark.parametrize("mode", ["raise", "illegal", "zero", "badpv"])
def test_a_failing_search_still_gives_one_legal_bestmove(mode, capsys):
    import io
    from engine import uci as uci_module
    out = io.StringIO()
    loader = uci_module._Loader()
    loader.start()
    session = uci_module.UciSession(out=out, loader=loader)
    session.ensure_ready()
    session.engine.searcher = FaultySearcher(mode)
    session.handle_line("position startpos")
    session.handle_line("go depth 3")
    assert session.engine.wait_idle(5)
    lines = out.getvalue().splitlines()
    bestmoves = [line for line in lines if line.startswith("bestmove")]
    assert len(bestmoves) == 1, lines
    tokens = bestmoves[0].split()
    assert_legal(chess.STARTING_FEN, tokens[1], ponder=tokens[3] if len(tokens) > 3 else None)
    if mode in ("raise", "illegal"):
        assert errors(lines), lines
    if mode == "badpv":
        info = parse_info([line for line in lines if " pv " in line][0])
        assert len(info["pv"]) == 1               # cut before the illegal move
        assert len(tokens) == 2                   # no illegal ponder move


@pytest.mark.slow
@pytest.mark.parametrize("control", ["tc=40/4", "tc=10/1", "st=0.2", "tc=1+0.01"])
def test_other_time_controls(control, protocol_problems):
    """cutechess-cli's other kinds of control, scaled down: moves/time, fixed time per move,
    and a tiny increment; two self-play games each, no time losses."""
    kwargs = {}
    if control.startswith("st="):
        kwargs = {"movetime": float(control[3:])}
    elif "/" in control:
        moves, seconds = control[3:].split("/")
        kwargs = {"moves_per_control": int(moves), "base": float(seconds), "inc": 0}
    else:
        base, inc = control[3:].split("+")
        kwargs = {"base": float(base), "inc": float(inc)}
    white, black = basilisk(), basilisk()
    try:
        for game in range(2):
            start = time.perf_counter()
            result, plies, _ = play_game(white, black, game_id=game, max_plies=160, **kwargs)
            print("\n%s: %s in %d plies, %.1f s" % (control, result, plies, time.perf_counter() - start))
            white, black = black, white
    finally:
        white.quit()
        black.quit()
    assert protocol_problems == []


# ---------------------------------------------------------------------- the facade, in-process
class Collector:
    """Callbacks for engine.engine.Engine that keep what they are given."""

    def __init__(self):
        self.infos = []
        self.bestmoves = []
        self.errors = []
        self.counts = []
        self.done = []
        self.finished = threading.Event()

    def on_info(self, info):
        self.infos.append(info)

    def on_bestmove(self, best, ponder):
        self.bestmoves.append((best, ponder))
        self.finished.set()

    def on_error(self, message):
        self.errors.append(message)

    def on_exception(self, what, exc):
        self.errors.append("%s: %r" % (what, exc))

    def on_count(self, move, count):
        self.counts.append((move, count))

    def on_done(self, *result):
        self.done.append(result)
        self.finished.set()


def facade_go(engine, collector, fen, **limit_fields):
    from engine.engine import Position, root_moves
    from engine.timeman import Limits, plan_search
    pos = Position(fen)
    limits = Limits()
    for key, value in limit_fields.items():
        setattr(limits, key, value)
    legal = root_moves(pos, limits.searchmoves)
    timeman = plan_search(limits, pos.turn, len(legal))
    assert engine.go(pos, limits, timeman, legal, on_info=collector.on_info,
                     on_bestmove=collector.on_bestmove)
    return pos


def test_a_search_through_the_facade():
    from engine.engine import Engine
    from engine.notation import move_to_uci
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    got = Collector()
    engine = Engine(hash_mb=4, on_error=got.on_error, on_exception=got.on_exception)
    facade_go(engine, got, fen, depth=3)
    assert engine.wait_idle(30)
    assert got.errors == [] and len(got.bestmoves) == 1
    best, ponder = got.bestmoves[0]
    assert_legal(fen, move_to_uci(best), ponder=move_to_uci(ponder) if ponder else None)
    depths = [info["depth"] for info in got.infos if info.get("pv")]
    assert max(depths) == 3
    for info in got.infos:
        if info.get("pv"):
            check_pv(fen, [move_to_uci(m) for m in info["pv"]])
    assert got.infos[-1]["pv"][0] == best


def test_the_facade_holds_bestmove_until_stop_and_defers_searcher_calls():
    from engine.engine import Engine
    from engine.notation import move_to_uci
    got = Collector()
    engine = Engine(hash_mb=4, on_error=got.on_error, on_exception=got.on_exception)
    facade_go(engine, got, chess.STARTING_FEN, infinite=True)
    time.sleep(0.3)
    assert engine.busy() and got.bestmoves == []
    engine.set_hash(8)                      # not while the search uses the table
    engine.new_game()
    assert [call.__name__ for call, _ in engine.pending] == ["_configure_wanted", "_clear"]
    assert engine.searcher.hash_mb == 4
    engine.stop()
    assert got.finished.wait(5) and engine.wait_idle(5)
    assert not engine.busy() and len(got.bestmoves) == 1
    assert_legal(chess.STARTING_FEN, move_to_uci(got.bestmoves[0][0]))
    got.finished.clear()
    facade_go(engine, got, chess.STARTING_FEN, depth=1)     # applies them first
    assert engine.searcher.hash_mb == 8 and engine.pending == []
    assert got.finished.wait(10) and len(got.bestmoves) == 2
    assert got.errors == []


def test_the_facade_gives_0_without_a_legal_move():
    from engine.engine import Engine
    got = Collector()
    engine = Engine(hash_mb=1, on_error=got.on_error, on_exception=got.on_exception)
    facade_go(engine, got, "R5k1/5ppp/8/8/8/8/8/K7 b - - 0 1", depth=3)
    assert got.finished.wait(10)
    assert got.bestmoves == [(0, 0)] and got.errors == []


def test_divide_stops_between_root_moves():
    from engine.perft import divide
    from engine.position import Position
    pos = Position()
    full = divide(pos, 2)
    asked = []

    def stop_after_three():
        asked.append(1)
        return len(asked) > 3

    reported = []
    assert divide(pos, 2, stop=stop_after_three, report=lambda m, n: reported.append((m, n))) is None
    assert reported == full[:3]
    assert divide(pos, 2, stop=lambda: False) == full
    assert pos.fen() == chess.STARTING_FEN      # restored


def test_divide_stops_inside_a_root_move_and_counts_the_same_when_not_stopped():
    """A deep perft asks stop() below the root too (a `stop` acts within a few ms): told to
    stop at the fifth ask, it has not finished even the first root move."""
    from engine.perft import divide, STOP_GRAIN
    from engine.position import Position
    fen = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"
    pos = Position(fen)
    depth = STOP_GRAIN + 2
    asked = []

    def stop_at_five():
        asked.append(1)
        return len(asked) >= 5

    reported = []
    assert divide(pos, depth, bulk=True, stop=stop_at_five,
                  report=lambda m, n: reported.append((m, n))) is None
    assert reported == [] and len(asked) == 5
    assert pos.fen() == fen
    counts = divide(pos, depth, bulk=True, stop=lambda: False)
    assert counts == divide(pos, depth, bulk=True)
    published = next(counts for _, suite_fen, counts in read_perft_suite("standard.epd")
                     if suite_fen == fen)
    assert sum(n for _, n in counts) == published[depth]


def test_the_facade_perft_counts_and_stops():
    from engine.engine import Engine
    from engine.position import Position
    got = Collector()
    engine = Engine(hash_mb=1, on_error=got.on_error, on_exception=got.on_exception)
    assert engine.perft(Position(), 3, on_count=got.on_count, on_done=got.on_done)
    assert got.finished.wait(60) and engine.wait_idle(5)
    assert len(got.counts) == 20 and sum(n for _, n in got.counts) == 8902
    assert got.done[0][0] == 8902 and got.done[0][2] is False
    got = Collector()
    assert engine.perft(Position(), 5, on_count=got.on_count, on_done=got.on_done)
    time.sleep(0.2)
    engine.stop()
    assert got.finished.wait(60) and engine.wait_idle(5)
    assert got.done[0][0] is None and got.done[0][2] is True
    assert len(got.counts) < 20
    assert got.errors == []


# ---------------------------------------------------------------------- PyPy's JIT warm-up
def test_warm_up_runs_only_on_pypy():
    from engine.engine import Engine
    engine = Engine(hash_mb=1)
    assert engine.warm_up() == (sys.implementation.name == "pypy")
    engine.end_warm_up()
    assert engine.job is None or not engine.job.alive()


@pytest.fixture
def endless_warm_up(monkeypatch):
    """Warm-up on under any interpreter, and long enough to be running when tested; every
    Engine made meanwhile has its warm-up ended afterwards, should the test fail first."""
    import engine.engine
    monkeypatch.setattr(engine.engine, "WARM_UP", True)
    monkeypatch.setattr(engine.search, "WARM_UP_NODES", 10 ** 9)
    made = []
    init = engine.engine.Engine.__init__

    def recorded(self, *args, **kwargs):
        init(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(engine.engine.Engine, "__init__", recorded)
    yield
    for eng in made:
        eng.end_warm_up()


def test_warm_up_is_silent_leaves_the_searcher_alone_and_ends_for_a_go(endless_warm_up):
    from engine.engine import Engine
    from engine.notation import move_to_uci
    got = Collector()
    engine = Engine(hash_mb=1, on_error=got.on_error, on_exception=got.on_exception)
    assert engine.warm_up()
    job = engine.job
    assert not engine.warm_up()                 # not a second one while it runs
    time.sleep(0.3)
    assert job.alive() and not engine.busy()    # running, but nothing waits for it
    assert engine.searcher.nodes == 0 and engine.searcher.tt.hashfull() == 0
    start = time.perf_counter()
    facade_go(engine, got, chess.STARTING_FEN, depth=2)
    waited = time.perf_counter() - start
    assert not job.alive() and job.nodes + job.searcher.nodes > 0
    print("\ngo waited %.0f ms for the warm-up to end" % (waited * 1000))
    assert waited < PROMPT_MS / 1000
    assert got.finished.wait(10) and engine.wait_idle(5)
    assert got.errors == [] and len(got.bestmoves) == 1
    assert_legal(chess.STARTING_FEN, move_to_uci(got.bestmoves[0][0]))


def test_warm_up_ends_before_searcher_changes(endless_warm_up):
    from engine.engine import Engine
    engine = Engine(hash_mb=1)
    assert engine.warm_up()
    job = engine.job
    engine.set_hash(2)                          # at once: a warm-up defers nothing
    assert not job.alive() and engine.pending == [] and engine.searcher.hash_mb == 2


@pytest.mark.parametrize("command", ["position startpos", "setoption name Hash value 2",
                                     "ucinewgame", "go depth 2", "bench 1", "quit"])
def test_warm_up_starts_after_isready_silently_and_the_next_command_ends_it(
        command, endless_warm_up):
    import io
    from engine import uci as uci_module
    out = io.StringIO()
    loader = uci_module._Loader()
    loader.start()
    session = uci_module.UciSession(out=out, loader=loader)
    session.handle_line("isready")
    job = session.engine.job
    assert job is not None and job.kind == "warm-up"
    time.sleep(0.3)
    assert job.alive() and out.getvalue() == "readyok\n"
    session.handle_line(command)
    assert not job.alive()
    if command.split()[0] in ("go", "bench", "quit"):
        # a real job (or quit) ends it for good: no warm-up after it
        assert session.engine.wait_idle(30)
        session.handle_line("isready")
        resumed = session.engine.job
        assert resumed is job or resumed is None or resumed.kind != "warm-up"
        assert not (resumed is not None and resumed.kind == "warm-up" and resumed.alive())
    else:
        # before the first search it resumes after the command (and the next one ends it)
        resumed = session.engine.job
        assert resumed is not job and resumed.kind == "warm-up" and resumed.alive()
        session.handle_line("quit")
        assert not resumed.alive()
    lines = out.getvalue().splitlines()
    assert errors(lines) == [], lines
    if command.startswith("go"):
        assert len([line for line in lines if line.startswith("bestmove")]) == 1


def test_warm_up_resumes_where_it_stopped_until_the_first_search(monkeypatch):
    """Each run of the warm-up searches the bench positions not yet warmed; one finished
    leaves nothing to do, and the first real search ends it for good."""
    import engine.engine
    from engine.engine import Engine
    monkeypatch.setattr(engine.engine, "WARM_UP", True)
    monkeypatch.setattr(engine.search, "WARM_UP_NODES", 200)
    eng = Engine(hash_mb=1)
    total = len(eng.warm_fens)
    assert total == len(engine.engine.BENCH_POSITIONS)
    assert eng.warm_up()
    eng.job.join(60)
    assert eng.warm_fens == [] and eng.job.nodes > 0
    assert not eng.warm_up()                    # all warmed: nothing to resume
    # interrupted at once, it keeps what it did not finish and a later call resumes it
    eng = Engine(hash_mb=1)
    monkeypatch.setattr(engine.search, "WARM_UP_NODES", 10 ** 9)
    assert eng.warm_up()
    time.sleep(0.2)
    eng.end_warm_up()
    assert eng.warm_fens == list(engine.engine.BENCH_POSITIONS)
    assert eng.warm_up()
    first = eng.job
    got = Collector()
    eng.on_error, eng.on_exception = got.on_error, got.on_exception
    facade_go(eng, got, chess.STARTING_FEN, depth=2)
    assert not first.alive() and eng.warm_fens == []
    assert got.finished.wait(10) and eng.wait_idle(5)
    assert not eng.warm_up()                    # never after a real search
