"""Moves as text: UCI long algebraic both ways, and SAN for display.

A UCI string is parsed by matching it against the generated legal moves, so nothing
illegal can come in this way.  Castling is written king-to-destination (``e1g1``) in
standard mode and king-takes-rook (``e1h1``) when ``chess960`` is set, as UCI_Chess960
asks; in standard mode king-takes-rook is accepted on input too.
"""

from engine.movegen import generate_moves
from engine.types import (SQUARE_NAMES, PIECE_SYMBOLS, CASTLE_KING, CASTLE_QUEEN, PAWN,
                          KING, CAPTURE, PROMOTION, KNIGHT, EP_CAPTURE)

_PROMO_LETTERS = "nbrq"


def move_to_uci(move, chess960=False):
    """'e2e4', 'e7e8q', 'e1g1' (or 'e1h1' with chess960); '0000' for the null move."""
    if not move:
        return "0000"
    fr = move & 63
    to = move >> 6 & 63
    flag = move >> 12
    if flag in (CASTLE_KING, CASTLE_QUEEN) and not chess960:
        to = (fr & 56) | (6 if flag == CASTLE_KING else 2)
    text = SQUARE_NAMES[fr] + SQUARE_NAMES[to]
    if flag & PROMOTION:
        text += _PROMO_LETTERS[flag & 3]
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
            if move >> 12 in (CASTLE_KING, CASTLE_QUEEN) and move_to_uci(move, True) == text:
                return move
    return None


def move_to_san(pos, move, legal_moves=None):
    """Standard algebraic notation (without check marks), for display only."""
    if legal_moves is None:
        legal_moves = generate_moves(pos)
    fr = move & 63
    to = move >> 6 & 63
    flag = move >> 12
    if flag == CASTLE_KING:
        return "O-O"
    if flag == CASTLE_QUEEN:
        return "O-O-O"
    piece_type = pos.board[fr] & 7
    capture = bool(flag & CAPTURE) or flag == EP_CAPTURE
    if piece_type == PAWN:
        san = (SQUARE_NAMES[fr][0] + "x" if capture else "") + SQUARE_NAMES[to]
        if flag & PROMOTION:
            san += "=" + "NBRQ"[flag & 3]
        return san
    san = PIECE_SYMBOLS[piece_type]
    if piece_type != KING:
        rivals = [m for m in legal_moves if m != move and (m >> 6 & 63) == to
                  and pos.board[m & 63] & 7 == piece_type]
        if rivals:
            same_file = any((m & 7) == (fr & 7) for m in rivals)
            same_rank = any((m & 63) >> 3 == fr >> 3 for m in rivals)
            if not same_file:
                san += SQUARE_NAMES[fr][0]
            elif not same_rank:
                san += SQUARE_NAMES[fr][1]
            else:
                san += SQUARE_NAMES[fr]
    return san + ("x" if capture else "") + SQUARE_NAMES[to]
