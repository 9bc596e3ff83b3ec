#!/usr/bin/env python3
"""Random pawn endings as match start positions: where king-and-pawn knowledge decides games.

    python scripts/pawn_ending_starts.py --count 60 --seed 1 > starts.epd
    python scripts/match.py ... --openings starts.epd --nodes 10000

Each position has the two kings and one to three pawns a side (pawns on ranks 2-7, no pawn
in front of an enemy pawn of the same file only by chance), is legal with the side to move
not giving check, and is balanced enough to be worth playing with both colours: its
static evaluation (material + structure, the known-endgame rules switched off) is within
``--max-eval`` centipawns.  A few plies of play usually trade it down to king and pawn
against king, or to a race, where an evaluation that knows KPK scores right and one that
does not scores the extra pawn.

Most random starts are decided by the start itself: both engines win with the winning side,
and a pair of games splits 1-1 whatever the engines know.  ``--stockfish PATH`` keeps only
the starts that Stockfish scores between ``--sf-min`` and ``--sf-max`` centipawns (either
side ahead, at ``--sf-nodes``): an edge that has to be converted, where play decides.

    python scripts/pawn_ending_starts.py --count 100 --seed 3 --max-eval 400 \
        --stockfish /usr/games/stockfish --sf-min 60 --sf-max 400 > starts.epd
"""

import argparse
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import chess  # noqa: E402


def random_ending(rng):
    """A legal pawn ending as a python-chess Board, or None if this draw failed."""
    board = chess.Board(None)
    squares = list(range(64))
    rng.shuffle(squares)
    taken = set()
    kings = []
    for color in (chess.WHITE, chess.BLACK):
        sq = squares.pop()
        board.set_piece_at(sq, chess.Piece(chess.KING, color))
        taken.add(sq)
        kings.append(sq)
    if chess.square_distance(kings[0], kings[1]) < 2:
        return None
    for color in (chess.WHITE, chess.BLACK):
        for _ in range(rng.randint(1, 3)):
            sq = rng.choice([s for s in range(8, 56) if s not in taken])
            board.set_piece_at(sq, chess.Piece(chess.PAWN, color))
            taken.add(sq)
    board.turn = rng.choice((chess.WHITE, chess.BLACK))
    if not board.is_valid() or board.is_check() or board.is_game_over():
        return None
    return board


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-eval", type=int, default=150,
                        help="skip positions whose static evaluation is beyond this (cp)")
    parser.add_argument("--stockfish", metavar="PATH",
                        help="keep only starts Stockfish scores within --sf-min..--sf-max")
    parser.add_argument("--sf-nodes", type=int, default=200000)
    parser.add_argument("--sf-min", type=int, default=60, help="least |score| kept (cp)")
    parser.add_argument("--sf-max", type=int, default=400, help="largest |score| kept (cp)")
    args = parser.parse_args()
    stockfish = None
    if args.stockfish:
        import chess.engine
        stockfish = chess.engine.SimpleEngine.popen_uci(args.stockfish)
    os.environ["BASILISK_EVAL"] = "ENDGAME_MAX_PHASE=-1"     # the plain evaluation
    from engine.evaluate import evaluate
    from engine.position import Position

    rng = random.Random(args.seed)
    seen = set()
    out = 0
    print("# %d random pawn endings, seed %d, |static eval| <= %d%s (scripts/pawn_ending_starts.py)"
          % (args.count, args.seed, args.max_eval,
             ", Stockfish |score| %d..%d at %d nodes" % (args.sf_min, args.sf_max, args.sf_nodes)
             if stockfish else ""))
    while out < args.count:
        board = random_ending(rng)
        if board is None:
            continue
        fen = board.fen()
        if fen in seen or abs(evaluate(Position(fen))) > args.max_eval:
            continue
        seen.add(fen)
        if stockfish is not None:
            info = stockfish.analyse(board, chess.engine.Limit(nodes=args.sf_nodes))
            score = info["score"].white().score(mate_score=100000)
            if not args.sf_min <= abs(score) <= args.sf_max:
                continue
        print(" ".join(fen.split()[:4]))
        out += 1
    if stockfish is not None:
        stockfish.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
