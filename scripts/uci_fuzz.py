#!/usr/bin/env python3
"""A UCI fuzzer: random command streams sent to an engine process, checked from outside.

The unit tests drive the protocol one case at a time; this drives it in random orders, as
GUIs, match runners and people at a terminal do: positions (standard and Chess960, by FEN,
Shredder-FEN or moves), searches of every kind (depth, nodes, movetime, clock, mate,
infinite, ponder, searchmoves), options changed between and during them, `isready` while
searching, `d`, `eval`, `bench`, `go perft` and a debug log file, malformed lines of every
sort, and an ending by `quit`, end of input or SIGTERM, some in the middle of a two-thread
search. Each round is a fresh process.

It reports, per round: no `uciok`; no `readyok` within READY_SECONDS (searching or not); no
`bestmove` where one is due; a legal position refused (an `info string error` before the
next `readyok`); a `bestmove` that is not legal in the last position sent (or not in the
notation UCI_Chess960 asks for, or outside `searchmoves`); a `go perft` total unlike
python-chess's; a traceback on stdout or stderr (the engine writes one to stderr only for an
error it caught, which is still a bug); no exit within EXIT_SECONDS of the ending, or a
non-zero exit; and a helper process still alive after the engine has gone (found by a marker
in its environment). The exit status is 1 if any round found something.

    python scripts/uci_fuzz.py                                   # CPython, 20 rounds, seed 1
    python scripts/uci_fuzz.py --engine "pypy3 -m engine" --rounds 40 --seed 7
"""

import argparse
import os
import queue
import random
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid

import chess

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle import oracle_perft  # noqa: E402  (a sibling script)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
START_SECONDS = 20.0        # to `uciok` (PyPy may start itself again first)
READY_SECONDS = 5.0
SEARCH_SECONDS = 20.0       # for a bounded search (at most depth 5, 5,000 nodes, 0.2 s)
MATE_SECONDS = 3.0          # `go mate` searches on until it finds one, as Stockfish's does
EXIT_SECONDS = 5.0
MARKER = "BASILISK_FUZZ_MARKER"
# each option with a value drawn from the round's random source and scratch directory
OPTIONS = (("Hash", lambda rng, scratch: str(rng.choice([1, 2, 16, 64]))),
           ("Threads", lambda rng, scratch: str(rng.choice([1, 1, 2]))),
           ("MultiPV", lambda rng, scratch: str(rng.randrange(1, 4))),
           ("UCI_Chess960", lambda rng, scratch: rng.choice(["true", "false"])),
           ("UCI_LimitStrength", lambda rng, scratch: rng.choice(["true", "false"])),
           ("UCI_Elo", lambda rng, scratch: str(rng.randrange(1000, 3000))),
           ("Skill Level", lambda rng, scratch: str(rng.randrange(-2, 22))),
           ("Ponder", lambda rng, scratch: rng.choice(["true", "false"])),
           ("OwnBook", lambda rng, scratch: rng.choice(["true", "false"])),
           ("Book File", lambda rng, scratch: rng.choice(
               ["data/books/8moves_v3.bin", "", "no/such.bin"])),
           ("Book Best Move", lambda rng, scratch: rng.choice(["true", "false"])),
           ("Move Overhead", lambda rng, scratch: str(rng.randrange(0, 200))),
           ("Debug Log File", lambda rng, scratch: rng.choice(
               (os.path.join(scratch, "debug.log"), "", "/no/such/directory/debug.log"))))
MALFORMED = ("xboard", "protover 2", "foo", "", "   ", "go depth", "go nodes x", "position",
             "position fen", "position startpos moves e2e5",
             "position fen 8/8/8/8/8/8/8/8 w - - 0 1",
             "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0",
             "position startpos moves e2e4 e7e5 g1f3 z9z9", "position startpos moves",
             "position fen 4k3/8/8/8/8/8/8/4K2R w K - 0 1 moves e1g1",
             "setoption name", "setoption name Hash value -1", "setoption name Threads value 99",
             "setoption name Hash value abc", "setoption name Nope value 1",
             "go searchmoves zz", "go wtime -100 btime -100", "go movetime 0", "go depth 0",
             "go nodes 0", "ponderhit", "stop", "register later", "debug on", "debug off",
             "\x01\x02", "\u00e9\u00e8", "go " + "9" * 40)
