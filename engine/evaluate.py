"""Static evaluation: tapered material + piece-square score plus positional terms.

Each term is an (mg, eg) pair (engine/weights.py defines each one beside its weights):
material + piece-square values (kept incrementally in ``pos.psq``), pawn structure, passed
pawns (by rank, blocked, safe stop square, king proximity; in pawn endings the rule of the
square), the king's distance to its nearest pawn, mobility by safe squares, king safety
(zone attacks, shield, storm, safe checks, a flank without pawns), bishop pair, threats,
pawn push threats, outposts, minor pieces behind pawns, rooks on (semi-)open files, tempo
and mop-up against a bare king.  The mg and eg sums are blended by ``game_phase`` (24 with
all pieces, 0 with kings and pawns only); a drawish-ending scale (out of 64) shrinks the
score where the side ahead can hardly win; with very little material engine.endgame's known
results replace the score, and its mating drives (KBNK, KRK) are added to it.  Where a
piece other than a pawn or king stands, the network (engine.nnue, on by default) adds what
the terms miss (a residual network) or replaces them.

``evaluate(pos)``, the search's fast path: centipawns for the side to move, from bitboards,
tables built at import and caches of pawn structure (with its king-square terms) and of
whole evaluations; ``terms_score(pos)`` is the terms' part alone.
``evaluate_terms(pos)``, the reference: every term from its definition, square by square,
as a table from white's view (what the UCI ``eval`` command prints); the tests require
``evaluate`` to agree with its 'total'.

BASILISK_EVAL overrides weights and switches at import
(``MOBILITY_PERCENT=50,BISHOP_PAIR=20:40``, a pair as mg:eg); ``PSQT_ONLY=1`` reduces
evaluate to material + PST; scripts/ablations.py names the setting that switches each term
off for an A/B match.  Two of Stockfish classical's terms are written but off, no gain
shown: the complexity ("winnable", ``COMPLEXITY_ON=1``) and the few-pawns scale
(``SCALE_FEW_PAWNS=36``).
"""

import os
from functools import reduce
from operator import or_

from engine.bitboard import (ALL_SQUARES, BIT63, BB_FILES, BB_FILE_A, BB_FILE_H, BB_LIGHT_SQUARES,
                             BB_DARK_SQUARES, BB_SQUARES, fill_north, fill_south, KNIGHT_ATTACKS, KING_ATTACKS,
                             NOT_KING_ATTACKS, ROOK_TABLE, ROOK_MASK, BISHOP_TABLE, BISHOP_MASK,
                             machine_int, popcount, to_bitboard, unsigned)
from engine import nnue
from engine.endgame import EXACT, endgame_verdict
from engine.jit import for_bitboard_form, not_inlined
from engine.psqt import MATERIAL_EG, MATERIAL_MG, PST_EG, PST_MG, pack, unpack
from engine.tunables import apply_overrides
from engine.types import WHITE, BLACK, PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING
from engine.weights import (ATTACKER_WEIGHT, BACKWARD, BISHOP_PAIR, CAUGHT_PASSER, CONNECTED_EG,
                            CONNECTED_MG, DOUBLED, ISOLATED, KING_ATTACK_UNITS, MOBILITY_EG,
                            MOBILITY_MG, MOPUP_EDGE, MOPUP_KINGS, PASSED_BLOCKED_EG,
                            PASSED_BLOCKED_MG, PASSED_EG, PASSED_MG, PASSED_SAFE_STOP,
                            PASSER_ENEMY_KING, PASSER_OWN_KING, KING_PAWN_DISTANCE,
                            PAWN_PUSH_THREAT, ROOK_OPEN_FILE, ROOK_SEMI_OPEN_FILE,
                            SAFE_CHECK_EG, SAFE_CHECK_MG,
                            SCALE_OCB_BISHOPS_ONLY, SCALE_OCB_PER_PASSER, SCALE_OCB_WITH_PIECES,
                            SCALE_FEW_PAWNS, SCALE_PER_PAWN,
                            SCALE_PAWNLESS_MINOR, SCALE_PAWNLESS_V_MINOR, SCALE_PAWNLESS_V_PIECES,
                            SCALE_TWO_KNIGHTS, SCALE_TWO_KNIGHTS_V_PAWNS, SHIELD_FAR, SHIELD_NEAR,
                            TEMPO, THREAT_BY_MINOR, THREAT_BY_PAWN, THREAT_BY_ROOK,
                            MINOR_BEHIND_PAWN, OUTPOST_KNIGHT, OUTPOST_BISHOP, PAWN_STORM,
                            PAWNLESS_FLANK)

# --- Weights ----------------------------------------------------------------------------
# The values are engine/weights.py's (scripts/tune.py writes it).  What each term bought in
# an A/B match of it on against off: docs/measurements.md, "Evaluation" (per-term summary).
PHASE_WEIGHTS = {KNIGHT: 1, BISHOP: 1, ROOK: 2, QUEEN: 4}    # evaluate(), game_phase() inline these
MAX_PHASE = 24

# Whole-term scales, in percent of the fitted weights (0 switches a term off for an A/B match).
# mobility: 125: -33.1 +/- 35.1 Elo (pairs, 200 games) at 10,000 nodes; 80 (now in
# engine/weights.py's tables): +26.7 +/- 20.9 (600 games), so 100 here is 80% of the fit;
# 80 here (64% of the fit): -8.7 +/- 25.3 (400 games).  Other weights scaled by hand, kept
# or not: engine/weights.py's header.
MOBILITY_PERCENT = 100
KING_ATTACK_PERCENT = 100  # 130: +1.7 +/- 34.0, 75: +8.7 +/- 34.3 Elo (pairs), 200 games each at 10,000 nodes
# queen-gated +17 +/- 42 Elo, ungated -17 +/- 45, 200 games each at 4,000 nodes (attack only)
KING_ATTACK_NEEDS_QUEEN = 1   # 1: the attack only counts while the attacker has a queen
# off together with push threats and safe stop squares (+10% nodes a second on CPython):
# -3.5 +/- 41.0 Elo (pairs), 200 games at 10 s + 0.1 s on CPython, so all three stay
SAFE_CHECKS = 1               # 0: the safe-check term off
# All positional terms against none: +139 +/- 47 Elo, 200 games at 3,000 nodes
PSQT_ONLY = 0         # 1: evaluate() is material + PST only (the baseline)

# Drawish-ending scale: +29 +/- 54 Elo, 120 games from drawish-ending starts at 10,000 nodes
SCALE_NORMAL = 64     # scale factors are out of 64
SCALE_MAX_PHASE = 14  # drawish-ending rules are only looked at with this little material
                      # (-1 switches the scaling off, for an A/B match)
# The few-pawns rule at Stockfish's 36 + 7 per pawn (SCALE_FEW_PAWNS, engine/weights.py; 64 is
# off): +9.6 +/- 17.8 Elo (pairs, 400 games at 10,000 nodes), -17.4 +/- 27.6 (200 games at
# 10 s + 0.1 s on CPython), so it stays off
# Endgame complexity (Stockfish classical's "winnable" term): the endgame half moves toward 0
# by as much as it falls short (never past 0), the middlegame half when it falls 23 cp
# shorter.  Weights (cp): per passed pawn, per pawn, per step the kings outflank (file
# distance - rank distance), pawns on both flanks, a king past the middle, a pawn ending,
# almost unwinnable (kings not outflanking, one flank), the base, the middlegame's offset;
# Stockfish 12's x 0.45 (our pawn is 94 cp in the endgame, its 208).
COMPLEXITY = (4, 5, 4, 9, 11, 23, 19, 50, 23)
# On: +3.5 +/- 26.9 Elo (pairs, 400 games at 10,000 nodes), not shown, so off (1: on); on
# with minor behind pawn and pawnless flank fitted under it: +4.3 +/- 26.5 (400 games)
COMPLEXITY_ON = 0
# Known results (engine.endgame: the KPK bitbase, the KBNK distance-to-mate table,
# minor-piece and wrong-rook-pawn draws) replace the evaluation where they apply; they need
# at most two minors' worth of phase.
ENDGAME_MAX_PHASE = 2     # +5.8 +/- 11.3 Elo (pairs), 120 games from pawn endings at 10,000 nodes; -1: off
# ... and their mating drives (KRK; KBNK to the bishop's corner where the table cannot be
# read) are added to the score: KBNK mated within 50 moves from 6 -> 22 of 30 random starts
# at 3,000 nodes a move when written (15 of 30 today; 30 of 30 by the table); KRK in 10.3
# moves on average, not 16.8
NNUE = nnue.ENABLED         # on unless BASILISK_NNUE=off (engine/nnue.py)
# the packed piece-square score of a psq field that carries the network's lanes:
# (psq + _LANES_OFFSET) >> _LANES_SHIFT, nnue.split's second half written out (folded)
_LANES_OFFSET, _LANES_SHIFT = (nnue.OFFSET, nnue.SHIFT) if NNUE else (0, 0)
# a residual network's score is added inside the terms' fast path (its lanes:
# (psq + _LANES_OFFSET) & _LANE_MASK): CPython 1.021x fewer instructions a node than a function
# of its own around that path
RESIDUAL_NETWORK = NNUE and nnue.RESIDUAL
_LANE_MASK = nnue.LANE_MASK if NNUE else 0
_network_score = nnue.score
MATING_DRIVE = 1          # 0: off (scripts/mate_conversion.py compares the two)

