#!/usr/bin/env python3
"""Texel tuning: fit every weight of engine/weights.py to game results, jointly.

Once a position's counts are read off (pieces on squares, passed pawns by rank, safe
squares per piece, attacked king-zone squares ...), the evaluation is a linear function of
the weights: the tuner extracts each position's coefficient of every weight, blends the
middlegame and endgame halves by the game phase as evaluate() does, and multiplies by the
drawish-ending scale (whose factors it fits too).  It fits K of sigmoid(K * eval / 400) to
the starting weights, then minimises the mean squared error against the results with Adam
over shuffled minibatches, and writes the rounded weights as a module like
engine/weights.py, whose header names the dataset (and its SHA-256), the command, the date
and the error before and after.

    pypy3 scripts/tune.py --data positions.txt --epochs 200 --out engine/weights.py
    python3 scripts/tune.py --rewrite       # engine/weights.py again from its own values

The dataset is scripts/make_dataset.py's: quiet positions as 'FEN;result' lines (1, 0.5 or
0 for white), or 'FEN;result;cp' with an engine's score (white's view) as well; '#' lines
are comments.  With scores, the target is --lambda * result + (1 - lambda) * the score's
expected result, through a logistic whose K is fitted to the results first.  The last
--holdout of the file (whole games, since the file is in game order) is kept out of the fit
to measure it, the weights written are those of the epoch with the lowest held-out error,
and --l2 pulls every weight toward its starting value.  Positions with an exact endgame
verdict are dropped (the evaluation returns the verdict there).  Only the engine is needed: PyPy runs it
several times faster than CPython.  Tuned weights replace engine/weights.py only after a
match against the previous ones (docs/development.md, "Tuning").
"""

import argparse
import datetime
import hashlib
import math
import os
import random
import shlex
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import engine.evaluate as ev  # noqa: E402
import engine.weights  # noqa: E402
from engine.bitboard import (KING_ATTACKS, KNIGHT_ATTACKS, BISHOP_TABLE, BISHOP_MASK, ROOK_TABLE,  # noqa: E402
                             ROOK_MASK, BB_FILES, BB_SQUARES, popcount, squares_of)
from engine.endgame import EXACT, endgame_verdict  # noqa: E402
from engine.position import Position  # noqa: E402
from engine.types import (WHITE, BLACK, PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING,  # noqa: E402
                          SQUARE_NAMES)

WEIGHTS_FILE = REPO / "engine" / "weights.py"
PIECE_NAMES = {PAWN: "PAWN", KNIGHT: "KNIGHT", BISHOP: "BISHOP", ROOK: "ROOK", QUEEN: "QUEEN",
               KING: "KING"}

# --- The generated module ------------------------------------------------------------------
WEIGHTS_DOC = '''\
"""Evaluation weights: every number engine/evaluate.py and engine/psqt.py weigh a position by.

scripts/tune.py writes this module (Texel tuning; docs/development.md, "Tuning"), so change
a value here only to try it out.  psqt.py builds the material and piece-square tables from
it and evaluate.py takes the rest, where BASILISK_EVAL overrides them at import (a pair as
mg:eg).  Centipawns; a pair is (middlegame, endgame); scale factors are out of 64.
"""'''

