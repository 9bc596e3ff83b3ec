"""How often Basilisk mates a bare king within the fifty-move rule (K+B+N, K+R or K+Q
against K), with the evaluation's mating drive (engine.endgame, ``MATING_DRIVE``) and
without it.  K+B+N v K is scored from the exact table (engine.kbnk) unless --no-table is
given; each start then also shows the table's own distance to mate.

Random starts (seeded): the strong side to move, no piece next to the lone king (so none
is lost at once).  Both sides are Basilisk at a fixed node count a move.

    python scripts/mate_conversion.py                   # K+B+N, both runs, 15 starts, 3000 nodes
    pypy3 scripts/mate_conversion.py --material R --games 20 --only drive
    pypy3 scripts/mate_conversion.py --games 30 --only drive --no-table   # the drive alone

Needs only the engine (no python-chess), so pypy3 runs it too, about 3x faster.
"""

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine.endgame  # noqa: E402
import engine.evaluate  # noqa: E402
from engine.bitboard import KING_ATTACKS, popcount  # noqa: E402
from engine.endgame import EXACT, endgame_verdict  # noqa: E402
from engine.jit import refreshed  # noqa: E402
from engine.movegen import generate_moves  # noqa: E402
from engine.position import FenError, Position, board_placement  # noqa: E402
from engine.search import Searcher, NoDeadline  # noqa: E402
from engine.timeman import Limits  # noqa: E402
from engine.types import (WHITE, BLACK, BISHOP, KNIGHT, ROOK, QUEEN, KING,  # noqa: E402
                          make_piece)

MATERIAL = {"BN": (BISHOP, KNIGHT), "R": (ROOK,), "Q": (QUEEN,)}


def use_drive(on):
    engine.evaluate.MATING_DRIVE = 1 if on else 0
    # CPython's evaluation holds the constants it read at import (engine.jit): compile it again
    ev = engine.evaluate
    ev._evaluate_terms = refreshed(ev._evaluate_terms)
    ev._evaluate = ev._cache_miss_function(ev._evaluate_terms)
    engine.evaluate.clear_cache()


def random_start(rng, pieces):
    """FEN of a start with the strong side (random colour) holding ``pieces`` besides its
    king, to move, nothing next to the lone king."""
    while True:
        strong = rng.choice((WHITE, BLACK))
        squares = rng.sample(range(64), 2 + len(pieces))
        sk, wk = squares[:2]
        if KING_ATTACKS[wk] & sum(1 << sq for sq in squares if sq != wk):
            continue
        board = [0] * 64
        board[sk] = make_piece(strong, KING)
        board[wk] = make_piece(strong ^ 1, KING)
        for sq, pt in zip(squares[2:], pieces):
            board[sq] = make_piece(strong, pt)
        fen = board_placement(board) + (" w" if strong == WHITE else " b") + " - - 0 1"
        try:
            pos = Position(fen)         # refused when the lone king stands in check
        except FenError:
            continue
        if generate_moves(pos):
            return fen


def play(fen, nodes, max_moves=50):
    """Plies to mate, or None when no mate came within max_moves moves of the strong side."""
    pos = Position(fen)
    strong = pos.turn
    men = popcount(pos.occ[strong])
    searchers = {WHITE: Searcher(16), BLACK: Searcher(16)}
    limits = Limits()
    limits.nodes = nodes
    for ply in range(2 * max_moves):
        moves = generate_moves(pos)
        if not moves:
            return ply if pos.in_check() and pos.turn != strong else None
        if popcount(pos.occ[strong]) < men or pos.is_repetition(3):
            return None         # a piece was lost, or the game is drawn by repetition
        move, _ = searchers[pos.turn].search(pos, limits, NoDeadline())
        pos.make(move)
    moves = generate_moves(pos)
    return 2 * max_moves if not moves and pos.in_check() else None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=15)
    parser.add_argument("--nodes", type=int, default=3000, help="node limit per move")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--material", choices=sorted(MATERIAL), default="BN",
                        help="the strong side's pieces besides its king")
    parser.add_argument("--only", choices=("plain", "drive"), help="run one of the two evaluations")
    parser.add_argument("--no-table", action="store_true",
                        help="score K+B+N v K by the evaluation, not the exact table")
    args = parser.parse_args(argv)
    if args.no_table:
        engine.endgame.USE_KBNK_TABLE = False
    rng = random.Random(args.seed)
    starts = [random_start(rng, MATERIAL[args.material]) for _ in range(args.games)]
    runs = [args.only] if args.only else ["plain", "drive"]
    for run in runs:
        use_drive(run == "drive")
        t0 = time.perf_counter()
        mates = []
        for fen in starts:
            plies = play(fen, args.nodes)
            mates.append(plies)
            best = ""
            verdict = endgame_verdict(Position(fen)) if args.material == "BN" else None
            if verdict is not None and verdict[0] == EXACT and verdict[1]:
                best = "  (table: mate in %d)" % (engine.endgame.KBNK_WIN - verdict[1])
            print("%-5s %-40s %s%s" % (run, fen, "mate in %d plies" % plies if plies is not None
                                       else "no mate", best), flush=True)
        done = [p for p in mates if p is not None]
        print("K%s v K, %s: %d of %d mated within 50 moves at %d nodes a move, %s (%.0f s)"
              % (args.material, run, len(done), len(mates), args.nodes,
                 "mean %.1f moves" % ((sum(done) + len(done)) / 2 / len(done)) if done else "-",
                 time.perf_counter() - t0), flush=True)
    return 0


if __name__ == "__main__":
    from engine.runtime import restart_if_needed
    restart_if_needed()         # PyPy: a nursery that fits the caches
    sys.exit(main())
