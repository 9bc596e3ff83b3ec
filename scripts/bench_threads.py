#!/usr/bin/env python3
"""Threads 1 against Threads N: time to a fixed depth, nodes/s and stop latency, side by side.

    python scripts/bench_threads.py                        # Threads 1 vs 2, CPython, depth 10
    python scripts/bench_threads.py --python pypy3 --depth 11 --threads 2

Each side is a fresh `python -m engine` process of this checkout with ``Hash`` MB in
total.  For every position, both sides (interleaved, A first) answer `ucinewgame`,
`position` and `go depth D`; the figures are the milliseconds until the `info depth D`
line and the nodes/s of the last `info` (all processes' nodes, as the engine reports
them).  Then each side is asked to `stop` a `go infinite` ``--stops`` times, and the time
from `stop` to `bestmove` is printed.  Lazy SMP is not deterministic: repeat a run before
trusting a small difference.  The machine should have at least N idle cores.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
POSITIONS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQ1RK1 w - - 0 8",
    "r1bqk2r/pp2bppp/2p5/3pP3/P2Q1P2/2N1B3/1PP3PP/R4RK1 b kq - 0 12",
    "2r2rk1/1bqnbpp1/1p1ppn1p/pP6/N1P1P3/P2B1N1P/1B2QPP1/R2R2K1 b - - 0 17",
    "8/5pk1/6p1/8/3R4/6P1/5PK1/1r6 b - - 0 40",
]


class Engine:
    def __init__(self, python, threads, hash_mb):
        self.proc = subprocess.Popen([python, "-m", "engine"], cwd=REPO, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True, bufsize=1)
        self.send("uci")
        self.until("uciok")
        self.send("setoption name Hash value %d" % hash_mb)
        self.send("setoption name Threads value %d" % threads)
        self.send("isready")
        self.until("readyok")

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def until(self, prefix):
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                sys.exit("the engine exited; last lines: %r" % lines[-5:])
            line = line.strip()
            lines.append((time.perf_counter(), line))
            if line.startswith(prefix):
                return lines

    def to_depth(self, fen, depth):
        """(ms to the `info depth` line, nodes/s of the last info)."""
        self.send("ucinewgame")
        self.send("position fen " + fen)
        self.send("isready")
        self.until("readyok")
        start = time.perf_counter()
        self.send("go depth %d" % depth)
        lines = self.until("bestmove")
        reached = next((t for t, line in lines if line.startswith("info depth %d " % depth)),
                       lines[-1][0])
        infos = [line.split() for _, line in lines if line.startswith("info depth")]
        nps = int(infos[-1][infos[-1].index("nps") + 1]) if infos else 0
        return (reached - start) * 1000, nps

    def stop_latency(self, fen, seconds):
        self.send("position fen " + fen)
        self.send("go infinite")
        time.sleep(seconds)
        self.send("isready")
        self.until("readyok")
        start = time.perf_counter()
        self.send("stop")
        lines = self.until("bestmove")
        return (lines[-1][0] - start) * 1000

    def quit(self):
        self.send("quit")
        self.proc.wait(10)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog=__doc__.split("\n\n", 1)[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", default=sys.executable, help="interpreter (default: this one)")
    parser.add_argument("--threads", type=int, default=2, help="B's Threads (A has 1; default 2)")
    parser.add_argument("--depth", type=int, default=10, help="go depth (default 10)")
    parser.add_argument("--hash", type=int, default=64, help="Hash MB of each side (default 64)")
    parser.add_argument("--stops", type=int, default=3, help="stop measurements per side")
    args = parser.parse_args(argv)

    a = Engine(args.python, 1, args.hash)
    b = Engine(args.python, args.threads, args.hash)
    print("%s, go depth %d, Hash %d: A = Threads 1, B = Threads %d"
          % (args.python, args.depth, args.hash, args.threads))
    print("%-70s %9s %9s %6s %9s %9s" % ("position", "A ms", "B ms", "A/B", "A nps", "B nps"))
    rows = []
    for fen in POSITIONS:
        ta, na = a.to_depth(fen, args.depth)
        tb, nb = b.to_depth(fen, args.depth)
        rows.append((ta, tb, na, nb))
        print("%-70s %9.0f %9.0f %6.2f %9d %9d" % (fen[:70], ta, tb, ta / max(tb, 1e-9), na, nb))
    ta, tb = sum(r[0] for r in rows), sum(r[1] for r in rows)
    na, nb = statistics.mean(r[2] for r in rows), statistics.mean(r[3] for r in rows)
    print("%-70s %9.0f %9.0f %6.2f %9.0f %9.0f" % ("total time / mean nps", ta, tb, ta / tb, na, nb))
    print("time-to-depth speed-up B over A: %.2fx (geometric mean of positions %.2fx); "
          "nodes/s ratio %.2fx" % (ta / tb, statistics.geometric_mean(r[0] / r[1] for r in rows),
                                    nb / na))
    for name, engine in (("A", a), ("B", b)):
        stops = [engine.stop_latency(POSITIONS[i % len(POSITIONS)], 1.0) for i in range(args.stops)]
        print("%s stop -> bestmove ms: %s" % (name, " ".join("%.1f" % t for t in stops)))
    a.quit()
    b.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
