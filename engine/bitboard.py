"""Bitboards as plain ints, and the attack tables built once at import.

Sliders are looked up in one dict per square keyed by the occupancy masked to the
squares that matter (``ROOK_TABLE[sq][occ & ROOK_MASK[sq]]``): in CPython a dict lookup
beats a magic multiply.  The tables are filled rank by rank from small per-line tables,
which keeps import time to a few tens of milliseconds.
"""

BB_ALL = (1 << 64) - 1
BB_SQUARES = [1 << sq for sq in range(64)]
BB_FILES = [0x0101010101010101 << f for f in range(8)]
BB_RANKS = [0xFF << (8 * r) for r in range(8)]
BB_FILE_A, BB_FILE_H = BB_FILES[0], BB_FILES[7]
BB_RANK_1, BB_RANK_2, BB_RANK_3, BB_RANK_4 = BB_RANKS[0], BB_RANKS[1], BB_RANKS[2], BB_RANKS[3]
BB_RANK_5, BB_RANK_6, BB_RANK_7, BB_RANK_8 = BB_RANKS[4], BB_RANKS[5], BB_RANKS[6], BB_RANKS[7]
BB_LIGHT_SQUARES = 0x55AA55AA55AA55AA
BB_DARK_SQUARES = 0xAA55AA55AA55AA55


def _bit_count_fallback(bb):
    return bin(bb).count("1")


try:
    popcount = int.bit_count      # CPython 3.10+
except AttributeError:            # PyPy 3.9
    popcount = _bit_count_fallback


def squares_of(bb):
    """Square indices of the set bits, lowest first (for non-hot code)."""
    out = []
    while bb:
        low = bb & -bb
        out.append(low.bit_length() - 1)
        bb ^= low
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
    return table


KNIGHT_ATTACKS = _step_attacks([(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)])
KING_ATTACKS = _step_attacks([(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)])
# PAWN_ATTACKS[colour][sq]: squares a pawn of that colour on sq attacks.
PAWN_ATTACKS = [_step_attacks([(-1, 1), (1, 1)]), _step_attacks([(-1, -1), (1, -1)])]

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
    """{masked occupancy: attacks} for one square and a pair of opposite directions."""
    mask = _relevant_mask(sq, direction_pairs)
    table = {}
    sub = 0
    while True:
        table[sub] = slider_attacks_slow(sq, sub, direction_pairs)
        sub = (sub - mask) & mask
        if sub == 0:
            break
    return mask, table


def _combined_table(sq, line_a, line_b):
    """Product of two line tables: {occ & (mask_a | mask_b): attacks_a | attacks_b}."""
    mask_a, table_a = _ray_table(sq, line_a)
    mask_b, table_b = _ray_table(sq, line_b)
    items_b = list(table_b.items())
    table = {}
    for occ_a, att_a in table_a.items():
        for occ_b, att_b in items_b:
            table[occ_a | occ_b] = att_a | att_b
    return mask_a | mask_b, table


ROOK_MASK, ROOK_TABLE, BISHOP_MASK, BISHOP_TABLE = [], [], [], []
for _sq in range(64):
    _m, _t = _combined_table(_sq, ((1, 0), (-1, 0)), ((0, 1), (0, -1)))
    ROOK_MASK.append(_m)
    ROOK_TABLE.append(_t)
    _m, _t = _combined_table(_sq, ((1, 1), (-1, -1)), ((-1, 1), (1, -1)))
    BISHOP_MASK.append(_m)
    BISHOP_TABLE.append(_t)


# Attacks on an empty board: a list lookup that rules out most slider tests before the
# masked dict lookup.
ROOK_RAYS = [ROOK_TABLE[sq][0] for sq in range(64)]
BISHOP_RAYS = [BISHOP_TABLE[sq][0] for sq in range(64)]


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
    return between, line


# BETWEEN[a][b]: squares strictly between two aligned squares (0 otherwise).
# LINE[a][b]: the whole rank, file or diagonal through both (0 when not aligned).
BETWEEN, LINE = _lines()


def fill_north(bb):
    bb |= bb << 8
    bb |= bb << 16
    bb |= bb << 32
    return bb & BB_ALL


def fill_south(bb):
    bb |= bb >> 8
    bb |= bb >> 16
    bb |= bb >> 32
    return bb
