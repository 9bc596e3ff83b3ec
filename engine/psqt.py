"""Material plus piece-square values, kept incrementally by make/unmake.

A score is packed as one int, ``eg << 16 + mg`` (``pack``), so make/unmake update the
middlegame and endgame halves with a single addition; ``unpack`` splits it again.
``PSQ_TERMS[piece][sq]`` holds the packed value of that coloured piece on that square, from
white's point of view (black's entries are negated mirrors of white's).  ``PSQ`` is what
make/unmake add: those values, with the network's accumulator rows below them where the
network is on (engine.nnue).

The values come from engine.weights: material by piece type (``MATERIAL_MG``,
``MATERIAL_EG``) and the piece-square tables, which it lays out as printed (a8 first);
``PST_MG``/``PST_EG`` are those re-indexed by our squares (a1 = 0).
"""

from engine import nnue
from engine.types import PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING, WHITE, BLACK
from engine.weights import MATERIAL_EG, MATERIAL_MG, PIECE_SQUARE_EG, PIECE_SQUARE_MG


def pack(mg, eg):
    return (eg << 16) + mg


def unpack(packed):
    """(mg, eg) of a packed score; each half must stay within +-32767."""
    mg = ((packed + 0x8000) & 0xFFFF) - 0x8000
    return mg, (packed - mg) >> 16


def _from_printed(printed):
    """A printed table (a8 first) re-indexed by our squares (a1 = 0): flip the rank."""
    return [printed[sq ^ 56] for sq in range(64)]


# Piece-square tables from white's side, index = square (a1 = 0).
PST_MG = {pt: _from_printed(t) for pt, t in PIECE_SQUARE_MG.items()}
PST_EG = {pt: _from_printed(t) for pt, t in PIECE_SQUARE_EG.items()}


def _build():
    table = [[0] * 64 for _ in range(16)]
    for pt in (PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING):
        for sq in range(64):
            mg = MATERIAL_MG[pt] + PST_MG[pt][sq]
            eg = MATERIAL_EG[pt] + PST_EG[pt][sq]
            table[WHITE << 3 | pt][sq] = pack(mg, eg)
            table[BLACK << 3 | pt][sq ^ 56] = -pack(mg, eg)
    return table


PSQ_TERMS = _build()
# what make/unmake add: with the network on, its accumulator rows below the packed scores
PSQ = nnue.accumulator_rows(PSQ_TERMS) if nnue.ENABLED else PSQ_TERMS
