"""Static evaluation: tapered PeSTO material + piece-square score plus positional terms.

``evaluate(pos)`` is the fast path the search calls at every leaf: one pass over the
pieces with bitboard operations, every term accumulated into one packed (mg, eg) int
(``psqt.pack``), pawn structure looked up in a small cache keyed by the two pawn
bitboards.  ``evaluate_terms(pos)`` is the slow, obvious path: each term computed on its
own, square by square, for the UCI ``eval`` table; the tests check that both agree.

Terms (all from white's view before the final sign): material + PST (kept incrementally
in ``pos.psq``), pawn structure (passed by rank, isolated, doubled, backward), passed-pawn
king proximity, mobility (squares not held by own pieces nor attacked by enemy pawns),
king safety (weighted attacks on the king zone, pawn shield), bishop pair, mop-up against a
bare king, and a drawish-endgame scale.  A tempo bonus for the side to move and a bonus for
rooks on open and semi-open files are written but weighted 0: no match showed they help.

Weights are the upper-case constants below; the environment variable BASILISK_EVAL
(e.g. ``MOBILITY_PERCENT=50,BISHOP_PAIR=20:40`` -- a pair as mg:eg) overrides them at
import, and ``PSQT_ONLY=1`` reduces evaluate to the tapered material + PST score, so an
A/B match needs no second checkout.  scripts/ablations.py names the setting that switches
each feature off, and tests/test_evaluate.py checks that it zeroes that term.

Measurements (A/B matches with scripts/match.py, the feature on vs off, 2moves_v1 openings
each played with both colours, adjudication on, 200 games; Elo of the first side, 95%):
  - all positional terms vs material + PST only (PSQT_ONLY=1), 3000 nodes a move:
    +122 -46 =32, +139 (+/-47), LOS 100%.
  - one term at a time, 1000 nodes a move (session 3):
      passed pawns (rank bonus, king distance)    +96 -66 =38   +52 (+/-44)  LOS 99%
      isolated, doubled and backward pawns        +91 -74 =35   +30 (+/-44)  LOS 91%
      bishop pair                                 +89 -74 =37   +26 (+/-44)  LOS 88%
      mobility                                    +88 -74 =38   +24 (+/-44)  LOS 86%
      rooks on (semi-)open files                  +83 -78 =39    +9 (+/-43)  LOS 65%
      drawish-endgame scaling                     +82 -80 =38    +3 (+/-44)  LOS 56%
      tempo                                       +76 -85 =39   -16 (+/-44)  LOS 24%
      king safety (attack units, shield)          +71 -87 =42   -28 (+/-43)  LOS 10%
    Only passed pawns clear zero on their own; every other term is within the error of
    no effect at this depth.  King safety was measured before at 4000 nodes (attack term
    only, queen-gated: +17 +/- 42) and again (session 4) at 3000 nodes, attack and shield:
    200 games +73 -77 =50, -7 (+/-42), LOS 37%.
  - the unproven terms again at 10,000 nodes a move (session 5; 120 games each; keep if
    the estimate is positive with LOS >= 80%):
      king safety (attack units, shield)          +51 -40 =29   +32 (+/-55)  LOS 88%  kept
      tempo                                       +44 -42 =34    +6 (+/-53)  LOS 59%  off
      rooks on (semi-)open files (80 + 40 games)  +40 -40 =40   +0 (+/-51)  LOS 50%  off
    Tempo is now TEMPO = (0, 0) and the rook-file bonuses (0, 0); their old weights
    (TEMPO=15:5, ROOK_OPEN_FILE=25:10, ROOK_SEMI_OPEN_FILE=12:6) can be set with BASILISK_EVAL.
    The endgame scale acts only in the endings it names, which about a quarter of games at
    this budget reach, so it was played where it acts: from 416 positions 8 plies before
    a game first reached such an ending (scripts/endgame_starts.py over earlier matches'
    PGNs; kept as scripts/data/drawish_ending_starts.epd), 60 of them with both colours:
      drawish-endgame scaling                     +50 -40 =30   +29 (+/-54)  LOS 85%  kept
  - mop-up, in won endings (no adjudication): 50 random KRK/KQK/KBNK starts, each with
    both colours, 3000 nodes: +43 -17 =40, +92 (+/-54).  Mates within the fifty-move rule:
    KRK 20/20 with mop-up, 6/20 without; KQK 15/15 vs 11/15; KBNK 8/15 vs 0/15.
"""