# engine/weights.py in file order: each group's comment, then its names.
LAYOUT = (
    ("Material by piece type; the king's is 0 (each side always has one).",
     ("MATERIAL_MG", "MATERIAL_EG")),
    ("Piece-square tables by piece type, added to the material, as printed: a8 first, h1\n"
     "last, from white's side (black reads them mirrored).",
     ("PIECE_SQUARE_MG", "PIECE_SQUARE_EG")),
    ("Mobility by piece type, per number of safe squares it attacks (squares neither held\n"
     "by own pieces nor attacked by enemy pawns): index n is the value of n of them.",
     ("MOBILITY_MG", "MOBILITY_EG")),
    ("Passed pawns by relative rank (index 0 = own back rank).",
     ("PASSED_MG", "PASSED_EG")),
    ("Connected pawns by relative rank, (mg, eg) per pawn an own pawn defends or stands\n"
     "beside on its rank.",
     ("CONNECTED_MG", "CONNECTED_EG")),
    ("Pawn weaknesses, (mg, eg) per pawn: the rear pawns of a doubled pair, pawns with no own\n"
     "pawn on a neighbour file, and pawns no neighbour can support whose stop square an\n"
     "enemy pawn attacks.",
     ("DOUBLED", "ISOLATED", "BACKWARD")),
    ("Passed pawns whose stop square (the next one ahead) is occupied, by relative rank; not\n"
     "in pawn endings, where the rule of the square and the kings' distances judge them.",
     ("PASSED_BLOCKED_MG", "PASSED_BLOCKED_EG")),
    ("Passed pawns on relative ranks 4-7 whose stop square is empty and attacked by no enemy\n"
     "piece, pawn or king, (mg, eg) times (relative rank - 2); not in pawn endings.",
     ("PASSED_SAFE_STOP",)),
    ("Passed pawns in the endgame: per step of king distance to the stop square (the enemy\n"
     "king's counts for the pawn, the own king's against), times (relative rank - 2) from\n"
     "the 4th rank on.",
     ("PASSER_ENEMY_KING", "PASSER_OWN_KING")),
    ("Endgame, not in pawn endings: per step (king moves) between the king and its nearest\n"
     "pawn.",
     ("KING_PAWN_DISTANCE",)),
    ("Pawn endings (kings and pawns only): a passed pawn the enemy king catches (inside the\n"
     "pawn's square, counting the move) loses this much of its endgame value, by relative rank.",
     ("CAUGHT_PASSER",)),
    ("King attack (middlegame, while the attacker has a queen): units per attacked square of\n"
     "the enemy king's zone, by piece type; with two or more attackers their sum times\n"
     "ATTACKER_WEIGHT[attackers] / 100 is the bonus (ATTACKER_WEIGHT is not tuned).",
     ("KING_ATTACK_UNITS", "ATTACKER_WEIGHT")),
    ("Pawn shield (middlegame): own pawns one and two ranks in front of a king on its first\n"
     "two ranks, on its file and the neighbour files.",
     ("SHIELD_NEAR", "SHIELD_FAR")),
    ("Pawn storm (middlegame): on each file around the king (its own and the two beside it,\n"
     "its file taken as b-g), the enemy pawn nearest the king on or ahead of the king's rank,\n"
     "by that pawn's relative rank seen from the king's side, unless the own pawn nearest the\n"
     "king on that file stands just in front of it (blocked).",
     ("PAWN_STORM",)),
    ("Pawnless flank, (mg, eg) per king with no pawn of either side on its flank (a-c for a king\n"
     "on the a-file, a-d on b-c, c-f on d-e, e-h on f-g, f-h on h); not in pawn endings.",
     ("PAWNLESS_FLANK",)),
    ("(mg, eg): two or more bishops; a rook on a file without pawns, on one without own\n"
     "pawns; the side to move.",
     ("BISHOP_PAIR", "ROOK_OPEN_FILE", "ROOK_SEMI_OPEN_FILE", "TEMPO")),
    ("Threats, (mg, eg) per enemy piece: a knight, bishop, rook or queen an own pawn attacks; a\n"
     "rook or queen an own knight or bishop attacks; a queen an own rook attacks.",
     ("THREAT_BY_PAWN", "THREAT_BY_MINOR", "THREAT_BY_ROOK")),
    ("Outposts, (mg, eg) per knight, per bishop: on relative rank 4-6, defended by an own pawn,\n"
     "where no enemy pawn can ever attack it (none on an adjacent file ahead of it).",
     ("OUTPOST_KNIGHT", "OUTPOST_BISHOP")),
    ("Minor behind pawn, (mg, eg) per knight or bishop with a pawn of either side on the square\n"
     "in front of it.",
     ("MINOR_BEHIND_PAWN",)),
    ("Safe checks, by piece type: the side has a piece of that type that can move to a square\n"
     "checking the enemy king, the square neither held by own pieces, nor attacked by enemy\n"
     "pawns, nor next to the enemy king.",
     ("SAFE_CHECK_MG", "SAFE_CHECK_EG")),
    ("Pawn push threats, (mg, eg) per enemy knight, bishop, rook or queen an own pawn would\n"
     "attack after a push (one or two squares) to an empty square on relative rank 3-6 that no\n"
     "enemy pawn attacks.",
     ("PAWN_PUSH_THREAT",)),
    ("Mop-up against a bare king (endgame): per step of that king from the centre (KBN v K:\n"
     "two per step towards a corner of the bishop's colour), and per step the kings are\n"
     "nearer than 14 (file plus rank distance).",
     ("MOPUP_EDGE", "MOPUP_KINGS")),
    ("Drawish endings: how much of its score (out of 64) the side ahead keeps.  Without\n"
     "pawns and at most a minor piece up: with less than a rook (0: it cannot mate), against\n"
     "at most a minor, against more.  Two knights (0: they cannot force mate) against a bare\n"
     "king, against pawns.  Opposite-coloured bishops alone (plus so much per passed pawn of\n"
     "the side ahead, up to 64), with other pieces.  Otherwise, few pawns: so much plus so\n"
     "much per pawn of the side ahead (up to 64; 64 and more switch it off).",
     ("SCALE_PAWNLESS_MINOR", "SCALE_PAWNLESS_V_MINOR", "SCALE_PAWNLESS_V_PIECES",
      "SCALE_TWO_KNIGHTS", "SCALE_TWO_KNIGHTS_V_PAWNS", "SCALE_OCB_BISHOPS_ONLY",
      "SCALE_OCB_PER_PASSER", "SCALE_OCB_WITH_PIECES", "SCALE_FEW_PAWNS", "SCALE_PER_PAWN")),
)
WEIGHT_NAMES = tuple(name for _, names in LAYOUT for name in names)


def current_values():
    """engine/weights.py's values by name, as lists and dicts the tuner may change."""
    return {name: _thaw(getattr(engine.weights, name)) for name in WEIGHT_NAMES}


