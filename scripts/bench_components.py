#!/usr/bin/env python3
"""Where a node's time goes, piece by piece, under two interpreters side by side.

    python scripts/bench_components.py                       # this interpreter vs pypy3
    python scripts/bench_components.py --b-python .venv-pypy/bin/python --b-rounds 300

Each side runs in a process of its own over the same positions (random playouts from the
bench positions, fixed by --seed) and times each piece the search calls at every node:
legal move generation, captures only, make + unmake of every move, the same with the
check test, a cold evaluation, move scoring, SEE of every move, a table store + probe,
the draw tests.  A side's figure is the best of its rounds (a JIT needs hundreds to warm
up), in microseconds per position; the table shows both and the ratio A/B.

The positions are few and repeated, so a JIT compiles every path through them: PyPy's
evaluation here is about 3x faster than on the positions a search evaluates
(scripts/bench_eval.py --from-search measures those).

Then generation again, split by whether a piece stands on h8: on PyPy a bitboard with
bit 63 set does not fit a machine word and is boxed, which shows up as the slower group.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys

from engine_env import engine_environment

from playouts import random_playouts

from engine.search import BENCH_POSITIONS  # noqa: E402  (playouts put the repository on the path)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Runs in the repository (cwd) under the interpreter measured; prints one JSON object.
RUNNER = r"""
import json, sys, time
sys.path.insert(0, '.')
from engine.evaluate import evaluate, clear_cache
from engine.movegen import generate_moves
from engine.ordering import MoveOrderer, see_ge
from engine.position import Position
from engine.tt import new_table

rounds = int(sys.argv[1])
positions = [p for p in map(Position, json.load(sys.stdin)) if generate_moves(p)]
moves_of = [generate_moves(p) for p in positions]
pairs = list(zip(positions, moves_of))
orderer = MoveOrderer()
table = new_table(16)


def generation(ps=positions):
    for p in ps:
        generate_moves(p)

def captures():
    for p in positions:
        generate_moves(p, False)

def make_unmake():
    for p, ms in pairs:
        for m in ms:
            p.make(m)
            p.unmake()

def make_check_unmake():
    for p, ms in pairs:
        for m in ms:
            p.make(m)
            p.in_check()
            p.unmake()

def evaluation():
    clear_cache()
    for p in positions:
        evaluate(p)

def scoring():
    for p, ms in pairs:
        orderer.score(p, ms, 3, 0)

def see():
    for p, ms in pairs:
        for m in ms:
            see_ge(p, m, 0)

def table_store_probe():
    for p in positions:
        table.store(p.key, 3, 0, 10, 5, 4, 2)
        table.probe(p.key, 3)

def draw_tests():
    for p in positions:
        p.is_repetition(2)
        p.has_insufficient_material()

h8_empty = [p for p in positions if not p.board[63]]
h8_taken = [p for p in positions if p.board[63]]
pieces = [("generate_moves", generation, positions), ("captures only", captures, positions),
          ("make + unmake, every move", make_unmake, positions),
          ("make + in_check + unmake", make_check_unmake, positions),
          ("evaluate, caches cleared", evaluation, positions),
          ("score the moves", scoring, positions), ("see_ge, every move", see, positions),
          ("table store + probe", table_store_probe, positions),
          ("repetition + material draw", draw_tests, positions),
          ("generate_moves, h8 empty", lambda: generation(h8_empty), h8_empty),
          ("generate_moves, h8 taken", lambda: generation(h8_taken), h8_taken)]
best = {}
for _ in range(rounds):
    for name, run, ps in pieces:
        t = time.perf_counter()
        run()
        elapsed = (time.perf_counter() - t) / max(1, len(ps)) * 1e6
        best[name] = min(best.get(name, elapsed), elapsed)
print(json.dumps({"positions": len(positions), "h8 taken": len(h8_taken),
                  "order": [name for name, _, _ in pieces], "us": best}))
"""


def measure(python, fens, rounds):
    out = subprocess.run([python, "-c", RUNNER, str(rounds)], cwd=REPO, input=json.dumps(fens),
                         capture_output=True, text=True, check=False,
                         env=engine_environment(python))
    if out.returncode:
        sys.exit("%s failed:\n%s" % (python, out.stderr))
    return json.loads(out.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a-python", default=sys.executable)
    parser.add_argument("--b-python", default=shutil.which("pypy3") or "pypy3")
    parser.add_argument("--a-rounds", type=int, default=5)
    parser.add_argument("--b-rounds", type=int, default=300, help="a JIT needs many")
    parser.add_argument("--per-fen", type=int, default=12, help="playouts per bench position")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    fens = random_playouts(BENCH_POSITIONS, args.per_fen, 30, args.seed)
    a = measure(args.a_python, fens, args.a_rounds)
    b = measure(args.b_python, fens, args.b_rounds)
    print("%d positions (%d with a piece on h8); microseconds per position, best of rounds"
          % (a["positions"], a["h8 taken"]))
    print("  A: %s (%d rounds)\n  B: %s (%d rounds)" % (args.a_python, args.a_rounds,
                                                       args.b_python, args.b_rounds))
    print("%-28s %10s %10s %8s" % ("", "A", "B", "A/B"))
    for name in a["order"]:
        ua, ub = a["us"][name], b["us"][name]
        print("%-28s %10.2f %10.2f %7.2fx" % (name, ua, ub, ua / ub if ub else float("nan")))


if __name__ == "__main__":
    main()
