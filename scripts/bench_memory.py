#!/usr/bin/env python3
"""Memory: what `Hash` MB of transposition table costs in resident memory, per interpreter.

    python scripts/bench_memory.py                    # Hash 64 on python3 and pypy3
    python scripts/bench_memory.py --hash 16 --python python3
    python scripts/bench_memory.py --games 100         # RSS over 100 games of ucinewgame + go

For each interpreter a child process imports the engine (in the environment the engine's
entry point would give itself: engine.runtime), notes its resident set size (RSS,
from /proc/self/status), makes a Searcher with the given Hash, stores an entry in every
slot of its table (distinct keys, as a long search eventually does) and notes its RSS again.
The reference is the Hash setting itself: the table's growth is printed beside it with the
ratio, which should stay near 1.0 (Hash means megabytes on every interpreter).

With --games N, each interpreter runs the engine itself over UCI (`python -m engine`, Hash
16) through N short games as a match runner drives it: `ucinewgame`, then 60 plies of
`position startpos moves ...` and `go depth 2`, the engine playing both sides.  It prints
the engine's RSS after the first game and after the last, and the growth a game, which
should stay near 0 (the reference: one game's share of Hash, 16 MB / N).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys

from engine_env import engine_environment

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
                          capture_output=True, text=True, env=engine_environment(python))
    if proc.returncode:
        sys.exit("%s failed:\n%s" % (python, proc.stderr))
    return json.loads(proc.stdout.strip().splitlines()[-1])


def play_games(python, games, plies=60):
    """(RSS MB after the first game, after the last) of `python -m engine` over UCI."""
    proc = subprocess.Popen([python, "-m", "engine"], cwd=REPO, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(line):
        proc.stdin.write(line + "\n")
        proc.stdin.flush()

    def wait(prefix):
        for line in proc.stdout:
            if line.startswith(prefix):
                return line
        sys.exit("%s: the engine ended" % python)

    send("uci")
    wait("uciok")
    first = None
    for game in range(games):
        send("ucinewgame")
        moves = []
        for _ in range(plies):
            send("position startpos moves " + " ".join(moves))
            send("isready")
            wait("readyok")
            send("go depth 2")
            move = wait("bestmove").split()[1]
            if move in ("0000", "(none)"):
                break
            moves.append(move)
        if first is None:
            first = _rss_of(proc.pid)
    last = _rss_of(proc.pid)
    send("quit")
    proc.wait(10)
    return first, last


def _rss_of(pid):
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hash", type=int, default=64, help="Hash in MB (default 64)")
    parser.add_argument("--python", action="append",
                        help="interpreter to measure (repeatable; default python3 and pypy3)")
    parser.add_argument("--games", type=int, default=0,
                        help="instead: RSS of the UCI engine over this many short games")
    args = parser.parse_args()
    pythons = args.python or [sys.executable] + ([shutil.which("pypy3")] if shutil.which("pypy3") else [])
    if args.games:
        print("%-28s %6s %14s %14s %14s" % ("interpreter", "games", "RSS game 1", "RSS last",
                                             "MB a game"))
        for python in pythons:
            first, last = play_games(python, args.games)
            print("%-28s %6d %11.1f MB %11.1f MB %14.2f" % (
                python[-28:], args.games, first, last,
                (last - first) / max(1, args.games - 1)))
        return 0
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
