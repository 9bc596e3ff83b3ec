"""An exact king-and-pawn-against-king bitbase, solved by retrograde analysis on first use.

``kpk_probe(strong_king, strong_pawn, weak_king, strong_to_move)`` is True when the side
with the pawn wins, False when it is a draw.  Squares are given from the pawn side's
point of view: pass ``strong_color=BLACK`` (or flip each square with ``relative_square``)
when black has the pawn, and any file works (files e-h are mirrored onto a-d inside).
``probe_position(pos)`` does all of that for a Position holding exactly K+P v K.

The table holds, for each pawn square (files a-d, ranks 2-7) and white king square, one
64-bit int per side to move whose set bits are the black-king squares where white wins;
illegal placements are never set.  The solve works on those ints, all 64 black-king
squares at once: about 40 ms on CPython 3.11, 0.2 s on pypy3 (tests/test_kpk.py times it).
Promotion is exact: a queen or rook that is neither lost at once nor stalemating wins.
"""

from engine.bitboard import (BB_ALL, BB_FILE_A, BB_FILE_H, KING_ATTACKS, PAWN_ATTACKS,
                             BISHOP_DIRECTIONS, ROOK_DIRECTIONS, popcount, slider_attacks_slow,
                             unsigned)
from engine.types import WHITE, BLACK, PAWN, KING

# The solver's sets are plain 64-bit ints (engine.bitboard's unsigned form) throughout.
_NOT_A = BB_ALL ^ unsigned(BB_FILE_A)
_NOT_H = BB_ALL ^ unsigned(BB_FILE_H)
KING_ATTACKS = [unsigned(bb) for bb in KING_ATTACKS]
PAWN_ATTACKS = [[unsigned(bb) for bb in row] for row in PAWN_ATTACKS]


def neighbours(bb):
    """Squares a king standing on any square of bb attacks (bb itself only where adjacent)."""
    side = (bb << 1 & _NOT_A) | (bb >> 1 & _NOT_H)
    column = side | bb
    return (side | column << 8 | column >> 8) & BB_ALL


def _promotion_wins(wk, queening_sq):
    """Black-king squares (black to move) where a white queen or rook just made on
    queening_sq wins: it cannot be taken at once and black is not stalemated."""
    wk_bb = 1 << wk
    guarded = KING_ATTACKS[wk] | wk_bb
    if queening_sq == wk:
        return 0
    takes = 0 if KING_ATTACKS[wk] >> queening_sq & 1 else KING_ATTACKS[queening_sq]
    wins = 0
    for directions in (ROOK_DIRECTIONS, ROOK_DIRECTIONS + BISHOP_DIRECTIONS):
        # the black king does not block the piece's lines: stepping back along one stays in check
        attacked = slider_attacks_slow(queening_sq, wk_bb, directions)
        free = BB_ALL & ~(attacked | guarded | 1 << queening_sq)
        stalemated = BB_ALL & ~attacked & ~neighbours(free)
        wins |= BB_ALL & ~takes & ~stalemated
    return wins & ~guarded & ~(1 << queening_sq)


