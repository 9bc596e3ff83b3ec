"""Endgame knowledge for positions with little material: known results and mating drives.

``endgame_verdict(pos)`` returns None when no rule applies, else ``(kind, value)`` with
``value`` in centipawns from the point of view of the SIDE TO MOVE:

- ``(EXACT, score)``: the result is known; use ``score`` instead of the evaluation.
  Known draws score 0: K v K, at most one minor piece a side, K+N+N v K, K+B+rook pawn(s) v K when the bishop does not control the queening corner
  and the defending king stands on or beside it.  K+P v K is looked up in the exact
  bitbase (engine.kpk): a draw scores 0, a win ``KPK_WIN`` plus a bonus per rank the pawn
  has advanced (so the search makes progress), minus the winning king's distance to it.
- ``(BONUS, bonus)``: a mating drive against a bare king, to ADD to the evaluation (which
  already counts the material): with a queen or rook (KQK, KRK and more, no pawns) the
  lone king is pushed to the edge and the kings together; KBNK pushes it to a corner of
  the bishop's colour where the exact table (engine.kbnk) cannot be read.

K+B+N v K is scored from that table: ``(EXACT, KBNK_WIN - plies to mate)`` for the
stronger side, so every move that shortens the mate scores higher, and 0 where the lone
king takes a piece or is stalemated.

The evaluation calls it only when few pieces remain (``pos`` unchanged); the checks are
cheap, but cost a popcount or two per call.
"""

from engine.bitboard import BIT63, BB_FILE_A, BB_FILE_H, BB_LIGHT_SQUARES, popcount
from engine.kbnk import TABLE_FILE as _KBNK_FILE, kbnk_dtm
from engine.kpk import kpk_probe
from engine.types import WHITE, BLACK, PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING

EXACT, BONUS = 1, 2

# K+P v K: a won position scores like a good extra piece, but less than the queen it
# becomes, so promoting still looks better than waiting.
KPK_WIN = 500
KPK_PER_RANK = 25              # per rank the pawn has advanced from its start
KPK_KING_DISTANCE = 5          # per king step between the winning king and its pawn

# Mating drives (centipawns).  The edge/corner push must outweigh the king closeness, so the
# lone king's position is what the search improves first.
EDGE_PUSH = 20                 # KQK, KRK: per step of the lone king from the centre
KINGS_CLOSE = 10               # per step the kings are closer than 7 apart
CORNER_PUSH = 40               # KBNK: per king step nearer a corner the bishop controls
CORNER_EDGE = 10               # KBNK: per step from the centre, to reach the edge first
# K+B+N v K from the exact table, won positions at KBNK_WIN less the plies to mate (at most
# 66): mated within 50 moves from 30 of 30 random starts at 3,000 nodes a move, against 15
# of 30 with the corner drive (scripts/mate_conversion.py --seed 1, PyPy)
USE_KBNK_TABLE = _KBNK_FILE.is_file()     # without the file the corner drive stands in
KBNK_WIN = 1100


def _distance_table():
    return [[max(abs((a & 7) - (b & 7)), abs((a >> 3) - (b >> 3))) for b in range(64)]
            for a in range(64)]


DISTANCE = _distance_table()
# file distance plus rank distance from the four centre squares: 0 in the centre, 6 in a corner
CENTRE_DISTANCE = [(3 - min(sq & 7, 7 - (sq & 7))) + (3 - min(sq >> 3, 7 - (sq >> 3)))
                   for sq in range(64)]
LIGHT_CORNERS = (7, 56)        # h1, a8
DARK_CORNERS = (0, 63)         # a1, h8
# [bishop on a light square][lone king's square] -> king steps to the nearer mating corner
CORNER_DISTANCE = {is_light: [min(DISTANCE[sq][c] for c in corners) for sq in range(64)]
                   for is_light, corners in ((True, LIGHT_CORNERS), (False, DARK_CORNERS))}


def _kpk_score(pos):
    bbs = pos.bbs
    strong = WHITE if bbs[PAWN] else BLACK
    s = strong << 3
    pawn = bbs[s | PAWN].bit_length() - 1
    strong_king = bbs[s | KING].bit_length() - 1
    weak_king = bbs[(s ^ 8) | KING].bit_length() - 1
    if not kpk_probe(strong_king, pawn, weak_king, pos.turn == strong, strong):
        return 0
    advanced = (pawn >> 3) - 1 if strong == WHITE else 6 - (pawn >> 3)
    score = KPK_WIN + KPK_PER_RANK * advanced - KPK_KING_DISTANCE * DISTANCE[strong_king][pawn]
    return score if pos.turn == strong else -score