def _thaw(value):
    if isinstance(value, dict):
        return {key: _thaw(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_thaw(item) for item in value]
    return value


def _literal(value):
    """Python source for a weight: an int, a tuple, or a dict keyed by piece type."""
    if isinstance(value, dict):
        items = sorted(value.items())
        if any(isinstance(item, (list, tuple)) and len(item) == 64 for _, item in items):
            return "{\n%s}" % "".join("    %s: %s,\n" % (PIECE_NAMES[key], _board(item))
                                      for key, item in items)
        line = "{%s}" % ", ".join("%s: %s" % (PIECE_NAMES[key], _literal(item))
                                  for key, item in items)
        if len(line) <= 80:
            return line
        return "{\n%s}" % "".join("    %s: %s,\n" % (PIECE_NAMES[key], _wrapped(item))
                                  for key, item in items)
    if isinstance(value, (list, tuple)):
        return "(%s)" % ", ".join(_literal(item) for item in value)
    return "%d" % value


def _wrapped(values, per_line=15):
    """A tuple of ints, per_line to a line, further lines indented by eight (a dict entry's)."""
    rows = [", ".join("%d" % v for v in values[i:i + per_line])
            for i in range(0, len(values), per_line)]
    return "(%s)" % ",\n        ".join(rows)


def _board(table):
    """A 64-entry table as eight rows of eight, aligned."""
    width = max(len("%d" % v) for v in table)
    rows = (", ".join("%*d" % (width, v) for v in table[r * 8:r * 8 + 8]) for r in range(8))
    return "(\n        %s)" % ",\n        ".join(rows)


def render(values, provenance):
    """The text of a weights module holding values, with provenance (lines) as its header."""
    lines = [WEIGHTS_DOC, ""]
    lines += [("# " + line).rstrip() for line in provenance]
    lines += ["", "from engine.types import PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING"]
    for comment, names in LAYOUT:
        lines.append("")
        lines += ["# " + line for line in comment.split("\n")]
        lines += ["%s = %s" % (name, _literal(values[name])) for name in names]
    return "\n".join(lines) + "\n"


def read_provenance(path):
    """The header lines (without '# ') of a module render() wrote."""
    text = Path(path).read_text()
    after_doc = text.split('"""', 2)[2].lstrip("\n")
    header = []
    for line in after_doc.splitlines():
        if not line.startswith("#"):
            break
        header.append(line[2:])
    return header


# --- The linear model ----------------------------------------------------------------------

class Term:
    """One coefficient of the linear model: a count (from white's view) whose weight has a
    middlegame half, an endgame half or both, each a path into the weights (name, key...),
    and the row of evaluate_terms() it adds to."""
    __slots__ = ("label", "mg", "eg", "row")

    def __init__(self, label, mg, eg, row):
        self.label, self.mg, self.eg, self.row = label, mg, eg, row


TERMS = []


def _term(label, mg, eg, row):
    TERMS.append(Term(label, mg, eg, row))
    return len(TERMS) - 1


MINOR_AND_MAJOR = (KNIGHT, BISHOP, ROOK, QUEEN)
# The king's material is no term: both sides always have one.
T_MATERIAL = {pt: _term("MATERIAL[%s]" % PIECE_NAMES[pt], ("MATERIAL_MG", pt), ("MATERIAL_EG", pt),
                        "material+pst") for pt in (PAWN,) + MINOR_AND_MAJOR}
# T_PST[pt][sq]: the table entry for a white piece on sq (a1 = 0), at sq ^ 56 as printed;
# none for pawns on the first and last ranks, where no pawn stands.
T_PST = {pt: [None if pt == PAWN and not 8 <= sq < 56 else
              _term("PIECE_SQUARE[%s][%s]" % (PIECE_NAMES[pt], SQUARE_NAMES[sq]),
                    ("PIECE_SQUARE_MG", pt, sq ^ 56), ("PIECE_SQUARE_EG", pt, sq ^ 56), "material+pst")
              for sq in range(64)]
         for pt in (PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING)}
# T_MOBILITY[pt][n]: a piece of type pt with n safe squares
T_MOBILITY = {pt: [_term("MOBILITY[%s][%d]" % (PIECE_NAMES[pt], n), ("MOBILITY_MG", pt, n),
                         ("MOBILITY_EG", pt, n), "mobility")
                   for n in range(len(engine.weights.MOBILITY_MG[pt]))]
              for pt in MINOR_AND_MAJOR}
# relative ranks 1..6: no pawn stands on the first or the last
T_PASSED = [None] + [_term("PASSED[%d]" % rank, ("PASSED_MG", rank), ("PASSED_EG", rank), "pawns: passed")
                     for rank in range(1, 7)] + [None]

T_BLOCKED = [None] + [_term("PASSED_BLOCKED[%d]" % rank, ("PASSED_BLOCKED_MG", rank),
                            ("PASSED_BLOCKED_EG", rank), "passed: blocked")
                      for rank in range(1, 7)] + [None]

T_CONNECTED = [None] + [_term("CONNECTED[%d]" % rank, ("CONNECTED_MG", rank), ("CONNECTED_EG", rank),
                              "pawns: connected") for rank in range(1, 7)] + [None]


def _pair_term(name, row):
    return _term(name, (name, 0), (name, 1), row)


T_SAFE_STOP = _pair_term("PASSED_SAFE_STOP", "passed: safe stop")


T_DOUBLED = _pair_term("DOUBLED", "pawns: doubled")
T_ISOLATED = _pair_term("ISOLATED", "pawns: isolated")
T_BACKWARD = _pair_term("BACKWARD", "pawns: backward")
T_BISHOP_PAIR = _pair_term("BISHOP_PAIR", "bishop pair")
T_ROOK_OPEN = _pair_term("ROOK_OPEN_FILE", "rook files")
T_ROOK_SEMI = _pair_term("ROOK_SEMI_OPEN_FILE", "rook files")
T_TEMPO = _pair_term("TEMPO", "tempo")
T_THREAT_PAWN = _pair_term("THREAT_BY_PAWN", "threats")
T_THREAT_MINOR = _pair_term("THREAT_BY_MINOR", "threats")
T_THREAT_ROOK = _pair_term("THREAT_BY_ROOK", "threats")
T_PUSH_THREAT = _pair_term("PAWN_PUSH_THREAT", "push threats")
T_OUTPOST = {KNIGHT: _pair_term("OUTPOST_KNIGHT", "outposts"),
             BISHOP: _pair_term("OUTPOST_BISHOP", "outposts")}
T_MINOR_BEHIND = _pair_term("MINOR_BEHIND_PAWN", "minor behind pawn")
T_PAWNLESS_FLANK = _pair_term("PAWNLESS_FLANK", "king: pawnless flank")
T_PASSER_ENEMY_KING = _term("PASSER_ENEMY_KING", None, ("PASSER_ENEMY_KING",), "passed: king distance")
T_PASSER_OWN_KING = _term("PASSER_OWN_KING", None, ("PASSER_OWN_KING",), "passed: king distance")
T_KING_PAWN = _term("KING_PAWN_DISTANCE", None, ("KING_PAWN_DISTANCE",), "king: pawn distance")
T_CAUGHT = [None] + [_term("CAUGHT_PASSER[%d]" % rank, None, ("CAUGHT_PASSER", rank), "passed: caught")
                     for rank in range(1, 7)] + [None]
T_UNITS = {pt: _term("KING_ATTACK_UNITS[%s]" % PIECE_NAMES[pt], ("KING_ATTACK_UNITS", pt), None,
                     "king attack") for pt in MINOR_AND_MAJOR}
T_SAFE_CHECK = {pt: _term("SAFE_CHECK[%s]" % PIECE_NAMES[pt], ("SAFE_CHECK_MG", pt),
                          ("SAFE_CHECK_EG", pt), "safe checks") for pt in MINOR_AND_MAJOR}
T_SHIELD_NEAR = _term("SHIELD_NEAR", ("SHIELD_NEAR",), None, "king shield")
T_SHIELD_FAR = _term("SHIELD_FAR", ("SHIELD_FAR",), None, "king shield")
# by the storming pawn's relative rank (seen from the king's side): 1..6, where pawns stand
T_STORM = [None] + [_term("PAWN_STORM[%d]" % rank, ("PAWN_STORM", rank), None, "king storm")
                    for rank in range(1, 7)] + [None]
T_MOPUP_EDGE = _term("MOPUP_EDGE", None, ("MOPUP_EDGE",), "mop-up")
T_MOPUP_KINGS = _term("MOPUP_KINGS", None, ("MOPUP_KINGS",), "mop-up")

# The drawish-ending factors, by the names evaluate.scale_rule() returns.  The two that are
# 0 because the side ahead cannot mate are knowledge, not weights: they stay.
SCALE_NAMES = LAYOUT[-1][1]
SCALE_FIXED = ("SCALE_PAWNLESS_MINOR", "SCALE_TWO_KNIGHTS")
S_OCB_ONLY = SCALE_NAMES.index("SCALE_OCB_BISHOPS_ONLY")
S_OCB_PER_PASSER = SCALE_NAMES.index("SCALE_OCB_PER_PASSER")
S_FEW_PAWNS = SCALE_NAMES.index("SCALE_FEW_PAWNS")
S_PER_PAWN = SCALE_NAMES.index("SCALE_PER_PAWN")
# the rules whose factor grows by a second weight per unit: (base index, per-unit index).  A
# factor at its cap of 64 has no gradient, so a fit of the few-pawns rule starts it below 64
# in engine/weights.py (Stockfish's 36).
SCALE_PER_UNIT = {S_OCB_ONLY: S_OCB_PER_PASSER, S_FEW_PAWNS: S_PER_PAWN}


class Sample:
    """One position as the model sees it: its terms and their coefficients (white's view),
    the middlegame share of the blend (phase / 24), the scale rules, and the result."""
    __slots__ = ("terms", "coefs", "mg_share", "scale", "complexity", "result")


def extract(pos):
    """The Sample of pos (result unset), or None where evaluate() returns an exact endgame
    verdict instead of its weighted sum or adds a mating drive (KBNK, KRK) to it.
    ``scale`` is None above SCALE_MAX_PHASE, else (rule, units) for white ahead then for
    black ahead, rule an index into SCALE_NAMES or -1 (not scaled) and units what the rule
    counts per unit: passed pawns (opposite bishops), pawns (few pawns), else 0."""
    phase = ev.game_phase(pos)
    if phase <= ev.ENDGAME_MAX_PHASE:
        verdict = endgame_verdict(pos)
        if verdict is not None and (verdict[0] == EXACT or ev.MATING_DRIVE):
            return None
    coefs = {}

    def add(term, count):
        coefs[term] = coefs.get(term, 0) + count

    bbs = pos.bbs
    wp, bp = bbs[PAWN], bbs[8 | PAWN]
    w_patt, b_patt, pawn_sets = ev._pawn_sets(wp, bp)
    outposts = ev.outpost_squares(w_patt, b_patt)
    occ_w, occ_b = pos.occ
    occ = occ_w | occ_b
    kings = (pos.king_square(WHITE), pos.king_square(BLACK))
    # each piece's attacks, once: (type, square, attacked squares) per colour; and every
    # square each side attacks (pieces, pawns, king)
    piece_attacks = [[(pt, sq, _attacks(pt, sq, occ)) for pt in MINOR_AND_MAJOR
                      for sq in squares_of(bbs[color << 3 | pt])] for color in (WHITE, BLACK)]
    attacked = [w_patt | KING_ATTACKS[kings[WHITE]], b_patt | KING_ATTACKS[kings[BLACK]]]
    for color in (WHITE, BLACK):
        for _, _, att in piece_attacks[color]:
            attacked[color] |= att
    for us, sign in ((WHITE, 1), (BLACK, -1)):
        them = us ^ 1
        base = us << 3
        flip = 0 if us == WHITE else 56          # black reads the tables mirrored
        own_pawns, enemy_pawns = (wp, bp) if us == WHITE else (bp, wp)
        own_occ, enemy_occ = (occ_w, occ_b) if us == WHITE else (occ_b, occ_w)
        area = ~(own_occ | (b_patt if us == WHITE else w_patt))
        zone = ev.KING_ZONE[kings[them]]

        for pt in (PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING):
            bb = bbs[base | pt]
            if bb and pt != KING:
                add(T_MATERIAL[pt], sign * popcount(bb))
            for sq in squares_of(bb):
                add(T_PST[pt][sq ^ flip], sign)

        passed, isolated, doubled, backward, connected = pawn_sets[us]
        for term, bb in ((T_ISOLATED, isolated), (T_DOUBLED, doubled), (T_BACKWARD, backward)):
            if bb:
                add(term, sign * popcount(bb))
        for sq in squares_of(connected):
            add(T_CONNECTED[(sq ^ flip) >> 3], sign)
        for sq in squares_of(passed):
            rank = (sq ^ flip) >> 3
            add(T_PASSED[rank], sign)
            stop = sq + (8 if us == WHITE else -8)
            if phase and BB_SQUARES[stop] & occ:
                add(T_BLOCKED[rank], sign)
            if phase and rank >= 3 and not BB_SQUARES[stop] & (occ | attacked[them]):
                add(T_SAFE_STOP, sign * (rank - 2))
            if rank >= 3:
                add(T_PASSER_ENEMY_KING, sign * ev.DISTANCE[kings[them]][stop] * (rank - 2))
                add(T_PASSER_OWN_KING, -sign * ev.DISTANCE[kings[us]][stop] * (rank - 2))
            if not phase and ev.passer_caught(sq, us, kings[us], kings[them], pos.turn == them):
                add(T_CAUGHT[rank], -sign)
        if own_pawns and phase:
            add(T_KING_PAWN, sign * ev.nearest_pawn_distance(kings[us], own_pawns))
        if phase and not ev.KING_FLANK[kings[us] & 7] & (wp | bp):
            add(T_PAWNLESS_FLANK, sign)
        add(T_SHIELD_NEAR, sign * popcount(ev.SHIELD_NEAR_BB[us][kings[us]] & own_pawns))
        add(T_SHIELD_FAR, sign * popcount(ev.SHIELD_FAR_BB[us][kings[us]] & own_pawns))
        for rank in ev.storm_ranks(us, kings[us], own_pawns, enemy_pawns):
            add(T_STORM[rank], sign)

        attackers = 0
        zone_hits = dict.fromkeys(MINOR_AND_MAJOR, 0)
        hit_by = dict.fromkeys(MINOR_AND_MAJOR, 0)
        for pt, sq, att in piece_attacks[us]:
            hit_by[pt] |= att
            add(T_MOBILITY[pt][popcount(att & area)], sign * ev.MOBILITY_PERCENT / 100)
            if att & zone:
                attackers += 1
                zone_hits[pt] += popcount(att & zone)
            if pt == ROOK and not BB_FILES[sq & 7] & own_pawns:
                add(T_ROOK_SEMI if BB_FILES[sq & 7] & enemy_pawns else T_ROOK_OPEN, sign)
        if attackers > 1 and (bbs[base | QUEEN] or not ev.KING_ATTACK_NEEDS_QUEEN):
            # evaluate() floors the side's units times this; the model keeps the fraction
            per_unit = ev.ATTACKER_WEIGHT[attackers] * ev.KING_ATTACK_PERCENT / 10000
            for pt, hits in zone_hits.items():
                if hits:
                    add(T_UNITS[pt], sign * hits * per_unit)
        ksq = kings[them]
        safe = area & ~KING_ATTACKS[ksq]
        for pt in MINOR_AND_MAJOR if ev.SAFE_CHECKS else ():
            if hit_by[pt] & safe & _attacks(pt, ksq, occ):
                add(T_SAFE_CHECK[pt], sign)
        if popcount(bbs[base | BISHOP]) >= 2:
            add(T_BISHOP_PAIR, sign)
        ebase = them << 3
        enemy_majors = bbs[ebase | ROOK] | bbs[ebase | QUEEN]
        enemy_pieces = enemy_majors | bbs[ebase | KNIGHT] | bbs[ebase | BISHOP]
        own_patt = w_patt if us == WHITE else b_patt
        add(T_THREAT_PAWN, sign * popcount(own_patt & enemy_pieces))
        add(T_THREAT_MINOR, sign * popcount((hit_by[KNIGHT] | hit_by[BISHOP]) & enemy_majors))
        add(T_THREAT_ROOK, sign * popcount(hit_by[ROOK] & bbs[ebase | QUEEN]))
        add(T_PUSH_THREAT, sign * popcount(ev.push_threats(us, own_pawns, occ, w_patt, b_patt)
                                           & enemy_pieces))
        for pt in (KNIGHT, BISHOP):
            add(T_OUTPOST[pt], sign * popcount(bbs[base | pt] & outposts[us]))
        minors = bbs[base | KNIGHT] | bbs[base | BISHOP]
        ahead = minors << 8 if us == WHITE else minors >> 8
        add(T_MINOR_BEHIND, sign * popcount(ahead & (wp | bp)))
        if popcount(enemy_occ) == 1 and popcount(own_occ) > 1:
            steps = ev.mopup_steps(pos, us)
            if steps:
                add(T_MOPUP_EDGE, sign * steps[0])
                add(T_MOPUP_KINGS, sign * steps[1])
    add(T_TEMPO, 1 if pos.turn == WHITE else -1)

    sample = Sample()
    sample.terms = [term for term, count in coefs.items() if count]
    sample.coefs = [float(coefs[term]) for term in sample.terms]
    sample.mg_share = phase / ev.MAX_PHASE
    sample.complexity = None
    if ev.COMPLEXITY_ON:
        sample.complexity = ev.winnable_complexity(
            wp | bp, pawn_sets[WHITE][0] | pawn_sets[BLACK][0], kings[WHITE], kings[BLACK], phase)
    sample.scale = None
    if phase <= ev.SCALE_MAX_PHASE:
        sample.scale = (_scale_rule(pos, WHITE, wp, pawn_sets[WHITE][0])
                        + _scale_rule(pos, BLACK, bp, pawn_sets[BLACK][0]))
    return sample


def _attacks(pt, sq, occ):
    if pt == KNIGHT:
        return KNIGHT_ATTACKS[sq]
    att = 0
    if pt != ROOK:
        att = BISHOP_TABLE[sq][occ & BISHOP_MASK[sq]]
    if pt != BISHOP:
        att |= ROOK_TABLE[sq][occ & ROOK_MASK[sq]]
    return att


def _scale_rule(pos, strong, pawns, passed):
    """(rule index or -1, the units its per-unit weight counts) for ``strong`` ahead."""
    rule = ev.scale_rule(pos, strong)
    if rule is None:
        return (-1, 0)
    index = SCALE_NAMES.index(rule)
    units = passed if index == S_OCB_ONLY else pawns if index == S_FEW_PAWNS else 0
    return (index, popcount(units))


def _get(values, path):
    value = values[path[0]]
    for key in path[1:]:
        value = value[key]
    return value


def _set(values, path, new):
    holder = values[path[0]] if len(path) > 1 else values
    for key in path[1:-1]:
        holder = holder[key]
    holder[path[-1]] = new


class Model:
    """The weights as the tuner moves them: per term a middlegame and an endgame value
    (0 for a half the term lacks), and the scale factors, all floats."""

    def __init__(self, values):
        self.mg = [float(_get(values, t.mg)) if t.mg else 0.0 for t in TERMS]
        self.eg = [float(_get(values, t.eg)) if t.eg else 0.0 for t in TERMS]
        self.scale = [float(values[name]) for name in SCALE_NAMES]

    def halves(self, sample):
        """(middlegame, endgame) sums of sample, white's view."""
        mg = eg = 0.0
        w_mg, w_eg = self.mg, self.eg
        for term, coef in zip(sample.terms, sample.coefs):
            mg += coef * w_mg[term]
            eg += coef * w_eg[term]
        return mg, eg

    @staticmethod
    def winnable(sample, mg, eg):
        """(mg, eg) with the complexity applied, and for each 1.0 or 0.0: does it still
        follow the weights (0 where the complexity took that half to 0)?"""
        c = sample.complexity
        if c is None:
            return mg, eg, 1.0, 1.0
        new_mg = ev.winnable(mg, min(c + ev.C_MG_OFFSET, 0))
        new_eg = ev.winnable(eg, c)
        return (new_mg, new_eg, 0.0 if mg and not new_mg else 1.0,
                0.0 if eg and not new_eg else 1.0)

    def factor(self, rule, units):
        """The scale factor (out of 64) of a rule index, with units of what it counts."""
        per_unit = SCALE_PER_UNIT.get(rule)
        if per_unit is not None:
            return min(self.scale[rule] + self.scale[per_unit] * units, ev.SCALE_NORMAL)
        return self.scale[rule]

    def scale_of(self, sample, blended):
        """(multiplier, rule, units) for the side blended says is ahead; rule -1 when the
        score stays whole, or where a per-unit factor reaches its cap of 64 (and so has no
        gradient)."""
        scale = sample.scale
        if scale is None or blended == 0:
            return 1.0, -1, 0
        rule, units = (scale[0], scale[1]) if blended > 0 else (scale[2], scale[3])
        if rule < 0:
            return 1.0, -1, 0
        factor = self.factor(rule, units)
        if rule in SCALE_PER_UNIT and factor >= ev.SCALE_NORMAL:
            return 1.0, -1, 0
        return factor / ev.SCALE_NORMAL, rule, units

    def evaluate(self, sample):
        """The model's evaluation, white's view (evaluate() rounds where this does not)."""
        mg, eg, _, _ = self.winnable(sample, *self.halves(sample))
        blended = mg * sample.mg_share + eg * (1.0 - sample.mg_share)
        return blended * self.scale_of(sample, blended)[0]

    def values(self, base):
        """base (weights by name) with this model's weights put in, rounded to ints."""
        values = _thaw(base)
        for i, term in enumerate(TERMS):
            if term.mg:
                _set(values, term.mg, _round(self.mg[i]))
            if term.eg:
                _set(values, term.eg, _round(self.eg[i]))
        for name, value in zip(SCALE_NAMES, self.scale):
            values[name] = min(max(_round(value), 0), ev.SCALE_NORMAL)
        return values


def _round(x):
    return int(math.floor(x + 0.5))


# --- Fitting ------------------------------------------------------------------------------
LN10_OVER_400 = math.log(10) / 400


def expected_result(eval_cp, k):
    """Texel's logistic: the expected result for white of an evaluation (white's view)."""
    x = k * eval_cp * LN10_OVER_400
    if x < -500:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))