def _solve():
    """(white_to_move, black_to_move): lists indexed pawn_sq * 64 + white_king -> bitboard of
    black-king squares that win for white (entries for pawns on files e-h stay 0)."""
    white_to_move = [0] * 4096
    black_to_move = [0] * 4096
    for pawn_file in range(4):
        for rank in range(6, 0, -1):        # rank 7 first: a pawn only ever moves up its file
            pawn = rank * 8 + pawn_file
            pawn_bb = 1 << pawn
            pawn_att = PAWN_ATTACKS[WHITE][pawn]
            push = pawn + 8
            row = pawn * 64
            kings = [wk for wk in range(64) if wk != pawn]
            valid_w, valid_b, dest_b, base_w, steps = {}, {}, {}, {}, {}
            for wk in kings:
                wk_bb = 1 << wk
                near = KING_ATTACKS[wk]
                valid_b[wk] = BB_ALL & ~(near | wk_bb | pawn_bb)
                # white to move: black is not in check
                valid_w[wk] = valid_b[wk] & ~pawn_att
                # where the black king may step (onto the pawn when the white king does not guard it)
                dest_b[wk] = BB_ALL & ~(near | pawn_att | wk_bb)
                base = 0
                if push != wk:
                    if rank == 6:
                        base = _promotion_wins(wk, push)
                    else:
                        base = black_to_move[push * 64 + wk] & ~(1 << push)
                        if rank == 1 and push + 8 != wk:
                            base |= black_to_move[(push + 8) * 64 + wk] & ~(1 << push | 1 << (push + 8))
                base_w[wk] = base & valid_w[wk]
                steps[wk] = [row + to for to in range(64) if near >> to & 1 and to != pawn]
                white_to_move[row + wk] = base_w[wk]
            changed = True
            while changed:
                changed = False
                for wk in kings:
                    dest = dest_b[wk]
                    escapes = dest & ~white_to_move[row + wk]
                    # every black move reaches a white win, and black has a move (or is mated)
                    black_to_move[row + wk] = (valid_b[wk] & ~neighbours(escapes)
                                               & (neighbours(dest) | pawn_att))
                for wk in kings:
                    wins = base_w[wk]
                    for idx in steps[wk]:
                        wins |= black_to_move[idx]
                    wins &= valid_w[wk]
                    if wins != white_to_move[row + wk]:
                        white_to_move[row + wk] = wins
                        changed = True
    return white_to_move, black_to_move


_TABLES = []        # [white-to-move rows, black-to-move rows], solved on the first probe


def _tables():
    """The solved tables: built when first needed (~40 ms on CPython, ~0.2 s on PyPy),
    so that start-up, which imports this module with the evaluation, does not pay for it."""
    if not _TABLES:
        _TABLES.extend(_solve())
    return _TABLES


def relative_square(color, sq):
    """The square as the given side sees it (rank mirrored for black)."""
    return sq ^ 56 if color == BLACK else sq


def kpk_probe(strong_king, strong_pawn, weak_king, strong_to_move, strong_color=WHITE):
    """True when the pawn side wins K+P v K with best play, False when it is a draw.

    Squares are as they stand on the board for ``strong_color`` (the pawn's owner); the
    position must be legal (pawn on ranks 2-7 of its side, kings apart, the side not to
    move not in check): an illegal one answers False.
    """
    if strong_color == BLACK:
        strong_king ^= 56
        strong_pawn ^= 56
        weak_king ^= 56
    if strong_pawn & 7 > 3:
        strong_king ^= 7
        strong_pawn ^= 7
        weak_king ^= 7
    table = (_TABLES or _tables())[0 if strong_to_move else 1]
    return bool(table[strong_pawn * 64 + strong_king] >> weak_king & 1)


def is_kpk(pos):
    """True when the position holds two kings and one pawn, nothing else."""
    bbs = pos.bbs
    pawns = bbs[PAWN] | bbs[8 | PAWN]
    return popcount(pos.occ[WHITE] | pos.occ[BLACK]) == 3 and popcount(pawns) == 1


def probe_position(pos):
    """kpk_probe for a K+P v K Position: (strong_color, True when that side wins)."""
    strong = WHITE if pos.bbs[PAWN] else BLACK
    s = strong << 3
    pawn = pos.bbs[s | PAWN].bit_length() - 1
    strong_king = pos.bbs[s | KING].bit_length() - 1
    weak_king = pos.bbs[(strong ^ 1) << 3 | KING].bit_length() - 1
    return strong, kpk_probe(strong_king, pawn, weak_king, pos.turn == strong, strong)


def win_count():
    """(white-to-move wins, black-to-move wins) over the a-d pawn files: a checksum for tests."""
    white_to_move, black_to_move = _tables()
    return sum(map(popcount, white_to_move)), sum(map(popcount, black_to_move))
