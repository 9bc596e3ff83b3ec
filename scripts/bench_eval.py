#!/usr/bin/env python3
"""Evaluation speed: microseconds per ``evaluate`` call over a fixed set of positions,
this tree alone or beside another checkout, run alternately so both see the same load.

    python scripts/bench_eval.py                        # this tree
    python scripts/bench_eval.py --ref /tmp/eval-old    # A B A B A B, best of each side
    python scripts/bench_eval.py --ref /tmp/eval-old --bench   # and `engine bench` nodes/s,
                                    # per wall second and per CPU second (steadier under load)
    python scripts/bench_eval.py --python pypy3
    python scripts/bench_eval.py --python pypy3 --from-search --positions 10000 --passes 100

The positions come from seeded random games played with this tree's move generator
(every few plies, so all phases appear).  Each side runs in a fresh process that times
several passes over all of them and keeps the best: "cold" clears the pawn and the
evaluation cache before a pass (every call computes everything), "warm" clears only the
evaluation cache (pawn structure comes from its cache, as it mostly does in a search).
With ``--from-search`` the positions are instead the ones a search evaluates (every
seventh `evaluate` call of the `bench` search on this tree): more varied than random games,
which matters under PyPy, whose JIT compiles each path taken often enough on its own.
"""

import argparse
import json
import os
import random
import re
import subprocess
import sys

from engine_env import engine_environment

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Runs inside a checkout (cwd); FENs on stdin.  Uses only names every Basilisk commit
# with caches has had: evaluate, clear_cache, and clear_evaluations or (before it) _eval_cache.
RUNNER = r"""
import json, sys, time
sys.path.insert(0, '.')
import engine.evaluate as ev
from engine.position import Position
positions = [Position(fen) for fen in json.load(sys.stdin)]
passes = int(sys.argv[1])
evaluate = ev.evaluate
clear_evaluations = getattr(ev, 'clear_evaluations', None) or ev._eval_cache.clear
def one_pass(cold):
    if cold:
        ev.clear_cache()
    else:
        clear_evaluations()
    t0 = time.perf_counter()
    for pos in positions:
        evaluate(pos)
    return (time.perf_counter() - t0) / len(positions) * 1e6
one_pass(True)                       # warm-up (and a JIT's first compile)
cold = min(one_pass(True) for _ in range(passes))
warm = min(one_pass(False) for _ in range(passes))
print(json.dumps({'cold': cold, 'warm': warm}))
"""


def sample_fens(count, seed):
    """count FENs from seeded random games, one every few plies."""
    sys.path.insert(0, REPO)
    from engine.movegen import generate_moves
    from engine.position import Position
    rng = random.Random(seed)
    fens = []
    while len(fens) < count:
        pos = Position()
        for ply in range(rng.randint(20, 160)):
            moves = generate_moves(pos)
            if not moves:
                break
            pos.make(rng.choice(moves))
            if ply % 7 == 3:
                fens.append(pos.fen())
    return fens[:count]


def search_fens(count):
    """count FENs, every seventh position the bench search of this tree evaluates."""
    sys.path.insert(0, REPO)
    import engine.search as search
    evaluate = search.evaluate
    fens = []
    calls = [0]

    def collecting(pos):
        calls[0] += 1
        if calls[0] % 7 == 0 and len(fens) < count:
            fens.append(pos.fen())
        return evaluate(pos)

    search.evaluate = collecting
    try:
        search.run_bench()
    finally:
        search.evaluate = evaluate
    return fens


def eval_side(path, python, fens, passes):
    proc = subprocess.run([python, "-c", RUNNER, str(passes)], input=json.dumps(fens),
                          cwd=path, capture_output=True, text=True,
                          env=engine_environment(python))
    if proc.returncode:
        sys.exit("evaluation benchmark failed in %s:\n%s" % (path, proc.stderr))
    return json.loads(proc.stdout.strip().splitlines()[-1])


def bench_side(path, python):
    """(nodes, nodes/s as `python -m engine bench` prints it, nodes per CPU second) in that
    checkout.  CPU time (the whole process, start-up included) is less disturbed than wall
    time when other jobs share the machine."""
    before = os.times()
    proc = subprocess.run([python, "-m", "engine", "bench"], cwd=path, capture_output=True,
                          text=True)
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    nodes = re.search(r"Nodes searched\s*:\s*(\d+)", proc.stdout)
    nps = re.search(r"Nodes/second\s*:\s*(\d+)", proc.stdout)
    if proc.returncode or not nodes or not nps:
        sys.exit("bench failed in %s:\n%s%s" % (path, proc.stdout, proc.stderr))
    return int(nodes.group(1)), int(nps.group(1)), int(int(nodes.group(1)) / max(cpu, 1e-9))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", help="another checkout to compare with (a directory)")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--positions", type=int, default=400)
    parser.add_argument("--passes", type=int, default=5, help="passes per process; best kept")
    parser.add_argument("--rounds", type=int, default=3, help="alternating runs of each side")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--from-search", action="store_true",
                        help="positions a bench search evaluates, not random games")
    parser.add_argument("--bench", action="store_true",
                        help="also run `engine bench` alternately and compare nodes/s")
    args = parser.parse_args(argv)

    fens = search_fens(args.positions) if args.from_search else sample_fens(args.positions, args.seed)
    sides = [("this", REPO)] + ([("ref", os.path.abspath(args.ref))] if args.ref else [])
    results = {name: [] for name, _ in sides}
    benches = {name: [] for name, _ in sides}
    for round_no in range(args.rounds):
        for name, path in sides:
            r = eval_side(path, args.python, fens, args.passes)
            results[name].append(r)
            line = "round %d %-4s  cold %6.2f us  warm %6.2f us" % (round_no + 1, name, r["cold"], r["warm"])
            if args.bench:
                nodes, nps, cpu_nps = bench_side(path, args.python)
                benches[name].append((nodes, nps, cpu_nps))
                line += "  bench %d nodes, %d nodes/s, %d per CPU s" % (nodes, nps, cpu_nps)
            print(line, flush=True)

    print("\nbest of %d runs, %d positions, %s:" % (args.rounds, len(fens), args.python))
    best = {}
    for name, _ in sides:
        best[name] = (min(r["cold"] for r in results[name]), min(r["warm"] for r in results[name]),
                      max(b[1] for b in benches[name]) if args.bench else None,
                      max(b[2] for b in benches[name]) if args.bench else None)
        line = "  %-4s  cold %6.2f us/eval  warm %6.2f us/eval" % ((name,) + best[name][:2])
        if args.bench:
            line += "  bench %d nodes/s, %d per CPU s" % best[name][2:]
        print(line)
    if args.ref:
        this, ref = best["this"], best["ref"]
        line = "  this/ref  cold %+.1f%%  warm %+.1f%%" % (100 * (this[0] / ref[0] - 1),
                                                          100 * (this[1] / ref[1] - 1))
        if args.bench:
            line += "  bench nodes/s %+.1f%%, per CPU s %+.1f%%" % (100 * (this[2] / ref[2] - 1),
                                                                   100 * (this[3] / ref[3] - 1))
        print(line + "   (time: + is slower; nodes/s: + is faster)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
