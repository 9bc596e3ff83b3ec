"""Bitboards as plain ints, and the attack tables built once at import.

Sliders are looked up in one dict per square keyed by the occupancy masked to the
squares that matter (``ROOK_TABLE[sq][occ & ROOK_MASK[sq]]``): in CPython a dict lookup
beats a magic multiply.  The tables are filled rank by rank from small per-line tables,
which keeps import time to a few tens of milliseconds.

Bit 63 (h8) is stored as BIT63.  On PyPy that is the sign bit (-2**63): an int must fit a
signed machine word to stay unboxed there, and a list holding a single bigger one is
boxed as a whole, so with plain ints every bitboard with h8 set would be a big int and
most tables lists of boxed objects (figures: docs/measurements.md, "Speed").  On CPython
it is 2**63 as usual (negative ints cost its bitwise operations more).  What the signed
form (SIGNED true) asks of code handling bitboards:
  - a bitboard with h8 set is negative: walk its squares from the top only after taking
    h8 out (``if bb < 0``), and count them with ``popcount``, not ``int.bit_count``;
  - ``bb.bit_length() - 1`` is still the square of a one-square bitboard (a king's);
  - ``bb & (bb - 1)`` and ``bb & -bb`` overflow for h8 alone: test ``bb != BIT63`` too;
  - a shift into bit 63 gives 2**63, not BIT63: pass such a set through ``to_bitboard``;
  - tables and constants come from here, already in this form; ``unsigned(bb)`` gives the
    plain 64-bit value (Polyglot keys, the KPK solver, python-chess in the tests);
  - a value computed through big ints that fits a word (``x & BB_ALL``, ``x - 2**64``) is
    still a big-int object on PyPy, slow in every operation it meets: keep such values
    (constants, table entries, anything stored) through ``machine_int`` or ``to_bitboard``.
BASILISK_SIGNED_BITBOARDS=1 selects the signed form on CPython too, so that the tests
check it on either interpreter (tests/test_bitboard_form.py).  In the plain form those h8
tests are dead comparisons: the hottest functions carry ``engine.jit.for_bitboard_form``,
which compiles them again without the tests written in its shapes.
"""

import os
import struct
import sys

_PYPY = sys.implementation.name == "pypy"
SIGNED = _PYPY or os.environ.get("BASILISK_SIGNED_BITBOARDS") == "1"
BIT63 = -(1 << 63) if SIGNED else 1 << 63
_PACK_SIGNED = struct.Struct("<q")


def machine_int(x):
    """x, which fits a signed 64-bit word, as an int PyPy keeps unboxed.

    On PyPy an int computed from a big int (``x & (2**64 - 1)``, ``x - 2**64``) stays a big
    int object even when its value is small, and every operation on it, and on whatever
    it is combined with, goes through big-int arithmetic; a constant or a table entry made
    that way slows every use.  Packing it into a machine word and back gives a plain one.
    On CPython there is one kind of int and x is returned as it is.
    """
    return _PACK_SIGNED.unpack(_PACK_SIGNED.pack(x))[0] if _PYPY else x


BB_ALL = (1 << 64) - 1          # the plain 64-bit mask (see unsigned)
# The lookup tables are tuples: CPython's engine.jit folds a tuple of ints into the
# functions that read it, as a constant (no global lookup), and PyPy's JIT reads an
# immutable table more cheaply (docs/measurements.md, "Speed", session 92)
BB_SQUARES = tuple(1 << sq for sq in range(64))
BB_FILES = tuple(0x0101010101010101 << f for f in range(8))
BB_RANKS = tuple(0xFF << (8 * r) for r in range(8))


def _bit_count_fallback(bb):
    return bin(bb).count("1")


try:
    bit_count = int.bit_count       # CPython 3.10+, PyPy 7.3.11's 3.9
except AttributeError:              # an older PyPy
    bit_count = _bit_count_fallback


def _signed_popcount(bb):
    return bit_count(bb) if bb >= 0 else bit_count(bb & 0x7FFFFFFFFFFFFFFF) + 1


