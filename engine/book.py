"""Polyglot opening books: the project's own reader.

    book = Book("data/books/8moves_v3.bin")     # BookError if the file is not a book
    book.entries(pos)               # [(move, weight)] for the legal book moves, file order
    book.choose(pos, rng)           # a move drawn by weight (0 if none), or with
    book.choose(pos, rng, best_only=True)       # the highest-weight move

A book is a file of 16-byte big-endian entries (key u64, move u16, weight u16, learn u32)
sorted by key, the key being the Polyglot hash of the position (``polyglot_key``).  The
whole file is read into memory once and searched by bisection.  A book move is matched
against ``generate_moves``, so only legal moves come out.  Polyglot writes castling as
king takes own rook (e1h1), as Basilisk's castling moves are encoded.  Standard chess
only: a Chess960 position's castling rights hash as python-chess hashes them, but a
standard book knows no Chess960 openings.
"""

import os
import stat
import struct

from engine.bitboard import PAWN_ATTACKS, squares_of
from engine.movegen import generate_moves
from engine.streams import os_path
from engine.types import WHITE, BLACK, PAWN, KING, CASTLE_KING, CASTLE_QUEEN, PROMOTION
from engine.zobrist import POLYGLOT_RANDOM

ENTRY = struct.Struct(">QHHI")
ENTRY_BYTES = ENTRY.size                # 16
KEY = struct.Struct(">Q")
MAX_BOOK_BYTES = 512 << 20              # bigger than any real book; guards memory and time
SORT_SAMPLES = 2048                     # entries checked for key order when a book is opened

_POLYGLOT_CASTLE = (768, 769, 770, 771)     # white h-side, white a-side, black h-side, a-side
_POLYGLOT_EP_FILE = 772
_POLYGLOT_WHITE_TO_MOVE = 780


class BookError(Exception):
    """A book file that cannot be used; the message says which file and why."""


# ---------------------------------------------------------------------- keys and moves
def polyglot_key(pos):
    """The Polyglot hash of pos, computed from the board alone (not from ``pos.key``)."""
    key = 0
    for sq, piece in enumerate(pos.board):
        if piece:
            kind = 2 * ((piece & 7) - 1) + (1 if piece >> 3 == WHITE else 0)
            key ^= POLYGLOT_RANDOM[64 * kind + sq]
    for rook_sq in squares_of(pos.castling):
        color = WHITE if rook_sq < 8 else BLACK
        king_sq = pos.bbs[color << 3 | KING].bit_length() - 1
        key ^= POLYGLOT_RANDOM[_POLYGLOT_CASTLE[2 * color + (0 if rook_sq > king_sq else 1)]]
    ep = pos.ep
    us = pos.turn
    # Polyglot hashes the en-passant file only when a pawn of the side to move could take
    if ep and PAWN_ATTACKS[us ^ 1][ep] & pos.bbs[us << 3 | PAWN]:
        key ^= POLYGLOT_RANDOM[_POLYGLOT_EP_FILE + (ep & 7)]
    if us == WHITE:
        key ^= POLYGLOT_RANDOM[_POLYGLOT_WHITE_TO_MOVE]
    return key


def polyglot_moves(pos):
    """{Polyglot move code: legal move} for pos.

    A code is ``to | from << 6 | promotion << 12`` (promotion 1..4 = N, B, R, Q).
    Castling is king takes rook, which Basilisk's castling moves already are; a standard
    castling move is also found as the king's two-square step (e1g1), which python-chess
    accepts too (no king move can be written that way).
    """
    codes = {}
    for move in generate_moves(pos):
        from_sq = move & 63
        to_sq = move >> 6 & 63
        flag = move >> 12
        code = to_sq | from_sq << 6
        if flag & PROMOTION:
            code |= ((flag & 3) + 1) << 12
        codes[code] = move
        if flag in (CASTLE_KING, CASTLE_QUEEN) and from_sq & 7 == 4 and to_sq & 7 in (0, 7):
            king_to = (from_sq & 56) | (6 if flag == CASTLE_KING else 2)
            codes[king_to | from_sq << 6] = move
    return codes