VALUE_KNIGHT_MG, VALUE_BISHOP_MG, VALUE_ROOK_MG, VALUE_QUEEN_MG = (
    MATERIAL_MG[KNIGHT], MATERIAL_MG[BISHOP], MATERIAL_MG[ROOK], MATERIAL_MG[QUEEN])

PAWN_CACHE_SIZE = 1 << 16     # each entry also caches its king-square terms (80% hits in bench)
# Whole evaluations by Zobrist key: about a quarter of the search's calls repeat a position
# (transpositions, re-searches, the next iteration), and a lookup costs a fraction of an eval.
EVAL_CACHE_SIZE = 1 << 16     # a power of two: the slot is the key masked by size - 1


def _apply_overrides(text):
    """Set weights from 'NAME=VALUE,...' (BASILISK_EVAL); a pair is given as MG:EG."""
    apply_overrides(globals(), text, "evaluation weight")


_apply_overrides(os.environ.get("BASILISK_EVAL", ""))

# --- Tables built at import ----------------------------------------------------------------
# the pawn-structure sets are computed as plain 64-bit ints (engine.bitboard's unsigned)
_FULL = (1 << 64) - 1
_NOT_A = _FULL ^ unsigned(BB_FILE_A)
_NOT_H = machine_int(_FULL ^ unsigned(BB_FILE_H))      # fits a machine word: keep it one


