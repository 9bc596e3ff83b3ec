"""The switches behind each per-feature A/B match: one place that says what "off" means.

Each evaluation entry gives the BASILISK_EVAL setting that removes one feature and the
``evaluate_terms`` rows it must zero (tests/test_evaluate.py checks that it does, on both
the fast and the term-by-term path, so a match never measures a switch that does nothing).
Each search entry gives the BASILISK_SEARCH setting that turns the feature off.  Features
that measurement switched off by default (razoring, IIR) are not listed: there is nothing
to switch off, and BASILISK_SEARCH turns them back on.

    python scripts/ablations.py mobility      # prints: BASILISK_EVAL=MOBILITY_PERCENT=0

The A/B matches themselves run scripts/match.py with the feature on for one side and this
environment for the other; the results are in docs/measurements.md.
"""

import sys

_ZERO_PASSED = ":".join(["0"] * 8)

# name: (BASILISK_EVAL value, rows of evaluate_terms that must be (0, 0) with it)
EVAL_ABLATIONS = {
    "passed pawns": ("PASSED_MG=%s,PASSED_EG=%s,PASSER_ENEMY_KING=0,PASSER_OWN_KING=0"
                     % (_ZERO_PASSED, _ZERO_PASSED),
                     ("pawns: passed", "passed: king distance")),
    "caught passers": ("CAUGHT_PASSER=%s" % _ZERO_PASSED, ("passed: caught",)),
    "pawn weaknesses": ("ISOLATED=0:0,DOUBLED=0:0,BACKWARD=0:0",
                        ("pawns: isolated", "pawns: doubled", "pawns: backward")),
    "connected pawns": ("CONNECTED_MG=%s,CONNECTED_EG=%s" % (_ZERO_PASSED, _ZERO_PASSED),
                        ("pawns: connected",)),
    "mobility": ("MOBILITY_PERCENT=0", ("mobility",)),
    "king safety": ("KING_ATTACK_PERCENT=0,SHIELD_NEAR=0,SHIELD_FAR=0",
                    ("king attack", "king shield")),
    "bishop pair": ("BISHOP_PAIR=0:0", ("bishop pair",)),
    "mop-up": ("MOPUP_EDGE=0,MOPUP_KINGS=0", ("mop-up",)),
    "threats": ("THREAT_BY_PAWN=0:0,THREAT_BY_MINOR=0:0,THREAT_BY_ROOK=0:0", ("threats",)),
    "safe checks": ("SAFE_CHECKS=0", ("safe checks",)),
    "pawn push threats": ("PAWN_PUSH_THREAT=0:0", ("push threats",)),
    "blocked passers": ("PASSED_BLOCKED_MG=%s,PASSED_BLOCKED_EG=%s" % (_ZERO_PASSED, _ZERO_PASSED),
                        ("passed: blocked",)),
    "safe stop squares": ("PASSED_SAFE_STOP=0:0", ("passed: safe stop",)),
    "outposts": ("OUTPOST_KNIGHT=0:0,OUTPOST_BISHOP=0:0", ("outposts",)),
    "king-pawn distance": ("KING_PAWN_DISTANCE=0", ("king: pawn distance",)),
    "rook files": ("ROOK_OPEN_FILE=0:0,ROOK_SEMI_OPEN_FILE=0:0", ("rook files",)),
    "tempo": ("TEMPO=0:0", ("tempo",)),
    "endgame scaling": ("SCALE_MAX_PHASE=-1", ()),      # the 'scale' row stays 64
    "known endgames": ("ENDGAME_MAX_PHASE=-1", ()),     # KPK bitbase, minor-piece draws
    "mating drive": ("MATING_DRIVE=0", ()),            # KBNK, KRK: no "mating drive" row
    "all positional terms": ("PSQT_ONLY=1", ()),        # evaluate is material + PST only
}

SEARCH_ABLATIONS = {
    "null move": "USE_NULL_MOVE=0",
    "reverse futility": "USE_REVERSE_FUTILITY=0",
    "futility": "USE_FUTILITY=0",
    "move futility": "USE_MOVE_FUTILITY=0",
    "quiet SEE pruning": "USE_QUIET_SEE_PRUNING=0",
    "late-move pruning": "USE_LMP=0",
    "full-width pawn endings": "USE_FULL_WIDTH_PAWN_ENDINGS=0",
    "late-move reductions": "USE_LMR=0",
    "SEE pruning": "USE_SEE_PRUNING=0",
    "quiescence TT": "USE_QS_TT_STAND_PAT=0,USE_QS_TT_MOVE=0",
    "ProbCut": "USE_PROBCUT=0",
    "countermove": "USE_COUNTERMOVE=0",
    "capture history": "USE_CAPTURE_HISTORY=0",
    "falling eval and easy move": "USE_FALLING_EVAL_AND_EASY_MOVE=0",
    "upcoming repetition": "USE_UPCOMING_REPETITION=0",
}


def environment_for(name):
    """'VAR=value' that switches the named feature off."""
    if name in EVAL_ABLATIONS:
        return "BASILISK_EVAL=" + EVAL_ABLATIONS[name][0]
    if name in SEARCH_ABLATIONS:
        return "BASILISK_SEARCH=" + SEARCH_ABLATIONS[name]
    raise KeyError(name)


def main(argv):
    try:
        if len(argv) != 1:
            raise KeyError(argv)
        print(environment_for(argv[0]))
        return 0
    except KeyError:                     # unknown name, or not exactly one argument
        names = sorted(EVAL_ABLATIONS) + sorted(SEARCH_ABLATIONS)
        print("usage: ablations.py NAME   (one of: %s)" % ", ".join(names), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
