"""FEN: exact round trips on every suite position, X-FEN/Shredder-FEN, and strict validation."""

import chess
import pytest

from conftest import read_perft_suite
from engine.position import FenError, Position, STARTING_FEN

STANDARD = read_perft_suite("standard.epd")
CHESS960 = read_perft_suite("chess960.epd")


def test_round_trip_standard_suite():
    for line, fen, _ in STANDARD:
        pos = Position(fen)
        assert pos.fen() == chess.Board(fen).fen(), "line %d" % line
        if pos.ep_is_legal() or fen.split()[3] == "-":
            assert pos.fen() == fen, "line %d" % line


def test_round_trip_chess960_suite_shredder():
    for line, fen, _ in CHESS960:
        pos = Position(fen)
        assert pos.fen(shredder=True) == fen, "line %d" % line
        assert pos.fen() == chess.Board(fen, chess960=True).fen(), "line %d (X-FEN)" % line


def test_four_field_fen_defaults_counters():
    pos = Position("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -")
    assert (pos.halfmove, pos.fullmove) == (0, 1)
    assert pos.fen() == STARTING_FEN


def test_xfen_and_shredder_castling_agree():
    x = Position("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9")
    s = Position("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9")
    assert x.castling == s.castling and x.key == s.key
    # an inner rook named by its file in X-FEN: rooks on a1 and b1, king on c1... b1 is the castling rook
    pos = Position("rk6/1p6/8/8/8/8/8/RRK5 w Bq - 0 1")
    assert pos.castling == 1 << 1 | 1 << 56
    assert pos.fen() == "rk6/1p6/8/8/8/8/8/RRK5 w Bq - 0 1"


def test_odd_but_legal_positions_are_accepted():
    Position("B6b/8/8/8/2K5/5k2/8/b6B b - - 0 1")          # two bishops checking on one diagonal
    Position("4k3/8/8/8/8/8/8/4K3 w - - 99 300")
    Position("4k3/8/8/8/8/8/8/4K3 w - - 150 1")             # a halfmove clock past 100 is playable


def test_en_passant_kept_only_when_capturable():
    pos = Position("rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 2")
    assert pos.ep == 0 and pos.fen().split()[3] == "-"
    pos = Position("rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3")
    assert pos.ep == 43 and pos.fen().split()[3] == "d6"


def test_fen_error_leaves_position_untouched():
    pos = Position("8/8/8/8/8/8/8/K6k w - - 0 1")
    before = pos.fen()
    with pytest.raises(FenError):
        pos.set_fen("not a fen")
    assert pos.fen() == before
    pos.validate()


MALFORMED = [
    ("", "fields"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", "fields"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w", "fields"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0", "fields"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra", "fields"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "ranks"),
    ("rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "ranks"),
    ("rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "squares wide"),
    ("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "squares wide"),
    ("rnbqkbnr/pppppppp/44/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "empty-square count"),
    ("rnbqkbnr/pppppppp/08/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "empty-square count"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1", "piece letter"),
    ("rnbqkbnr/pppppppp/8/8/3?4/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "piece letter"),
    ("rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", "black has 0 kings"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKKNR w kq - 0 1", "white has 2 kings"),
    ("4k3/8/8/8/8/8/8/8 w - - 0 1", "white has 0 kings"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNP w kq - 0 1", "first or last rank"),
    ("rnbqkbnp/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", "first or last rank"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side to move"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR W KQkq - 0 1", "side to move"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkx - 0 1", "castling letter"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1", "no rook"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w KQkq - 0 1", "white has 0 kings"),
    ("rnbqkbnr/pppppppp/8/8/8/4K3/PPPPPPPP/RNBQ1BNR w KQkq - 0 1", "king is not on its back rank"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KKkq - 0 1", "given twice"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1", "en-passant"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1", "en-passant"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", "en-passant"),
    ("rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR b KQkq e6 0 2", "en-passant"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", "halfmove clock"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1", "halfmove clock"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 one", "fullmove number"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 -3", "fullmove number"),
    ("4k3/8/8/8/8/8/8/4K2R b - - 0 1", None),   # legal: black to move, not in check... see below
    ("4k2R/8/8/8/8/8/8/4K3 w - - 0 1", "not to move (black) is in check"),
    ("4k3/8/8/8/8/8/8/r3K3 b - - 0 1", "not to move (white) is in check"),
    ("4k3/8/8/8/8/8/3p4/4K3 b - - 0 1", "not to move (white) is in check"),
]


@pytest.mark.parametrize("fen,message", [m for m in MALFORMED if m[1]], ids=range(len([m for m in MALFORMED if m[1]])))
def test_malformed_fen_is_rejected_with_its_defect_named(fen, message):
    with pytest.raises(FenError) as info:
        Position(fen)
    assert message in str(info.value), str(info.value)


def test_malformed_list_is_large_enough():
    assert len([m for m in MALFORMED if m[1]]) >= 25
    Position([m for m in MALFORMED if m[1] is None][0][0])   # the control case parses