def _mobility_table(pt):
    """Packed (mg, eg) by number of safe squares, from the weights' tables."""
    mg, eg = MOBILITY_MG[pt], MOBILITY_EG[pt]
    return tuple(pack(mg[n] * MOBILITY_PERCENT // 100, eg[n] * MOBILITY_PERCENT // 100)
                 for n in range(len(mg)))


MOB_KNIGHT = _mobility_table(KNIGHT)
MOB_BISHOP = _mobility_table(BISHOP)
MOB_ROOK = _mobility_table(ROOK)
MOB_QUEEN = _mobility_table(QUEEN)

# attack units -> centipawns (x 1/10000): the attacker-count weight times the percent knob
KING_DANGER = tuple(w * KING_ATTACK_PERCENT for w in ATTACKER_WEIGHT)

KING_ZONE = tuple(KING_ATTACKS[sq] | BB_SQUARES[sq] for sq in range(64))


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
# [king's file] -> the files of its flank (Stockfish's KingFlank): a-c, a-d, a-d, c-f, c-f,
# e-h, e-h, f-h (or-ed, not summed: on PyPy the h-file is a negative word)
KING_FLANK = [reduce(or_, BB_FILES[lo:hi + 1])
              for lo, hi in ((0, 2), (0, 3), (0, 3), (2, 5), (2, 5), (4, 7), (4, 7), (5, 7))]


def _storm_files(color):
    """[king square] -> the three file masks a pawn storm is looked for on: the king's file
    (taken as b-g) and its neighbours, from the king's rank forward, ranks 2-7 only (where
    pawns stand; so no mask holds h8 and all are machine words on PyPy)."""
    table = []
    for ksq in range(64):
        centre = min(max(ksq & 7, 1), 6)
        rank = ksq >> 3
        ranks = range(max(rank, 1), 7) if color == WHITE else range(1, min(rank, 6) + 1)
        table.append(tuple(sum(1 << (r * 8 + f) for r in ranks)
                           for f in (centre - 1, centre, centre + 1)))
    return table


STORM_FILES = [_storm_files(WHITE), _storm_files(BLACK)]


def storm_ranks(us, ksq, own_pawns, enemy_pawns):
    """The pawn-storm ranks of the king of ``us`` on ksq (weights.PAWN_STORM says what counts):
    per file around it with an enemy pawn on or ahead of its rank, the relative rank (from
    us) of the one nearest the king, unless the own pawn nearest the king stands just in
    front of it."""
    ranks = []
    for mask in STORM_FILES[us][ksq]:
        theirs = mask & enemy_pawns
        if not theirs:
            continue
        ours = mask & own_pawns
        if us == WHITE:
            rank = ((theirs & -theirs).bit_length() - 1) >> 3
            own_rank = ((ours & -ours).bit_length() - 1) >> 3 if ours else -1
        else:
            rank = 7 - ((theirs.bit_length() - 1) >> 3)
            own_rank = 7 - ((ours.bit_length() - 1) >> 3) if ours else -1
        if own_rank != rank - 1:
            ranks.append(rank)
    return ranks


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

# PAWN_RINGS[sq][d - 1]: the squares d king moves from sq on ranks 2-7 (where pawns stand;
# machine words on PyPy)
PAWN_RINGS = [tuple(sum(1 << t for t in range(8, 56) if DISTANCE[sq][t] == d)
                    for d in range(1, 8)) for sq in range(64)]


def nearest_pawn_distance(ksq, pawns):
    """King moves from ksq to the nearest of pawns (a non-empty set)."""
    for d, ring in enumerate(PAWN_RINGS[ksq], 1):
        if ring & pawns:
            return d
    raise ValueError("no pawn")


# scale_rule()'s answers with a fixed factor (the opposite-bishops rule adds per passed pawn
# and the few-pawns rule per pawn)
SCALE_BY_RULE = {"SCALE_PAWNLESS_MINOR": SCALE_PAWNLESS_MINOR,
                 "SCALE_PAWNLESS_V_MINOR": SCALE_PAWNLESS_V_MINOR,
                 "SCALE_PAWNLESS_V_PIECES": SCALE_PAWNLESS_V_PIECES,
                 "SCALE_TWO_KNIGHTS": SCALE_TWO_KNIGHTS,
                 "SCALE_TWO_KNIGHTS_V_PAWNS": SCALE_TWO_KNIGHTS_V_PAWNS,
                 "SCALE_OCB_WITH_PIECES": SCALE_OCB_WITH_PIECES}

PASSED_PACKED = tuple(pack(PASSED_MG[r], PASSED_EG[r]) for r in range(8))
BLOCKED_PACKED = tuple(pack(PASSED_BLOCKED_MG[r], PASSED_BLOCKED_EG[r]) for r in range(8))
SAFE_STOP_PACKED = pack(*PASSED_SAFE_STOP)
CONNECTED_PACKED = tuple(pack(CONNECTED_MG[r], CONNECTED_EG[r]) for r in range(8))
DOUBLED_PACKED = pack(*DOUBLED)
ISOLATED_PACKED = pack(*ISOLATED)
BACKWARD_PACKED = pack(*BACKWARD)
BISHOP_PAIR_PACKED = pack(*BISHOP_PAIR)
ROOK_OPEN_PACKED = pack(*ROOK_OPEN_FILE)
ROOK_SEMI_PACKED = pack(*ROOK_SEMI_OPEN_FILE)
TEMPO_PACKED = pack(*TEMPO)
THREAT_PAWN_PACKED = pack(*THREAT_BY_PAWN)
THREAT_MINOR_PACKED = pack(*THREAT_BY_MINOR)
THREAT_ROOK_PACKED = pack(*THREAT_BY_ROOK)
CHECK_N, CHECK_B, CHECK_R, CHECK_Q = (pack(SAFE_CHECK_MG[pt], SAFE_CHECK_EG[pt])
                                      for pt in (KNIGHT, BISHOP, ROOK, QUEEN))
# push threats off alone: +6.9 +/- 39.9 Elo (pairs, LOS 63%), 200 games at 10,000 nodes: stays on
PUSH_THREAT_PACKED = pack(*PAWN_PUSH_THREAT)
OUTPOST_N_PACKED = pack(*OUTPOST_KNIGHT)
OUTPOST_B_PACKED = pack(*OUTPOST_BISHOP)
OUTPOSTS_ON = bool(OUTPOST_N_PACKED or OUTPOST_B_PACKED)
# minor behind pawn at 12:1 (Stockfish's 18:3 at our pawn's scale): +0.0 +/- 24.7 Elo (pairs,
# 400 games at 10,000 nodes), not shown; at the fitted 6:17, +0.9 +/- 26.5 (400 games); at 7:17
# in session 77's wide fit, +11.6 +/- 22.3 (600) but -3.5 +/- 26.9 over 400 at 10 s + 0.1 s on
# CPython: so weighted 0:0 and skipped (tune.py can fit it)
MINOR_BEHIND_PACKED = pack(*MINOR_BEHIND_PAWN)
# pawnless flank fitted alone at -59:-37: -5.2 +/- 15.0 Elo (pairs, 400 games at 10,000 nodes);
# at -21:-27 with the complexity and minor behind pawn (fitted together): +4.3 +/- 26.5 (400);
# at -15:-29 in session 77's wide fit, as minor behind pawn above: 0:0 and skipped
PAWNLESS_FLANK_PACKED = pack(*PAWNLESS_FLANK)
STORM_PACKED = tuple(pack(PAWN_STORM[r], 0) for r in range(8))
# hand-set ranks 3-5 at -30/-20/-10: -29.6 +/- 39.6 Elo (pairs), 200 games at 10,000 nodes, so
# weighted 0 (the term runs only when weighted; tune.py can fit it)
STORM_ON = any(PAWN_STORM)
SAFE_CHECKS_ON = bool(SAFE_CHECKS and (CHECK_N or CHECK_B or CHECK_R or CHECK_Q))
# Rook files (fitted weights; hand-set ones once measured no gain): skipped when both are 0.
ROOK_FILES_ON = bool(ROOK_OPEN_PACKED or ROOK_SEMI_PACKED)
(C_PASSED, C_PAWNS, C_OUTFLANKING, C_BOTH_FLANKS, C_INFILTRATION, C_PAWN_ENDING, C_UNWINNABLE,
 C_BASE, C_MG_OFFSET) = COMPLEXITY
_QUEEN_SIDE = BB_FILES[0] | BB_FILES[1] | BB_FILES[2] | BB_FILES[3]    # files a-d
_NOT_QUEEN_SIDE = ~_QUEEN_SIDE        # files e-h, whatever form a bitboard takes
UNITS_N, UNITS_B = KING_ATTACK_UNITS[KNIGHT], KING_ATTACK_UNITS[BISHOP]
UNITS_R, UNITS_Q = KING_ATTACK_UNITS[ROOK], KING_ATTACK_UNITS[QUEEN]


# --- Pawn structure (bitboard version, cached) --------------------------------------------
def _sideways(bb):
    """Squares beside the set bits on the same rank."""
    return ((bb << 1) & _NOT_A) | ((bb >> 1) & _NOT_H)


# pawn pushes counted by push_threats: to relative ranks 3-6 (a push to the 7th is the
# passed-pawn terms' business); masks within 63 bits keep PyPy's ints machine words
_RANK_3, _RANK_6 = 0xFF << 16, 0xFF << 40
_PUSH_FROM_WHITE = 0xFFFFFFFF00         # ranks 2-5
_PUSH_FROM_BLACK = 0xFFFFFFFF000000     # ranks 4-7
_PUSH_NOT_A, _PUSH_NOT_H = 0x00FEFEFEFEFEFEFE, 0x007F7F7F7F7F7F7F
_RANKS_1_TO_6 = (1 << 48) - 1
_RANKS_4_TO_7, _RANKS_5_TO_2 = 0xFFFFFFFF << 24, 0xFFFFFFFF << 8    # relative ranks 4-7


def push_threats(us, pawns, occ, w_patt, b_patt):
    """Squares the side's pawns would attack after a push (one or two squares) to an empty
    square on relative rank 3-6 that no enemy pawn attacks."""
    empty = occ ^ ALL_SQUARES           # complements: engine.bitboard.ALL_SQUARES
    if us == WHITE:
        push = ((pawns & _PUSH_FROM_WHITE) << 8) & empty
        push = (push | ((push & _RANK_3) << 8) & empty) & (b_patt ^ ALL_SQUARES)
        return (push << 7) & _PUSH_NOT_H | (push << 9) & _PUSH_NOT_A
    push = ((pawns & _PUSH_FROM_BLACK) >> 8) & empty
    push = (push | ((push & _RANK_6) >> 8) & empty) & (w_patt ^ ALL_SQUARES)
    return (push >> 9) & _PUSH_NOT_H | (push >> 7) & _PUSH_NOT_A


_OUTPOST_RANKS_WHITE = 0xFFFFFF << 24      # ranks 4-6
_OUTPOST_RANKS_BLACK = 0xFFFFFF << 16      # ranks 5-3, black's 4-6
_BELOW_RANK_6 = (1 << 40) - 1


def outpost_squares(w_att, b_att):
    """(white's, black's) outpost squares: on relative rank 4-6, attacked by an own pawn and
    by no enemy pawn on any later move (no enemy pawn on an adjacent file ahead).  Takes the
    pawn attack sets in the engine's form; only white's can hold h8, and only its squares
    below rank 6 matter here, so both stay machine words."""
    return (w_att & ~fill_south(b_att) & _OUTPOST_RANKS_WHITE,
            b_att & ~fill_north(w_att & _BELOW_RANK_6) & _OUTPOST_RANKS_BLACK)


def _pawn_sets(wp, bp):
    """(white attacks, black attacks, (passed, isolated, doubled, backward, connected) per colour)."""
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
    # connected: an own pawn defends it or stands beside it on its rank
    w_conn = wp & (_sideways(wp) | w_att)
    b_conn = bp & (_sideways(bp) | b_att)
    # only white's attacks can reach h8 (a pawn on g7); what evaluate() uses goes back to
    # the engine's form (on PyPy, machine words: see engine.bitboard.machine_int)
    return (to_bitboard(w_att), to_bitboard(b_att),
            ((to_bitboard(w_passed), w_iso, w_dbl, w_back, w_conn),
             (to_bitboard(b_passed), b_iso, b_dbl, b_back, b_conn)))


def _pawn_entry(wp, bp):
    """(packed white-view pawn score, white attacks, black attacks, white passed, black passed,
    king-square cache, white outposts, black outposts, then per colour (white's first) the
    pushes, safe squares and reach of push_threats): the pushes are the squares one step
    ahead of the pawns push_threats moves (empty or not), the safe squares those no enemy
    pawn attacks, the reach push_threats' answer on a board without pieces (a superset of
    its answer on any board with these pawns)."""
    w_att, b_att, sets = _pawn_sets(wp, bp)
    score = 0
    for color, sign in ((WHITE, 1), (BLACK, -1)):
        passed, iso, dbl, back, conn = sets[color]
        flip = 0 if color == WHITE else 56
        s = (popcount(iso) * ISOLATED_PACKED + popcount(dbl) * DOUBLED_PACKED
             + popcount(back) * BACKWARD_PACKED)
        while conn:
            low = conn & -conn
            conn ^= low
            s += CONNECTED_PACKED[((low.bit_length() - 1) ^ flip) >> 3]
        while passed:
            low = passed & -passed
            passed ^= low
            s += PASSED_PACKED[((low.bit_length() - 1) ^ flip) >> 3]
        score += sign * s
    w_out, b_out = outpost_squares(w_att, b_att)
    w_pushes, w_safe = (wp & _PUSH_FROM_WHITE) << 8, b_att ^ ALL_SQUARES
    b_pushes, b_safe = (bp & _PUSH_FROM_BLACK) >> 8, w_att ^ ALL_SQUARES
    return (score, w_att, b_att, sets[WHITE][0], sets[BLACK][0], {}, w_out, b_out,
            w_pushes, w_safe, push_threats(WHITE, wp, 0, w_att, b_att),
            b_pushes, b_safe, push_threats(BLACK, bp, 0, w_att, b_att))


def _king_pawn_terms(wp, bp, w_passed, b_passed, wksq, bksq, pawn_ending):
    """Packed white-view sum of the terms that depend only on the pawns and the two king
    squares: the pawn shields and storms (middlegame), the kings' distances to passed
    pawns' stop squares and each king's to its nearest pawn (endgame, not in pawn endings),
    and a king on a flank without pawns (not in pawn endings).
    Cached per pawn structure by king squares and whether it is a pawn ending, as the
    kings seldom move."""
    score = 0
    for us, own_pawns, enemy_pawns, own_passed, ksq, enemy_ksq, flip, step, sign in (
            (WHITE, wp, bp, w_passed, wksq, bksq, 0, 8, 1),
            (BLACK, bp, wp, b_passed, bksq, wksq, 56, -8, -1)):
        side = (SHIELD_NEAR * popcount(SHIELD_NEAR_BB[us][ksq] & own_pawns)
                + SHIELD_FAR * popcount(SHIELD_FAR_BB[us][ksq] & own_pawns))
        if STORM_ON:
            for rank in storm_ranks(us, ksq, own_pawns, enemy_pawns):
                side += STORM_PACKED[rank]
        while own_passed:
            low = own_passed & -own_passed
            own_passed ^= low
            sq = low.bit_length() - 1
            rank = (sq ^ flip) >> 3
            if rank >= 3:
                stop = sq + step
                side += ((PASSER_ENEMY_KING * DISTANCE[enemy_ksq][stop]
                          - PASSER_OWN_KING * DISTANCE[ksq][stop]) * (rank - 2)) << 16
        # -10 against 0: +23.5 +/- 27.8 Elo (pairs), 400 games at 10,000 nodes; in pawn
        # endings it took the issue #13 GUI ending over a pawn, so not there
        if KING_PAWN_DISTANCE and own_pawns and not pawn_ending:
            side += (KING_PAWN_DISTANCE * nearest_pawn_distance(ksq, own_pawns)) << 16
        if PAWNLESS_FLANK_PACKED and not pawn_ending and not KING_FLANK[ksq & 7] & (wp | bp):
            side += PAWNLESS_FLANK_PACKED
        score += sign * side
    return score


_pawn_cache = {}
# Whole evaluations: two lists indexed by the key's low bits, the 63-bit key beside its
# score (a slot is replaced, never cleared in a search).  Lists of ints are unboxed on PyPy,
# so a store allocates nothing there; a dict boxed each score, and those survivors of the
# nursery fed the garbage collector.
_EVAL_INDEX = EVAL_CACHE_SIZE - 1
# one slot past the probed ones: terms_score's store, which no probe reads (under key -1,
# so cached_evaluations never counts it)
_SCRATCH_SLOT = EVAL_CACHE_SIZE
_eval_keys = [-1] * (EVAL_CACHE_SIZE + 1)      # -1: empty (a key masked to 63 bits is >= 0)
_eval_scores = [0] * (EVAL_CACHE_SIZE + 1)


def clear_evaluations():
    """Empty the whole-evaluation cache (the pawn cache stays)."""
    global _eval_keys, _eval_scores
    _eval_keys = [-1] * (EVAL_CACHE_SIZE + 1)
    _eval_scores = [0] * (EVAL_CACHE_SIZE + 1)


def cached_evaluations():
    """How many whole evaluations the cache holds."""
    return EVAL_CACHE_SIZE + 1 - _eval_keys.count(-1)


def clear_cache():
    _pawn_cache.clear()
    clear_evaluations()


# --- Phase, scaling, mop-up (fast path) -------------------------------------------------
# FILE_AHEAD[colour][sq]: the squares in front of a pawn of that colour on sq, on its file.
FILE_AHEAD = ([to_bitboard(fill_north(1 << sq) ^ 1 << sq) for sq in range(64)],
              [fill_south(1 << sq) ^ 1 << sq for sq in range(64)])


def passer_caught(sq, color, own_ksq, enemy_ksq, enemy_to_move):
    """The rule of the square for a passed pawn of ``color`` on sq, kings and pawns only: can
    the enemy king reach its promotion square in time?  (A pawn on its second rank can step
    twice; one whose own king stands in its way needs a move more.)  Never when the own king
    guards every square of the pawn's path: the enemy king cannot step onto any of them."""
    path = FILE_AHEAD[color][sq]
    if not path & ~KING_ATTACKS[own_ksq]:
        return False
    flip = 0 if color == WHITE else 56
    rank = (sq ^ flip) >> 3
    moves = 7 - rank if rank > 1 else 5
    if path >> own_ksq & 1:
        moves += 1
    return DISTANCE[enemy_ksq][(sq & 7) | (56 ^ flip)] - enemy_to_move <= moves


def _caught_passers(w_passed, b_passed, wksq, bksq, turn):
    """White-view endgame penalty for the passed pawns the enemy king catches."""
    penalty = 0
    for passed, color, own_ksq, enemy_ksq, flip, sign in (
            (w_passed, WHITE, wksq, bksq, 0, 1), (b_passed, BLACK, bksq, wksq, 56, -1)):
        enemy_to_move = turn != color
        while passed:
            low = passed & -passed
            passed ^= low
            sq = low.bit_length() - 1
            if passer_caught(sq, color, own_ksq, enemy_ksq, enemy_to_move):
                penalty += sign * CAUGHT_PASSER[(sq ^ flip) >> 3]
    return penalty


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


# Can the few-pawns rule (scale_rule's last) scale a score below SCALE_NORMAL?  Where it
# cannot, a rule applies only where the side ahead has no pawns or both sides have bishops:
# _evaluate_terms asks scale_rule only there (a new rule widens that test too).
_FEW_PAWNS_SCALE = SCALE_FEW_PAWNS + SCALE_PER_PAWN < SCALE_NORMAL or SCALE_PER_PAWN < 0


def scale_rule(pos, strong):
    """The drawish-ending rule that may shrink the score when ``strong`` is ahead: the name
    of its SCALE_* weight, or None when no rule applies and the score stays whole."""
    bbs = pos.bbs
    weak = strong ^ 1
    s, w = strong << 3, weak << 3
    npm_s = _non_pawn_material(bbs, strong)
    npm_w = _non_pawn_material(bbs, weak)
    if not bbs[s | PAWN]:
        if npm_s - npm_w <= VALUE_BISHOP_MG:
            # a minor up (or less) without pawns: KB v K, KR v KB, KRB v KR ...
            if npm_s < VALUE_ROOK_MG:
                return "SCALE_PAWNLESS_MINOR"
            return "SCALE_PAWNLESS_V_MINOR" if npm_w <= VALUE_BISHOP_MG else "SCALE_PAWNLESS_V_PIECES"
        if npm_s == 2 * VALUE_KNIGHT_MG and popcount(bbs[s | KNIGHT]) == 2:
            # two knights cannot force mate (against pawns they sometimes can)
            return "SCALE_TWO_KNIGHTS_V_PAWNS" if bbs[w | PAWN] else "SCALE_TWO_KNIGHTS"
    wb, bb = bbs[BISHOP], bbs[8 | BISHOP]
    if (wb and bb and (not wb & (wb - 1) or wb == BIT63) and (not bb & (bb - 1) or bb == BIT63)
            and bool(wb & BB_LIGHT_SQUARES) != bool(bb & BB_LIGHT_SQUARES)):
        # opposite-coloured bishops: very drawish alone, somewhat with other pieces
        if npm_s == VALUE_BISHOP_MG and npm_w == VALUE_BISHOP_MG:
            return "SCALE_OCB_BISHOPS_ONLY"
        return "SCALE_OCB_WITH_PIECES"
    # few pawns: each one the side ahead has keeps more of its lead
    return "SCALE_FEW_PAWNS" if bbs[s | PAWN] else None


def scale_factor(pos, strong, passed_strong=0):
    """How much of the score (out of 64) the side ahead keeps in drawish endings."""
    rule = scale_rule(pos, strong)
    if rule is None:
        return SCALE_NORMAL
    if rule == "SCALE_FEW_PAWNS":
        return min(SCALE_NORMAL, SCALE_FEW_PAWNS + SCALE_PER_PAWN * popcount(pos.bbs[strong << 3 | PAWN]))
    if rule == "SCALE_OCB_BISHOPS_ONLY":
        return min(SCALE_NORMAL, SCALE_OCB_BISHOPS_ONLY + SCALE_OCB_PER_PASSER * popcount(passed_strong))
    return SCALE_BY_RULE[rule]


def mopup_steps(pos, strong):
    """(edge, closeness) of a bare enemy king, which mopup() weighs by MOPUP_EDGE and
    MOPUP_KINGS; None when ``strong`` has no mating material."""
    bbs = pos.bbs
    s = strong << 3
    bishops, knights = bbs[s | BISHOP], bbs[s | KNIGHT]
    heavy = bbs[s | QUEEN] | bbs[s | ROOK]
    if not (heavy or (bishops & BB_LIGHT_SQUARES and bishops & BB_DARK_SQUARES)
            or (bishops and knights)):
        return None
    weak_king = pos.king_square(strong ^ 1)
    strong_king = pos.king_square(strong)
    edge = CENTRE_MANHATTAN[weak_king]
    if not heavy and knights and bishops and (not bishops & (bishops - 1) or bishops == BIT63):
        # KBN: mate can only be forced in a corner of the bishop's colour
        corners = (7, 56) if bishops & BB_LIGHT_SQUARES else (0, 63)
        edge = 2 * (7 - min(DISTANCE[weak_king][corners[0]], DISTANCE[weak_king][corners[1]]))
    return edge, 14 - MANHATTAN[weak_king][strong_king]


def mopup(pos, strong):
    """Endgame bonus (for ``strong``) driving a bare enemy king to the edge; 0 without mating material."""
    steps = mopup_steps(pos, strong)
    return MOPUP_EDGE * steps[0] + MOPUP_KINGS * steps[1] if steps else 0


def winnable_complexity(pawns, passed, wksq, bksq, phase):
    """Stockfish's 'winnable' complexity (cp) from all pawns, all passed pawns, the king
    squares and the phase: below 0, that much of an endgame lead is not real."""
    outflanking = abs((wksq & 7) - (bksq & 7)) - abs((wksq >> 3) - (bksq >> 3))
    both_flanks = (pawns & _QUEEN_SIDE) != 0 and (pawns & _NOT_QUEEN_SIDE) != 0
    return (C_PASSED * popcount(passed) + C_PAWNS * popcount(pawns)
            + C_OUTFLANKING * outflanking + C_BOTH_FLANKS * both_flanks
            + C_INFILTRATION * (wksq >= 32 or bksq < 32) + C_PAWN_ENDING * (not phase)
            - C_UNWINNABLE * (outflanking < 0 and not both_flanks) - C_BASE)


def winnable(value, change):
    """value moved away from 0 by change, or toward 0 by -change but never past it (the
    complexity's step, on both paths; scripts/tune.py's model takes it too)."""
    sign = (value > 0) - (value < 0)
    return value + sign * max(change, -abs(value))


def _blend(pos, mg, eg, phase):
    """Tapered score from the side to move's view (sign first, so floor division is symmetric)."""
    if pos.turn == BLACK:
        mg, eg = -mg, -eg
    return (mg * phase + eg * (MAX_PHASE - phase)) // MAX_PHASE


def _scaled(pos, score, w_passed, b_passed):
    """The blended score (not 0, with little material: the caller asks) with the
    drawish-ending scale applied."""
    us = pos.turn
    strong = us if score > 0 else us ^ 1
    sf = scale_factor(pos, strong, w_passed if strong == WHITE else b_passed)
    if sf != SCALE_NORMAL:
        return score * sf // SCALE_NORMAL if score > 0 else -(-score * sf // SCALE_NORMAL)
    return score


# --- The fast path ---------------------------------------------------------------------
def evaluate(pos):
    """Centipawns from the side to move's point of view."""
    # 63 bits of the key: a machine word on PyPy
    key = pos.key & 0x7FFFFFFFFFFFFFFF
    slot = key & _EVAL_INDEX
    if _eval_keys[slot] == key:
        return _eval_scores[slot]
    return _evaluate(pos, key, slot)


# Traced on its own under PyPy: bench 1.11x (median 1.21x) after six benches, the first go
# 1.16x (bench_compare.py).  Its caller then allocates a frame for all these locals (about
# 2 KB a call), so the cache probe above stays outside, in a small frame: inlined, a hit
# cost 0.04 us and 10 bytes, not 0.19 us and 2 KB (engine.jit now has PyPy inline
# nothing, so a hit is a call of that small frame).
@not_inlined
@for_bitboard_form
def _evaluate_terms(pos, key, slot, with_network=RESIDUAL_NETWORK):
    """The terms' score of a position not in the cache, with a residual network's added
    where _network_answers (with_network); stores it there (in slot)."""
    bbs = pos.bbs
    # literals and + and * rather than globals and bitwise operators here and below: CPython
    # 0.2% fewer instructions a node
    wp, wn, wb, wr, wq, wk = bbs[1:7]        # PAWN to KING
    bp, bn, bb, br, bq, bk = bbs[9:15]       # 8 | PAWN to 8 | KING
    pawn_key = (wp, bp)
    entry = _pawn_cache.get(pawn_key)
    if entry is None:
        if len(_pawn_cache) >= PAWN_CACHE_SIZE:
            _pawn_cache.clear()
        entry = _pawn_cache[pawn_key] = _pawn_entry(wp, bp)
    (s, w_patt, b_patt, w_passed, b_passed, king_terms, w_outposts, b_outposts,
     w_pushes, w_push_safe, w_push_reach, b_pushes, b_push_safe, b_push_reach) = entry
    wksq = wk.bit_length() - 1
    bksq = bk.bit_length() - 1
    phase = popcount(wn | bn | wb | bb) + 2 * popcount(wr | br) + 4 * popcount(wq | bq)
    if phase > 24:                           # MAX_PHASE
        phase = 24
    kings = wksq * 64 + bksq if phase else 4096 + wksq * 64 + bksq
    king_pawn = king_terms.get(kings)
    if king_pawn is None:
        king_pawn = king_terms[kings] = _king_pawn_terms(wp, bp, w_passed, b_passed, wksq, bksq,
                                                         not phase)
    s += ((pos.psq + _LANES_OFFSET) >> _LANES_SHIFT if NNUE else pos.psq) + king_pawn
    occ_w, occ_b = pos.occ
    occ = occ_w | occ_b
    drive = 0
    verdict = None
    if phase <= ENDGAME_MAX_PHASE:
        verdict = endgame_verdict(pos)
        if verdict is not None:
            if verdict[0] == EXACT:
                _eval_keys[slot] = key
                _eval_scores[slot] = verdict[1]
                return verdict[1]
            if MATING_DRIVE:
                drive = verdict[1]
    if MINOR_BEHIND_PACKED:
        # knights and bishops with a pawn (either side's) just in front of them; black's are
        # shifted down rather than the pawns up (PyPy: a pawn on rank 7 would overflow a word)
        pawns = wp | bp
        s += MINOR_BEHIND_PACKED * (popcount((wn | wb) & (pawns >> 8))
                                    - popcount(((bn | bb) >> 8) & pawns))
    if not phase and (w_passed or b_passed):
        s -= _caught_passers(w_passed, b_passed, wksq, bksq, pos.turn) << 16
    if phase and (w_passed or b_passed):
        # passed pawns with their stop square occupied (in pawn endings the rule of the
        # square and the kings' distances judge them); black's stop squares lie on ranks
        # 1-6, so only those of occ are shifted (PyPy: the result stays a machine word)
        blocked = w_passed & (occ >> 8)
        while blocked:
            low = blocked & -blocked
            blocked ^= low
            s += BLOCKED_PACKED[(low.bit_length() - 1) >> 3]
        blocked = b_passed & ((occ & _RANKS_1_TO_6) << 8)
        while blocked:
            low = blocked & -blocked
            blocked ^= low
            s -= BLOCKED_PACKED[7 - ((low.bit_length() - 1) >> 3)]

    # Each side's terms once, from its own view, with what differs between the colours in
    # the two rows below; `area` is where mobility counts (not own pieces, not attacked by
    # enemy pawns).  A side's sum is added to the white-view score for white, taken for black.
    # (Rows of locals, not lookups by colour in the body such as bbs[us << 3 | ROOK]: those
    # cost 13% more bytecodes per call than writing each colour out, the rows 6%.  In the
    # plain form engine.jit writes the loop out, each row's locals read in place: CPython
    # 1.1% fewer instructions a node.)
    # (The rows also hold what threats need: the enemy pieces the own pawns attack, and the
    # enemy's queens and its rooks and queens.)
    w_majors = wr | wq
    b_majors = br | bq
    w_pieces = wn | wb | w_majors       # what pawns threaten (also by a push)
    b_pieces = bn | bb | b_majors
    # passed pawns that may have a safe stop square: only then does the loop keep every square
    # each side attacks (the union costs 2.5% of an evaluation when always made)
    safe_stops = phase and SAFE_STOP_PACKED and (w_passed & _RANKS_4_TO_7
                                                 or b_passed & _RANKS_5_TO_2)
    # Terms are added without testing them first where a zero adds nothing: under PyPy each
    # branch is a path its JIT compiles on its own (bridges 824 -> 580 over 100 passes of
    # the positions a search evaluates; PyPy bench 1.06x +/- 0.04 over 14 rounds of 10;
    # CPython -0.6% instructions).  Where a test first saves CPython the work (the set
    # mostly empty), it is marked "plain form only": the signed form (PyPy's) tests True
    # there (engine.jit)
    attacks = [0, 0] if safe_stops else None      # what each side attacks, for safe stops
    for (us, sign, knights, bishops, rooks, queens,  # unrolled in the plain form
         own_pawns, enemy_pawns, area, own_ksq, enemy_ksq, own_patt, pawn_hits,
         enemy_queens, enemy_majors, outposts) in (
            (WHITE, 1, wn, wb, wr, wq, wp, bp, (occ_w | b_patt) ^ ALL_SQUARES,
             wksq, bksq, w_patt,
             w_patt & b_pieces, bq, b_majors, w_outposts),
            (BLACK, -1, bn, bb, br, bq, bp, wp, (occ_b | w_patt) ^ ALL_SQUARES,
             bksq, wksq, b_patt,
             b_patt & w_pieces, wq, w_majors, b_outposts)):
        # mobility, attacks on the enemy king zone, rook files; what minors and rooks attack
        zone = KING_ZONE[enemy_ksq]
        side = attackers = units = by_knights = by_bishops = by_rooks = by_queens = 0
        # each piece set walked from its top square, h8 first (negative on PyPy: see
        # engine.bitboard); 43 against 89 ns a piece for the lowest-bit walk on CPython
        b_ = knights
        while b_:
            sq = b_.bit_length() - 1 if b_ > 0 else 63
            b_ ^= BB_SQUARES[sq]
            att = KNIGHT_ATTACKS[sq]
            by_knights |= att
            side += MOB_KNIGHT[popcount(att & area)]
            att &= zone
            if att:
                attackers += 1
                units += UNITS_N * popcount(att)
        b_ = bishops
        if b_ & (b_ - 1) and b_ != BIT63:
            side += BISHOP_PAIR_PACKED
        while b_:
            sq = b_.bit_length() - 1 if b_ > 0 else 63
            b_ ^= BB_SQUARES[sq]
            att = BISHOP_TABLE[sq][occ & BISHOP_MASK[sq]]
            by_bishops |= att
            side += MOB_BISHOP[popcount(att & area)]
            att &= zone
            if att:
                attackers += 1
                units += UNITS_B * popcount(att)
        b_ = rooks
        while b_:
            sq = b_.bit_length() - 1 if b_ > 0 else 63
            b_ ^= BB_SQUARES[sq]
            att = ROOK_TABLE[sq][occ & ROOK_MASK[sq]]
            by_rooks |= att
            side += MOB_ROOK[popcount(att & area)]
            att &= zone
            if att:
                attackers += 1
                units += UNITS_R * popcount(att)
            if ROOK_FILES_ON:
                file_bb = BB_FILES[sq & 7]
                if not file_bb & own_pawns:
                    side += ROOK_SEMI_PACKED if file_bb & enemy_pawns else ROOK_OPEN_PACKED
        b_ = queens
        while b_:
            sq = b_.bit_length() - 1 if b_ > 0 else 63
            b_ ^= BB_SQUARES[sq]
            att = ROOK_TABLE[sq][occ & ROOK_MASK[sq]] | BISHOP_TABLE[sq][occ & BISHOP_MASK[sq]]
            by_queens |= att
            side += MOB_QUEEN[popcount(att & area)]
            att &= zone
            if att:
                attackers += 1
                units += UNITS_Q * popcount(att)
        if attackers > 1 and (queens or not KING_ATTACK_NEEDS_QUEEN):
            side += units * KING_DANGER[attackers] // 10000

        # safe checks: a piece type that can move to a square checking the enemy king, the
        # square in the mobility area and not next to that king
        # (about 1.5 us of a 6.4 us warm evaluation on CPython: scripts/bench_eval.py); each
        # tested, not added as CHECK_N * (... != 0): CPython 0.85% fewer instructions a node
        if SAFE_CHECKS_ON:
            safe = area & NOT_KING_ATTACKS[enemy_ksq]
            diagonals = BISHOP_TABLE[enemy_ksq][occ & BISHOP_MASK[enemy_ksq]] & safe
            lines = ROOK_TABLE[enemy_ksq][occ & ROOK_MASK[enemy_ksq]] & safe
            if by_knights & safe & KNIGHT_ATTACKS[enemy_ksq]:
                side += CHECK_N
            if by_bishops & diagonals:
                side += CHECK_B
            if by_rooks & lines:
                side += CHECK_R
            if by_queens & (diagonals | lines):
                side += CHECK_Q

        if OUTPOSTS_ON:
            if (knights | bishops) & outposts:      # plain form only
                side += (OUTPOST_N_PACKED * popcount(knights & outposts)
                         + OUTPOST_B_PACKED * popcount(bishops & outposts))

        # threats: enemy pieces attacked by lesser ones
        if pawn_hits:                               # plain form only
            side += THREAT_PAWN_PACKED * popcount(pawn_hits)
        hits = (by_knights | by_bishops) & enemy_majors
        if hits:                                    # plain form only
            side += THREAT_MINOR_PACKED * popcount(hits)
        hits = by_rooks & enemy_queens
        if hits:                                    # plain form only
            side += THREAT_ROOK_PACKED * popcount(hits)

        s += sign * side
        if safe_stops:
            attacks[us] = (by_knights | by_bishops | by_rooks | by_queens | own_patt
                           | KING_ATTACKS[own_ksq])

    # mop-up against a bare king: once for both sides, out of the loop (its test there
    # cost CPython 0.5% of the instructions a node)
    if occ_b == bk:
        if occ_w != wk:
            s += mopup(pos, WHITE) << 16
    elif occ_w == wk:
        s -= mopup(pos, BLACK) << 16

    if safe_stops:
        # passed pawns on relative ranks 4-7 whose stop square is empty and attacked by no
        # enemy piece, pawn or king: the weight times (relative rank - 2)
        passed = w_passed & _RANKS_4_TO_7
        if passed:
            unsafe = occ | attacks[BLACK]
            while passed:
                low = passed & -passed
                passed ^= low
                sq = low.bit_length() - 1
                if not BB_SQUARES[sq + 8] & unsafe:
                    s += SAFE_STOP_PACKED * ((sq >> 3) - 2)
        passed = b_passed & _RANKS_5_TO_2
        if passed:
            unsafe = occ | attacks[WHITE]
            while passed:
                low = passed & -passed
                passed ^= low
                sq = low.bit_length() - 1
                if not BB_SQUARES[sq - 8] & unsafe:
                    s -= SAFE_STOP_PACKED * (5 - (sq >> 3))

    if PUSH_THREAT_PACKED:
        # pawn push threats: push_threats() written out, on the pawn entry's pushes and safe
        # squares (CPython 1.1% fewer instructions a node; PyPy 0.5% more, where four unused
        # items in the entry alone cost 0.9%), and on CPython only where an enemy piece
        # stands within the pawns' reach (about 55% of evaluations a side; 0.7% fewer)
        empty = occ ^ ALL_SQUARES
        if w_push_reach & b_pieces:                 # plain form only
            push = w_pushes & empty
            push = (push | ((push & _RANK_3) << 8) & empty) & w_push_safe
            s += PUSH_THREAT_PACKED * popcount(
                ((push << 7) & _PUSH_NOT_H | (push << 9) & _PUSH_NOT_A) & b_pieces)
        if b_push_reach & w_pieces:                 # plain form only
            push = b_pushes & empty
            push = (push | ((push & _RANK_6) >> 8) & empty) & b_push_safe
            s -= PUSH_THREAT_PACKED * popcount(
                ((push >> 9) & _PUSH_NOT_H | (push >> 7) & _PUSH_NOT_A) & w_pieces)
    turn_sign = 1 - 2 * pos.turn                    # WHITE = 0: 1, BLACK = 1: -1
    if TEMPO_PACKED:
        s += turn_sign * TEMPO_PACKED
    mg = ((s + 0x8000) & 0xFFFF) - 0x8000
    eg = (s - mg) >> 16
    if COMPLEXITY_ON and (mg or eg):
        complexity = winnable_complexity(wp | bp, w_passed | b_passed, wksq, bksq, phase)
        mg = winnable(mg, min(complexity + C_MG_OFFSET, 0))
        eg = winnable(eg, complexity)
    # from the side to move's view: negated before the floor division, so it is symmetric
    score = turn_sign * (mg * phase + eg * (24 - phase)) // 24        # MAX_PHASE 24
    # scale_rule only where one of its rules can apply (see _FEW_PAWNS_SCALE)
    if score and phase <= SCALE_MAX_PHASE:
        if _FEW_PAWNS_SCALE or wb and bb or not (wp if score * turn_sign > 0 else bp):  # plain form only
            score = _scaled(pos, score, w_passed, b_passed)
    score += drive
    if with_network and phase and verdict is None:          # _network_answers
        score += _network_score((pos.psq + _LANES_OFFSET) & _LANE_MASK, pos.turn)
    _eval_keys[slot] = key
    _eval_scores[slot] = score
    return score


# --- The reference path: every term from its definition ----------------------------------
# Square by square on the mailbox (pos.board), with its own steps and ray walks, distances,
# piece-square lookups and endgame rules: it shares only the weights above with the fast
# path, so a wrong table on either side shows up as a disagreement in the tests.
TERM_NAMES = ("material+pst", "pawns: passed", "pawns: isolated", "pawns: doubled",
              "pawns: backward", "pawns: connected", "passed: king distance", "passed: caught",
              "passed: blocked", "passed: safe stop", "king: pawn distance", "king: pawnless flank",
              "mobility", "king attack", "safe checks", "king shield", "king storm", "bishop pair",
              "rook files", "threats", "push threats", "outposts", "minor behind pawn", "tempo",
              "mop-up")

_KNIGHT_STEPS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
_KING_STEPS = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))
_DIAGONAL_RAYS = ((1, 1), (-1, 1), (1, -1), (-1, -1))
_STRAIGHT_RAYS = ((1, 0), (-1, 0), (0, 1), (0, -1))
_RAYS = {BISHOP: _DIAGONAL_RAYS, ROOK: _STRAIGHT_RAYS, QUEEN: _DIAGONAL_RAYS + _STRAIGHT_RAYS}