def mean_squared_error(samples, model, k, evals=None):
    if evals is None:
        evals = [model.evaluate(s) for s in samples]
    return sum((s.result - expected_result(e, k)) ** 2 for s, e in zip(samples, evals)) / len(samples)


def golden_section(error, low=0.05, high=5.0, tolerance=1e-4):
    """The K in [low, high] minimising error(K), a function with one minimum there."""
    inv_phi = (math.sqrt(5) - 1) / 2
    a, b = low, high
    c, d = b - inv_phi * (b - a), a + inv_phi * (b - a)
    fc, fd = error(c), error(d)
    while b - a > tolerance:
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - inv_phi * (b - a)
            fc = error(c)
        else:
            a, c, fc = c, d, fd
            d = a + inv_phi * (b - a)
            fd = error(d)
    return (a + b) / 2


def fit_k(samples, model):
    """The K minimising the error with the model's weights."""
    evals = [model.evaluate(s) for s in samples]
    return golden_section(lambda k: mean_squared_error(samples, model, k, evals))


class Adam:
    """Adam over several lists of parameters; entries whose mask is False stay put, and
    ``bounds`` (per list, or None) clamps after each step."""

    def __init__(self, params, masks, lr, bounds, beta1=0.9, beta2=0.999, eps=1e-8):
        self.params, self.masks, self.lr, self.bounds = params, masks, lr, bounds
        self.beta1, self.beta2, self.eps = beta1, beta2, eps
        self.m = [[0.0] * len(p) for p in params]
        self.v = [[0.0] * len(p) for p in params]
        self.steps = 0

    def step(self, grads):
        self.steps += 1
        b1, b2 = self.beta1, self.beta2
        rate = self.lr * math.sqrt(1 - b2 ** self.steps) / (1 - b1 ** self.steps)
        for params, mask, grad, m, v, bound in zip(self.params, self.masks, grads, self.m, self.v,
                                                    self.bounds):
            for i, g in enumerate(grad):
                if not mask[i]:
                    continue
                m[i] = b1 * m[i] + (1 - b1) * g
                v[i] = b2 * v[i] + (1 - b2) * g * g
                x = params[i] - rate * m[i] / (math.sqrt(v[i]) + self.eps)
                params[i] = x if bound is None else min(max(x, bound[0]), bound[1])


