#!/usr/bin/env python3
"""Quiet positions labelled by Stockfish's shallow search: the network's training data.

scripts/make_dataset.py takes positions from good games only, and a network fitted to them
alone has never seen what a search walks into (a king in the centre, a piece left
hanging two moves ago).  Here Stockfish plays from the openings of --openings, but each
move is, with probability --random, a uniformly random legal move instead; every position
of those games whose own Stockfish move neither captures nor promotes, that is not in
check and whose quiescence score (Basilisk's) is its static evaluation, is written with
Stockfish's score from that search, white's view: 'FEN;0.5;cp' (no game result, so train
with --lambda 1).  A game ends by the rules, at --max-plies, or once Stockfish's score
passes --max-cp either way.

    python3 scripts/label_positions.py --stockfish /usr/games/stockfish --games 20000 \
        --nodes 800 --concurrency 2 --out labelled.txt

One Stockfish process per worker, spoken to through its pipes (one thread, --hash MB,
ucinewgame each game); --seed fixes the openings and the random moves, so the same command
with the same --concurrency writes the same positions, in the order the workers finish
their games.
"""

import argparse
import multiprocessing
import random
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engine.evaluate import evaluate  # noqa: E402
from engine.movegen import generate_moves  # noqa: E402
from engine.notation import parse_uci_move  # noqa: E402
from engine.position import Position  # noqa: E402
from engine.search import Searcher  # noqa: E402
from engine.types import WHITE, MOVE_CAPTURE_OR_PROMOTION  # noqa: E402
from make_dataset import quiescence  # noqa: E402
from match import parse_opening, read_opening_records, shared_data_file  # noqa: E402


class Stockfish:
    def __init__(self, path, hash_mb):
        self.proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, bufsize=1)
        self.send("uci")
        self.wait("uciok")
        self.send("setoption name Threads value 1")
        self.send("setoption name Hash value %d" % hash_mb)
        self.new_game()

    def send(self, line):
        self.proc.stdin.write(line + "\n")

    def wait(self, word):
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("stockfish ended")
            lines.append(line)
            if line.startswith(word):
                return lines

    def new_game(self):
        self.send("ucinewgame")
        self.send("isready")
        self.wait("readyok")

    def search(self, fen, nodes):
        """(best move text, score in cp from the side to move's view, or None for a mate)."""
        self.send("position fen " + fen)
        self.send("go nodes %d" % nodes)
        lines = self.wait("bestmove")
        best = lines[-1].split()[1]
        score = None
        for line in reversed(lines):
            if " score " in line:
                parts = line.split()
                kind = parts[parts.index("score") + 1]
                if kind == "cp":
                    score = int(parts[parts.index("score") + 2])
                break
        return best, score

    def close(self):
        self.send("quit")
        self.proc.wait()


def worker(args, games, queue):
    sf = Stockfish(args.stockfish, args.hash)
    searcher = Searcher(1)
    for index, fen, seed in games:
        rng = random.Random(seed)
        sf.new_game()
        pos = Position(fen)
        out = []
        for ply in range(args.max_plies):
            legal = generate_moves(pos)
            if not legal or pos.halfmove >= 100:
                break
            text = pos.fen()
            best, score = sf.search(text, args.nodes)
            if best == "(none)" or score is None:
                break
            white = score if pos.turn == WHITE else -score
            if abs(white) > args.max_cp:
                break
            move = parse_uci_move(pos, best)
            if not (pos.in_check() or move & MOVE_CAPTURE_OR_PROMOTION):
                if quiescence(searcher, pos) == evaluate(pos):
                    out.append("%s;0.5;%d" % (text, white))
            if rng.random() < args.random:
                move = rng.choice(legal)
            pos.make(move)
        queue.put((index, out))
    sf.close()
    queue.put(None)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stockfish", default="/usr/games/stockfish")
    parser.add_argument("--out", required=True)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--nodes", type=int, default=800)
    parser.add_argument("--random", type=float, default=0.15,
                        help="probability of a random move at each ply (default %(default)s)")
    parser.add_argument("--max-plies", type=int, default=300)
    parser.add_argument("--max-cp", type=int, default=2000)
    parser.add_argument("--openings", default="2moves_v1.epd")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hash", type=int, default=16)
    parser.add_argument("--concurrency", type=int, default=1)
    args = parser.parse_args()

    path = shared_data_file(args.openings, "openings")
    records = read_opening_records(path)
    rng = random.Random(args.seed)
    jobs = []
    for i in range(args.games):
        board = parse_opening(rng.choice(records), path.suffix == ".pgn", False)
        jobs.append((i, board.fen(), rng.getrandbits(64)))
    queue = multiprocessing.Queue()
    procs = [multiprocessing.Process(target=worker, args=(args, jobs[w::args.concurrency], queue))
             for w in range(args.concurrency)]
    for p in procs:
        p.start()
    t0 = time.time()
    done = total = 0
    running = len(procs)
    with open(args.out, "w") as fh:
        fh.write("# Stockfish-labelled positions: 'FEN;0.5;cp', cp from white's view\n")
        fh.write("# command: %s\n" % " ".join(sys.argv))
        while running:
            item = queue.get()
            if item is None:
                running -= 1
                continue
            _, lines = item
            for line in lines:
                fh.write(line + "\n")
            done += 1
            total += len(lines)
            print("\rgames %d/%d, positions %d, %.0f s" % (done, args.games, total, time.time() - t0),
                  end="", file=sys.stderr, flush=True)
    for p in procs:
        p.join()
    print(file=sys.stderr)


if __name__ == "__main__":
    main()