def _attacked_by(board, sq):
    """Squares the piece on sq attacks: one step for pawns, knights and kings, and for
    sliders each ray up to and including the first occupied square."""
    piece = board[sq]
    return _reach(board, sq, piece & 7, 1 if piece >> 3 == WHITE else -1)


def _reach(board, sq, kind, forward=1):
    """Squares a piece of this kind standing on sq would attack (a pawn moving ``forward``
    ranks), whatever stands there."""
    f, r = sq & 7, sq >> 3
    if kind == PAWN:
        steps = ((-1, forward), (1, forward))
    elif kind == KNIGHT:
        steps = _KNIGHT_STEPS
    elif kind == KING:
        steps = _KING_STEPS
    else:
        steps = ()
    out = {(r + dr) * 8 + f + df for df, dr in steps if 0 <= f + df < 8 and 0 <= r + dr < 8}
    for df, dr in _RAYS.get(kind, ()):
        tf, tr = f + df, r + dr
        while 0 <= tf < 8 and 0 <= tr < 8:
            out.add(tr * 8 + tf)
            if board[tr * 8 + tf]:
                break
            tf, tr = tf + df, tr + dr
    return out


def _king_distance(a, b):
    return max(abs((a & 7) - (b & 7)), abs((a >> 3) - (b >> 3)))


