"""Material plus piece-square values, kept incrementally by make/unmake.

A score is packed as one int, ``eg << 16 + mg`` (``pack``), so make/unmake update the
middlegame and endgame halves with a single addition; ``unpack`` splits it again.
``PSQ[piece][sq]`` holds the packed value of that coloured piece on that square, from
white's point of view (black's entries are negated mirrors of white's).
"""

from engine.types import PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING, WHITE, BLACK


def pack(mg, eg):
    return (eg << 16) + mg


def unpack(packed):
    """(mg, eg) of a packed score; each half must stay within +-32767."""
    mg = ((packed + 0x8000) & 0xFFFF) - 0x8000
    return mg, (packed - mg) >> 16


# Material (PeSTO's values).
MATERIAL_MG = {PAWN: 82, KNIGHT: 337, BISHOP: 365, ROOK: 477, QUEEN: 1025, KING: 0}
MATERIAL_EG = {PAWN: 94, KNIGHT: 281, BISHOP: 297, ROOK: 512, QUEEN: 936, KING: 0}

# Piece-square tables from white's side, index = square (a1 = 0).  Zero until tuned tables land.
PST_MG = {pt: [0] * 64 for pt in (PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING)}
PST_EG = {pt: [0] * 64 for pt in (PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING)}


def _build():
    table = [[0] * 64 for _ in range(16)]
    for pt in (PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING):
        for sq in range(64):
            mg = MATERIAL_MG[pt] + PST_MG[pt][sq]
            eg = MATERIAL_EG[pt] + PST_EG[pt][sq]
            table[WHITE << 3 | pt][sq] = pack(mg, eg)
            table[BLACK << 3 | pt][sq ^ 56] = -pack(mg, eg)
    return table


PSQ = _build()