def _kbnk_score(pos, strong):
    """K+B+N v K (``strong`` has the two pieces) from the side to move's view."""
    bbs = pos.bbs
    s = strong << 3
    dtm = kbnk_dtm(bbs[s | KING].bit_length() - 1, bbs[s | BISHOP].bit_length() - 1,
                   bbs[s | KNIGHT].bit_length() - 1, bbs[(s ^ 8) | KING].bit_length() - 1,
                   pos.turn == strong)
    if dtm is None:
        return 0
    return KBNK_WIN - dtm if pos.turn == strong else dtm - KBNK_WIN


def _wrong_rook_pawn_draw(pos, strong, pawns, bishop):
    """K+B+pawns all on one rook file v K: a draw when the bishop cannot cover the queening
    corner and the defending king is on it or next to it."""
    if pawns & ~BB_FILE_A and pawns & ~BB_FILE_H:
        return False
    queening = (7 if pawns & BB_FILE_H else 0) + (56 if strong == WHITE else 0)
    if bool(bishop & BB_LIGHT_SQUARES) == bool(BB_LIGHT_SQUARES >> queening & 1):
        return False
    weak_king = pos.bbs[(strong ^ 1) << 3 | KING].bit_length() - 1
    return DISTANCE[weak_king][queening] <= 1


def _mating_drive(pos, strong):
    """Bonus for ``strong`` against a bare king, or None without a drive for this material."""
    bbs = pos.bbs
    s = strong << 3
    weak_king = bbs[(s ^ 8) | KING].bit_length() - 1
    strong_king = bbs[s | KING].bit_length() - 1
    close = KINGS_CLOSE * (7 - DISTANCE[strong_king][weak_king])
    if bbs[s | QUEEN] or bbs[s | ROOK]:
        return EDGE_PUSH * CENTRE_DISTANCE[weak_king] + close
    bishops, knights = bbs[s | BISHOP], bbs[s | KNIGHT]
    if popcount(bishops) == 1 and popcount(knights) == 1 and not bbs[s | PAWN]:
        corner = CORNER_DISTANCE[bool(bishops & BB_LIGHT_SQUARES)][weak_king]
        return CORNER_PUSH * (7 - corner) + CORNER_EDGE * CENTRE_DISTANCE[weak_king] + close
    return None


def endgame_verdict(pos):
    """None, (EXACT, score) or (BONUS, bonus); see the module docstring."""
    bbs = pos.bbs
    white, black = pos.occ
    men = popcount(white | black)
    if men > 5:
        return None
    pawns = bbs[PAWN] | bbs[8 | PAWN]
    if men == 3 and popcount(pawns) == 1:
        return EXACT, _kpk_score(pos)
    heavy = bbs[ROOK] | bbs[8 | ROOK] | bbs[QUEEN] | bbs[8 | QUEEN]
    if not pawns and not heavy:
        # kings and minor pieces only
        minors = (popcount(white) - 1, popcount(black) - 1)
        if minors[WHITE] <= 1 and minors[BLACK] <= 1:
            return EXACT, 0
        for strong in (WHITE, BLACK):
            if minors[strong] == 2 and minors[strong ^ 1] == 0:
                if popcount(bbs[strong << 3 | KNIGHT]) == 2:
                    return EXACT, 0     # two knights cannot force mate
                if USE_KBNK_TABLE and bbs[strong << 3 | KNIGHT]:
                    return EXACT, _kbnk_score(pos, strong)
                drive = _mating_drive(pos, strong)      # KBNK; KBBK is left to the evaluation
                if drive is not None:
                    return BONUS, drive if pos.turn == strong else -drive
        return None
    for strong in (WHITE, BLACK):
        s = strong << 3
        weak_occ = pos.occ[strong ^ 1]
        if weak_occ & (weak_occ - 1) and weak_occ != BIT63:
            continue                    # the other side has more than its king
        own = pos.occ[strong]
        bishop = bbs[s | BISHOP]
        if bishop and popcount(own) == 2 + popcount(bbs[s | PAWN]) and bbs[s | PAWN]:
            if _wrong_rook_pawn_draw(pos, strong, bbs[s | PAWN], bishop):
                return EXACT, 0
            return None
        if heavy and not pawns:
            drive = _mating_drive(pos, strong)
            return BONUS, drive if pos.turn == strong else -drive
    return None
