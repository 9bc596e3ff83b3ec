#!/usr/bin/env python3
"""Solve king, bishop and knight against king by retrograde analysis and write the
distance-to-mate table engine.kbnk reads (``engine/kbnk.bin``).

    python3 scripts/make_kbnk.py          # about 30 s on CPython 3.11, 20 s under PyPy
    python3 scripts/make_kbnk.py --check  # solve again and compare with the stored file

The strong side is called white here; with no pawns the colours are interchangeable.  For
each white configuration (king, bishop, knight on three distinct squares) the solve keeps,
per side to move, one 64-bit set of the black-king squares already known to be won, and
grows them a ply at a time (as engine.kpk does for K+P v K):

- black to move is lost in <= n plies where every black king move reaches a square that
  is won for white to move in <= n - 1, with no capture of an undefended piece (K+B v K and
  K+N v K are draws) and no stalemate; mated (n = 0) where black is in check with no move;
- white to move wins in <= n plies where some white move reaches a position lost for
  black in <= n - 1 (the black king never blocks a white piece in a legal position: on an
  open line of the bishop it would be in check).

The file stores, for the white king on one of the ten squares of the a1-d1-d4 triangle
(every other square is mapped there by one of the board's eight symmetries), one byte per
(bishop, knight, black king) square and side to move: the plies to mate, or 255 where
white does not win (a draw, or an illegal placement); zlib-compressed.
"""

import argparse
import hashlib
import sys
import time
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engine.bitboard import (BB_ALL, BISHOP_DIRECTIONS, KING_ATTACKS, KNIGHT_ATTACKS,  # noqa: E402
                             slider_attacks_slow, squares_of, unsigned)
from engine.kbnk import TABLE_FILE, TRIANGLE, NOT_WON, decode  # noqa: E402
from engine.kpk import neighbours  # noqa: E402

# the solve's sets are plain 64-bit ints (engine.bitboard's unsigned form), as engine.kpk's
KING_ATTACKS = [unsigned(bb) for bb in KING_ATTACKS]
KNIGHT_ATTACKS = [unsigned(bb) for bb in KNIGHT_ATTACKS]


def solve(progress=True):
    """(white-to-move, black-to-move) bytearrays of 64^4 plies-to-mate, indexed
    ((king * 64 + bishop) * 64 + knight) * 64 + black king; NOT_WON where white does not win."""
    n_configs = 64 ** 3
    attacked = [0] * n_configs          # every square white attacks or defends
    legal_w = [0] * n_configs           # black-king squares with white to move (not in check)
    legal_b = [0] * n_configs           # black-king squares with black to move
    moves = [()] * n_configs            # the configurations white's moves lead to
    for wk in range(64):
        for wb in range(64):
            if wb == wk:
                continue
            for wn in range(64):
                if wn == wk or wn == wb:
                    continue
                c = (wk * 64 + wb) * 64 + wn
                occ = 1 << wk | 1 << wb | 1 << wn
                bishop = unsigned(slider_attacks_slow(wb, occ, BISHOP_DIRECTIONS))
                att = KING_ATTACKS[wk] | KNIGHT_ATTACKS[wn] | bishop
                attacked[c] = att
                legal_b[c] = BB_ALL & ~(KING_ATTACKS[wk] | occ)
                legal_w[c] = BB_ALL & ~(att | occ)
                to = [(k * 64 + wb) * 64 + wn for k in squares_of(KING_ATTACKS[wk] & ~occ)]
                to += [(wk * 64 + b) * 64 + wn for b in squares_of(bishop & ~occ)]
                to += [(wk * 64 + wb) * 64 + n for n in squares_of(KNIGHT_ATTACKS[wn] & ~occ)]
                moves[c] = tuple(to)
    white = [0] * n_configs             # black-king squares won with white to move
    black = [0] * n_configs             # ... lost with black to move
    dtm_w = bytearray([NOT_WON]) * (n_configs * 64)
    dtm_b = bytearray([NOT_WON]) * (n_configs * 64)
    changed_b = []
    for c in range(n_configs):
        att = attacked[c]
        mated = legal_b[c] & att & ~neighbours(BB_ALL & ~att)
        if mated:
            black[c] = mated
            changed_b.append((c, mated))
            for sq in squares_of(mated):
                dtm_b[c * 64 + sq] = 0
    ply = 0
    start = time.time()
    while changed_b:
        # white to move: a move into a newly lost black-to-move position wins a ply later
        ply += 1
        touched = {}
        for c2, new in changed_b:
            for c in moves[c2]:         # white's moves are reversible: c2's moves are its predecessors
                gain = new & legal_w[c] & ~white[c]
                if gain:
                    white[c] |= gain
                    touched[c] = touched.get(c, 0) | gain
        for c, gain in touched.items():
            base = c * 64
            for sq in squares_of(gain):
                dtm_w[base + sq] = ply
        # black to move: lost where no move escapes the won set (captures and stalemates escape)
        ply += 1
        changed_b = []
        for c in touched:
            att = attacked[c]
            escapes = BB_ALL & ~att & ~white[c]
            lost = legal_b[c] & ~neighbours(escapes) & (att | neighbours(BB_ALL & ~att))
            gain = lost & ~black[c]
            if gain:
                black[c] |= gain
                changed_b.append((c, gain))
                base = c * 64
                for sq in squares_of(gain):
                    dtm_b[base + sq] = ply
        if progress:
            print("\rply %2d: %7d black-to-move configurations changed (%.0f s)"
                  % (ply, len(changed_b), time.time() - start), end="", file=sys.stderr)
    if progress:
        print(file=sys.stderr)
    return dtm_w, dtm_b


def encode(dtm_w, dtm_b):
    """The stored form: the ten triangle king squares' rows of both tables, compressed."""
    rows = bytearray()
    for table in (dtm_w, dtm_b):
        for wk in TRIANGLE:
            start = wk * 64 ** 3
            rows += table[start:start + 64 ** 3]
    return zlib.compress(bytes(rows), 9)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(TABLE_FILE), help="file to write (default: %(default)s)")
    parser.add_argument("--check", action="store_true", help="compare with the stored file instead")
    args = parser.parse_args(argv)
    dtm_w, dtm_b = solve()
    data = encode(dtm_w, dtm_b)
    longest = max(v for v in dtm_w if v != NOT_WON)
    print("longest win: %d plies with white to move; %d won white-to-move placements"
          % (longest, sum(1 for v in dtm_w if v != NOT_WON)))
    if args.check:
        stored = Path(args.out).read_bytes()
        same = decode(stored) == decode(data)
        print("stored table %s the solve" % ("matches" if same else "DIFFERS from"))
        return 0 if same else 1
    Path(args.out).write_bytes(data)
    print("wrote %s: %d bytes, sha256 %s" % (args.out, len(data), hashlib.sha256(data).hexdigest()))
    return 0


if __name__ == "__main__":
    from engine.runtime import restart_if_needed
    restart_if_needed()         # PyPy: a nursery that fits the caches
    sys.exit(main())