def _is_light(sq):
    return ((sq & 7) + (sq >> 3)) % 2 == 1       # a1 is dark, h1 light


class _Side:
    """One colour's pieces read off the board, and what the reference terms ask of them."""

    def __init__(self, board, color):
        self.color = color
        self.forward = 1 if color == WHITE else -1
        self.squares = {pt: [sq for sq in range(64) if board[sq] == color << 3 | pt]
                        for pt in (PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING)}
        self.king = self.squares[KING][0]
        self.occupied = {sq for sq in range(64) if board[sq] and board[sq] >> 3 == color}
        self.pawn_attacks = set()
        for sq in self.squares[PAWN]:
            self.pawn_attacks |= _attacked_by(board, sq)

    def relative_rank(self, sq):
        return sq >> 3 if self.color == WHITE else 7 - (sq >> 3)

    def count(self, pt):
        return len(self.squares[pt])

    def non_pawn_material(self):
        return (VALUE_KNIGHT_MG * self.count(KNIGHT) + VALUE_BISHOP_MG * self.count(BISHOP)
                + VALUE_ROOK_MG * self.count(ROOK) + VALUE_QUEEN_MG * self.count(QUEEN))


def _pawn_facts(own, enemy):
    """{own pawn square: (passed, isolated, doubled, backward, connected)}, each by its definition."""
    facts = {}
    for sq in own.squares[PAWN]:
        f, rank = sq & 7, own.relative_rank(sq)
        # file offsets (-1, 0, +1 are this and the adjacent files) of the other pawns
        own_ahead = {(o & 7) - f for o in own.squares[PAWN] if own.relative_rank(o) > rank}
        own_not_ahead = {(o & 7) - f for o in own.squares[PAWN]
                         if o != sq and own.relative_rank(o) <= rank}
        enemy_ahead = {(e & 7) - f for e in enemy.squares[PAWN] if own.relative_rank(e) > rank}
        # passed: no enemy pawn ahead on its own or an adjacent file, and the front pawn
        # of its file (those behind it are blocked by it)
        passed = not enemy_ahead & {-1, 0, 1} and 0 not in own_ahead
        isolated = not (own_ahead | own_not_ahead) & {-1, 1}
        doubled = 0 in own_ahead
        # backward: no own pawn on an adjacent file level with it or behind it to support
        # its advance, and the square in front attacked by an enemy pawn (isolated pawns
        # are paid for already)
        backward = (not isolated and not own_not_ahead & {-1, 1}
                    and sq + 8 * own.forward in enemy.pawn_attacks)
        # connected: an own pawn beside it on its rank or defending it (one rank behind on
        # an adjacent file)
        connected = any(abs((o & 7) - f) == 1 and own.relative_rank(o) in (rank, rank - 1)
                        for o in own.squares[PAWN])
        facts[sq] = (passed, isolated, doubled, backward, connected)
    return facts