def train_epoch(samples, model, k, adam, batch_size, progress, l2=0.0, anchor=None):
    """One pass of minibatch gradient steps over samples (in the order given); with l2, each
    weight is also pulled toward anchor's (a Model) by l2 * (difference in cp) squared."""
    n_terms, n_scale = len(TERMS), len(SCALE_NAMES)
    w_mg, w_eg = model.mg, model.eg
    for start in range(0, len(samples), batch_size):
        batch = samples[start:start + batch_size]
        g_mg, g_eg, g_scale = [0.0] * n_terms, [0.0] * n_terms, [0.0] * n_scale
        for s in batch:
            terms, coefs, share = s.terms, s.coefs, s.mg_share
            mg = eg = 0.0
            for term, coef in zip(terms, coefs):
                mg += coef * w_mg[term]
                eg += coef * w_eg[term]
            mg, eg, mg_gate, eg_gate = Model.winnable(s, mg, eg)
            blended = mg * share + eg * (1.0 - share)
            multiplier, rule, units = model.scale_of(s, blended)
            p = expected_result(blended * multiplier, k)
            # d(error)/d(eval) of (result - p)^2, p a logistic of k * eval * ln(10) / 400
            d_eval = -2.0 * (s.result - p) * p * (1.0 - p) * k * LN10_OVER_400
            d_mg = d_eval * multiplier * share * mg_gate
            d_eg = d_eval * multiplier * (1.0 - share) * eg_gate
            for term, coef in zip(terms, coefs):
                g_mg[term] += d_mg * coef
                g_eg[term] += d_eg * coef
            if rule >= 0:
                d_factor = d_eval * blended / ev.SCALE_NORMAL
                g_scale[rule] += d_factor
                if rule in SCALE_PER_UNIT:
                    g_scale[SCALE_PER_UNIT[rule]] += d_factor * units
        size = float(len(batch))
        g_mg = [g / size for g in g_mg]
        g_eg = [g / size for g in g_eg]
        if l2:
            g_mg = [g + 2.0 * l2 * (w - w0) for g, w, w0 in zip(g_mg, w_mg, anchor.mg)]
            g_eg = [g + 2.0 * l2 * (w - w0) for g, w, w0 in zip(g_eg, w_eg, anchor.eg)]
        adam.step([g_mg, g_eg, [g / size for g in g_scale]])
        progress.update(start + len(batch))
    progress.close()