# the squares of a bitboard (engine.jit.for_bitboard_form writes it out where it is hot)
popcount = _signed_popcount if SIGNED else bit_count


def unsigned(bb):
    """The plain 64-bit value of a bitboard (h8 as 2**63)."""
    return bb & BB_ALL


def to_bitboard(x):
    """A 64-bit set given as a plain int (bits above 63 dropped), in this module's form."""
    x &= BB_ALL
    if SIGNED:
        return machine_int(x - (1 << 64) if x >> 63 else x)
    return x


def squares_of(bb):
    """Square indices of the set bits, lowest first (castling paths, pins: keep it cheap)."""
    h8 = bb & BIT63         # h8 taken out first: machine-word operations only, on PyPy too
    bb ^= h8
    out = []
    while bb:
        low = bb & -bb
        out.append(low.bit_length() - 1)
        bb ^= low
    if h8:
        out.append(63)
    return out


def _step_attacks(deltas):
    table = []
    for sq in range(64):
        f, r = sq & 7, sq >> 3
        bb = 0
        for df, dr in deltas:
            nf, nr = f + df, r + dr
            if 0 <= nf < 8 and 0 <= nr < 8:
                bb |= 1 << (nr * 8 + nf)
        table.append(bb)
    return tuple(table)


KNIGHT_ATTACKS = _step_attacks([(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)])
KING_ATTACKS = _step_attacks([(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)])
# PAWN_ATTACKS[colour][sq]: squares a pawn of that colour on sq attacks.
PAWN_ATTACKS = (_step_attacks([(-1, 1), (1, 1)]), _step_attacks([(-1, -1), (1, -1)]))

ROOK_DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1))
BISHOP_DIRECTIONS = ((1, 1), (-1, 1), (1, -1), (-1, -1))


def slider_attacks_slow(sq, occupied, directions):
    """Reference ray walk: attacks from sq stopping at the first blocker (tests and tables)."""
    bb = 0
    f0, r0 = sq & 7, sq >> 3
    for df, dr in directions:
        f, r = f0 + df, r0 + dr
        while 0 <= f < 8 and 0 <= r < 8:
            bit = 1 << (r * 8 + f)
            bb |= bit
            if occupied & bit:
                break
            f += df
            r += dr
    return bb


def _relevant_mask(sq, directions):
    """Squares whose occupancy changes the attack set: each ray without its last square."""
    bb = 0
    f0, r0 = sq & 7, sq >> 3
    for df, dr in directions:
        f, r = f0 + df, r0 + dr
        ray = []
        while 0 <= f < 8 and 0 <= r < 8:
            ray.append(r * 8 + f)
            f += df
            r += dr
        for s in ray[:-1]:
            bb |= 1 << s
    return bb


def _ray_table(sq, direction_pairs):
    """{masked occupancy: attacks} for one square and a pair of opposite directions, the
    attacks already in this module's form (so their products are: PyPy's start-up does
    not convert 107,648 entries afterwards; this module's import 185 -> 148 ms)."""
    mask = _relevant_mask(sq, direction_pairs)
    table = {}
    sub = 0
    while True:
        table[sub] = to_bitboard(slider_attacks_slow(sq, sub, direction_pairs))
        sub = (sub - mask) & mask
        if sub == 0:
            break
    return mask, table


def _combined_table(sq, line_a, line_b):
    """Product of two line tables: {occ & (mask_a | mask_b): attacks_a | attacks_b}."""
    mask_a, table_a = _ray_table(sq, line_a)
    mask_b, table_b = _ray_table(sq, line_b)
    items_b = list(table_b.items())
    return mask_a | mask_b, {occ_a | occ_b: att_a | att_b
                             for occ_a, att_a in table_a.items() for occ_b, att_b in items_b}


