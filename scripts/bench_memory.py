#!/usr/bin/env python3
"""Memory: what `Hash` MB of transposition table costs in resident memory, per interpreter.

    python scripts/bench_memory.py                    # Hash 64 on python3 and pypy3
    python scripts/bench_memory.py --hash 16 --python python3

For each interpreter a child process imports the engine, notes its resident set size (RSS,
from /proc/self/status), makes a Searcher with the given Hash, stores an entry in every
slot of its table (distinct keys, as a long search eventually does) and notes its RSS again.
The reference is the Hash setting itself: the table's growth is printed beside it with the
ratio, which should stay near 1.0 (Hash means megabytes on every interpreter).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r"""
import gc, json, sys
sys.path.insert(0, '.')

def rss_mb():
    with open('/proc/self/status') as status:
        for line in status:
            if line.startswith('VmRSS:'):
                return int(line.split()[1]) / 1024.0

from engine.search import Searcher
import engine.engine                            # everything a running engine imports
gc.collect()
before = rss_mb()
searcher = Searcher(int(sys.argv[1]))
tt = searcher.tt
size = tt.size
for i in range(size):                           # every slot, each with its own key
    tt.store(i + size * 40503, 0, 0, 10, 20, 5, 3)
gc.collect()
after = rss_mb()
print(json.dumps({'before': before, 'after': after, 'entries': size,
                  'impl': sys.implementation.name}))
"""


def measure(python, hash_mb):
    proc = subprocess.run([python, "-c", CHILD, str(hash_mb)], cwd=REPO,
                          capture_output=True, text=True)
    if proc.returncode:
        sys.exit("%s failed:\n%s" % (python, proc.stderr))
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hash", type=int, default=64, help="Hash in MB (default 64)")
    parser.add_argument("--python", action="append",
                        help="interpreter to measure (repeatable; default python3 and pypy3)")
    args = parser.parse_args()
    pythons = args.python or [sys.executable] + ([shutil.which("pypy3")] if shutil.which("pypy3") else [])
    print("%-28s %8s %10s %12s %12s %10s %7s" % ("interpreter", "Hash MB", "entries", "RSS before",
                                                 "RSS after", "growth MB", "ratio"))
    for python in pythons:
        r = measure(python, args.hash)
        growth = r["after"] - r["before"]
        print("%-28s %8d %10d %10.1f MB %10.1f MB %10.1f %7.2f" % (
            "%s (%s)" % (os.path.basename(python), r["impl"]), args.hash, r["entries"],
            r["before"], r["after"], growth, growth / args.hash))
    return 0


if __name__ == "__main__":
    sys.exit(main())