import os

from engine.bitboard import (BB_FILES, BB_FILE_A, BB_FILE_H, BB_LIGHT_SQUARES, BB_DARK_SQUARES,
                             fill_north, fill_south, KNIGHT_ATTACKS, KING_ATTACKS, PAWN_ATTACKS, ROOK_TABLE, ROOK_MASK,
                             BISHOP_TABLE, BISHOP_MASK, popcount, squares_of)
from engine.psqt import MATERIAL_MG, pack, unpack
from engine.tunables import apply_overrides
from engine.types import WHITE, BLACK, PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING

# --- Weights (centipawns, (mg, eg)) ------------------------------------------------------
PHASE_WEIGHTS = {KNIGHT: 1, BISHOP: 1, ROOK: 2, QUEEN: 4}    # game_phase() inlines these
MAX_PHASE = 24

# Mobility, Fruit-style: linear in the number of safe squares, centred on a typical count
# so a piece's PST value stays its value at average mobility.
MOBILITY_WEIGHT = {KNIGHT: (4, 4), BISHOP: (5, 5), ROOK: (2, 4), QUEEN: (1, 2)}
MOBILITY_CENTRE = {KNIGHT: 4, BISHOP: 6, ROOK: 7, QUEEN: 13}

# Pawn structure, per pawn.  Passed bonus by relative rank (index 0 = own back rank);
# PeSTO's pawn tables already pay for advanced pawns, so these are modest.
PASSED_MG = (0, 0, 0, 5, 15, 30, 50, 0)
PASSED_EG = (0, 5, 10, 20, 35, 60, 90, 0)
DOUBLED = (-10, -20)
ISOLATED = (-10, -15)
BACKWARD = (-8, -10)
# Passed pawns in the endgame: per step of king distance to the pawn's stop square,
# times (relative rank - 2) for pawns on the 4th rank or further.
PASSER_ENEMY_KING = 5
PASSER_OWN_KING = 2

# King safety: attack units per attacked king-zone square by piece type, scaled by how
# many pieces take part (the CPW "attacking king zone" scheme); middlegame only, and only
# while the attacker has a queen (at 4000 nodes/move, 200 games each, against no attack
# term: ungated -17 +/- 45 Elo, queen-gated +17 +/- 42).
KING_ATTACK_UNITS = {KNIGHT: 20, BISHOP: 20, ROOK: 40, QUEEN: 80}
ATTACKER_WEIGHT = (0, 0, 50, 75, 88, 94, 97, 99, 100, 100, 100, 100, 100, 100, 100, 100, 100)
SHIELD_NEAR = 10      # own pawn right in front of the king (king on its first two ranks)
SHIELD_FAR = 5        # own pawn two ranks in front

BISHOP_PAIR = (30, 50)
ROOK_OPEN_FILE = (0, 0)       # rook-file bonuses: off, as measured (25:10 and 12:6 when on)
ROOK_SEMI_OPEN_FILE = (0, 0)
TEMPO = (0, 0)        # side-to-move bonus: off, as measured (15:5 when it was on)

# Mop-up against a bare king: drive it to the edge (or KBN's corner) and close in.
MOPUP_EDGE = 10
MOPUP_KINGS = 4

# Whole-term switches for A/B matches (percent of the weights above).
MOBILITY_PERCENT = 100
KING_ATTACK_PERCENT = 100
KING_ATTACK_NEEDS_QUEEN = 1   # 1: the attack only counts while the attacker has a queen
PSQT_ONLY = 0         # 1: evaluate() is material + PST only (the baseline)

SCALE_NORMAL = 64     # scale factors are out of 64
SCALE_MAX_PHASE = 14  # drawish-ending rules are only looked at with this little material
                      # (-1 switches the scaling off, for an A/B match)
VALUE_KNIGHT_MG, VALUE_BISHOP_MG, VALUE_ROOK_MG, VALUE_QUEEN_MG = (
    MATERIAL_MG[KNIGHT], MATERIAL_MG[BISHOP], MATERIAL_MG[ROOK], MATERIAL_MG[QUEEN])

PAWN_CACHE_SIZE = 1 << 16
# Whole evaluations by Zobrist key: about a quarter of the search's calls repeat a position
# (transpositions, re-searches, the next iteration), and a lookup costs a fraction of an eval.
EVAL_CACHE_SIZE = 1 << 16


