"""The evaluation network: a 768 -> 2 x H -> 1 net evaluated with Python's big ints.

Each side's view has H hidden units: the sum of one weight row per piece (its colour
relative to that side, its type, its square, flipped for black) plus a bias, clipped to
[0, 255] (CReLU at the quantisation of scripts/train_nnue.py, which writes the weights).
The side to move's units and then the other side's feed one output, in centipawns.

Both views' units live in one int as 2H lanes of 16 bits (white's view in the low H),
added to the piece-square score of engine.psqt, which make/unmake already keep: with the
network on, ``PSQ[piece][sq]`` is the piece's two weight rows plus the packed piece-square
score shifted above the lanes, so a move updates the accumulator with the additions it
makes anyway.  ``split(psq)`` gives back (lanes, packed piece-square score); ``score``
clips the lanes with a handful of whole-int operations and takes the output's dot product
over them (in C on CPython, through audioop).

The network is on by default with the weights shipped beside this module (``DEFAULT``).
``BASILISK_NNUE`` names another weights file, or is ``off`` (or empty) to play on the
evaluation's terms alone.  A file that cannot be read leaves the network off and says why
in ``PROBLEM`` (the UCI loop reports it as an error).  A file whose flags say residual holds
a network fitted to what the terms miss: engine.evaluate adds its score to theirs.
"""

import os
import struct
import sys
import warnings
from array import array
from operator import mul
from pathlib import Path

try:                            # a dot product in C on CPython (the module ends with 3.12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from audioop import findfactor
except ImportError:
    findfactor = None

QA, QB = 255, 64
SCALE = 400                 # centipawns of one unit of the float network's output


def _load(path):
    data = Path(path).read_bytes()
    if data[:4] != b"BNN1":
        raise ValueError("not a Basilisk network")
    if len(data) < 14:
        raise ValueError("cut short")
    hidden, head_len, b2, flags = struct.unpack_from("<HHiH", data, 4)
    start = 14 + head_len
    header = data[14:start].decode()
    w = array("h")
    w.frombytes(data[start:])
    if not hidden or len(w) != 768 * hidden + hidden + 2 * hidden:
        raise ValueError("the wrong size for %d hidden units" % hidden)
    if array("h", [1]).tobytes() != b"\x01\x00":
        w.byteswap()
    w1 = [w[i * hidden:(i + 1) * hidden] for i in range(768)]
    b1 = w[768 * hidden:769 * hidden]
    w2 = w[769 * hidden:]
    return hidden, w1, b1, w2, b2, bool(flags & 1), header


def _lanes(values, first):
    """Signed values as an exact int of 16-bit lanes starting at lane first."""
    total = 0
    for i, v in enumerate(values):
        total += v << (16 * (first + i))
    return total


DEFAULT = Path(__file__).with_name("nnue-r6-s100.bin")
OFF = ("", "0", "off", "none", "false")


def _choose():
    """(weights or None, what went wrong or None)."""
    setting = os.environ.get("BASILISK_NNUE")
    if setting is None:
        path = DEFAULT
    elif setting.strip().lower() in OFF:
        return None, None
    else:
        path = Path(setting)
    try:
        return _load(path), None
    except OSError as exc:
        problem = exc.strerror or str(exc)
    except ValueError as exc:                   # UnicodeDecodeError among them
        problem = str(exc)
    return None, ("network %s not loaded (%s): playing on the evaluation's terms alone"
                  % (path, problem))


_weights, PROBLEM = _choose()
ENABLED = _weights is not None
RESIDUAL = False
if ENABLED:
    HIDDEN, _W1, _B1, _W2, _B2, RESIDUAL, HEADER = _weights
    LANES = 2 * HIDDEN
    SHIFT = 16 * LANES                     # the packed piece-square score sits above the lanes
    LANE_MASK = (1 << SHIFT) - 1
    ONES = _lanes([1] * LANES, 0)
    # the biases, and 2^15 in every lane so each lane reads as an unsigned 16-bit number
    OFFSET = _lanes([b + 0x8000 for b in _B1], 0) + _lanes([b + 0x8000 for b in _B1], HIDDEN)
    _CLIP_TOP = (0x8000 - QA) * ONES
    # output weights by the side to move: its own view's units first
    _OUT_WHITE = tuple(_W2)
    _OUT_BLACK = tuple(_W2[HIDDEN:]) + tuple(_W2[:HIDDEN])
    _DIV = QA * QB


def accumulator_rows(psq_tables):
    """PSQ tables (piece -> 64 packed scores) with each piece's weight rows added below."""
    tables = list(psq_tables)
    for piece, table in enumerate(psq_tables):
        if piece & 7 in (0, 7):               # no such piece
            continue
        colour, ptype = piece >> 3, (piece & 7) - 1
        rows = []
        for sq in range(64):
            white_view = (colour * 6 + ptype) * 64 + sq
            black_view = ((1 - colour) * 6 + ptype) * 64 + (sq ^ 56)
            rows.append(_lanes(_W1[white_view], 0) + _lanes(_W1[black_view], HIDDEN)
                        + (table[sq] << SHIFT))
        tables[piece] = rows
    return tables


def split(psq):
    """(lanes, packed piece-square score) of a position's psq field."""
    t = psq + OFFSET
    return t & LANE_MASK, t >> SHIFT


def evaluate(psq, turn):
    """The network's centipawns for the side to move, from a position's psq field."""
    return score((psq + OFFSET) & LANE_MASK, turn)


def score(lanes, turn):
    """The network's centipawns for the side to move (turn 0 white, 1 black)."""
    ones = ONES
    positive = (lanes >> 15) & ones                    # lanes at or above the 2^15 offset
    lanes &= positive * 0x7FFF                         # the others 0, these less the offset
    top = ((lanes + _CLIP_TOP) >> 15) & ones           # lanes at or above QA
    lanes = (lanes & ~(top * 0xFFFF)) | (top * QA)     # each lane now an int16 in [0, QA]
    total = _dot(lanes, turn) + _B2
    if total >= 0:
        return total * SCALE // _DIV
    return -(-total * SCALE // _DIV)


def _dot_by_map(lanes, turn):
    """The clipped units' dot product with the output weights."""
    units = lanes.to_bytes(SHIFT >> 3, "little")[::2]
    return sum(map(mul, units, _OUT_BLACK if turn else _OUT_WHITE))


def _dot_by_findfactor(lanes, turn):
    """_dot_by_map by audioop.findfactor, which returns sum(a*b) / sum(b*b) over two int16
    arrays, each summed exactly in a double (every term is below 2^23 in size), so
    times _NORM and rounded it is the exact integer.  2.1 -> 0.25 us for 32 hidden units
    (CPython 3.11)."""
    return round(findfactor(lanes.to_bytes(SHIFT >> 3, sys.byteorder),
                            _OUT_BLACK_INT16 if turn else _OUT_WHITE_INT16) * _NORM)


if ENABLED:
    _OUT_WHITE_INT16 = array("h", _OUT_WHITE).tobytes()
    _OUT_BLACK_INT16 = array("h", _OUT_BLACK).tobytes()
    _NORM = sum(w * w for w in _OUT_WHITE)
# PyPy's audioop is written in Python (86 us a call, against 0.7 for its JIT's map and sum)
FAST_DOT = (ENABLED and findfactor is not None and sys.implementation.name == "cpython"
            and _NORM > 0)
_dot = _dot_by_findfactor if FAST_DOT else _dot_by_map