def tuned_masks(frozen):
    """Which halves and scale factors move: not a half a term lacks, nor a frozen name."""
    def free(path):
        return path is not None and path[0] not in frozen
    return ([free(t.mg) for t in TERMS], [free(t.eg) for t in TERMS],
            [name not in frozen and name not in SCALE_FIXED for name in SCALE_NAMES])


# --- Data and reports -----------------------------------------------------------------------
class Progress:
    """A counter with a bar on stderr, redrawn at most five times a second."""

    def __init__(self, label, total, stream=sys.stderr):
        self.label, self.total, self.stream = label, max(total, 1), stream
        self.last = 0.0

    def update(self, done):
        now = time.monotonic()
        if now - self.last >= 0.2 or done >= self.total:
            self.last = now
            filled = 30 * done // self.total
            self.stream.write("\r%s [%s%s] %d/%d" % (self.label, "#" * filled, "-" * (30 - filled),
                                                     done, self.total))
            self.stream.flush()

    def close(self):
        self.stream.write("\r\033[K")
        self.stream.flush()


def read_dataset(path, limit=0, seed=1):
    """('FEN', result, score or None) of a dataset file; with limit, that many picked by
    seed (in file order)."""
    records = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = line.split(";")
            try:
                value = float(fields[1]) if len(fields) in (2, 3) else None
                score = int(fields[2]) if len(fields) == 3 else None
            except ValueError:
                value = None
            if value not in (0.0, 0.5, 1.0):
                raise ValueError("%s:%d: not 'FEN;result' or 'FEN;result;cp' with result 1, "
                                 "0.5 or 0: %r" % (path, number, line[:100]))
            records.append((fields[0].strip(), value, score))
    if limit and limit < len(records):
        keep = sorted(random.Random(seed).sample(range(len(records)), limit))
        records = [records[i] for i in keep]
    return records


