"""Static evaluation (stub: tapered material + piece-square score; to be replaced)."""

from engine.bitboard import popcount
from engine.psqt import unpack
from engine.types import KNIGHT, BISHOP, ROOK, QUEEN, WHITE

PHASE_WEIGHTS = {KNIGHT: 1, BISHOP: 1, ROOK: 2, QUEEN: 4}
MAX_PHASE = 24


def game_phase(pos):
    """24 with all pieces on the board, 0 with none but kings and pawns."""
    bbs = pos.bbs
    phase = 0
    for pt, w in PHASE_WEIGHTS.items():
        phase += w * popcount(bbs[pt] | bbs[8 | pt])
    return min(phase, MAX_PHASE)


def evaluate(pos):
    """Centipawns from the side to move's point of view."""
    mg, eg = unpack(pos.psq)
    phase = game_phase(pos)
    score = (mg * phase + eg * (MAX_PHASE - phase)) // MAX_PHASE
    return score if pos.turn == WHITE else -score
