"""scripts/blunders.py and match.py's comment_score: reading match.py's move comments back and
finding the losing turn (no engines run)."""
import sys
from pathlib import Path

import chess
import chess.engine
import chess.pgn
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import blunders  # noqa: E402
import match  # noqa: E402


@pytest.mark.parametrize("score, depth, value", [
    (chess.engine.Cp(32), 8, 0.32), (chess.engine.Cp(-104), 16, -1.04), (chess.engine.Cp(0), 7, 0.0),
    (chess.engine.Mate(3), 12, 100.0), (chess.engine.Mate(-2), 9, -100.0)])
def test_comment_score_reads_back_what_match_writes(score, depth, value):
    reply = match.MoveReply(chess.Move.from_uci("e2e4"), 0.605,
                            {"score": chess.engine.PovScore(score, chess.WHITE), "depth": depth})
    comment = match.move_comment(reply)
    assert match.comment_score(comment) == value, comment


@pytest.mark.parametrize("comment", ["end of book", "", "0.605s", "+0.32 0.605s"])
def test_comment_score_without_a_score_and_depth(comment):
    assert match.comment_score(comment) is None


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
