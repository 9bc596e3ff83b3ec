#!/usr/bin/env python3
"""Search speed of two sides, measured interleaved in one run through the UCI `bench` command.

A side is a revision (a commit, a branch, or the working tree) run by an interpreter:

    python scripts/bench_compare.py                           # HEAD vs working tree, CPython
    python scripts/bench_compare.py --a 58a3f96 --b WORK      # an old commit vs this tree
    python scripts/bench_compare.py --a WORK --b WORK --b-python pypy3 --benches 6
    python scripts/bench_compare.py --go "movetime 1000"     # cold start: the first `go`
    python scripts/bench_compare.py --go "movetime 1000" --idle 1   # ... a second after readyok
    python scripts/bench_compare.py --a HEAD --b HEAD --a-python pypy3 --b-python pypy3 \
        --b-env BASILISK_JIT=EAGER_AFTER_NODES=200000 --go "movetime 250" --game 120  # games

Each round starts a fresh engine process per side, A then B, and lets it run ``--benches``
`bench` commands in a row (so a JIT can warm up in that process); the figure kept from a
process is its last bench, and a side's figure is its best over ``--rounds`` rounds (the
usual "best of N" on a machine whose load varies). With ``--go`` each process instead
answers one `go` from the start position after start-up, and its last `info` line gives
nodes and nodes/s: what the first move of a real game gets. ``--idle S`` waits S seconds
between `readyok` and the `position`/`go`, as a GUI does while its user sets up a game (on
PyPy the engine's JIT warm-up runs then). ``--game PLIES`` makes that process play a whole
game against itself from the start position instead, a `go ARGS` a ply, and counts the nodes
and search time of every ply: what a fresh process gets over a game, JIT compiling included.
``--a-env``/``--b-env`` add environment variables to a side (its tunables, e.g.
``BASILISK_JIT=...``), so one revision can be measured against itself with a setting changed.
With ``--benches`` 3 or more and ``--rounds`` 2 or more it also prints each side's mean over
benches 3 and later of every round, with its standard error: PyPy's last bench varies by
10-30% from one process to the next, so the mean of many is the steadier figure there.

Prints both sides' nodes/s side by side and the ratio B/A, and checks that both sides
searched the same number of nodes when they run the same interpreter (the bench signature).
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = "WORK"          # the working tree as it is, uncommitted changes included


def checkout(rev, tmp):
    """A directory holding `rev` of the repository (the repository itself for WORK)."""
    if rev == WORK:
        return REPO
    path = os.path.join(tmp, re.sub(r"[^\w.-]", "_", rev))
    if not os.path.isdir(path):
        os.makedirs(path)
        archive = subprocess.run(["git", "-C", REPO, "archive", rev, "engine"],
                                 capture_output=True, check=False)
        if archive.returncode:
            sys.exit("git archive %s failed: %s" % (rev, archive.stderr.decode(errors="replace")))
        subprocess.run(["tar", "-x", "-C", path], input=archive.stdout, check=True)
    return path


class Engine:
    """One engine process speaking UCI over pipes."""

    def __init__(self, python, path, env=None):
        self.proc = subprocess.Popen([python, "-m", "engine"], cwd=path, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True, bufsize=1, env=dict(os.environ, **(env or {})))

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def read_until(self, predicate):
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("engine exited; last lines: %r" % lines[-5:])
            line = line.strip()
            lines.append(line)
            if predicate(line):
                return lines

    def close(self):
        try:
            self.send("quit")
            self.proc.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()


def bench_process(python, path, benches, depth, env=None):
    """[(nodes, nodes_per_second)] for each bench run in one fresh process."""
    engine = Engine(python, path, env)
    out = []
    try:
        engine.send("uci")
        engine.read_until(lambda line: line == "uciok")
        for _ in range(benches):
            engine.send("bench" + (" %d" % depth if depth else ""))
            lines = engine.read_until(lambda line: line.startswith("Nodes/second"))
            nodes = int(next(l for l in lines if l.startswith("Nodes searched")).split(":")[1])
            nps = int(lines[-1].split(":")[1])
            out.append((nodes, nps))
    finally:
        engine.close()
    return out


def parse_env(text):
    """{NAME: VALUE} from a side's ``--a-env``/``--b-env`` text, 'NAME=VALUE ...'."""
    return dict(item.split("=", 1) for item in text.split())


def label(python):
    """A short name for an interpreter: a virtual environment's folder name for its python."""
    base = os.path.basename(python)
    parts = os.path.normpath(python).split(os.sep)
    if base.startswith("python") and len(parts) >= 3 and parts[-2] == "bin":
        return parts[-3]
    return base


def last_info(lines):
    """(nodes, nodes/s, milliseconds) of a search's last `info` line with a node count (zeros
    for a search that printed none: a game already over, or a single legal reply)."""
    infos = [l for l in lines if l.startswith("info") and " nodes " in l]
    last = infos[-1].split() if infos else []

    def field(name):
        return int(last[last.index(name) + 1]) if name in last else 0

    return field("nodes"), field("nps"), field("time")