ROOK_MASK, ROOK_TABLE, BISHOP_MASK, BISHOP_TABLE = [], [], [], []
for _sq in range(64):
    _m, _t = _combined_table(_sq, ((1, 0), (-1, 0)), ((0, 1), (0, -1)))
    ROOK_MASK.append(_m)
    ROOK_TABLE.append(_t)
    _m, _t = _combined_table(_sq, ((1, 1), (-1, -1)), ((-1, 1), (1, -1)))
    BISHOP_MASK.append(_m)
    BISHOP_TABLE.append(_t)
ROOK_MASK, ROOK_TABLE = tuple(ROOK_MASK), tuple(ROOK_TABLE)
BISHOP_MASK, BISHOP_TABLE = tuple(BISHOP_MASK), tuple(BISHOP_TABLE)


# Attacks on an empty board: a table lookup that rules out most slider tests before the
# masked dict lookup.
ROOK_RAYS = tuple(ROOK_TABLE[sq][0] for sq in range(64))
BISHOP_RAYS = tuple(BISHOP_TABLE[sq][0] for sq in range(64))


def _lines():
    between = [[0] * 64 for _ in range(64)]
    line = [[0] * 64 for _ in range(64)]
    for a in range(64):
        for df, dr in ROOK_DIRECTIONS + BISHOP_DIRECTIONS:
            ray = slider_attacks_slow(a, 0, ((df, dr),))
            full = ray | slider_attacks_slow(a, 0, ((-df, -dr),)) | 1 << a
            for b in range(64):
                if ray >> b & 1:
                    line[a][b] = full
                    between[a][b] = ray & slider_attacks_slow(b, 0, ((-df, -dr),)) & ~(1 << b)
    return tuple(map(tuple, between)), tuple(map(tuple, line))


# BETWEEN[a][b]: squares strictly between two aligned squares (0 otherwise).
# LINE[a][b]: the whole rank, file or diagonal through both (0 when not aligned).
BETWEEN, LINE = _lines()


def fill_north(bb):
    """Each set square and every square above it; plain 64-bit in and out (see unsigned)."""
    bb |= bb << 8
    bb |= bb << 16
    bb |= bb << 32
    return bb & BB_ALL


def fill_south(bb):
    """Each set square and every square below it; plain 64-bit in and out."""
    bb |= bb >> 8
    bb |= bb >> 16
    bb |= bb >> 32
    return bb


def _in_this_form(table):
    """A table (tuples and dicts of bitboards, nested) with every bitboard via to_bitboard."""
    if isinstance(table, tuple):
        return tuple(_in_this_form(item) for item in table)
    if isinstance(table, dict):
        return {key: to_bitboard(value) for key, value in table.items()}
    return to_bitboard(table)


if SIGNED:       # (the slider tables and rays are built in this form)
    (BB_SQUARES, BB_FILES, BB_RANKS, KNIGHT_ATTACKS, KING_ATTACKS, PAWN_ATTACKS, BETWEEN,
     LINE) = _in_this_form((BB_SQUARES, BB_FILES, BB_RANKS, KNIGHT_ATTACKS, KING_ATTACKS,
                            PAWN_ATTACKS, BETWEEN, LINE))

# named from the tables, so in this module's form
BB_FILE_A, BB_FILE_H = BB_FILES[0], BB_FILES[7]
# A complement is x ^ ALL_SQUARES: on CPython a plain 64-bit value, where ~x is negative and
# each later & with it takes CPython's slower path for negative ints (31 against 20 ns);
# in the signed form -1, so ~x itself
ALL_SQUARES = -1 if SIGNED else BB_ALL
NOT_KING_ATTACKS = tuple(att ^ ALL_SQUARES for att in KING_ATTACKS)
BB_RANK_1, BB_RANK_2, BB_RANK_3, BB_RANK_4 = BB_RANKS[0], BB_RANKS[1], BB_RANKS[2], BB_RANKS[3]
BB_RANK_5, BB_RANK_6, BB_RANK_7, BB_RANK_8 = BB_RANKS[4], BB_RANKS[5], BB_RANKS[6], BB_RANKS[7]
BB_LIGHT_SQUARES = to_bitboard(0x55AA55AA55AA55AA)
BB_DARK_SQUARES = to_bitboard(0xAA55AA55AA55AA55)