GO_WORDS = ("wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "mate", "movetime",
            "infinite", "ponder", "1", "-1", "99999999999999999999")


class Process:
    """The engine under test: its lines arrive on a queue, stderr is kept whole."""

    def __init__(self, command, cwd, marker):
        env = dict(os.environ, **{MARKER: marker})
        self.proc = subprocess.Popen(command, cwd=cwd, env=env, text=True, bufsize=1,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, errors="replace")
        self.lines = queue.Queue()
        self.stderr = []
        self.transcript = []              # (seconds, "<" sent or ">" received, line)
        self.ended = False                # its output has ended
        self.started = time.monotonic()
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.stderr.extend(self.proc.stderr),
                         daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            line = line.rstrip("\n")
            self.transcript.append((time.monotonic() - self.started, ">", line))
            self.lines.put(line)
        self.lines.put(None)

    def lines_of(self, way):
        """The lines sent ("<") or received (">"), in order."""
        return [line for _, direction, line in self.transcript if direction == way]

    def send(self, line):
        self.transcript.append((time.monotonic() - self.started, "<", line))
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            pass                          # it has gone: the checks below say so

    def wait_for(self, prefix, seconds, skipped=None):
        """The next line starting with prefix within seconds, or None if none came (``ended``
        says whether the output ended); the lines before it appended to ``skipped``, if given."""
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                return None
            if line is None:
                self.lines.put(None)
                self.ended = True
                return None
            if line.startswith(prefix):
                return line
            if skipped is not None:
                skipped.append(line)


def random_board(rng, chess960):
    """A position reached by up to 80 random legal moves from the start (or a Chess960 one)."""
    board = chess.Board.from_chess960_pos(rng.randrange(960)) if chess960 else chess.Board()
    for _ in range(rng.randrange(0, 80)):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
    return board


def bestmove_problem(board, line, chess960):
    """What is wrong with this bestmove line for board, or None."""
    words = line.split()
    if len(words) < 2:
        return "bestmove without a move: %r" % line
    move = words[1]
    if not any(board.legal_moves):
        return None if move in ("(none)", "0000") else "bestmove %s where no move is legal" % move
    board = board.copy(stack=False)
    board.chess960 = chess960
    try:
        parsed = board.parse_uci(move)
    except ValueError:
        return "illegal bestmove %s in %s" % (move, board.fen())
    if board.uci(parsed, chess960=chess960) != move:
        return "bestmove %s in the wrong castling notation (UCI_Chess960 %s)" % (move, chess960)
    return None


