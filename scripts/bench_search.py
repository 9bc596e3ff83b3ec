#!/usr/bin/env python3
"""Search speed: nodes/second and time to each depth on the bench positions, this tree
beside a reference checkout (another commit, by `git worktree`), with the bench node count.

    python scripts/bench_search.py                   # working tree vs HEAD, depth 5
    python scripts/bench_search.py --ref HEAD~3 --depth 6
    python scripts/bench_search.py --python pypy3    # both sides under pypy3
    python scripts/bench_search.py --no-ref          # this tree only

Each side runs in its own process (same interpreter, fresh Searcher and 16 MB hash per
position) on the same FENs: the current tree's ``engine.search.BENCH_POSITIONS``.  The
total node count at the bench depth is the search signature that the UCI `bench`
command prints; it changes only when the search (or evaluation, or ordering) does.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

from engine_env import engine_environment

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Runs inside a checkout (cwd); argv: depth, JSON list of FENs. Uses only the API every
# Basilisk commit has had (Searcher.search with a report callback), so old commits work.
RUNNER = r"""
import json, sys, time
sys.path.insert(0, '.')
from engine.position import Position
from engine.search import Searcher
from engine.timeman import Limits, TimeManager
depth = int(sys.argv[1])
fens = json.loads(sys.argv[2])
warmup = int(sys.argv[3])
if warmup:   # let a JIT (pypy3) compile the hot paths first
    for fen in fens[:4]:
        lim = Limits(); lim.depth = max(depth - 1, 1)
        Searcher(16).search(Position(fen), lim, TimeManager(lim, 0))
out = []
for fen in fens:
    pos = Position(fen)
    lim = Limits(); lim.depth = depth
    searcher = Searcher(16)
    times = {}
    t0 = time.perf_counter()
    searcher.search(pos, lim, TimeManager(lim, pos.turn),
                    lambda info: times.__setitem__(info['depth'], (time.perf_counter() - t0) * 1000)
                    if info.get('bound') is None else None)
    out.append({'nodes': searcher.nodes, 'seconds': time.perf_counter() - t0, 'times': times})
print(json.dumps(out))
"""


def run_side(path, python, depth, fens, warmup):
    proc = subprocess.run([python, "-c", RUNNER, str(depth), json.dumps(fens), str(int(warmup))],
                          cwd=path, capture_output=True, text=True,
                          env=engine_environment(python))
    if proc.returncode:
        sys.exit("bench failed in %s:\n%s" % (path, proc.stderr))
    return json.loads(proc.stdout.strip().splitlines()[-1])


def checkout(rev):
    sha = subprocess.check_output(["git", "rev-parse", rev], cwd=REPO, text=True).strip()
    path = os.path.join(tempfile.gettempdir(), "basilisk-bench-%s" % sha[:12])
    if not os.path.isdir(path):
        subprocess.check_call(["git", "worktree", "add", "--detach", "--quiet", path, sha], cwd=REPO)
    return sha, path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, default=None, help="bench depth (default BENCH_DEPTH)")
    parser.add_argument("--ref", default="HEAD", help="reference commit (default HEAD)")
    parser.add_argument("--no-ref", action="store_true", help="measure this tree only")
    parser.add_argument("--python", default=sys.executable, help="interpreter for both sides")
    parser.add_argument("--positions", type=int, default=None, help="use only the first N positions")
    parser.add_argument("--keep", action="store_true", help="keep the reference worktree")
    args = parser.parse_args(argv)

    sys.path.insert(0, REPO)
    from engine.search import BENCH_POSITIONS, BENCH_DEPTH
    depth = args.depth or BENCH_DEPTH
    fens = BENCH_POSITIONS[:args.positions] if args.positions else BENCH_POSITIONS
    warmup = "pypy" in os.path.basename(args.python)

    cur = run_side(REPO, args.python, depth, fens, warmup)
    ref = None
    if not args.no_ref:
        sha, path = checkout(args.ref)
        try:
            ref = run_side(path, args.python, depth, fens, warmup)
        finally:
            if not args.keep:
                subprocess.call(["git", "worktree", "remove", "--force", path], cwd=REPO)

    py = os.path.basename(args.python)
    print("interpreter: %s   depth: %d   positions: %d" % (py, depth, len(fens)))
    head = "%3s  %10s %8s %7s" % ("#", "nodes", "ms", "nps")
    if ref:
        head += "   | ref %10s %8s %7s  | nps ratio" % ("nodes", "ms", "nps")
    print(head)
    for i, r in enumerate(cur):
        line = "%3d  %10d %8.0f %7.0f" % (i + 1, r["nodes"], r["seconds"] * 1000,
                                          r["nodes"] / max(r["seconds"], 1e-9))
        if ref:
            q = ref[i]
            line += "   |     %10d %8.0f %7.0f  | %5.2f" % (
                q["nodes"], q["seconds"] * 1000, q["nodes"] / max(q["seconds"], 1e-9),
                (r["nodes"] / max(r["seconds"], 1e-9)) / max(q["nodes"] / max(q["seconds"], 1e-9), 1e-9))
        print(line)

    def totals(rows):
        nodes = sum(r["nodes"] for r in rows)
        secs = sum(r["seconds"] for r in rows)
        to_depth = {}
        for r in rows:
            for d, ms in r["times"].items():
                to_depth[int(d)] = to_depth.get(int(d), 0) + ms
        return nodes, secs, to_depth

    n, s, td = totals(cur)
    print()
    print("time to depth (ms, summed over positions):")
    print("  depth   this tree" + ("   reference   ratio" if ref else ""))
    if ref:
        rn, rs, rtd = totals(ref)
    for d in sorted(td):
        line = "  %5d %11.0f" % (d, td[d])
        if ref and d in rtd:
            line += " %11.0f %7.2f" % (rtd[d], rtd[d] / max(td[d], 1e-9))
        print(line)
    print()
    print("this tree : bench %d nodes  %.2f s  %.0f nps" % (n, s, n / max(s, 1e-9)))
    if ref:
        print("reference : bench %d nodes  %.2f s  %.0f nps   (%s %s)" % (rn, rs, rn / max(rs, 1e-9),
                                                                     args.ref, sha[:10]))
        print("nps ratio this/reference: %.2f   time ratio reference/this: %.2f"
              % ((n / max(s, 1e-9)) / max(rn / max(rs, 1e-9), 1e-9), rs / max(s, 1e-9)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
