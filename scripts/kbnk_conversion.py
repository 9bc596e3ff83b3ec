"""How often Basilisk mates K+B+N v K within the fifty-move rule, with and without the
KBNK drive of engine/endgame.py added to the evaluation.

Random starts (seeded): the strong side to move, no piece next to the lone king (so none
is lost at once).  Both sides are Basilisk at a fixed node count a move; with --term the
evaluation (search's and evaluate's ``evaluate``) is wrapped to add endgame_verdict's
bonus in KBNK positions only, as the evaluation will once it calls engine.endgame.

    python scripts/kbnk_conversion.py                 # both runs, 15 starts, 3000 nodes
    pypy3 scripts/kbnk_conversion.py --games 15 --nodes 3000 --seed 1 --only term

Needs only the engine (no python-chess), so pypy3 runs it too, about 3x faster.
"""

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine.evaluate  # noqa: E402
import engine.search  # noqa: E402
from engine.bitboard import KING_ATTACKS, popcount  # noqa: E402
from engine.endgame import BONUS, endgame_verdict  # noqa: E402
from engine.movegen import generate_moves  # noqa: E402
from engine.position import Position  # noqa: E402
from engine.search import Searcher  # noqa: E402
from engine.timeman import Limits  # noqa: E402
from engine.types import WHITE, BLACK, BISHOP, KNIGHT, KING, PIECE_SYMBOLS, make_piece  # noqa: E402

PLAIN_EVALUATE = engine.evaluate.evaluate


def kbnk_evaluate(pos):
    """The evaluation plus the endgame drive, in K+B+N v K only."""
    score = PLAIN_EVALUATE(pos)
    if _is_kbnk(pos):
        verdict = endgame_verdict(pos)
        if verdict is not None and verdict[0] == BONUS:
            score += verdict[1]
    return score


def _is_kbnk(pos):
    white, black = pos.occ
    if popcount(white | black) != 4:
        return False
    bbs = pos.bbs
    for s in (0, 8):
        if bbs[s | KNIGHT] and popcount(bbs[s | BISHOP]) == 1:
            return True
    return False


def use_term(on):
    engine.evaluate.evaluate = engine.search.evaluate = kbnk_evaluate if on else PLAIN_EVALUATE


def random_start(rng):
    """FEN of a K+B+N v K start: strong side (random colour) to move, nothing en prise."""
    while True:
        strong = rng.choice((WHITE, BLACK))
        sk, wk, bishop, knight = rng.sample(range(64), 4)
        if KING_ATTACKS[wk] & (1 << sk | 1 << bishop | 1 << knight):
            continue
        board = ["."] * 64
        board[sk] = PIECE_SYMBOLS[make_piece(strong, KING)]
        board[wk] = PIECE_SYMBOLS[make_piece(strong ^ 1, KING)]
        board[bishop] = PIECE_SYMBOLS[make_piece(strong, BISHOP)]
        board[knight] = PIECE_SYMBOLS[make_piece(strong, KNIGHT)]
        rows = []
        for rank in range(7, -1, -1):
            row, empty = "", 0
            for sq in board[rank * 8:rank * 8 + 8]:
                if sq == ".":
                    empty += 1
                else:
                    row += (str(empty) if empty else "") + sq
                    empty = 0
            rows.append(row + (str(empty) if empty else ""))
        fen = "/".join(rows) + (" w" if strong == WHITE else " b") + " - - 0 1"
        pos = Position(fen)
        if not pos.is_attacked(pos.king_square(strong ^ 1), strong) and generate_moves(pos):
            return fen


def play(fen, nodes, max_moves=50):
    """Plies to mate, or None when no mate came within max_moves moves of the strong side."""
    pos = Position(fen)
    strong = pos.turn
    searchers = {WHITE: Searcher(16), BLACK: Searcher(16)}
    limits = Limits()
    limits.nodes = nodes
    for ply in range(2 * max_moves):
        moves = generate_moves(pos)
        if not moves:
            return ply if pos.in_check() and pos.turn != strong else None
        if popcount(pos.occ[strong]) < 3 or pos.is_repetition(3):
            return None         # a piece was lost, or the game is drawn by repetition
        move, _ = searchers[pos.turn].search(pos, limits, engine.search._NoClock())
        pos.make(move)
    moves = generate_moves(pos)
    return 2 * max_moves if not moves and pos.in_check() else None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=15)
    parser.add_argument("--nodes", type=int, default=3000, help="node limit per move")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", choices=("plain", "term"), help="run one of the two evaluations")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    starts = [random_start(rng) for _ in range(args.games)]
    runs = [args.only] if args.only else ["plain", "term"]
    for run in runs:
        use_term(run == "term")
        t0 = time.perf_counter()
        mates = []
        for fen in starts:
            plies = play(fen, args.nodes)
            mates.append(plies)
            print("%-5s %-40s %s" % (run, fen, "mate in %d plies" % plies if plies is not None else "no mate"),
                  flush=True)
        print("%s: %d of %d mated within 50 moves at %d nodes a move (%.0f s)"
              % (run, sum(p is not None for p in mates), len(mates), args.nodes, time.perf_counter() - t0),
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
