"""Start positions for measuring the drawish-endgame scale: from played games, the position
a few moves before each game first reached an ending that ``scale_factor`` marks as drawish.

A term that only acts in a few endings is diluted to nothing in a match from opening
positions: most games never reach such an ending.  The decision it informs (trade into
opposite-coloured bishops or not, give up the last pawn for a piece or not) is made a few
moves before the ending appears, so those are the positions to play from, both colours each.

    python scripts/endgame_starts.py games.pgn [more.pgn ...] --before 8 > starts.epd
    python scripts/match.py ... --openings starts.epd

Positions already decided (static evaluation beyond --max-eval centipawns) are skipped:
from those both colours win, and the pair only adds noise.
"""

from __future__ import annotations   # `str | None` annotations on Python 3.9 (pypy3)

import argparse
import sys
from pathlib import Path

import chess
import chess.pgn

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.evaluate import SCALE_MAX_PHASE, SCALE_NORMAL, evaluate, evaluate_terms, game_phase  # noqa: E402
from engine.position import Position  # noqa: E402


def is_drawish_ending(fen: str) -> bool:
    """True when the evaluation scales this position's score towards a draw.

    The factor is the one evaluate applies (``evaluate_terms``' 'scale' row): that of the
    side the evaluation favours, never the other side's (say, a side without pawns that is
    a rook down).  The phase test first only skips the slow path where no scale applies.
    """
    pos = Position.from_fen(fen)
    return game_phase(pos) <= SCALE_MAX_PHASE and evaluate_terms(pos)["scale"] < SCALE_NORMAL


def start_before_ending(game: chess.pgn.Game, before: int, first_ply: int) -> str | None:
    """The FEN `before` plies ahead of the game's first drawish ending (not before `first_ply`)."""
    board = game.board()
    fens = [board.fen()]
    for move in game.mainline_moves():
        board.push(move)
        fens.append(board.fen())
    for ply in range(first_ply, len(fens)):
        if is_drawish_ending(fens[ply]):
            return fens[max(first_ply, ply - before)]
    return None


def collect_starts(paths: list[str], before: int, first_ply: int, max_eval: int) -> list[str]:
    """Distinct, undecided start positions (FEN without move counters, EPD style)."""
    starts, seen = [], set()
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            while (game := chess.pgn.read_game(handle)) is not None:
                fen = start_before_ending(game, before, first_ply)
                if fen is None:
                    continue
                epd = " ".join(fen.split()[:4])
                board = chess.Board(fen)
                if epd in seen or board.is_game_over():
                    continue
                if abs(evaluate(Position.from_fen(fen))) > max_eval:
                    continue
                seen.add(epd)
                starts.append(epd)
    return starts


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pgn", nargs="+", help="PGN files of played games")
    parser.add_argument("--before", type=int, default=8, help="plies before the ending (default 8)")
    parser.add_argument("--first-ply", type=int, default=16,
                        help="never start earlier than this game ply (default 16: past the book)")
    parser.add_argument("--max-eval", type=int, default=400,
                        help="skip starts whose static evaluation exceeds this (default 400 cp)")
    args = parser.parse_args(argv)
    starts = collect_starts(args.pgn, args.before, args.first_ply, args.max_eval)
    for epd in starts:
        print(epd)
    print(f"{len(starts)} start positions", file=sys.stderr)
    return 0


if __name__ == "__main__":
    from engine.runtime import restart_if_needed
    restart_if_needed()         # PyPy: a nursery that fits the caches
    sys.exit(main(sys.argv[1:]))