def fit_score_k(records):
    """(K, error): the logistic of the records' scores that best predicts their results."""
    pairs = [(score, result) for _, result, score in records if score is not None]

    def error(k):
        return sum((r - expected_result(c, k)) ** 2 for c, r in pairs) / len(pairs)
    k = golden_section(error)
    return k, error(k)


def build_samples(records, label="positions", lam=1.0, score_k=None):
    """(Samples, count dropped for an exact endgame verdict).  A sample's target is its
    result, or with a score, lam * result + (1 - lam) * expected_result(score, score_k)."""
    samples, dropped = [], 0
    progress = Progress(label, len(records))
    for done, (fen, result, score) in enumerate(records, 1):
        sample = extract(Position(fen))
        if sample is None:
            dropped += 1
        else:
            if score is not None and lam < 1.0:
                result = lam * result + (1.0 - lam) * expected_result(score, score_k)
            sample.result = result
            samples.append(sample)
        if done % 1000 == 0:
            progress.update(done)
    progress.close()
    return samples, dropped


def dataset_command(path):
    """The command a make_dataset.py header names, or None."""
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if not line.startswith("#"):
                return None
            if line.startswith("# command: "):
                return line[len("# command: "):].strip()
    return None


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def largest_changes(before, after, count):
    """Lines naming the count weights that moved most."""
    changes = []
    for term in TERMS:
        for half, path in (("mg", term.mg), ("eg", term.eg)):
            if path:
                old, new = _get(before, path), _get(after, path)
                if old != new:
                    changes.append((abs(new - old), "%s %s %d -> %d" % (term.label, half, old, new)))
    for name in SCALE_NAMES:
        if before[name] != after[name]:
            changes.append((abs(after[name] - before[name]),
                            "%s %d -> %d" % (name, before[name], after[name])))
    changes.sort(key=lambda change: -change[0])
    return [text for _, text in changes[:count]], len(changes)


