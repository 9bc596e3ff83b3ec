"""Strength levels: a weaker Basilisk for people to play against (UCI_Elo, Skill Level).

A level is a number from 0 (beginner) to 20 (full strength, no weakening).
``strength_level(limit_strength, elo, skill_level)`` turns the three UCI options into a
level, or None for full strength; ``SkillPlan(level)`` says how that level searches:

    plan = SkillPlan(strength_level(True, 1500, 20))
    limits = plan.limits(limits)                  # a shallower, node-bounded search
    picker = plan.picker(len(legal))              # fed every report dict of the search
    searcher.search(pos, limits, timeman, report=picker.add, multipv=plan.multipv(1))
    line = picker.choose(rng)                     # a report dict, None if none completed
    # None (the clock or a stop cut the first ply; a node budget never does): the search's move

The weakening is a person's, not a coin's: the search is shallow (a depth and a node
budget that grow with the level, so the strength does not depend on the machine), it
looks at MULTIPV candidate moves, and it plays the one whose score, plus a random error
of up to ``weakness`` centipawns, is highest (Stockfish's Skill::pick_best idea): a
weak level often prefers a slightly worse move and misses what a shallow search cannot
see, but never gives away more than its weakness.  The constants below are the table
to calibrate with scripts/calibrate.py.
"""

import copy

from engine.search import line_score   # mates beyond what the random error can bridge

# --- The scale (the UCI options) -----------------------------------------------------
MIN_LEVEL = 0
MAX_LEVEL = 20              # Skill Level 20 and UCI_Elo MAX_ELO: full strength
MIN_ELO = 800               # the lowest UCI_Elo (about level 3.3; Skill Level goes lower)
MAX_ELO = 1990              # full strength (48.8% against UCI_Elo 2000 at 10 s + 0.1 s on CPython)
DEFAULT_ELO = 1500          # a club beginner: level 13.3
# The calibration: (level, the UCI_Elo it plays at), from scripts/calibrate.py against
# Stockfish 15.1 at 10 s + 0.1 s (docs/measurements.md); UCI_Elo maps onto levels by
# straight lines between these points.  Set with the evaluation network r5, which lifted
# every level (a level's budget is nodes and depth, not time: the levels set before it,
# 12.75 and 19.26, scored 62.5% and 60.0% at 1350 and 1800).  11.4: 1350 (49.2%, 120
# games; 11.0 scored 41.7% over 120, 12.0 63.3% over 60); 14.5: 1600 (44.6%, 120 games);
# 17.6: 1800 (49.2%, 120 games; 17.2 scored 40.0%, 18.0 57.5%); 20: full strength, ~1990.
# Below 1350 Stockfish cannot measure: the first point extends the slope fitted to the
# first six calibration runs (before the network) down to MIN_ELO.
ELO_PER_LEVEL_BELOW = 68
_MEASURED = ((11.4, 1350), (14.5, 1600), (17.6, 1800), (20.0, 1990))
ELO_AT_LEVEL = ((round(_MEASURED[0][0] - (_MEASURED[0][1] - MIN_ELO) / ELO_PER_LEVEL_BELOW, 2),
                 MIN_ELO),) + _MEASURED

# --- The table: what a level searches and how it errs (to be calibrated) -------------
MULTIPV = 4                 # candidate moves the choice is made among (Stockfish: 4)
LEVELS_PER_PLY = 3          # depth cap 1 + level // 3: level 0-2 look one ply ahead, 18-19 seven
TOP_LEVEL_NODES = 8000      # node budget at level 19 (full strength at 10 s + 0.1 s: ~10k/move)
LEVELS_PER_DOUBLING = 2.0   # the budget halves every two levels down ...
MIN_NODES = 250             # ... down to this floor (a 4-line first ply takes 30-3500
                            # nodes; the search finishes it whatever the budget)
WEAKNESS_AT_LEVEL_0 = 200   # cp of random error at level 0 (a pawn and more: plausible moves,
                            # never a piece), falling linearly to 0 at MAX_LEVEL
# With a clock, a weak level still takes this share of its planned time (at most
# THINK_MAX_MS) before answering, so that its quick shallow search does not look broken.
THINK_SHARE = 0.5
THINK_MAX_MS = 1000



