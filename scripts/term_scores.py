#!/usr/bin/env python3
"""Which evaluation term to try next: candidate terms scored on the evaluation's residuals.

A candidate is a count per side (white's minus black's): a hanging piece, a trapped rook,
a bishop's pawns on its colour ...  For each one this fits a middlegame and an endgame
weight for that term alone, every weight of engine/weights.py held where it is, by one
Gauss-Newton step on the training part of a scripts/make_dataset.py dataset (the tuner's
model, target and held-out split: scripts/tune.py), and prints how much the term would
lower the held-out error.  A term the evaluation already has scores about 0 there (the
control `threats`), and a term it lacks scores what a tuner run freeing only its weight
would find (`minor behind pawn` on session 77's dataset: -0.000122 by this script,
-0.000119 by tune.py).  A score says what the term tells the data, not what it is worth in
play: run the term in the engine and play it before keeping it (docs/measurements.md,
"Tuning": the best candidate there gained at 10,000 nodes and not at the clock).

    python scripts/term_scores.py --data sf5000.txt --lambda 0.5

About a minute for 350,000 positions on CPython.  The counts work on plain 64-bit
bitboards (h8 as 2**63), each read from the engine's through engine.bitboard.unsigned.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tune  # noqa: E402  (a sibling script)
from engine.bitboard import (KNIGHT_ATTACKS, KING_ATTACKS, BISHOP_TABLE, BISHOP_MASK,  # noqa: E402
                             ROOK_TABLE, ROOK_MASK, BISHOP_RAYS, BB_LIGHT_SQUARES, BB_DARK_SQUARES,
                             bit_count as popcount, squares_of, to_bitboard, unsigned)
from engine.position import Position  # noqa: E402
from engine.types import WHITE, BLACK, PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING  # noqa: E402

M64 = (1 << 64) - 1
BB_SQUARES = [1 << sq for sq in range(64)]
BB_FILES = [0x0101010101010101 << f for f in range(8)]
BB_RANKS = [0xFF << (8 * r) for r in range(8)]
KNIGHT_ATTACKS = [unsigned(bb) for bb in KNIGHT_ATTACKS]
KING_ATTACKS = [unsigned(bb) for bb in KING_ATTACKS]
BISHOP_RAYS = [unsigned(bb) for bb in BISHOP_RAYS]
BB_LIGHT_SQUARES = unsigned(BB_LIGHT_SQUARES)
BB_DARK_SQUARES = unsigned(BB_DARK_SQUARES)
NOT_A = M64 ^ BB_FILES[0]
NOT_H = M64 ^ BB_FILES[7]
CENTRE_FILES = BB_FILES[2] | BB_FILES[3] | BB_FILES[4] | BB_FILES[5]
CENTRE = BB_SQUARES[27] | BB_SQUARES[28] | BB_SQUARES[35] | BB_SQUARES[36]

# name: what a side counts (the enemy = the other side; "weak" enemy units are those we
# attack that no enemy pawn defends and that are not defended twice unless we attack twice,
# Stockfish's ~stronglyProtected)
TERMS = {
    "threats": "control, in the evaluation already: enemy pieces attacked by a lesser unit",
    "minor behind pawn": "control, in the evaluation at 0:0: knights and bishops behind a pawn",
    "hanging": "weak enemy units (pawns too) undefended, or pieces we attack twice",
    "hanging, side to move": "hanging, counted only for the side to move",
    "hanging, other side": "hanging, counted only for the side not to move",
    "threat by king": "1 if our king attacks a weak enemy unit",
    "restricted": "squares both sides attack that the enemy does not hold strongly",
    "bishop pawns": "per bishop, own pawns on its colour x (1 if no own pawn defends it + "
                    "own blocked pawns on files c-f)",
    "bishop x-ray pawns": "per bishop, enemy pawns on its diagonals (empty board)",
    "long diagonal": "bishops seeing two centre squares through everything but pawns",
    "bishop on king ring": "bishops whose diagonals through pawns reach the enemy king ring",
    "rook on king ring": "rooks on a file of the enemy king ring",
    "rook on queen file": "rooks on a file with a queen (either side's)",
    "rook on seventh": "rooks on the relative 7th with the enemy king on the 8th or enemy "
                       "pawns on the 7th",
    "trapped rook": "rooks with 3 or fewer safe moves, an own pawn on their file, on the "
                    "king's side of their own king",
    "king protector": "per knight and bishop, its distance to the own king",
    "weak king ring": "squares of the enemy king ring we attack that it defends at most once, "
                      "and then only by king or queen",
    "king open files": "files at and beside the own king without own pawns",
    "king in centre": "1 if the own king stands on files c-f while queens are on",
    "weak unopposed": "own isolated pawns with no enemy pawn ahead on their file",
    "pawn islands": "groups of adjacent files holding own pawns",
    "knight on queen": "safe squares our knights reach that attack the enemy queen",
    "slider on queen": "safe squares our sliders reach, attacked twice by us, on the enemy "
                       "queen's lines",
}


def _pawn_attacks(color, pawns):
    if color == WHITE:
        return (((pawns & NOT_A) << 7) | ((pawns & NOT_H) << 9)) & M64
    return ((pawns & NOT_A) >> 9) | ((pawns & NOT_H) >> 7)


def _pawn_double_attacks(color, pawns):
    if color == WHITE:
        return ((pawns & NOT_A) << 7) & ((pawns & NOT_H) << 9) & M64
    return ((pawns & NOT_A) >> 9) & ((pawns & NOT_H) >> 7)


def _bishop(sq, occ):
    return unsigned(BISHOP_TABLE[sq][to_bitboard(occ) & BISHOP_MASK[sq]])


def _rook(sq, occ):
    return unsigned(ROOK_TABLE[sq][to_bitboard(occ) & ROOK_MASK[sq]])


class _Board:
    """A position's piece sets (indexed as Position.bbs), the two sides' occupancy and the
    side to move, as plain 64-bit ints."""

    def __init__(self, pos):
        self.bbs = [unsigned(bb) for bb in pos.bbs]
        self.occ = [unsigned(bb) for bb in pos.occ]
        self.turn = pos.turn


def _ring(ksq):
    return KING_ATTACKS[ksq] | BB_SQUARES[ksq]


class _Attacks:
    """What one side attacks: by piece type, in all, twice, and per square of a piece."""

    def __init__(self, pos, color):
        bbs = pos.bbs
        base = color << 3
        occ = pos.occ[WHITE] | pos.occ[BLACK]
        pawns = bbs[base | PAWN]
        self.by = {PAWN: _pawn_attacks(color, pawns)}
        self.all = self.by[PAWN]
        self.twice = _pawn_double_attacks(color, pawns)
        self.of = {}
        for pt in (KNIGHT, BISHOP, ROOK, QUEEN, KING):
            union = 0
            for sq in squares_of(bbs[base | pt]):
                if pt == KNIGHT:
                    att = KNIGHT_ATTACKS[sq]
                elif pt == BISHOP:
                    att = _bishop(sq, occ)
                elif pt == ROOK:
                    att = _rook(sq, occ)
                elif pt == QUEEN:
                    att = _bishop(sq, occ) | _rook(sq, occ)
                else:
                    att = KING_ATTACKS[sq]
                self.of[sq] = att
                self.twice |= self.all & att
                self.all |= att
                union |= att
            self.by[pt] = union


def _side_counts(pos, us, ours, theirs):
    """Each term's count for side us (ours, theirs: the two sides' _Attacks)."""
    them = us ^ 1
    bbs = pos.bbs
    occ = pos.occ[WHITE] | pos.occ[BLACK]
    base, enemy_base = us << 3, them << 3
    own_pawns, enemy_pawns = bbs[base | PAWN], bbs[enemy_base | PAWN]
    ksq = bbs[base | KING].bit_length() - 1
    enemy_ksq = bbs[enemy_base | KING].bit_length() - 1
    king_file = ksq & 7
    enemy_ring = _ring(enemy_ksq)
    queens = bbs[QUEEN] | bbs[8 | QUEEN]
    c = {}

    enemy_units = pos.occ[them] & ~bbs[enemy_base | KING]
    strongly_held = theirs.by[PAWN] | (theirs.twice & ~ours.twice)
    weak = enemy_units & ~strongly_held & ours.all
    hanging = popcount(weak & ((M64 ^ theirs.all) | (enemy_units & ~enemy_pawns & ours.twice)))
    to_move = pos.turn == us
    c["hanging"] = hanging
    c["hanging, side to move"] = hanging if to_move else 0
    c["hanging, other side"] = 0 if to_move else hanging
    c["threat by king"] = 1 if weak & ours.by[KING] else 0
    c["restricted"] = popcount(theirs.all & ~strongly_held & ours.all)
    c["threats"] = popcount((ours.by[PAWN] & enemy_units & ~enemy_pawns)
                            | ((ours.by[KNIGHT] | ours.by[BISHOP])
                               & (bbs[enemy_base | ROOK] | bbs[enemy_base | QUEEN]))
                            | (ours.by[ROOK] & bbs[enemy_base | QUEEN]))

    minors = bbs[base | KNIGHT] | bbs[base | BISHOP]
    pawns = own_pawns | enemy_pawns
    c["minor behind pawn"] = popcount(minors & (pawns >> 8) if us == WHITE
                                      else (minors >> 8) & pawns)

    blocked = own_pawns & ((occ >> 8) if us == WHITE else (occ << 8) & M64)
    bishop_pawns = x_ray = long_diagonal = on_ring = 0
    for sq in squares_of(bbs[base | BISHOP]):
        colour = BB_LIGHT_SQUARES if BB_SQUARES[sq] & BB_LIGHT_SQUARES else BB_DARK_SQUARES
        bishop_pawns += popcount(own_pawns & colour) * (
            (0 if ours.by[PAWN] & BB_SQUARES[sq] else 1) + popcount(blocked & CENTRE_FILES))
        x_ray += popcount(BISHOP_RAYS[sq] & enemy_pawns)
        through = _bishop(sq, pawns)
        long_diagonal += popcount(through & CENTRE) > 1
        on_ring += (through & enemy_ring) != 0
    c["bishop pawns"] = bishop_pawns
    c["bishop x-ray pawns"] = x_ray
    c["long diagonal"] = long_diagonal
    c["bishop on king ring"] = on_ring

    seventh = BB_RANKS[6 if us == WHITE else 1]
    eighth = BB_RANKS[7 if us == WHITE else 0]
    safe_area = M64 & ~(pos.occ[us] | theirs.by[PAWN])
    on_ring = queen_file = on_seventh = trapped = 0
    for sq in squares_of(bbs[base | ROOK]):
        file_bb = BB_FILES[sq & 7]
        on_ring += (file_bb & enemy_ring) != 0
        queen_file += (file_bb & queens) != 0
        on_seventh += (BB_SQUARES[sq] & seventh != 0
                       and (bbs[enemy_base | KING] & eighth or enemy_pawns & seventh) != 0)
        trapped += (popcount(ours.of[sq] & safe_area) <= 3 and file_bb & own_pawns != 0
                    and (king_file < 4) == ((sq & 7) < king_file))
    c["rook on king ring"] = on_ring
    c["rook on queen file"] = queen_file
    c["rook on seventh"] = on_seventh
    c["trapped rook"] = trapped

    c["king protector"] = sum(max(abs((sq & 7) - king_file), abs((sq >> 3) - (ksq >> 3)))
                              for sq in squares_of(minors))
    weak_squares = ours.all & ~theirs.twice & ((M64 ^ theirs.all) | theirs.by[KING]
                                               | theirs.by[QUEEN])
    c["weak king ring"] = popcount(enemy_ring & weak_squares)
    c["king open files"] = sum(1 for f in (king_file - 1, king_file, king_file + 1)
                               if 0 <= f < 8 and not BB_FILES[f] & own_pawns)
    c["king in centre"] = 1 if queens and 2 <= king_file <= 5 else 0

    weak_unopposed = 0
    for sq in squares_of(own_pawns):
        f = sq & 7
        beside = (BB_FILES[f - 1] if f > 0 else 0) | (BB_FILES[f + 1] if f < 7 else 0)
        ahead = BB_FILES[f] & ((M64 << (8 * ((sq >> 3) + 1))) & M64 if us == WHITE
                               else (1 << (8 * (sq >> 3))) - 1)
        weak_unopposed += not beside & own_pawns and not ahead & enemy_pawns
    c["weak unopposed"] = weak_unopposed
    files = [bool(BB_FILES[f] & own_pawns) for f in range(8)]
    c["pawn islands"] = sum(1 for f in range(8) if files[f] and (f == 0 or not files[f - 1]))

    enemy_queen = bbs[enemy_base | QUEEN]
    if enemy_queen:
        qsq = enemy_queen.bit_length() - 1
        safe = M64 & ~(pos.occ[us] | theirs.by[PAWN]) & ((M64 ^ theirs.all) | ours.twice)
        c["knight on queen"] = popcount(ours.by[KNIGHT] & KNIGHT_ATTACKS[qsq] & safe)
        c["slider on queen"] = popcount(((ours.by[BISHOP] & _bishop(qsq, occ))
                                         | (ours.by[ROOK] & _rook(qsq, occ))) & safe & ours.twice)
    else:
        c["knight on queen"] = c["slider on queen"] = 0
    return c


def term_counts(pos):
    """{term: white's count minus black's} for pos (a Position)."""
    pos = _Board(pos)
    white, black = _Attacks(pos, WHITE), _Attacks(pos, BLACK)
    w = _side_counts(pos, WHITE, white, black)
    b = _side_counts(pos, BLACK, black, white)
    return {name: int(w[name]) - int(b[name]) for name in TERMS}


# --- Scoring --------------------------------------------------------------------------
class Row:
    """A position as the scoring sees it: target, the model's eval (white's view, scaled),
    its scale multiplier, the middlegame share and the term counts."""
    __slots__ = ("target", "eval", "scale", "mg_share", "counts")

    def __init__(self, target, eval_, scale, mg_share, counts):
        self.target, self.eval, self.scale, self.mg_share, self.counts = (
            target, eval_, scale, mg_share, counts)


def error(rows, k, name=None, mg=0.0, eg=0.0):
    """Mean squared error of rows, with the term name added at (mg, eg) cp when given."""
    total = 0.0
    for r in rows:
        e = r.eval
        if name is not None:
            n = r.counts[name]
            if n:
                e += r.scale * n * (mg * r.mg_share + eg * (1.0 - r.mg_share))
        total += (r.target - tune.expected_result(e, k)) ** 2
    return total / len(rows)


def fit_term(rows, k, name):
    """(mg, eg) cp for name, by one Gauss-Newton step from 0 (the least-squares fit of the
    residuals to the term's slope); None where the term never counts or its two halves
    cannot be told apart."""
    saa = sab = sbb = sra = srb = 0.0
    for r in rows:
        n = r.counts[name]
        if not n:
            continue
        p = tune.expected_result(r.eval, k)
        slope = k * tune.LN10_OVER_400 * p * (1.0 - p) * r.scale * n
        a, b = slope * r.mg_share, slope * (1.0 - r.mg_share)
        residual = r.target - p
        saa += a * a
        sab += a * b
        sbb += b * b
        sra += residual * a
        srb += residual * b
    det = saa * sbb - sab * sab
    if det <= 1e-18:
        return None
    return (sra * sbb - srb * sab) / det, (srb * saa - sra * sab) / det


def build_rows(records, lam, score_k, progress=True):
    """(Rows, count dropped): the tuner's samples with engine/weights.py's model."""
    model = tune.Model(tune.current_values())
    rows, dropped = [], 0
    bar = tune.Progress("positions", len(records)) if progress else None
    for done, (fen, result, score) in enumerate(records, 1):
        pos = Position(fen)
        sample = tune.extract(pos)
        if sample is None:
            dropped += 1
            continue
        if score is not None and lam < 1.0:
            result = lam * result + (1.0 - lam) * tune.expected_result(score, score_k)
        mg, eg, _, _ = model.winnable(sample, *model.halves(sample))
        blended = mg * sample.mg_share + eg * (1.0 - sample.mg_share)
        scale = model.scale_of(sample, blended)[0]
        rows.append(Row(result, blended * scale, scale, sample.mg_share, term_counts(pos)))
        if bar and done % 1000 == 0:
            bar.update(done)
    if bar:
        bar.close()
    return rows, dropped


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, help="a scripts/make_dataset.py file")
    parser.add_argument("--lambda", dest="lam", type=float, default=1.0,
                        help="weight of the result against the score in the target (as tune.py)")
    parser.add_argument("--holdout", type=float, default=0.1,
                        help="the file's last share kept out of the fit (as tune.py)")
    parser.add_argument("--limit", type=int, default=0, help="use this many positions")
    args = parser.parse_args(argv)
    records = tune.read_dataset(args.data, limit=args.limit)
    score_k = tune.fit_score_k(records)[0] if any(r[2] is not None for r in records) else None
    n_held = int(len(records) * args.holdout)
    rows, dropped = build_rows(records[:len(records) - n_held], args.lam, score_k,
                               sys.stderr.isatty())
    held, held_dropped = build_rows(records[len(records) - n_held:], args.lam, score_k,
                                    sys.stderr.isatty())
    k = tune.golden_section(lambda kk: error(rows, kk))
    base_fit, base_held = error(rows, k), error(held, k)
    print("%d positions fitted, %d held out (%d dropped for an exact endgame verdict); K %.4f; "
          "error %.6f fitted, %.6f held out" % (len(rows), len(held), dropped + held_dropped, k,
                                                base_fit, base_held))
    results = []
    for name in TERMS:
        weights = fit_term(rows, k, name)
        counted = sum(1 for r in rows if r.counts[name])
        if weights is None:
            results.append((float("inf"), name, None, None, None, counted))
            continue
        mg, eg = weights
        results.append((error(held, k, name, mg, eg) - base_held, name, mg, eg,
                        error(rows, k, name, mg, eg) - base_fit, counted))
    results.sort(key=lambda r: r[0])
    print("%-22s %8s %8s %11s %11s %9s" % ("term", "mg", "eg", "fitted", "held out", "counted"))
    for held_change, name, mg, eg, fit_change, counted in results:
        if mg is None:
            print("%-22s %8s %8s %11s %11s %9d" % (name, "-", "-", "-", "-", counted))
        else:
            print("%-22s %8.1f %8.1f %+11.6f %+11.6f %9d" % (name, mg, eg, fit_change,
                                                           held_change, counted))
    return 0


if __name__ == "__main__":
    sys.exit(main())
