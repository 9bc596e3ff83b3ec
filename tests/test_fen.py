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


# FENs whose castling or en-passant field the board contradicts: strict parsing names the
# defect, lenient parsing (what `position fen` uses, as Stockfish) drops the contradicted
# part.  (FEN, what strict parsing says, the castling field left where python-chess cannot
# read the FEN: a right given twice, or twice on one side)
REPAIRABLE = [
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/1NBQKBNR w KQkq - 0 1", "no rook"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1", "no rook"),
    ("rnbqkbn1/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1", "no rook"),
    ("rnbq1bnr/ppppkppp/8/4p3/4P3/8/PPPPKPPP/RNBQ1BNR w KQkq - 2 3", "not on its back rank"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KKkq - 0 1", "given twice", "Kkq"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KHkq - 0 1", "given twice", "Kkq"),
    ("4k3/8/8/8/8/8/8/R3K1RR w KGH - 0 1", "more than one castling right", "K"),
    ("rr2k3/8/8/8/8/8/8/RR2K3 w BAba - 0 1", "more than one castling right", "Bb"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1", "impossible en-passant"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", "impossible en-passant"),
    ("rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR b KQkq e6 0 2", "impossible en-passant"),
    ("r3k2r/8/8/8/8/8/8/4K3 w KQkq c3 0 1", "no rook"),
]


@pytest.mark.parametrize("case", REPAIRABLE, ids=range(len(REPAIRABLE)))
def test_contradicted_castling_and_en_passant_are_dropped_when_lenient(case):
    fen, message = case[:2]
    with pytest.raises(FenError) as info:
        Position(fen)
    assert message in str(info.value)
    repairs = []
    pos = Position(fen, repairs)
    pos.validate()
    assert repairs and all(text.endswith(": dropped") for text in repairs), repairs
    assert len(set(repairs)) == len(repairs), repairs      # each says which part it drops
    assert any(message in text for text in repairs), repairs
    if len(case) > 2:
        assert pos.fen().split()[2] == case[2]
    else:
        # the oracle: python-chess keeps only the rights the board allows, and no en-passant
        # square here (none of these has a pawn that could take)
        board = chess.Board(fen, chess960=True)
        board.castling_rights = board.clean_castling_rights()
        board.ep_square = None
        assert pos.fen(shredder=True).split()[:4] == board.fen(shredder=True).split()[:4]
    assert pos.key == Position(pos.fen()).key
    # a FEN the board does not contradict is read the same either way, with nothing dropped
    clean = []
    assert Position(pos.fen(), clean).fen() == pos.fen() and not clean


def test_uci_drops_contradicted_castling_and_moves_for_the_fen_sent():
    """Through the real engine: after a game position, a FEN whose castling right has no
    rook is read without that right (an `info string` says so, no error), and `go` answers
    for that FEN, not for the position before it."""
    fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/1NBQKBNR w KQkq - 0 1"
    script = ["uci", "position startpos moves e2e4", "position fen " + fen, "d",
              "go depth 2", "quit"]
    proc = subprocess.run([sys.executable, "-m", "engine"], input="\n".join(script) + "\n",
                          capture_output=True, encoding="utf-8", cwd=str(REPO), timeout=60)
    lines = proc.stdout.splitlines()
    assert not [line for line in lines if line.startswith("info string error")], lines
    notes = [line for line in lines if "castling right 'Q' but no rook in place for it: dropped" in line]
    assert len(notes) == 1 and notes[0].startswith("info string FEN "), lines
    assert "Fen: rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/1NBQKBNR w Kkq - 0 1" in lines
    best = [line for line in lines if line.startswith("bestmove ")]
    assert len(best) == 1
    assert chess.Move.from_uci(best[0].split()[1]) in chess.Board(fen).legal_moves
    assert "Traceback" not in proc.stderr and proc.returncode == 0


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