def strength_level(limit_strength, elo, skill_level):
    """The level the options ask for, None for full strength.

    UCI_LimitStrength with UCI_Elo wins over Skill Level, as in Stockfish; UCI_Elo maps
    onto levels through ELO_AT_LEVEL, so levels may be fractional.
    """
    level = level_for_elo(elo) if limit_strength else float(skill_level)
    level = min(max(level, MIN_LEVEL), MAX_LEVEL)
    return None if level >= MAX_LEVEL else level


def _interpolate(points, x):
    """y at x on the straight lines through points ((x, y), ... ascending), the end
    segments extended."""
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        if x <= x1 or (x1, y1) == points[-1]:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return points[0][1]


def level_for_elo(elo):
    """The level (not clamped) that plays at ``elo`` on Stockfish's UCI_Elo scale."""
    return _interpolate([(e, level) for level, e in ELO_AT_LEVEL], elo)


def elo_for_level(level):
    """The UCI_Elo ``level`` plays at (below the first calibration point: extrapolated)."""
    return _interpolate(ELO_AT_LEVEL, level)


def pick_index(scores, weakness, rng):
    """The index of the candidate whose score plus a random error in [0, weakness) is highest.

    Ties keep the earlier (better searched) candidate.
    """
    best_index, best_value = 0, None
    for index, score in enumerate(scores):
        value = score + weakness * rng.random()
        if best_value is None or value > best_value:
            best_index, best_value = index, value
    return best_index


class SkillPlan:
    """How one level searches and chooses; see the module docstring."""

    def __init__(self, level):
        self.level = min(max(level, MIN_LEVEL), MAX_LEVEL)
        self.depth = 1 + int(self.level) // LEVELS_PER_PLY
        nodes = TOP_LEVEL_NODES * 2.0 ** ((self.level - (MAX_LEVEL - 1)) / LEVELS_PER_DOUBLING)
        self.nodes = max(int(nodes), MIN_NODES)
        self.weakness = WEAKNESS_AT_LEVEL_0 * (MAX_LEVEL - self.level) / (MAX_LEVEL - MIN_LEVEL)

    def __repr__(self):
        return "SkillPlan(level %.1f: depth %d, nodes %d, weakness %.0f cp)" % (
            self.level, self.depth, self.nodes, self.weakness)

    def multipv(self, wanted):
        """The number of lines to search when the GUI asked for ``wanted``."""
        return max(wanted, MULTIPV)

    def limits(self, limits):
        """A copy of limits with this level's depth and node budget (the smaller limit wins)."""
        weak = copy.copy(limits)
        weak.depth = min(limits.depth or self.depth, self.depth)
        weak.nodes = min(limits.nodes or self.nodes, self.nodes)
        return weak

    def picker(self, legal_count, wanted=1):
        return LinePicker(self, min(self.multipv(wanted), legal_count))

    def think_ms(self, soft_ms):
        """How long a clocked move should take at least (ms on our clock)."""
        return min(soft_ms * THINK_SHARE, THINK_MAX_MS)


class LinePicker:
    """Collects the search's report dicts and chooses among the last complete iteration."""

    def __init__(self, plan, lines_per_iteration):
        self.plan = plan
        self.lines_per_iteration = max(lines_per_iteration, 1)
        self.current = []           # the exact lines of the iteration being reported
        self.complete = []          # the last iteration with all its lines

    def add(self, info):
        if info.get("bound") or not info.get("pv") or info.get("final"):
            return                  # a window's fail, or a cut iteration's summary: not a candidate
        if self.current and self.current[0].get("depth") != info.get("depth"):
            self.current = []
        self.current.append(info)
        if len(self.current) == self.lines_per_iteration:
            self.complete = sorted(self.current, key=lambda line: line.get("multipv", 0))
            self.current = []

    def choose(self, rng):
        """The chosen line (a report dict), None if no iteration was complete."""
        if not self.complete:
            return None
        scores = [line_score(line) for line in self.complete]
        return self.complete[pick_index(scores, self.plan.weakness, rng)]
