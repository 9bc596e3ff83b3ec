#!/usr/bin/env python3
"""How well Basilisk's static evaluation of pawn endings agrees with Stockfish's scores.

    python scripts/pawn_ending_agreement.py --stockfish /usr/games/stockfish --count 3000 --seed 5

Random quiet pawn endings (three to six pawns, no capture on the board; the generator of
scripts/pawn_ending_starts.py) are scored by Stockfish at ``--sf-nodes``; each is then
evaluated by Basilisk with the caught-passer term as weighted in engine/weights.py and
scaled by each ``--scales`` factor (0 switches it off).  Printed per factor, side by side:
the mean squared difference of the expected results, 1 / (1 + 10^(-cp/400)) of both scores
(white's view), and how often the two agree on who is ahead by more than half a pawn.
"""

import argparse
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import chess  # noqa: E402
import chess.engine  # noqa: E402

import engine.evaluate as ev  # noqa: E402
from engine.position import Position  # noqa: E402
from engine.types import WHITE  # noqa: E402
from pawn_ending_starts import random_ending  # noqa: E402
from tune import expected_result  # noqa: E402


def expected(cp):
    """The expected result of a score: Texel's logistic at K = 1, 1 / (1 + 10^(-cp/400))."""
    return expected_result(cp, 1.0)


def side(cp):
    return (cp > 50) - (cp < -50)


def quiet_endings(count, seed):
    rng = random.Random(seed)
    seen = set()
    while len(seen) < count:
        board = random_ending(rng)
        if board is None or board.fen() in seen:
            continue
        if len(board.pieces(chess.PAWN, chess.WHITE)) + len(board.pieces(chess.PAWN, chess.BLACK)) < 3:
            continue
        if any(board.is_capture(move) for move in board.legal_moves):
            continue
        seen.add(board.fen())
        yield board


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stockfish", required=True, metavar="PATH")
    parser.add_argument("--count", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--sf-nodes", type=int, default=100000)
    parser.add_argument("--scales", default="0,0.5,1,1.5",
                        help="factors for engine/weights.py's CAUGHT_PASSER, comma-separated")
    args = parser.parse_args(argv)

    stockfish = chess.engine.SimpleEngine.popen_uci(args.stockfish)
    scored = []
    try:
        for i, board in enumerate(quiet_endings(args.count, args.seed), 1):
            info = stockfish.analyse(board, chess.engine.Limit(nodes=args.sf_nodes))
            scored.append((Position(board.fen()), info["score"].white().score(mate_score=3000)))
            if i % 250 == 0:
                print("  scored %d/%d" % (i, args.count), file=sys.stderr)
    finally:
        stockfish.quit()

    weights = ev.CAUGHT_PASSER
    print("%d quiet pawn endings, seed %d, Stockfish at %d nodes; CAUGHT_PASSER = %s"
          % (len(scored), args.seed, args.sf_nodes, weights))
    print("%-8s %-10s %s" % ("scale", "mse", "same side ahead (|cp| > 50)"))
    for scale in (float(x) for x in args.scales.split(",")):
        ev.CAUGHT_PASSER = tuple(int(w * scale) for w in weights)
        ev.clear_cache()
        error = same = 0
        for pos, sf_cp in scored:
            own = ev.evaluate(pos) if pos.turn == WHITE else -ev.evaluate(pos)
            error += (expected(own) - expected(sf_cp)) ** 2
            same += side(own) == side(sf_cp)
        print("%-8g %-10.5f %.1f%%" % (scale, error / len(scored), 100.0 * same / len(scored)))
    ev.CAUGHT_PASSER = weights
    return 0


if __name__ == "__main__":
    from engine.runtime import restart_if_needed
    restart_if_needed()         # PyPy: a nursery that fits the caches
    sys.exit(main())