def _reference_mopup(own, enemy):
    """Endgame bonus for driving a bare king (enemy's) to the edge; 0 without mating material."""
    bishops, knights = own.squares[BISHOP], own.squares[KNIGHT]
    heavy = own.count(QUEEN) + own.count(ROOK)
    both_bishop_colours = len({_is_light(sq) for sq in bishops}) == 2
    if not (heavy or both_bishop_colours or (bishops and knights)):
        return 0
    king = enemy.king
    # Manhattan distance to the nearest of d4, e4, d5, e5
    edge = min(abs((king & 7) - cf) + abs((king >> 3) - cr) for cf in (3, 4) for cr in (3, 4))
    if not heavy and knights and len(bishops) == 1:
        # KBN: mate can only be forced in a corner of the bishop's square colour
        corners = [c for c in (0, 7, 56, 63) if _is_light(c) == _is_light(bishops[0])]
        edge = 2 * (7 - min(_king_distance(king, c) for c in corners))
    kings_apart = abs((king & 7) - (own.king & 7)) + abs((king >> 3) - (own.king >> 3))
    return MOPUP_EDGE * edge + MOPUP_KINGS * (14 - kings_apart)


def _reference_scale(strong, weak, strong_passed):
    """Out of 64: how much of its lead the stronger side keeps in drawish endings."""
    npm_s, npm_w = strong.non_pawn_material(), weak.non_pawn_material()
    if not strong.count(PAWN):
        if npm_s - npm_w <= VALUE_BISHOP_MG:
            # at most a minor piece up, without pawns: KB v K, KR v KB, KRB v KR ...
            if npm_s < VALUE_ROOK_MG:
                return SCALE_PAWNLESS_MINOR
            return SCALE_PAWNLESS_V_MINOR if npm_w <= VALUE_BISHOP_MG else SCALE_PAWNLESS_V_PIECES
        if npm_s == 2 * VALUE_KNIGHT_MG and strong.count(KNIGHT) == 2:
            # two knights cannot force mate (against pawns they sometimes can)
            return SCALE_TWO_KNIGHTS_V_PAWNS if weak.count(PAWN) else SCALE_TWO_KNIGHTS
    if (strong.count(BISHOP) == 1 and weak.count(BISHOP) == 1
            and _is_light(strong.squares[BISHOP][0]) != _is_light(weak.squares[BISHOP][0])):
        # opposite-coloured bishops: very drawish alone, somewhat with other pieces
        if npm_s == npm_w == VALUE_BISHOP_MG:
            return min(SCALE_NORMAL, SCALE_OCB_BISHOPS_ONLY + SCALE_OCB_PER_PASSER * strong_passed)
        return SCALE_OCB_WITH_PIECES
    if strong.count(PAWN):
        # few pawns: each one the side ahead has keeps more of its lead
        return min(SCALE_NORMAL, SCALE_FEW_PAWNS + SCALE_PER_PAWN * strong.count(PAWN))
    return SCALE_NORMAL