def helpers_alive(marker):
    """Processes (Linux /proc) whose environment carries this round's marker."""
    alive = []
    needle = ("%s=%s" % (MARKER, marker)).encode()
    try:
        pids = [name for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return alive
    for pid in pids:
        try:
            with open("/proc/%s/environ" % pid, "rb") as handle:
                if needle in handle.read().split(b"\0"):
                    alive.append(int(pid))
        except OSError:
            continue
    return alive


def run_round(command, cwd, rng, transcript=None):
    """One engine process through a random stream; the problems found, as strings (and the
    round's transcript appended to the list ``transcript``, if given)."""
    with tempfile.TemporaryDirectory(prefix="uci_fuzz_") as scratch:
        return _run_round(command, cwd, rng, transcript, scratch)


def _run_round(command, cwd, rng, transcript, scratch):
    """run_round with ``scratch``, a directory for the round's own files (the Debug Log File)."""
    marker = uuid.uuid4().hex
    engine = Process(command, cwd, marker)
    problems = []

    def problem(text):
        problems.append("%s (after: %s)" % (text, " | ".join(engine.lines_of("<")[-5:])))

    def expect_bestmove(seconds):
        line = engine.wait_for("bestmove", seconds)
        if line is None:
            problem("no bestmove (%s)" % ("output ended" if engine.ended else "timed out"))
        return line

    def sync(what="no readyok", answer=None):
        """isready, answered within READY_SECONDS (the lines before readyok into answer)."""
        engine.send("isready")
        if engine.wait_for("readyok", READY_SECONDS, answer) is None:
            problem(what)
            return False
        return True

    engine.send("uci")
    if engine.wait_for("uciok", START_SECONDS) is None:
        problem("no uciok")
    chess960 = False
    board, known = chess.Board(), True     # known: the engine's position is board
    frc = False                             # board is a Chess960 start's descendant
    for _ in range(rng.randrange(10, 40)):
        r = rng.random()
        if r < 0.15:
            line = rng.choice(MALFORMED) if rng.random() < 0.8 else \
                "go " + " ".join(rng.choice(GO_WORDS) for _ in range(6))
            engine.send(line)
            words = line.split()
            if words[:1] == ["go"]:
                engine.send("stop")       # whatever it started (infinite, ponder, a long one)
                expect_bestmove(SEARCH_SECONDS)
            elif words[:1] in (["position"], ["ponderhit"]):
                known = False             # a partial or rejected position: not checked after
        elif r < 0.25:
            name, value = rng.choice(OPTIONS)
            value = value(rng, scratch)
            engine.send("setoption name %s value %s" % (name, value))
            if name == "UCI_Chess960":
                chess960 = value == "true"
                known = known and not frc     # see below
        elif r < 0.45:
            new = random_board(rng, rng.random() < 0.3)
            # what the engine says up to here is read first, so what follows is its answer
            sync()
            if rng.random() < 0.5 or new.chess960:
                engine.send("position fen " + (new.shredder_fen() if new.chess960 else new.fen()))
            else:
                replay, moves = chess.Board(), []     # in the notation UCI_Chess960 asks for
                for move in new.move_stack:
                    moves.append(replay.uci(move, chess960=chess960))
                    replay.push(move)
                engine.send("position startpos moves " + " ".join(moves))
            # a Chess960 start read in standard mode: its castling moves have no fixed notation
            board, frc = new.copy(stack=False), new.chess960
            known = chess960 or not frc
            answer = []
            if sync(answer=answer) and known and any(
                    line.startswith("info string error") for line in answer):
                problem("a legal position refused: %s" % answer)
        elif r < 0.55:
            sync()
        elif r < 0.60:
            engine.send("ucinewgame")
        elif r < 0.63 and known and not frc:
            # commands piled up behind a running search, as a fast client sends them: the
            # first search ends (by its limit or `stop`) before the next position is taken
            first = rng.choice(("go movetime 50", "go depth 3", "go infinite"))
            stopped = rng.random() < 0.5
            engine.send(first)
            if stopped:
                engine.send("stop")
            new = random_board(rng, False)
            engine.send("position fen " + new.fen())
            engine.send("go depth %d" % rng.randrange(1, 4))
            if first == "go infinite" and not stopped:
                engine.send("stop")       # (an infinite search ends only so)
            for before in (board, new):
                line = expect_bestmove(SEARCH_SECONDS)
                wrong = line and bestmove_problem(before, line, chess960)
                if wrong:
                    problem(wrong + " (piled-up commands)")
            board = new.copy(stack=False)
        elif r < 0.68:
            tool = rng.choice(("d", "eval", "help", "bench", "perft"))
            if tool == "bench":
                engine.send("bench %d" % rng.randrange(1, 3))
                if engine.wait_for("Nodes/second", SEARCH_SECONDS) is None:
                    problem("no end of bench")
            elif tool == "perft":
                depth = rng.randrange(1, 4)
                engine.send("go perft %d" % depth)
                line = engine.wait_for("Nodes searched: ", SEARCH_SECONDS)
                if line is None:
                    problem("no perft total")
                elif known and int(line.split()[-1]) != oracle_perft(board, depth):
                    problem("perft %d: %s, python-chess %d in %s"
                            % (depth, line, oracle_perft(board, depth), board.fen()))
            else:
                engine.send(tool)
        else:
            kind = rng.choice(("depth", "nodes", "movetime", "clock", "mate", "infinite", "ponder"))
            go = {"depth": lambda: "go depth %d" % rng.randrange(1, 6),
                  "nodes": lambda: "go nodes %d" % rng.randrange(1, 5000),
                  "movetime": lambda: "go movetime %d" % rng.randrange(1, 200),
                  "clock": lambda: "go wtime %d btime %d winc %d binc %d" % (
                      rng.randrange(0, 3000), rng.randrange(0, 3000), rng.randrange(0, 100),
                      rng.randrange(0, 100)) + (" movestogo %d" % rng.randrange(1, 40)
                                                if rng.random() < 0.3 else ""),
                  "mate": lambda: "go mate %d" % rng.randrange(1, 4),
                  "infinite": lambda: "go infinite",
                  "ponder": lambda: "go ponder"}[kind]()
            legal = list(board.legal_moves)
            allowed = None                # the searchmoves given, in the engine's notation
            if known and legal and rng.random() < 0.1:
                chosen = rng.sample(legal, min(2, len(legal)))
                allowed = [board.uci(m, chess960=chess960) for m in chosen]
                go += " searchmoves " + " ".join(allowed)
            engine.send(go)
            if kind in ("infinite", "ponder"):
                time.sleep(rng.random() * 0.3)
                if rng.random() < 0.5:
                    sync("no readyok while searching")
                if kind == "ponder" and rng.random() < 0.5:
                    engine.send("ponderhit")
                engine.send("stop")
                line = expect_bestmove(SEARCH_SECONDS)
            elif kind == "mate":
                line = engine.wait_for("bestmove", MATE_SECONDS)
                if line is None and not engine.ended:  # none found: it searches on until stopped
                    engine.send("stop")
                    line = expect_bestmove(SEARCH_SECONDS)
                elif line is None:
                    problem("no bestmove (output ended)")
            else:
                line = expect_bestmove(SEARCH_SECONDS)
            if line is not None and known:
                wrong = bestmove_problem(board, line, chess960)
                if not wrong and allowed and line.split()[1] not in allowed:
                    wrong = "bestmove %s outside searchmoves %s" % (line.split()[1], allowed)
                if wrong:
                    problem(wrong)

    ending = rng.choice(("quit", "end of input", "quit while searching",
                         "end of input while searching", "SIGTERM"))
    if ending.endswith("while searching"):
        engine.send("setoption name Threads value 2")
        engine.send("go infinite")
        time.sleep(rng.random() * 0.5)
    if ending.startswith("quit"):
        engine.send("quit")
    elif ending.startswith("end of input"):
        engine.proc.stdin.close()
    else:
        engine.proc.send_signal(signal.SIGTERM)
    try:
        code = engine.proc.wait(EXIT_SECONDS)
    except subprocess.TimeoutExpired:
        problem("no exit within %.0f s of %s" % (EXIT_SECONDS, ending))
        engine.proc.kill()
        engine.proc.wait()
    else:
        if code not in ((0, -signal.SIGTERM) if ending == "SIGTERM" else (0,)):
            problem("exit code %s after %s" % (code, ending))
    time.sleep(0.3)                       # (a helper told to go exits within milliseconds)
    left = helpers_alive(marker)
    if left:
        problem("processes left after %s: %s" % (ending, left))
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    time.sleep(0.05)                      # the reader threads take the last lines
    if any("Traceback" in line for line in engine.lines_of(">")):
        problem("a traceback on stdout")
    if any("Traceback" in line for line in engine.stderr):
        problem("a traceback on stderr: %s" % "".join(engine.stderr)[-400:])
    if transcript is not None:
        transcript.extend(engine.transcript)
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", default="%s -m engine" % shlex.quote(sys.executable),
                        help="command line that starts the engine (default: this Python)")
    parser.add_argument("--cwd", default=REPO, help="its working directory (default: the repo)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--transcript", type=int, default=0, metavar="LINES",
                        help="after a round with problems, its last LINES lines sent (<) and "
                             "received (>), option and board lines left out")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    command = shlex.split(args.engine)
    found = 0
    start = time.monotonic()
    for index in range(args.rounds):
        transcript = []
        problems = run_round(command, args.cwd, rng, transcript)
        found += len(problems)
        print("round %d/%d: %s" % (index + 1, args.rounds,
                                   "; ".join(problems) if problems else "ok"), flush=True)
        if problems and args.transcript:
            shown = [entry for entry in transcript
                     if not entry[2].startswith(("option ", " +", " |", "   a"))]
            for seconds, way, line in shown[-args.transcript:]:
                print("  %8.3f %s %s" % (seconds, way, line))
    print("%d rounds, %d problems, %.0f s (%s, seed %d)"
          % (args.rounds, found, time.monotonic() - start, args.engine, args.seed))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
