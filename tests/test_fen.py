"""FEN: exact round trips on every suite position, X-FEN/Shredder-FEN, and strict validation
(ASCII only, counters of sane size), down to the engine's answer to a bad `position fen`."""

import subprocess
import sys
from pathlib import Path

import chess
import pytest

from conftest import read_perft_suite
from engine.position import FenError, Position, STARTING_FEN

REPO = Path(__file__).resolve().parents[1]

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
    Position("4k3/8/8/8/8/8/8/4K2R b - - 0 1")              # the rook attacks f8..h8, not the king
    pos = Position("4k3/8/8/8/8/8/8/4K3 w - - 000000000042 999999999")   # zeros do not count
    assert (pos.halfmove, pos.fullmove) == (42, 999999999)


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
    ("4k3/8/8/8/8/8/8/4K3 w - - 1000000000 1", "halfmove clock is too large"),
    # more digits than CPython's int() reads (4300): once a ValueError from int()
    ("4k3/8/8/8/8/8/8/4K3 w - - 0 " + "1" * 5000, "fullmove number is too large"),
    ("4k2R/8/8/8/8/8/8/4K3 w - - 0 1", "not to move (black) is in check"),
    ("4k3/8/8/8/8/8/8/r3K3 b - - 0 1", "not to move (white) is in check"),
    ("4k3/8/8/8/8/8/3p4/4K3 b - - 0 1", "not to move (white) is in check"),
]


@pytest.mark.parametrize("fen,message", MALFORMED, ids=range(len(MALFORMED)))
def test_malformed_fen_is_rejected_with_its_defect_named(fen, message):
    with pytest.raises(FenError) as info:
        Position(fen)
    assert message in str(info.value), str(info.value)


# Characters that str methods treat as digits, letters or spaces although a FEN has only
# ASCII: each one where its ASCII look-alike would be read.  (name, FEN, look-alike)
START_PIECES = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
NON_ASCII = [
    ("superscript-2", "\u00b2n1k3/8/8/8/8/8/8/4K3 w - - 0 1", "2n1k3/8/8/8/8/8/8/4K3 w - - 0 1"),
    ("circled-4", "4k3/8/8/8/8/8/8/4K3 w - - \u2463 1", "4k3/8/8/8/8/8/8/4K3 w - - 4 1"),
    ("full-width-8", "rnbqkbnr/pppppppp/\uff18/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", STARTING_FEN),
    ("arabic-indic-3", "4k3/8/8/8/8/8/8/4K3 w - - 0 \u0663", "4k3/8/8/8/8/8/8/4K3 w - - 0 3"),
    ("kelvin-castling", START_PIECES + " w \u212aQkq - 0 1", STARTING_FEN),
    ("kelvin-king", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ\u212aBNR w Qkq - 0 1",
     "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w Qkq - 0 1"),
    ("ideographic-space", START_PIECES + "\u3000w KQkq - 0 1", STARTING_FEN),
    ("no-break-space", START_PIECES + " w KQkq -\u00a00 1", STARTING_FEN),
]


@pytest.mark.parametrize("fen,lookalike", [case[1:] for case in NON_ASCII],
                         ids=[case[0] for case in NON_ASCII])
def test_non_ascii_fen_is_a_fen_error(fen, lookalike):
    Position(lookalike)      # only the stray character is wrong
    stray = next(ch for ch in fen if ord(ch) > 127)
    pos = Position("4k3/8/8/8/8/8/8/4K2R w K - 3 40")
    before = pos.fen()
    with pytest.raises(FenError) as info:
        pos.set_fen(fen)
    assert "non-ASCII character U+%04X" % ord(stray) in str(info.value)
    assert pos.fen() == before


def test_uci_reports_a_bad_fen_and_keeps_the_previous_position():
    """Through the real engine: each bad FEN gets `info string error: bad FEN ...`, the
    position set before it stays, and nothing reaches stderr as a traceback."""
    good = "4k3/8/8/8/8/8/8/4K2R w K - 3 40"
    # (the UCI line splitter already treats U+3000 and U+00A0 as spaces: not sent here)
    bad = [case[1] for case in NON_ASCII if "space" not in case[0]]
    bad += [m[0] for m in MALFORMED if "too large" in m[1]]
    script = ["uci", "position fen " + good] + ["position fen " + fen for fen in bad] + ["d", "quit"]
    proc = subprocess.run([sys.executable, "-m", "engine"], input="\n".join(script) + "\n",
                          capture_output=True, encoding="utf-8", cwd=str(REPO), timeout=60)
    lines = proc.stdout.splitlines()
    errors = [line for line in lines if line.startswith("info string error: ")]
    assert len(errors) == len(bad), errors
    for line in errors:
        assert line.startswith("info string error: bad FEN ") and line.endswith("(position unchanged)"), line
    assert "Fen: " + good in lines
    assert proc.stdout.isascii()
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 0