def go_process(python, path, go_args, idle=0.0, env=None, plies=0):
    """(nodes, nodes/s, seconds to uciok, to readyok) of the first `go` after start-up, or
    with ``plies``, summed over that many plies of a game the process plays against itself."""
    engine = Engine(python, path, env)
    try:
        t0 = time.perf_counter()
        engine.send("uci")
        engine.read_until(lambda line: line == "uciok")
        uciok = time.perf_counter() - t0
        engine.send("isready")
        engine.read_until(lambda line: line == "readyok")
        ready = time.perf_counter() - t0
        time.sleep(idle)
        moves = []
        total_nodes = total_ms = 0
        for _ in range(max(plies, 1)):
            engine.send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
            engine.send("go " + go_args)
            lines = engine.read_until(lambda line: line.startswith("bestmove"))
            nodes, nps, ms = last_info(lines)
            if not plies:
                return nodes, nps, uciok, ready
            total_nodes += nodes
            total_ms += ms
            best = lines[-1].split()[1]
            if best in ("(none)", "0000"):          # the game is over
                break
            moves.append(best)
        return total_nodes, total_nodes * 1000 // max(total_ms, 1), uciok, ready
    finally:
        engine.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--a", default="HEAD", help="revision of side A (WORK = working tree)")
    parser.add_argument("--b", default=WORK, help="revision of side B (WORK = working tree)")
    parser.add_argument("--a-python", default=sys.executable, help="interpreter of side A")
    parser.add_argument("--b-python", default=sys.executable, help="interpreter of side B")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (best kept)")
    parser.add_argument("--benches", type=int, default=1,
                        help="bench commands per process; the last one counts (JIT warm-up)")
    parser.add_argument("--depth", type=int, default=0, help="bench depth (default: the engine's)")
    parser.add_argument("--go", metavar="ARGS", help="measure the first `go ARGS` after start-up instead")
    parser.add_argument("--idle", type=float, default=0.0, metavar="SECONDS",
                        help="with --go: wait this long after readyok before the go")
    parser.add_argument("--game", type=int, default=0, metavar="PLIES",
                        help="with --go: play a game of this many plies against itself, a go a ply")
    parser.add_argument("--a-env", default="", metavar="'NAME=VALUE ...'",
                        help="side A's extra environment "
                        "(e.g. BASILISK_JIT=EAGER_AFTER_NODES=200000)")
    parser.add_argument("--b-env", default="", metavar="'NAME=VALUE ...'",
                        help="the same for side B")
    args = parser.parse_args()
    if args.game and not args.go:
        parser.error("--game needs --go")
    envs = {"A": parse_env(args.a_env), "B": parse_env(args.b_env)}
    # A relative interpreter path names a file here, not in the checkout the engine runs in.
    args.a_python, args.b_python = (os.path.abspath(p) if os.sep in p else p
                                    for p in (args.a_python, args.b_python))

    tmp = tempfile.mkdtemp(prefix="bench_compare_")
    try:
        sides = [("A", args.a, args.a_python, checkout(args.a, tmp)),
                 ("B", args.b, args.b_python, checkout(args.b, tmp))]
        results = {"A": [], "B": []}
        warm = {"A": [], "B": []}           # per round: the mean of benches 3 and later
        nodes_seen = {"A": set(), "B": set()}
        for rnd in range(1, args.rounds + 1):
            for name, rev, python, path in sides:
                if args.go:
                    nodes, nps, uciok, ready = go_process(python, path, args.go, args.idle,
                                                          envs[name], args.game)
                    nodes_seen[name].add(nodes)
                    results[name].append(nps)
                    print("round %d %s (%s, %s): %sgo %s: %d nodes, %d nodes/s; uciok after %.0f"
                          " ms, readyok after %.0f ms"
                          % (rnd, name, rev, label(python),
                             "a game of %d plies, " % args.game if args.game else "", args.go,
                             nodes, nps, uciok * 1000, ready * 1000), flush=True)
                else:
                    runs = bench_process(python, path, args.benches, args.depth, envs[name])
                    for nodes, _ in runs:
                        nodes_seen[name].add(nodes)
                    results[name].append(runs[-1][1])
                    if len(runs) >= 3:
                        warm[name].append(statistics.mean(nps for _, nps in runs[2:]))
                    print("round %d %s (%s, %s): nodes/s %s" % (
                        rnd, name, rev, label(python),
                        " ".join(str(nps) for _, nps in runs)), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print()
    print("%-4s %-12s %-12s %12s %12s %10s" % ("side", "revision", "python", "best n/s",
                                               "median n/s", "nodes"))
    for name, rev, python, _ in sides:
        print("%-4s %-12s %-12s %12d %12d %10s" % (
            name, rev[:12], label(python), max(results[name]),
            statistics.median(results[name]), ",".join(str(n) for n in sorted(nodes_seen[name]))))
    ratio = max(results["B"]) / max(max(results["A"]), 1)
    print("ratio B/A (best): %.2fx   (median: %.2fx)" % (
        ratio, statistics.median(results["B"]) / max(statistics.median(results["A"]), 1)))
    if len(warm["A"]) >= 2 and len(warm["B"]) >= 2:
        a, b = (statistics.mean(warm[n]) for n in ("A", "B"))
        a_se, b_se = (statistics.stdev(warm[n]) / len(warm[n]) ** 0.5 for n in ("A", "B"))
        # the ratio's standard error from the two relative errors (first order)
        ratio_se = b / a * ((a_se / a) ** 2 + (b_se / b) ** 2) ** 0.5
        print("mean of benches 3-%d over the rounds: A %.0f +/- %.0f, B %.0f +/- %.0f n/s;"
              " ratio B/A %.3fx +/- %.3f (standard errors)"
              % (args.benches, a, a_se, b, b_se, b / a, ratio_se))
    if (not args.go and args.a_python == args.b_python and nodes_seen["A"] != nodes_seen["B"]):
        print("note: the two sides searched different trees (bench signatures differ)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
