"""scripts/blunders.py: reading match.py's move comments and finding the losing turn (no engines run)."""
import sys
from pathlib import Path

import chess
import chess.pgn
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import blunders  # noqa: E402


@pytest.mark.parametrize("comment, value", [
    ("+0.32/8 0.605s", 0.32), ("-1.04/16 1.267s", -1.04), ("+M3/12 0.1s", 100.0),
    ("-M2/9 0.2s", -100.0), ("+0.00/7 0.264s", 0.0), ("end of book", None), ("", None)])
def test_comment_score(comment, value):
    assert blunders.comment_score(comment) == value


def _game(path, white, black, result, moves_and_comments):
    game = chess.pgn.Game()
    game.headers.update(White=white, Black=black, Result=result)
    node = game
    for san, comment in moves_and_comments:
        node = node.add_variation(node.board().parse_san(san))
        node.comment = comment
    with open(path, "a", encoding="utf-8") as handle:
        print(game, file=handle, end="\n\n")


def test_turning_point_is_the_move_before_the_opponents_jump(tmp_path):
    pgn = tmp_path / "games.pgn"
    line = [("e4", "+0.30/8 0.4s"), ("e5", "-0.20/12 0.5s"), ("Nf3", "+0.25/8 0.3s"),
            ("Nc6", "+0.10/12 0.5s"), ("Bc4", "+0.20/8 0.3s"), ("Nd4", "+2.50/12 0.5s"),
            ("Nxd4", "-3.00/8 0.3s"), ("exd4", "+3.10/12 0.5s")]
    _game(pgn, "Basilisk", "Stockfish", "0-1", line)           # lost: Bc4 turned it
    _game(pgn, "Stockfish", "Basilisk", "1-0", line)           # lost as black: no jump by white
    _game(pgn, "Basilisk", "Stockfish", "1-0", line)           # won: not looked at
    found = list(blunders.turning_points(str(pgn), "Basilisk", 1.0, 2.0))
    assert len(found) == 1
    number, fen, move = found[0]
    board = chess.Board(fen)
    assert number == 1 and board.san(move) == "Bc4" and board.turn == chess.WHITE