def tune(args, out=None):
    """Fit, report (to out, default stdout) and write; (error before, error after rounding)."""
    out = out or sys.stdout
    started = time.monotonic()
    records = read_dataset(args.data, args.limit, args.seed)
    score_k = None
    if args.lam < 1.0 and any(r[2] is not None for r in records):
        score_k, score_error = fit_score_k(records)
        print("scores: K = %.4f predicts the results with error %.6f; target = %.2f * result "
              "+ %.2f * that" % (score_k, score_error, args.lam, 1 - args.lam), file=out)
    held = int(len(records) * args.holdout)
    train_records, held_records = records[:len(records) - held], records[len(records) - held:]
    samples, dropped = build_samples(train_records, "positions", args.lam, score_k)
    held_out, held_dropped = build_samples(held_records, "held out", args.lam, score_k)
    if not samples:
        raise SystemExit("error: no usable positions in %s" % args.data)
    print("positions: %d read, %d fitted and %d held out (%d with an exact endgame verdict "
          "dropped)" % (len(records), len(samples), len(held_out), dropped + held_dropped), file=out)
    start_values = current_values()
    model = Model(start_values)
    start_model = Model(start_values)
    k = args.k if args.k else fit_k(samples, model)
    before = mean_squared_error(samples, model, k)
    held_before = mean_squared_error(held_out, model, k) if held_out else float("nan")
    print("K = %.4f%s" % (k, "" if args.k else " (fitted to the starting weights)"), file=out)
    print("error before: %.6f (held out %.6f)" % (before, held_before), file=out)

    frozen = set(filter(None, (args.freeze or "").split(",")))
    unknown = frozen - set(WEIGHT_NAMES)
    if unknown:
        raise SystemExit("error: --freeze names no weight: %s" % ", ".join(sorted(unknown)))
    adam = Adam([model.mg, model.eg, model.scale], tuned_masks(frozen), args.lr,
                [None, None, (0.0, float(ev.SCALE_NORMAL))])
    rng = random.Random(args.seed)
    order = list(samples)
    best = (held_before, 0, model.values(start_values))
    for epoch in range(1, args.epochs + 1):
        rng.shuffle(order)
        train_epoch(order, model, k, adam, args.batch,
                    Progress("epoch %d/%d" % (epoch, args.epochs), len(order)), args.l2, start_model)
        held_error = mean_squared_error(held_out, model, k) if held_out else float("nan")
        print("epoch %*d/%d  error %.6f  held out %.6f" % (
            len(str(args.epochs)), epoch, args.epochs, mean_squared_error(samples, model, k),
            held_error), file=out)
        out.flush()
        if not held_out or held_error < best[0]:
            best = (held_error, epoch, model.values(start_values))
    tuned_values = best[2]
    after = mean_squared_error(samples, Model(tuned_values), k)
    held_after = mean_squared_error(held_out, Model(tuned_values), k) if held_out else float("nan")
    print("error after: %.6f (held out %.6f), the weights of epoch %d rounded to ints, %.0f s"
          % (after, held_after, best[1], time.monotonic() - started), file=out)
    lines, changed = largest_changes(start_values, tuned_values, 12)
    print("%d weights changed; the largest changes:" % changed, file=out)
    for line in lines:
        print("  " + line, file=out)

    provenance = [
        "Generated by scripts/tune.py on %s from %s," % (datetime.date.today().isoformat(), args.data),
        "sha256 %s:" % sha256_of(args.data),
        "%d positions fitted, %d held out, K = %.4f; mean squared error %.6f (held out %.6f)"
        % (len(samples), len(held_out), k, before, held_before),
        "with the weights before, %.6f (held out %.6f) after." % (after, held_after),
        "Command: %s" % args.command,
    ]
    made_by = dataset_command(args.data)
    if made_by:
        provenance.append("Dataset made by: %s" % made_by)
    Path(args.out).write_text(render(tuned_values, provenance))
    print("wrote %s" % args.out, file=out)
    return before, after


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", help="positions file, 'FEN;result' lines (scripts/make_dataset.py)")
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--batch", type=int, default=16384, help="positions per gradient step")
    parser.add_argument("--lr", type=float, default=1.0, help="Adam's step size, in centipawns")
    parser.add_argument("--seed", type=int, default=1, help="for --limit and the minibatch order")
    parser.add_argument("--limit", type=int, default=0, help="use this many positions, picked by --seed")
    parser.add_argument("--k", type=float, default=0.0, help="the logistic's K (default: fitted)")
    parser.add_argument("--lambda", dest="lam", type=float, default=1.0,
                        help="weight of the result against the score in the target, for "
                             "'FEN;result;cp' data (default %(default)s: the result only)")
    parser.add_argument("--holdout", type=float, default=0.1,
                        help="share of the file, from its end, kept out of the fit (default %(default)s)")
    parser.add_argument("--l2", type=float, default=0.0,
                        help="pull toward the starting weights, per cp squared (e.g. 1e-7)")
    parser.add_argument("--freeze", help="weight names to keep as they are, comma-separated "
                                         "(e.g. MATERIAL_MG,MATERIAL_EG)")
    parser.add_argument("--out", default=str(WEIGHTS_FILE), help="the module to write (default: %(default)s)")
    parser.add_argument("--rewrite", action="store_true",
                        help="no tuning: write engine/weights.py's own values and header to --out")
    args = parser.parse_args(argv)
    args.command = shlex.join([Path(sys.executable).name] + (sys.argv if argv is None else
                                                             ["scripts/tune.py"] + list(argv)))
    if args.rewrite:
        Path(args.out).write_text(render(current_values(), read_provenance(WEIGHTS_FILE)))
        return 0
    if not args.data:
        parser.error("--data is required (or --rewrite)")
    if os.environ.get("BASILISK_EVAL"):
        parser.error("BASILISK_EVAL is set: the tuner fits engine/weights.py as the engine "
                     "reads it without overrides")
    if ev.PSQT_ONLY:
        parser.error("PSQT_ONLY is set in engine/evaluate.py")
    tune(args)
    return 0


if __name__ == "__main__":
    from engine.runtime import restart_if_needed
    restart_if_needed()         # PyPy: a nursery that fits the caches
    sys.exit(main())
