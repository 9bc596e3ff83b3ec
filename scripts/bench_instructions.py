#!/usr/bin/env python3
"""Search cost of two sides in instructions a node, counted by valgrind's callgrind.

A wall-clock figure moves with the machine's load (bench_compare.py's best-of-N on a busy
2-core machine can be off by 15%); an instruction count does not, so two revisions can be
compared while matches run beside them.  Instructions are not time (cache misses and the
cost of each instruction differ), so a speed claim still quotes bench_compare.py; this
script says which way a change goes and by how much, reproducibly.

    python scripts/bench_instructions.py --a 58a3f96 --b WORK         # CPython, bench depth 7
    python scripts/bench_instructions.py --a WORK --b WORK --b-python pypy3 --b-warm 6

Each side runs in its own process under callgrind with instrumentation off: it imports the
engine, sets CPython's collector as the engine's entry point does (engine.runtime, where the
revision has it), runs ``--warm`` `run_bench()` searches (a JIT compiles its traces there),
switches instrumentation on (``callgrind_control -i on``), runs ``--benches`` more and
switches it off.  So the import, start-up and warm-up are not counted.  The two sides run at once.
Prints each side's instructions, nodes and instructions a node, and the ratio A/B (above 1:
B spends fewer instructions a node).  Needs valgrind (Debian: ``apt install valgrind``).
Under callgrind CPython runs about 40 times slower and PyPy's JIT about 40 times (its
warm-up, uninstrumented, about 5 times): depth 7 takes some 4 minutes a side on CPython.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_compare import WORK, checkout, label, parse_env  # noqa: E402  (a sibling script)

CHILD = r"""
import os, subprocess, sys
sys.path.insert(0, {path!r})
from engine.search import run_bench
try:                    # what the engine's entry point sets up, where the revision has it
    from engine.runtime import tune_collector
    tune_collector()
except ImportError:
    pass

def instrument(state):
    subprocess.run(["callgrind_control", "-i", state, str(os.getpid())],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)

for _ in range({warm}):
    run_bench(depth={depth})
instrument("on")
nodes = sum(run_bench(depth={depth})[0] for _ in range({benches}))
instrument("off")
print("nodes", nodes)
"""

COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")


def source(rev, tmp):
    """A directory holding `rev`'s engine package.  The working tree's is copied too, so both
    sides start alike: the same code run in place counted 0.5% fewer instructions than
    from a copy (another start-up, another heap), and from two copies the counts agree."""
    if rev != WORK:
        return checkout(rev, tmp)
    path = os.path.join(tmp, WORK)
    if not os.path.isdir(path):
        shutil.copytree(os.path.join(checkout(WORK, tmp), "engine"), os.path.join(path, "engine"),
                        ignore=shutil.ignore_patterns("__pycache__"))
    return path


def measure(python, path, depth, warm, benches, out_dir, name, extra_env):
    """(instructions, nodes) of `benches` warm bench searches of the engine at path."""
    out_file = os.path.join(out_dir, "callgrind.%s.out" % name)
    child = CHILD.format(path=path, warm=warm, depth=depth, benches=benches)
    run = subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no",
                          "--smc-check=all", "--callgrind-out-file=" + out_file,
                          python, "-c", child],
                         capture_output=True, text=True, check=False,
                         env=dict(os.environ, PYTHONHASHSEED="0", **extra_env))  # str hashes fixed
    nodes = re.search(r"^nodes (\d+)$", run.stdout, re.M)
    collected = COLLECTED.search(run.stderr)
    if run.returncode or not nodes or not collected:
        raise RuntimeError("side %s failed (rc %d):\n%s\n%s"
                           % (name, run.returncode, run.stdout, run.stderr[-2000:]))
    return int(collected.group(1)), int(nodes.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--a", default="HEAD", help="revision A (a commit, or WORK)")
    parser.add_argument("--b", default=WORK, help="revision B (a commit, or WORK)")
    parser.add_argument("--python", default=sys.executable, help="interpreter of A")
    parser.add_argument("--b-python", help="interpreter of B (default: A's)")
    parser.add_argument("--depth", type=int, default=7, help="bench depth (7: `bench`'s)")
    parser.add_argument("--warm", type=int, default=0,
                        help="uncounted benches first on A (6 for PyPy's warm figure)")
    parser.add_argument("--b-warm", type=int, help="the same on B (default: A's)")
    parser.add_argument("--benches", type=int, default=1, help="counted benches")
    parser.add_argument("--a-env", default="", help="A's extra environment: 'NAME=VALUE ...' "
                        "(e.g. BASILISK_JIT=TRACE_EAGERNESS=50)")
    parser.add_argument("--b-env", default="", help="the same for B")
    parser.add_argument("--keep", metavar="DIR",
                        help="keep the two callgrind files there (for callgrind_annotate)")
    args = parser.parse_args()
    if not shutil.which("valgrind") or not shutil.which("callgrind_control"):
        sys.exit("valgrind (with callgrind_control) is not on PATH")
    pythons = (args.python, args.b_python or args.python)
    tmp = tempfile.mkdtemp(prefix="bench-instr-")
    try:
        paths = (source(args.a, tmp), source(args.b, tmp))
        results = [None, None]
        errors = []
        warms = (args.warm, args.warm if args.b_warm is None else args.b_warm)
        envs = [parse_env(args.a_env), parse_env(args.b_env)]

        def side(i):
            try:
                results[i] = measure(pythons[i], paths[i], args.depth, warms[i], args.benches,
                                     tmp, "AB"[i], envs[i])
            except RuntimeError as error:      # sys.exit in a thread would end only it
                errors.append(str(error))

        threads = [threading.Thread(target=side, args=(i,)) for i in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors or None in results:
            sys.exit("\n".join(errors) or "a side did not finish")
        if args.keep:
            os.makedirs(args.keep, exist_ok=True)
            for name in "AB":
                shutil.copy(os.path.join(tmp, "callgrind.%s.out" % name), args.keep)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    per_node = []
    print("bench depth %d, warm-up benches A %d, B %d, then %d counted a side"
          % (args.depth, warms[0], warms[1], args.benches))
    for name, rev, python, (instructions, nodes) in zip("AB", (args.a, args.b), pythons,
                                                        results):
        per_node.append(instructions / nodes)
        print("  %s %-12s %-8s %15s instructions %9s nodes %10.0f a node"
              % (name, rev, label(python), format(instructions, ","), format(nodes, ","),
                 per_node[-1]))
    print("ratio A/B instructions a node: %.3fx" % (per_node[0] / per_node[1]))
    if pythons[0] == pythons[1] and results[0][1] != results[1][1]:
        print("note: the two sides searched different trees (node counts differ)")


if __name__ == "__main__":
    main()
