"""scripts/endgame_starts.py: which positions count as drawish endings, and where a start is cut."""
import io
import sys
from pathlib import Path

import chess
import chess.pgn

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import endgame_starts  # noqa: E402

# White: bishops c3 (dark) and g2 (light), two pawns; black: bishop e6 (light), knight e3,
# one pawn.  Nxg2 leaves opposite-coloured bishops, black a knight for a pawn up.
BEFORE_TRADE = "4k3/5p2/4b3/8/8/2B1n3/5PBP/6K1 b - - 0 1"


def game_from(fen, sans):
    board = chess.Board(fen)
    game = chess.pgn.Game.from_board(board)
    node = game
    for san in sans:
        node = node.add_variation(board.parse_san(san))
        board.push(node.move)
    return chess.pgn.read_game(io.StringIO(str(game)))


def test_opposite_bishops_for_the_side_ahead_are_drawish():
    board = chess.Board(BEFORE_TRADE)
    board.push_san("Nxg2")
    assert endgame_starts.is_drawish_ending(board.fen())


def test_an_ending_scaled_all_the_way_to_zero_is_drawish():
    # two knights cannot force mate: the factor is 0, so evaluate returns 0 here
    assert endgame_starts.is_drawish_ending("8/8/8/4k3/8/8/8/KNN5 w - - 0 1")


def test_full_board_and_the_losing_sides_factor_are_not():
    assert not endgame_starts.is_drawish_ending(chess.STARTING_FEN)
    # Black has no pawns (its own factor would be drawish) but is a rook down: not scaled.
    assert not endgame_starts.is_drawish_ending("4k3/8/8/8/8/8/3PP3/R3K2R w KQ - 0 1")


def test_start_is_cut_the_given_number_of_plies_before_the_ending():
    game = game_from(BEFORE_TRADE, ["Kd7", "Kh1", "Nxg2"])
    board = chess.Board(BEFORE_TRADE)
    assert endgame_starts.start_before_ending(game, before=3, first_ply=0) == board.fen()
    board.push_san("Kd7")
    assert endgame_starts.start_before_ending(game, before=2, first_ply=0) == board.fen()
    # never earlier than first_ply, and nothing at all when the ending comes before it
    assert endgame_starts.start_before_ending(game, before=3, first_ply=1) == board.fen()
    assert endgame_starts.start_before_ending(game, before=3, first_ply=4) is None
    assert not endgame_starts.is_drawish_ending(BEFORE_TRADE)
    # an ending already on the board at first_ply is its own start
    board.push_san("Kh1")
    board.push_san("Nxg2")
    assert endgame_starts.start_before_ending(game, before=3, first_ply=3) == board.fen()