# ---------------------------------------------------------------------- the book
class Book:
    """A Polyglot book read into memory; raises BookError if path is not a usable book."""

    def __init__(self, path):
        self.path = path
        self.data = _read_book_file(path)
        self.count = len(self.data) // ENTRY_BYTES
        _check_entries(self.data, self.count, path)

    def __len__(self):
        return self.count

    def _first_index(self, key):
        """Index of the first entry whose key is not below key (bisection)."""
        data = self.data
        lo, hi = 0, self.count
        while lo < hi:
            mid = (lo + hi) // 2
            if KEY.unpack_from(data, mid * ENTRY_BYTES)[0] < key:
                lo = mid + 1
            else:
                hi = mid
        return lo

    def raw_entries(self, key):
        """[(move code, weight, learn)] of the entries stored under key, in file order."""
        data = self.data
        out = []
        index = self._first_index(key)
        while index < self.count:
            entry_key, code, weight, learn = ENTRY.unpack_from(data, index * ENTRY_BYTES)
            if entry_key != key:
                break
            out.append((code, weight, learn))
            index += 1
        return out

    def entries(self, pos):
        """[(move, weight)] of the book's legal moves in pos, in file order (weight 0 too)."""
        raw = self.raw_entries(polyglot_key(pos))
        if not raw:
            return []
        codes = polyglot_moves(pos)
        out = []
        for code, weight, _learn in raw:
            move = codes.get(code)
            if move is not None:       # an entry that is no legal move here is skipped
                out.append((move, weight))
        return out

    def choose(self, pos, rng, best_only=False, allowed=None):
        """A book move for pos, or 0: drawn with probability weight / total among the
        moves of weight > 0 (the Polyglot convention), or the first of the highest
        weight if best_only.  ``allowed``: if given, only these moves count."""
        return pick(self.candidates(pos, allowed), rng, best_only)[0]

    def candidates(self, pos, allowed=None):
        """[(move, weight)] of the book moves of weight > 0 (within allowed, if given)."""
        return [(move, weight) for move, weight in self.entries(pos)
                if weight > 0 and (allowed is None or move in allowed)]


def pick(candidates, rng, best_only=False):
    """(move, weight, total) drawn from [(move, weight > 0)]; (0, 0, 0) if empty."""
    total = sum(weight for _, weight in candidates)
    if not candidates or total <= 0:
        return 0, 0, 0
    if best_only:
        move, weight = max(candidates, key=lambda entry: entry[1])   # max keeps the first
        return move, weight, total
    point = rng.randrange(total)
    for move, weight in candidates:
        point -= weight
        if point < 0:
            return move, weight, total
    raise AssertionError("weights do not add up")


# ---------------------------------------------------------------------- file checks
def _read_book_file(path):
    if not path:
        raise BookError("no book file given")
    shown = repr(path)
    try:
        info = os.stat(os_path(path))
        # a FIFO or device could block or never end: only a regular file is read
        if not stat.S_ISREG(info.st_mode):
            raise BookError("book file %s is not a regular file" % shown)
        if info.st_size > MAX_BOOK_BYTES:
            raise BookError("book file %s is too big (%d bytes; at most %d)"
                            % (shown, info.st_size, MAX_BOOK_BYTES))
        with open(os_path(path), "rb") as handle:
            # the size stat() gave: read(n) with a much larger n costs PyPy ~0.5 s
            data = handle.read(info.st_size)
    except (OSError, ValueError) as exc:       # ValueError: a NUL in the name
        raise BookError("cannot read book file %s: %s" % (shown, getattr(exc, "strerror", None)
                                                          or exc)) from None
    if not data:
        raise BookError("book file %s is empty" % shown)
    if len(data) % ENTRY_BYTES:
        raise BookError("book file %s is not a Polyglot book: its size (%d bytes) is not a "
                        "multiple of %d (truncated?)" % (shown, len(data), ENTRY_BYTES))
    return data


def _check_entries(data, count, path):
    """Cheap plausibility checks on a sample of entries: keys ascending, moves sane."""
    step = max(1, count // SORT_SAMPLES)
    previous_key = 0
    for index in list(range(0, count, step)) + [count - 1]:
        key, code, _weight, _learn = ENTRY.unpack_from(data, index * ENTRY_BYTES)
        next_key = KEY.unpack_from(data, (index + 1) * ENTRY_BYTES)[0] if index + 1 < count else key
        if not previous_key <= key <= next_key:
            raise BookError("book file %r is not a Polyglot book: its keys are not sorted"
                            % (path,))
        # the from and to squares differ, and the promotion piece is 0..4 (none, N, B, R, Q)
        if code & 63 == code >> 6 & 63 or code >> 12 > 4:
            raise BookError("book file %r is not a Polyglot book: entry %d holds no move (%04x)"
                            % (path, index, code))
        previous_key = key