def _reference_complexity(sides, facts, phase):
    """Stockfish's 'winnable' complexity (cp): how much of an endgame lead is real."""
    white, black = sides
    pawns = white.squares[PAWN] + black.squares[PAWN]
    passed = sum(f[0] for side_facts in facts for f in side_facts.values())
    wk, bk = white.king, black.king
    outflanking = abs((wk & 7) - (bk & 7)) - abs((wk >> 3) - (bk >> 3))
    both_flanks = any(sq & 7 < 4 for sq in pawns) and any(sq & 7 >= 4 for sq in pawns)
    infiltration = white.relative_rank(wk) >= 4 or black.relative_rank(bk) >= 4
    return (C_PASSED * passed + C_PAWNS * len(pawns) + C_OUTFLANKING * outflanking
            + C_BOTH_FLANKS * both_flanks + C_INFILTRATION * infiltration
            + C_PAWN_ENDING * (phase == 0)
            - C_UNWINNABLE * (outflanking < 0 and not both_flanks) - C_BASE)


def _reference_side_terms(pos, own, enemy, facts):
    """Each term for one side, as (mg, eg) from that side's view."""
    board = pos.board
    terms = dict.fromkeys(TERM_NAMES, (0, 0))

    def add(name, mg, eg):
        terms[name] = (terms[name][0] + mg, terms[name][1] + eg)

    for pt in (PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING):
        for sq in own.squares[pt]:
            # the tables are drawn from white's side: black reads its rank mirrored
            table_sq = sq if own.color == WHITE else (7 - (sq >> 3)) * 8 + (sq & 7)
            add("material+pst", MATERIAL_MG[pt] + PST_MG[pt][table_sq],
                MATERIAL_EG[pt] + PST_EG[pt][table_sq])

    pawn_ending = not any(side.count(pt) for side in (own, enemy) for pt in (KNIGHT, BISHOP, ROOK, QUEEN))
    enemy_attacks = set().union(*(_attacked_by(board, sq) for sq in enemy.occupied))
    for sq, (passed, isolated, doubled, backward, connected) in facts.items():
        rank = own.relative_rank(sq)
        if passed:
            add("pawns: passed", PASSED_MG[rank], PASSED_EG[rank])
            stop = sq + 8 * own.forward
            if not pawn_ending and board[stop]:
                add("passed: blocked", PASSED_BLOCKED_MG[rank], PASSED_BLOCKED_EG[rank])
            if (not pawn_ending and rank >= 3 and not board[stop]
                    and stop not in enemy_attacks):
                add("passed: safe stop", PASSED_SAFE_STOP[0] * (rank - 2),
                    PASSED_SAFE_STOP[1] * (rank - 2))
            if rank >= 3:
                add("passed: king distance", 0,
                    (PASSER_ENEMY_KING * _king_distance(enemy.king, stop)
                     - PASSER_OWN_KING * _king_distance(own.king, stop)) * (rank - 2))
            if pawn_ending:
                # the rule of the square: can the enemy king reach the promotion square in
                # time?  A first move may be a double step; the own king in front costs a move.
                promotion = (sq & 7) + (56 if own.color == WHITE else 0)
                moves = min(5, 7 - rank)
                if (own.king & 7) == (sq & 7) and own.relative_rank(own.king) > rank:
                    moves += 1
                tempo = 1 if pos.turn == enemy.color else 0
                path = range(sq + 8 * own.forward, promotion + 8 * own.forward, 8 * own.forward)
                guarded = all(_king_distance(own.king, t) == 1 for t in path)
                if not guarded and _king_distance(enemy.king, promotion) - tempo <= moves:
                    add("passed: caught", 0, -CAUGHT_PASSER[rank])
        if isolated:
            add("pawns: isolated", *ISOLATED)
        if doubled:
            add("pawns: doubled", *DOUBLED)
        if backward:
            add("pawns: backward", *BACKWARD)
        if connected:
            add("pawns: connected", CONNECTED_MG[rank], CONNECTED_EG[rank])

    if own.squares[PAWN] and not pawn_ending:
        add("king: pawn distance", 0,
            KING_PAWN_DISTANCE * min(_king_distance(own.king, sq) for sq in own.squares[PAWN]))
    # no pawn of either side on the king's flank: a-c for a king on a, a-d on b-c, c-f on d-e,
    # e-h on f-g, f-h on h
    lo, hi = ((0, 2), (0, 3), (0, 3), (2, 5), (2, 5), (4, 7), (4, 7), (5, 7))[own.king & 7]
    if not pawn_ending and not any(board[sq] & 7 == PAWN and lo <= (sq & 7) <= hi
                                   for sq in range(64)):
        add("king: pawnless flank", *PAWNLESS_FLANK)

    # mobility: attacked squares neither held by own pieces nor attacked by enemy pawns;
    # king attack: pieces hitting the enemy king's square or its neighbours
    king_zone = {sq for sq in range(64) if _king_distance(sq, enemy.king) <= 1}
    attackers = units = 0
    # safe checks: squares from which a piece of the kind would check the enemy king,
    # neither held by own pieces nor attacked by enemy pawns nor next to that king
    check_squares = {pt: _reach(board, enemy.king, pt) - own.occupied - enemy.pawn_attacks
                     - king_zone for pt in (KNIGHT, BISHOP, ROOK, QUEEN)}
    can_check = set()
    for pt in (KNIGHT, BISHOP, ROOK, QUEEN):
        for sq in own.squares[pt]:
            attacked = _attacked_by(board, sq)
            if attacked & check_squares[pt]:
                can_check.add(pt)
            n = len(attacked - own.occupied - enemy.pawn_attacks)
            add("mobility", MOBILITY_MG[pt][n] * MOBILITY_PERCENT // 100,
                MOBILITY_EG[pt][n] * MOBILITY_PERCENT // 100)
            hits = len(attacked & king_zone)
            if hits:
                attackers += 1
                units += KING_ATTACK_UNITS[pt] * hits
            if pt == ROOK:
                file_pawns = {board[s] >> 3 for s in range(sq & 7, 64, 8) if board[s] & 7 == PAWN}
                if own.color not in file_pawns:
                    add("rook files", *(ROOK_SEMI_OPEN_FILE if file_pawns else ROOK_OPEN_FILE))
    if attackers > 1 and (own.count(QUEEN) or not KING_ATTACK_NEEDS_QUEEN):
        add("king attack", units * ATTACKER_WEIGHT[attackers] * KING_ATTACK_PERCENT // 10000, 0)
    for pt in can_check if SAFE_CHECKS else ():
        add("safe checks", SAFE_CHECK_MG[pt], SAFE_CHECK_EG[pt])

    # pawn shield: own pawns on the three files around a king on its first two ranks,
    # one and two ranks in front of it
    king_rank = own.relative_rank(own.king)
    if king_rank <= 1:
        near = far = 0
        for sq in own.squares[PAWN]:
            if abs((sq & 7) - (own.king & 7)) <= 1:
                near += own.relative_rank(sq) == king_rank + 1
                far += own.relative_rank(sq) == king_rank + 2
        add("king shield", SHIELD_NEAR * near + SHIELD_FAR * far, 0)

    # pawn storm: on each file around the king (its file taken as b-g), the enemy pawn on or
    # ahead of the king's rank nearest the king, by its relative rank, unless the own pawn
    # nearest the king on that file stands right in front of it
    centre = min(max(own.king & 7, 1), 6)
    for f in (centre - 1, centre, centre + 1):
        theirs = [own.relative_rank(sq) for sq in enemy.squares[PAWN]
                  if sq & 7 == f and own.relative_rank(sq) >= king_rank]
        ours = [own.relative_rank(sq) for sq in own.squares[PAWN]
                if sq & 7 == f and own.relative_rank(sq) >= king_rank]
        if theirs and not (ours and min(ours) == min(theirs) - 1):
            add("king storm", PAWN_STORM[min(theirs)], 0)

    if own.count(BISHOP) >= 2:
        add("bishop pair", *BISHOP_PAIR)

    # outposts: a knight or bishop on relative rank 4-6 that an own pawn defends and no enemy
    # pawn on an adjacent file ahead of it can ever attack
    for pt, weight in ((KNIGHT, OUTPOST_KNIGHT), (BISHOP, OUTPOST_BISHOP)):
        for sq in own.squares[pt]:
            rank = own.relative_rank(sq)
            if (3 <= rank <= 5 and sq in own.pawn_attacks
                    and not any(abs((e & 7) - (sq & 7)) == 1 and own.relative_rank(e) > rank
                                for e in enemy.squares[PAWN])):
                add("outposts", *weight)
    # minor pieces behind a pawn: a pawn of either side on the square in front
    for pt in (KNIGHT, BISHOP):
        for sq in own.squares[pt]:
            ahead = sq + 8 * own.forward
            if 0 <= ahead < 64 and board[ahead] & 7 == PAWN:
                add("minor behind pawn", *MINOR_BEHIND_PAWN)

    # threats: each enemy piece attacked by a lesser one of ours, counted once per kind
    def hit_by(pts):
        return set().union(*(_attacked_by(board, sq) for pt in pts for sq in own.squares[pt]))

    for weight, attackers_of, victims in ((THREAT_BY_PAWN, own.pawn_attacks, (KNIGHT, BISHOP, ROOK, QUEEN)),
                                          (THREAT_BY_MINOR, hit_by((KNIGHT, BISHOP)), (ROOK, QUEEN)),
                                          (THREAT_BY_ROOK, hit_by((ROOK,)), (QUEEN,))):
        n = sum(1 for pt in victims for sq in enemy.squares[pt] if sq in attackers_of)
        add("threats", weight[0] * n, weight[1] * n)
    # pawn push threats: enemy pieces an own pawn would attack after a push (one square, or
    # two from its first rank) to an empty square on relative rank 3-6 no enemy pawn attacks
    pushed_attacks = set()
    for sq in own.squares[PAWN]:
        rank = own.relative_rank(sq)
        targets = []
        one = sq + 8 * own.forward
        if 1 <= rank <= 4 and not board[one]:
            targets.append(one)
            if rank == 1 and not board[one + 8 * own.forward]:
                targets.append(one + 8 * own.forward)
        for t in targets:
            if t not in enemy.pawn_attacks:
                pushed_attacks |= _reach(board, t, PAWN, own.forward)
    n = sum(1 for pt in (KNIGHT, BISHOP, ROOK, QUEEN) for sq in enemy.squares[pt]
            if sq in pushed_attacks)
    add("push threats", PAWN_PUSH_THREAT[0] * n, PAWN_PUSH_THREAT[1] * n)
    if pos.turn == own.color:
        add("tempo", *TEMPO)
    if len(enemy.occupied) == 1 and len(own.occupied) > 1:
        add("mop-up", 0, _reference_mopup(own, enemy))
    return terms


def evaluate_terms(pos, network=True):
    """The reference evaluation, term by term: each term as (white mg, white eg), then
    'phase', 'blended' (the tapered sum), 'scale' (out of 64), 'network' where the network
    scores the position, and 'total' (what ``evaluate`` must return), all from white's
    point of view, as the UCI ``eval`` prints.  network=False: the terms alone, whose
    'total' is terms_score's."""
    sides = [_Side(pos.board, WHITE), _Side(pos.board, BLACK)]
    facts = [_pawn_facts(sides[WHITE], sides[BLACK]), _pawn_facts(sides[BLACK], sides[WHITE])]
    white = _reference_side_terms(pos, sides[WHITE], sides[BLACK], facts[WHITE])
    black = _reference_side_terms(pos, sides[BLACK], sides[WHITE], facts[BLACK])
    out = {name: (white[name][0] - black[name][0], white[name][1] - black[name][1])
           for name in TERM_NAMES}
    mg = sum(out[name][0] for name in TERM_NAMES)
    eg = sum(out[name][1] for name in TERM_NAMES)
    phase = min(MAX_PHASE, sum(PHASE_WEIGHTS.get(pos.board[sq] & 7, 0)
                               for sq in range(64) if pos.board[sq]))
    if COMPLEXITY_ON and (mg or eg):
        complexity = _reference_complexity(sides, facts, phase)
        new_mg = winnable(mg, min(complexity + C_MG_OFFSET, 0))
        new_eg = winnable(eg, complexity)
        out["complexity"] = (new_mg - mg, new_eg - eg)
        mg, eg = new_mg, new_eg
    # tapered from the side to move's view, so that rounding down is the same for both
    us = pos.turn
    sign = 1 if us == WHITE else -1
    blended = (sign * mg * phase + sign * eg * (MAX_PHASE - phase)) // MAX_PHASE
    scale = SCALE_NORMAL
    if blended and phase <= SCALE_MAX_PHASE:
        strong = us if blended > 0 else us ^ 1
        strong_passed = sum(f[0] for f in facts[strong].values())
        scale = _reference_scale(sides[strong], sides[strong ^ 1], strong_passed)
    # scaled toward zero
    total = abs(blended) * scale // SCALE_NORMAL * (1 if blended >= 0 else -1)
    out["phase"] = phase
    out["blended"] = sign * blended
    out["scale"] = scale
    out["total"] = sign * total
    verdict = endgame_verdict(pos) if phase <= ENDGAME_MAX_PHASE else None
    if verdict is not None and verdict[0] == EXACT:
        out["known result"] = "exact"
        out["total"] = sign * verdict[1]
    elif verdict is not None and MATING_DRIVE:
        out["mating drive"] = sign * verdict[1]
        out["total"] = sign * (total + verdict[1])
    if network and NNUE and _network_answers(phase, verdict):
        net = nnue.evaluate(pos.psq, us)
        out["network"] = sign * net
        terms_total = out.pop("total")               # re-entered last, after the network's row
        # a residual network adds to the terms; a pure one keeps only their mating drive
        out["total"] = (terms_total if nnue.RESIDUAL else out.get("mating drive", 0)) + sign * net
    return out


def _evaluate_psqt_only(pos):
    """The baseline for A/B matches: tapered material + PST, side to move's view."""
    mg, eg = unpack(nnue.split(pos.psq)[1] if NNUE else pos.psq)
    return _blend(pos, mg, eg, game_phase(pos))


def _network_answers(phase, verdict):
    """Whether the network scores a position: not a pawn ending (phase 0), nor a known
    result (any verdict, for a residual network, which the terms' score carries)."""
    return bool(phase) and (verdict is None or not nnue.RESIDUAL and verdict[0] != EXACT)


def _evaluate_pure_network(pos, key, slot):
    """A pure (not residual) network's score wherever _network_answers, with the terms'
    mating drive; the terms' score elsewhere.  Stores it in the cache."""
    phase = game_phase(pos)
    verdict = endgame_verdict(pos) if 0 < phase <= ENDGAME_MAX_PHASE else None
    if not _network_answers(phase, verdict):
        return _evaluate_terms(pos, key, slot)
    score = nnue.evaluate(pos.psq, pos.turn)
    if verdict is not None and MATING_DRIVE:
        score += verdict[1]
    _eval_keys[slot] = key
    _eval_scores[slot] = score
    return score


def _cache_miss_function(terms):
    """What evaluate() calls on a cache miss, with terms as the terms' fast path (a test or
    script that recompiles _evaluate_terms points evaluate() at it through this)."""
    return _evaluate_pure_network if NNUE and not nnue.RESIDUAL else terms


_evaluate = _cache_miss_function(_evaluate_terms)


def terms_score(pos):
    """The terms' score alone, side to move's view: evaluate() without the network (the
    tests of the terms, the tuner, the residual network's base).  Outside the cache."""
    return _evaluate_terms(pos, -1, _SCRATCH_SLOT, False)


if PSQT_ONLY:
    evaluate = _evaluate_psqt_only   # noqa: F811
