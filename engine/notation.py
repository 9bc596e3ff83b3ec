"""Moves as text: UCI long algebraic both ways.

A UCI string is parsed by matching it against the generated legal moves, so nothing
illegal can come in this way.  Castling is written king-to-destination (``e1g1``) in
standard mode and king-takes-rook (``e1h1``) when ``chess960`` is set, as UCI_Chess960
asks; in standard mode king-takes-rook is accepted on input too.
"""

from engine.movegen import generate_moves
from engine.types import (SQUARE_NAMES, CASTLE_KING, KNIGHT, BISHOP, ROOK, QUEEN, C1, G1,
                          move_from, move_to, move_flag, is_castle, promotion_type)

_PROMOTION_LETTERS = {KNIGHT: "n", BISHOP: "b", ROOK: "r", QUEEN: "q"}


def move_to_uci(move, chess960=False):
    """'e2e4', 'e7e8q', 'e1g1' (or 'e1h1' with chess960); '0000' for the null move."""
    if not move:
        return "0000"
    fr = move_from(move)
    to = move_to(move)
    if is_castle(move) and not chess960:
        # the king's destination on its own rank: g1/c1 (or g8/c8)
        to = (fr & 56) | (G1 if move_flag(move) == CASTLE_KING else C1)
    text = SQUARE_NAMES[fr] + SQUARE_NAMES[to]
    promoted = promotion_type(move)
    if promoted:
        text += _PROMOTION_LETTERS[promoted]
    return text


def parse_uci_move(pos, text, chess960=False, legal_moves=None):
    """The legal move written as ``text`` in this position, or None if there is none."""
    if not text.isascii():
        return None     # move text is ASCII (strip() would also take U+3000 or U+00A0 off)
    if legal_moves is None:
        legal_moves = generate_moves(pos)
    text = text.strip().lower()
    for move in legal_moves:
        if move_to_uci(move, chess960) == text:
            return move
    if not chess960:
        # also accept king-takes-rook castling when not in Chess960 mode
        for move in legal_moves:
            if is_castle(move) and move_to_uci(move, True) == text:
                return move
    return None
