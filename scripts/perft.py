#!/usr/bin/env python3
"""Run a perft EPD suite (`FEN ;D1 n ;D2 n ...`) and report mismatches with a divide
against python-chess.

    python scripts/perft.py [--suite standard|chess960|PATH] [--depth N] [--max-nodes N]
                            [--bulk] [--limit K]

Each position is run to --depth (default 4), or, with --max-nodes, to the deepest listed
depth whose published count is within the budget.
"""

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from engine.notation import move_to_uci  # noqa: E402
from engine.perft import divide, perft, perft_bulk  # noqa: E402
from engine.position import Position  # noqa: E402
from oracle import oracle_divide  # noqa: E402  (scripts/ is on sys.path when run as a script)

# The repository's data/ first, then ../shared/data beside it (where new data arrives).
DATA_DIRS = (REPO / "data", REPO.parent / "shared" / "data")


def find_data(*parts):
    """Path of a data file (e.g. find_data("perft", "standard.epd")), or None if neither
    data folder has it."""
    return next((d.joinpath(*parts) for d in DATA_DIRS if d.joinpath(*parts).is_file()), None)


def parse_perft_suite(path):
    """[(line_no, fen, {depth: nodes})] from a `FEN ;D1 n ;D2 n ...` file (blank lines skipped)."""
    suite = []
    for line_no, line in enumerate(Path(path).read_text().splitlines(), 1):
        if not line.strip():
            continue
        fen, *counts = line.split(";")
        depths = {}
        for item in counts:
            depth, nodes = item.split()
            depths[int(depth[1:])] = int(nodes)
        suite.append((line_no, fen.strip(), depths))
    return suite


def load_suite(name):
    """A suite by path, or by name in the data folders ("standard", "chess960")."""
    if os.path.sep in name or name.endswith(".epd"):
        path = Path(name)
    else:
        path = find_data("perft", name + ".epd")
    if path is None or not path.is_file():
        sys.exit("perft suite not found: %s (looked in %s)"
                 % (name, " and ".join(str(d / "perft") for d in DATA_DIRS)))
    return parse_perft_suite(path)


def report_mismatch(fen, depth, chess960):
    try:
        theirs = oracle_divide(fen, depth, chess960)
    except ImportError:
        print("   (python-chess not installed: no divide comparison)")
        return
    ours = {move_to_uci(m, chess960): n for m, n in divide(Position(fen), depth, bulk=True)}
    for uci in sorted(set(ours) | set(theirs)):
        if ours.get(uci) != theirs.get(uci):
            print("   %s: basilisk %s, python-chess %s" % (uci, ours.get(uci), theirs.get(uci)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="standard")
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--max-nodes", type=int, help="deepest listed depth within this node count")
    parser.add_argument("--bulk", action="store_true", help="count legal moves at the last ply")
    parser.add_argument("--limit", type=int, help="only the first K positions")
    args = parser.parse_args()
    suite = load_suite(args.suite)[:args.limit]
    count = perft_bulk if args.bulk else perft
    failures = 0
    total_nodes = 0
    start = time.perf_counter()
    for line_no, fen, depths in suite:
        if args.max_nodes:
            within = [d for d, n in depths.items() if n <= args.max_nodes]
            depth = max(within) if within else min(depths)
        else:
            depth = args.depth
        if depth not in depths:
            continue
        pos = Position(fen)
        chess960 = pos.is_chess960_layout() or args.suite == "chess960"
        nodes = count(pos, depth)
        total_nodes += nodes
        ok = nodes == depths[depth]
        if not ok:
            failures += 1
            print("FAIL line %4d D%d %s: %d, expected %d" % (line_no, depth, fen, nodes, depths[depth]))
            report_mismatch(fen, depth, chess960)
    elapsed = time.perf_counter() - start
    print("%d positions, %d failures, %d nodes in %.1f s (%.0f nodes/s)"
          % (len(suite), failures, total_nodes, elapsed, total_nodes / max(elapsed, 1e-9)))
    return 1 if failures else 0


if __name__ == "__main__":
    from engine.runtime import restart_if_needed
    restart_if_needed()         # PyPy: a nursery that fits the caches
    sys.exit(main())