def _apply_overrides(text):
    """Set weights from 'NAME=VALUE,...' (BASILISK_EVAL); a pair is given as MG:EG."""
    apply_overrides(globals(), text, "evaluation weight")


_apply_overrides(os.environ.get("BASILISK_EVAL", ""))

# --- Tables built at import ----------------------------------------------------------------
_FULL = (1 << 64) - 1
_NOT_A = _FULL ^ BB_FILE_A
_NOT_H = _FULL ^ BB_FILE_H


def _mobility_table(pt):
    wm, we = MOBILITY_WEIGHT[pt]
    c = MOBILITY_CENTRE[pt]
    return tuple(pack(wm * (n - c) * MOBILITY_PERCENT // 100, we * (n - c) * MOBILITY_PERCENT // 100)
                 for n in range(29))


MOB_KNIGHT = _mobility_table(KNIGHT)
MOB_BISHOP = _mobility_table(BISHOP)
MOB_ROOK = _mobility_table(ROOK)
MOB_QUEEN = _mobility_table(QUEEN)

# attack units -> centipawns (x 1/10000): the attacker-count weight times the percent knob
KING_DANGER = tuple(w * KING_ATTACK_PERCENT for w in ATTACKER_WEIGHT)

KING_ZONE = [KING_ATTACKS[sq] | 1 << sq for sq in range(64)]


def _shield(color, rank_step):
    masks = []
    for sq in range(64):
        f, r = sq & 7, sq >> 3
        rel = r if color == WHITE else 7 - r
        bb = 0
        if rel <= 1:
            tr = r + rank_step if color == WHITE else r - rank_step
            for tf in (f - 1, f, f + 1):
                if 0 <= tf < 8:
                    bb |= 1 << (tr * 8 + tf)
        masks.append(bb)
    return masks


SHIELD_NEAR_BB = [_shield(WHITE, 1), _shield(BLACK, 1)]
SHIELD_FAR_BB = [_shield(WHITE, 2), _shield(BLACK, 2)]


def _square_metric(metric):
    """[a][b] -> metric(file distance, rank distance), built from slices of one 15x15 grid
    (a few hundred list operations instead of 4,096 calls: import time matters)."""
    grid = [[metric(abs(df), abs(dr)) for df in range(-7, 8)] for dr in range(-7, 8)]
    table = []
    for a in range(64):
        fa, ra = a & 7, a >> 3
        row = []
        for rb in range(8):
            row += grid[rb - ra + 7][7 - fa:15 - fa]
        table.append(row)
    return table


DISTANCE = _square_metric(max)                          # king moves between two squares
MANHATTAN = _square_metric(lambda df, dr: df + dr)
# file distance plus rank distance from the four centre squares: 0 in the centre, 6 in a corner
CENTRE_MANHATTAN = [(3 - min(sq & 7, 7 - (sq & 7))) + (3 - min(sq >> 3, 7 - (sq >> 3)))
                    for sq in range(64)]

PASSED_PACKED = tuple(pack(PASSED_MG[r], PASSED_EG[r]) for r in range(8))
DOUBLED_PACKED = pack(*DOUBLED)
ISOLATED_PACKED = pack(*ISOLATED)
BACKWARD_PACKED = pack(*BACKWARD)
BISHOP_PAIR_PACKED = pack(*BISHOP_PAIR)
ROOK_OPEN_PACKED = pack(*ROOK_OPEN_FILE)
ROOK_SEMI_PACKED = pack(*ROOK_SEMI_OPEN_FILE)
TEMPO_PACKED = pack(*TEMPO)
# Both terms are weighted 0 by default (measured no gain): skip their work unless set.
ROOK_FILES_ON = bool(ROOK_OPEN_PACKED or ROOK_SEMI_PACKED)
UNITS_N, UNITS_B = KING_ATTACK_UNITS[KNIGHT], KING_ATTACK_UNITS[BISHOP]
UNITS_R, UNITS_Q = KING_ATTACK_UNITS[ROOK], KING_ATTACK_UNITS[QUEEN]


# --- Pawn structure (bitboard version, cached) --------------------------------------------
def _sideways(bb):
    """Squares beside the set bits on the same rank."""
    return ((bb << 1) & _NOT_A) | ((bb >> 1) & _NOT_H)


def _pawn_sets(wp, bp):
    """(white attacks, black attacks, (passed, isolated, doubled, backward) per colour)."""
    w_att = ((wp << 7) & _NOT_H | (wp << 9) & _NOT_A) & _FULL
    b_att = (bp >> 9) & _NOT_H | (bp >> 7) & _NOT_A
    w_files = fill_south(fill_north(wp))
    b_files = fill_south(fill_north(bp))
    w_iso = wp & ~_sideways(w_files)
    b_iso = bp & ~_sideways(b_files)
    # rear pawns of a doubled pair: an own pawn stands ahead on the file
    w_dbl = wp & fill_south(wp >> 8)
    b_dbl = bp & fill_north(bp << 8)
    # passed: no enemy pawn ahead on this or an adjacent file, and no own pawn ahead
    w_passed = wp & ~fill_south((bp | _sideways(bp)) >> 8) & ~fill_south(wp >> 8)
    b_passed = bp & ~fill_north((wp | _sideways(wp)) << 8) & ~fill_north(bp << 8)
    # backward: no own pawn beside or behind on an adjacent file, stop square held by an
    # enemy pawn (isolated pawns are already paid for)
    w_back = wp & ~fill_north(_sideways(wp)) & (b_att >> 8) & ~w_iso
    b_back = bp & ~fill_south(_sideways(bp)) & (w_att << 8) & ~b_iso
    return w_att, b_att, ((w_passed, w_iso, w_dbl, w_back), (b_passed, b_iso, b_dbl, b_back))


def _pawn_entry(wp, bp):
    """(packed white-view pawn score, white attacks, black attacks, white passed, black passed)."""
    w_att, b_att, sets = _pawn_sets(wp, bp)
    score = 0
    for color, sign in ((WHITE, 1), (BLACK, -1)):
        passed, iso, dbl, back = sets[color]
        flip = 0 if color == WHITE else 56
        s = (popcount(iso) * ISOLATED_PACKED + popcount(dbl) * DOUBLED_PACKED
             + popcount(back) * BACKWARD_PACKED)
        while passed:
            low = passed & -passed
            passed ^= low
            s += PASSED_PACKED[((low.bit_length() - 1) ^ flip) >> 3]
        score += sign * s
    return score, w_att, b_att, sets[WHITE][0], sets[BLACK][0]


_pawn_cache = {}
_eval_cache = {}


def clear_cache():
    _pawn_cache.clear()
    _eval_cache.clear()


# --- Phase, scaling, mop-up (shared by both paths) --------------------------------------
def game_phase(pos):
    """24 with all pieces on the board, 0 with none but kings and pawns."""
    bbs = pos.bbs
    phase = (popcount(bbs[KNIGHT] | bbs[8 | KNIGHT] | bbs[BISHOP] | bbs[8 | BISHOP])
             + 2 * popcount(bbs[ROOK] | bbs[8 | ROOK]) + 4 * popcount(bbs[QUEEN] | bbs[8 | QUEEN]))
    return phase if phase < MAX_PHASE else MAX_PHASE


def _non_pawn_material(bbs, color):
    b = color << 3
    return (VALUE_KNIGHT_MG * popcount(bbs[b | KNIGHT]) + VALUE_BISHOP_MG * popcount(bbs[b | BISHOP])
            + VALUE_ROOK_MG * popcount(bbs[b | ROOK]) + VALUE_QUEEN_MG * popcount(bbs[b | QUEEN]))


def scale_factor(pos, strong, passed_strong=0):
    """How much of the score (out of 64) the side ahead keeps in drawish endings."""
    bbs = pos.bbs
    weak = strong ^ 1
    s, w = strong << 3, weak << 3
    npm_s = _non_pawn_material(bbs, strong)
    npm_w = _non_pawn_material(bbs, weak)
    if not bbs[s | PAWN]:
        if npm_s - npm_w <= VALUE_BISHOP_MG:
            # a minor up (or less) without pawns: KB v K, KR v KB, KRB v KR ...
            if npm_s < VALUE_ROOK_MG:
                return 0
            return 4 if npm_w <= VALUE_BISHOP_MG else 14
        if npm_s == 2 * VALUE_KNIGHT_MG and popcount(bbs[s | KNIGHT]) == 2:
            # two knights cannot force mate (against pawns they sometimes can)
            return 0 if not bbs[w | PAWN] else 16
    wb, bb = bbs[BISHOP], bbs[8 | BISHOP]
    if (wb and bb and not wb & (wb - 1) and not bb & (bb - 1)
            and bool(wb & BB_LIGHT_SQUARES) != bool(bb & BB_LIGHT_SQUARES)):
        # opposite-coloured bishops: very drawish alone, somewhat with other pieces
        if npm_s == VALUE_BISHOP_MG and npm_w == VALUE_BISHOP_MG:
            return min(SCALE_NORMAL, 18 + 4 * popcount(passed_strong))
        return 46
    return SCALE_NORMAL


def mopup(pos, strong):
    """Endgame bonus (for ``strong``) driving a bare enemy king to the edge; 0 without mating material."""
    bbs = pos.bbs
    s = strong << 3
    bishops, knights = bbs[s | BISHOP], bbs[s | KNIGHT]
    heavy = bbs[s | QUEEN] | bbs[s | ROOK]
    if not (heavy or (bishops & BB_LIGHT_SQUARES and bishops & BB_DARK_SQUARES)
            or (bishops and knights)):
        return 0
    weak_king = pos.king_square(strong ^ 1)
    strong_king = pos.king_square(strong)
    edge = CENTRE_MANHATTAN[weak_king]
    if not heavy and knights and bishops and not bishops & (bishops - 1):
        # KBN: mate can only be forced in a corner of the bishop's colour
        corners = (7, 56) if bishops & BB_LIGHT_SQUARES else (0, 63)
        edge = 2 * (7 - min(DISTANCE[weak_king][corners[0]], DISTANCE[weak_king][corners[1]]))
    return MOPUP_EDGE * edge + MOPUP_KINGS * (14 - MANHATTAN[weak_king][strong_king])


def _blend(pos, mg, eg, phase):
    """Tapered score from the side to move's view (sign first, so floor division is symmetric)."""
    if pos.turn == BLACK:
        mg, eg = -mg, -eg
    return (mg * phase + eg * (MAX_PHASE - phase)) // MAX_PHASE


def _scaled(pos, score, phase, w_passed, b_passed):
    """The blended score with the drawish-ending scale applied.  Shared by both paths."""
    if score and phase <= SCALE_MAX_PHASE:
        us = pos.turn
        strong = us if score > 0 else us ^ 1
        sf = scale_factor(pos, strong, w_passed if strong == WHITE else b_passed)
        if sf != SCALE_NORMAL:
            return score * sf // SCALE_NORMAL if score > 0 else -(-score * sf // SCALE_NORMAL)
    return score


# --- The fast path ---------------------------------------------------------------------
def evaluate(pos):
    """Centipawns from the side to move's point of view."""
    score = _eval_cache.get(pos.key)
    if score is not None:
        return score
    bbs = pos.bbs
    wp = bbs[PAWN]
    bp = bbs[8 | PAWN]
    key = (wp, bp)
    entry = _pawn_cache.get(key)
    if entry is None:
        if len(_pawn_cache) >= PAWN_CACHE_SIZE:
            _pawn_cache.clear()
        entry = _pawn_cache[key] = _pawn_entry(wp, bp)
    s, w_patt, b_patt, w_passed, b_passed = entry
    s += pos.psq
    occ_w, occ_b = pos.occ
    occ = occ_w | occ_b
    wn, wb, wr, wq, wk = bbs[KNIGHT], bbs[BISHOP], bbs[ROOK], bbs[QUEEN], bbs[KING]
    bn, bb, br, bq, bk = bbs[8 | KNIGHT], bbs[8 | BISHOP], bbs[8 | ROOK], bbs[8 | QUEEN], bbs[8 | KING]
    phase = popcount(wn | bn | wb | bb) + 2 * popcount(wr | br) + 4 * popcount(wq | bq)
    if phase > MAX_PHASE:
        phase = MAX_PHASE
    wksq = wk.bit_length() - 1
    bksq = bk.bit_length() - 1

    # white pieces: mobility, attacks on the black king zone, rook files
    area = ~(occ_w | b_patt)
    zone = KING_ZONE[bksq]
    attackers = units = 0
    b_ = wn
    while b_:
        low = b_ & -b_
        b_ ^= low
        att = KNIGHT_ATTACKS[low.bit_length() - 1]
        s += MOB_KNIGHT[popcount(att & area)]
        att &= zone
        if att:
            attackers += 1
            units += UNITS_N * popcount(att)
    b_ = wb
    while b_:
        low = b_ & -b_
        b_ ^= low
        sq = low.bit_length() - 1
        att = BISHOP_TABLE[sq][occ & BISHOP_MASK[sq]]
        s += MOB_BISHOP[popcount(att & area)]
        att &= zone
        if att:
            attackers += 1
            units += UNITS_B * popcount(att)
    b_ = wr
    while b_:
        low = b_ & -b_
        b_ ^= low
        sq = low.bit_length() - 1
        att = ROOK_TABLE[sq][occ & ROOK_MASK[sq]]
        s += MOB_ROOK[popcount(att & area)]
        att &= zone
        if att:
            attackers += 1
            units += UNITS_R * popcount(att)
        if ROOK_FILES_ON:
            file_bb = BB_FILES[sq & 7]
            if not file_bb & wp:
                s += ROOK_SEMI_PACKED if file_bb & bp else ROOK_OPEN_PACKED
    b_ = wq
    while b_:
        low = b_ & -b_
        b_ ^= low
        sq = low.bit_length() - 1
        att = ROOK_TABLE[sq][occ & ROOK_MASK[sq]] | BISHOP_TABLE[sq][occ & BISHOP_MASK[sq]]
        s += MOB_QUEEN[popcount(att & area)]
        att &= zone
        if att:
            attackers += 1
            units += UNITS_Q * popcount(att)
    if attackers > 1 and (wq or not KING_ATTACK_NEEDS_QUEEN):
        s += units * KING_DANGER[attackers] // 10000

    # black pieces, the same from the other side
    area = ~(occ_b | w_patt)
    zone = KING_ZONE[wksq]
    attackers = units = 0
    b_ = bn
    while b_:
        low = b_ & -b_
        b_ ^= low
        att = KNIGHT_ATTACKS[low.bit_length() - 1]
        s -= MOB_KNIGHT[popcount(att & area)]
        att &= zone
        if att:
            attackers += 1
            units += UNITS_N * popcount(att)
    b_ = bb
    while b_:
        low = b_ & -b_
        b_ ^= low
        sq = low.bit_length() - 1
        att = BISHOP_TABLE[sq][occ & BISHOP_MASK[sq]]
        s -= MOB_BISHOP[popcount(att & area)]
        att &= zone
        if att:
            attackers += 1
            units += UNITS_B * popcount(att)
    b_ = br
    while b_:
        low = b_ & -b_
        b_ ^= low
        sq = low.bit_length() - 1
        att = ROOK_TABLE[sq][occ & ROOK_MASK[sq]]
        s -= MOB_ROOK[popcount(att & area)]
        att &= zone
        if att:
            attackers += 1
            units += UNITS_R * popcount(att)
        if ROOK_FILES_ON:
            file_bb = BB_FILES[sq & 7]
            if not file_bb & bp:
                s -= ROOK_SEMI_PACKED if file_bb & wp else ROOK_OPEN_PACKED
    b_ = bq
    while b_:
        low = b_ & -b_
        b_ ^= low
        sq = low.bit_length() - 1
        att = ROOK_TABLE[sq][occ & ROOK_MASK[sq]] | BISHOP_TABLE[sq][occ & BISHOP_MASK[sq]]
        s -= MOB_QUEEN[popcount(att & area)]
        att &= zone
        if att:
            attackers += 1
            units += UNITS_Q * popcount(att)
    if attackers > 1 and (bq or not KING_ATTACK_NEEDS_QUEEN):
        s -= units * KING_DANGER[attackers] // 10000

    # pawn shields (middlegame)
    s += (SHIELD_NEAR * popcount(SHIELD_NEAR_BB[WHITE][wksq] & wp)
          + SHIELD_FAR * popcount(SHIELD_FAR_BB[WHITE][wksq] & wp)
          - SHIELD_NEAR * popcount(SHIELD_NEAR_BB[BLACK][bksq] & bp)
          - SHIELD_FAR * popcount(SHIELD_FAR_BB[BLACK][bksq] & bp))

    if wb & (wb - 1):
        s += BISHOP_PAIR_PACKED
    if bb & (bb - 1):
        s -= BISHOP_PAIR_PACKED

    # passed pawns: king proximity to the stop square (endgame)
    b_ = w_passed
    while b_:
        low = b_ & -b_
        b_ ^= low
        sq = low.bit_length() - 1
        rank = sq >> 3
        if rank >= 3:
            stop = sq + 8
            s += ((PASSER_ENEMY_KING * DISTANCE[bksq][stop] - PASSER_OWN_KING * DISTANCE[wksq][stop])
                  * (rank - 2)) << 16
    b_ = b_passed
    while b_:
        low = b_ & -b_
        b_ ^= low
        sq = low.bit_length() - 1
        rank = 7 - (sq >> 3)
        if rank >= 3:
            stop = sq - 8
            s -= ((PASSER_ENEMY_KING * DISTANCE[wksq][stop] - PASSER_OWN_KING * DISTANCE[bksq][stop])
                  * (rank - 2)) << 16

    if TEMPO_PACKED:
        s += TEMPO_PACKED if pos.turn == WHITE else -TEMPO_PACKED
    if occ_b == bk and occ_w != wk:
        s += mopup(pos, WHITE) << 16
    elif occ_w == wk and occ_b != bk:
        s -= mopup(pos, BLACK) << 16

    mg = ((s + 0x8000) & 0xFFFF) - 0x8000
    eg = (s - mg) >> 16
    if pos.turn == BLACK:
        mg, eg = -mg, -eg
    score = (mg * phase + eg * (MAX_PHASE - phase)) // MAX_PHASE
    if score and phase <= SCALE_MAX_PHASE:
        score = _scaled(pos, score, phase, w_passed, b_passed)
    if len(_eval_cache) >= EVAL_CACHE_SIZE:
        _eval_cache.clear()
    _eval_cache[pos.key] = score
    return score


# --- The slow path: each term on its own -------------------------------------------------
TERM_NAMES = ("material+pst", "pawns: passed", "pawns: isolated", "pawns: doubled",
              "pawns: backward", "passed: king distance", "mobility", "king attack",
              "king shield", "bishop pair", "rook files", "tempo", "mop-up")


def _pawn_facts(pos, color):
    """Per own pawn square: (is_passed, is_isolated, is_doubled, is_backward), by scanning squares."""
    own = pos.bbs[color << 3 | PAWN]
    enemy = pos.bbs[(color ^ 1) << 3 | PAWN]
    fwd = 1 if color == WHITE else -1
    own_sqs = squares_of(own)
    enemy_sqs = squares_of(enemy)
    facts = {}
    for sq in own_sqs:
        f, r = sq & 7, sq >> 3
        ahead = (lambda rr: rr > r) if color == WHITE else (lambda rr: rr < r)
        passed = (not any(abs((e & 7) - f) <= 1 and ahead(e >> 3) for e in enemy_sqs)
                  and not any((o & 7) == f and ahead(o >> 3) for o in own_sqs))
        isolated = not any(abs((o & 7) - f) == 1 for o in own_sqs)
        doubled = any((o & 7) == f and ahead(o >> 3) for o in own_sqs)
        supported_later = any(abs((o & 7) - f) == 1 and not ahead(o >> 3) for o in own_sqs)
        stop = sq + 8 * fwd
        stop_attacked = any(PAWN_ATTACKS[color ^ 1][e] >> stop & 1 for e in enemy_sqs)
        backward = not isolated and not supported_later and stop_attacked
        facts[sq] = (passed, isolated, doubled, backward)
    return facts


def _side_terms(pos, color):
    """Each term for one side, as (mg, eg) from that side's view."""
    bbs = pos.bbs
    us, them = color << 3, (color ^ 1) << 3
    occ = pos.occ[0] | pos.occ[1]
    terms = dict.fromkeys(TERM_NAMES[1:], (0, 0))

    def add(name, mg, eg):
        a, b = terms[name]
        terms[name] = (a + mg, b + eg)

    for sq, (passed, isolated, doubled, backward) in _pawn_facts(pos, color).items():
        rel_rank = (sq >> 3) if color == WHITE else 7 - (sq >> 3)
        if passed:
            add("pawns: passed", PASSED_MG[rel_rank], PASSED_EG[rel_rank])
            if rel_rank >= 3:
                stop = sq + 8 if color == WHITE else sq - 8
                d_them = DISTANCE[pos.king_square(color ^ 1)][stop]
                d_us = DISTANCE[pos.king_square(color)][stop]
                add("passed: king distance", 0,
                    (PASSER_ENEMY_KING * d_them - PASSER_OWN_KING * d_us) * (rel_rank - 2))
        if isolated:
            add("pawns: isolated", *ISOLATED)
        if doubled:
            add("pawns: doubled", *DOUBLED)
        if backward:
            add("pawns: backward", *BACKWARD)

    enemy_pawn_attacks = 0
    for e in squares_of(bbs[them | PAWN]):
        enemy_pawn_attacks |= PAWN_ATTACKS[color ^ 1][e]
    safe = ~(pos.occ[color] | enemy_pawn_attacks)
    zone = KING_ZONE[pos.king_square(color ^ 1)]
    attackers = units = 0
    for pt in (KNIGHT, BISHOP, ROOK, QUEEN):
        for sq in squares_of(bbs[us | pt]):
            if pt == KNIGHT:
                att = KNIGHT_ATTACKS[sq]
            elif pt == BISHOP:
                att = BISHOP_TABLE[sq][occ & BISHOP_MASK[sq]]
            elif pt == ROOK:
                att = ROOK_TABLE[sq][occ & ROOK_MASK[sq]]
            else:
                att = (ROOK_TABLE[sq][occ & ROOK_MASK[sq]]
                       | BISHOP_TABLE[sq][occ & BISHOP_MASK[sq]])
            n = popcount(att & safe) - MOBILITY_CENTRE[pt]
            add("mobility", MOBILITY_WEIGHT[pt][0] * n * MOBILITY_PERCENT // 100,
                MOBILITY_WEIGHT[pt][1] * n * MOBILITY_PERCENT // 100)
            if att & zone:
                attackers += 1
                units += KING_ATTACK_UNITS[pt] * popcount(att & zone)
            if pt == ROOK and not BB_FILES[sq & 7] & bbs[us | PAWN]:
                add("rook files", *(ROOK_SEMI_OPEN_FILE if BB_FILES[sq & 7] & bbs[them | PAWN]
                                    else ROOK_OPEN_FILE))
    if attackers > 1 and (bbs[us | QUEEN] or not KING_ATTACK_NEEDS_QUEEN):
        add("king attack", units * KING_DANGER[attackers] // 10000, 0)

    ksq = pos.king_square(color)
    add("king shield", SHIELD_NEAR * popcount(SHIELD_NEAR_BB[color][ksq] & bbs[us | PAWN])
        + SHIELD_FAR * popcount(SHIELD_FAR_BB[color][ksq] & bbs[us | PAWN]), 0)
    if popcount(bbs[us | BISHOP]) >= 2:
        add("bishop pair", *BISHOP_PAIR)
    if pos.turn == color:
        add("tempo", *TEMPO)
    if pos.occ[color ^ 1] == bbs[them | KING] and pos.occ[color] != bbs[us | KING]:
        add("mop-up", 0, mopup(pos, color))
    return terms


def evaluate_terms(pos):
    """Every term as (white mg, white eg), then 'phase', 'blended' (the tapered sum),
    'scale' (out of 64) and 'total' (evaluate's result): all from white's point of view,
    like the table the UCI ``eval`` command prints."""
    white = _side_terms(pos, WHITE)
    black = _side_terms(pos, BLACK)
    out = {"material+pst": unpack(pos.psq)}
    for name in TERM_NAMES[1:]:
        out[name] = (white[name][0] - black[name][0], white[name][1] - black[name][1])
    mg = sum(v[0] for v in out.values())
    eg = sum(v[1] for v in out.values())
    phase = game_phase(pos)
    blended = _blend(pos, mg, eg, phase)
    w_passed = sum(1 << sq for sq, f in _pawn_facts(pos, WHITE).items() if f[0])
    b_passed = sum(1 << sq for sq, f in _pawn_facts(pos, BLACK).items() if f[0])
    scale = SCALE_NORMAL
    if blended and phase <= SCALE_MAX_PHASE:
        strong = pos.turn if blended > 0 else pos.turn ^ 1
        scale = scale_factor(pos, strong, w_passed if strong == WHITE else b_passed)
    sign = 1 if pos.turn == WHITE else -1
    out["phase"] = phase
    out["blended"] = sign * blended
    out["scale"] = scale
    out["total"] = sign * _scaled(pos, blended, phase, w_passed, b_passed)
    return out


def _evaluate_psqt_only(pos):
    """The baseline for A/B matches: tapered material + PST, side to move's view."""
    mg, eg = unpack(pos.psq)
    return _blend(pos, mg, eg, game_phase(pos))


if PSQT_ONLY:
    evaluate = _evaluate_psqt_only   # noqa: F811
