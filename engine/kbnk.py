"""King, bishop and knight against king: exact distance to mate, from a stored table.

``kbnk_dtm(strong_king, bishop, knight, weak_king, strong_to_move)`` is the number of plies
to mate with best play from that placement, or None where the strong side does not win
(the lone king takes an undefended piece or is stalemated, or the placement is illegal).
With no pawns the colours do not matter, so squares are given as they stand.

The table (``kbnk.bin`` beside this module) is written by ``scripts/make_kbnk.py``, which
solves the ending by retrograde analysis; it is read, about 5 MB, on the first probe.
It holds the rows of the strong king on the ten squares of the a1-d1-d4 triangle; any
other placement is first mapped there by one of the board's eight symmetries.
"""

import zlib
from pathlib import Path

TABLE_FILE = Path(__file__).resolve().parent / "kbnk.bin"
NOT_WON = 255
TRIANGLE = tuple(r * 8 + f for f in range(4) for r in range(f + 1))    # a1, b1, b2, c1, ...
_ROW = 64 ** 3
_SIDE = len(TRIANGLE) * _ROW


def _transforms():
    """The eight symmetries of the board, each a list square -> square."""
    maps = []
    for swap in (False, True):
        for flip_file in (False, True):
            for flip_rank in (False, True):
                table = []
                for sq in range(64):
                    f, r = sq & 7, sq >> 3
                    if swap:
                        f, r = r, f
                    if flip_file:
                        f = 7 - f
                    if flip_rank:
                        r = 7 - r
                    table.append(r * 8 + f)
                maps.append(table)
    return maps


_TRANSFORMS = _transforms()
_TRIANGLE_INDEX = {sq: i for i, sq in enumerate(TRIANGLE)}
# for each strong-king square: (the symmetry taking it into the triangle, its row there)
_CANONICAL = []
for _sq in range(64):
    for _t in _TRANSFORMS:
        if _t[_sq] in _TRIANGLE_INDEX:
            _CANONICAL.append((_t, _TRIANGLE_INDEX[_t[_sq]] * _ROW))
            break

_TABLE = []        # [the table's bytes], read on the first probe


def decode(data):
    """The table's bytes from the stored (compressed) form."""
    table = zlib.decompress(data)
    if len(table) != 2 * _SIDE:
        raise ValueError("KBNK table of %d bytes, not %d" % (len(table), 2 * _SIDE))
    return table


def _table():
    if not _TABLE:
        _TABLE.append(decode(TABLE_FILE.read_bytes()))
    return _TABLE


def kbnk_dtm(strong_king, bishop, knight, weak_king, strong_to_move):
    """Plies to mate for the side with bishop and knight, or None where it does not win."""
    t, row = _CANONICAL[strong_king]
    value = (_TABLE or _table())[0][(0 if strong_to_move else _SIDE) + row
                                    + (t[bishop] * 64 + t[knight]) * 64 + t[weak_king]]
    return None if value == NOT_WON else value
