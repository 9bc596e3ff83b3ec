"""Search: iterative deepening, aspiration windows, principal variation search.

``Searcher(hash_mb)`` keeps the hash table and move-ordering histories across searches;
``searcher.search(pos, limits, timeman, report=None, multipv=1)`` returns ``(best_move,
ponder_move)``, always legal, with ``pos`` restored.  It never prints: ``report(info)``
gets a dict per PV line of each completed iteration (and rate-limited bound dicts when an
aspiration window fails).  It stops on ``stop()``, the node limit or the hard deadline,
tested every CHECK_INTERVAL nodes (``SearchAborted`` unwinds); a ``stop`` racing its
start is the time manager's to catch.  Infinite and ponder searches may return early:
the caller holds ``bestmove`` until ``stop``/``ponderhit``.

Steps of a node (``# Step N.`` in ``_search``, then ``_moves``): 1 horizon, upcoming
repetition, stop check; 2 draws, mate distance; 3 TT probe, cutoff and small ProbCut; 4
static eval, reverse futility, razoring, null move, ProbCut; 5 internal iterative
reduction; 6 the moves: TT move first, SEE, futility (per node and per move), quiet SEE
and late-move pruning, check, recapture and single-reply extensions, LMR, PVS, history
updates; 7 TT store (a fail high's score pulled toward beta first).

Tunables are the upper-case constants below (figures: docs/measurements.md), overridden
at import by BASILISK_SEARCH (e.g. ``USE_NULL_MOVE=0``) for A/B matches.  ``run_bench()``
searches BENCH_POSITIONS: its node count is the search's signature (per interpreter).
"""

import math
import os
import sys
import time

from engine.bitboard import LINE
from engine.evaluate import evaluate, clear_cache as clear_eval_cache
from engine.jit import for_plain_form, not_inlined, nodes_searched
from engine.movegen import generate_moves, generate_captures, is_legal_move
from engine.ordering import MoveOrderer, see_ge, SEE_VALUE, USED, COUNTER, GOOD_CAPTURE
from engine.position import Position
from engine.tt import (new_table, SharedTranspositionTable, BOUND_NONE, BOUND_UPPER, BOUND_LOWER,
                       BOUND_EXACT)
from engine.tunables import apply_overrides
from engine.types import (VALUE_MATE, VALUE_INFINITE, VALUE_NONE, MAX_PLY, MAX_DEPTH,
                          VALUE_MATE_IN_MAX_PLY, PAWN, KING, SQ_MASK, TO_SHIFT, FLAG_SHIFT,
                          DOUBLE_PUSH, CAPTURE, NULL_MOVE, MOVE_CAPTURE, MOVE_PROMOTION,
                          MOVE_CAPTURE_OR_PROMOTION)

# --- Tunables (figures: Elo on vs off, docs/measurements.md) -----------------------
CHECK_INTERVAL = 256        # nodes between stop/time checks: 20-45k nps on CPython, so 6-13 ms
ASPIRATION_MIN_DEPTH = 4    # narrow windows once scores are stable enough to predict
                            # (from 2: -6.9 +/- 36.5 Elo (pairs), 200 games at 10,000 nodes)
ASPIRATION_DELTA = 30       # initial half-width (cp); grows by half on each fail
                            # (15: -3.5 +/- 40.8, 45: +1.7 +/- 36.6 Elo, pairs, 200 games
                            # each at 10,000 nodes)
USE_NULL_MOVE = True        # +38 +/- 41 Elo, 201 games at 10,000 nodes
NULL_MOVE_MIN_DEPTH = 3     # 2: -24.4 +/- 36.4 Elo (pairs), 200 games at 10,000 nodes
USE_REVERSE_FUTILITY = True # +53 +/- 53 Elo, 120 games at 10,000 nodes
RFP_MAX_DEPTH = 6
RFP_MARGIN = 80             # per ply of depth; 110: -12.2 +/- 42.3, 95: -5.2 +/- 35.3 (200 games
                            # each), 65: -17.1 +/- 48.9 Elo (pairs, 122 games) at 10,000 nodes
USE_RAZORING = False        # off: -9 +/- 43 Elo, 200 games at 3000 nodes; on at 10,000
                            # nodes -3.5 +/- 24.0 (pairs, LOS 38.8%), 600 games
RAZOR_MAX_DEPTH = 2         # 3 against 2 (both on): -10.4 +/- 39.0 Elo (pairs), 200 games at 10,000 nodes
RAZOR_MARGIN = 250          # per ply of depth
USE_FUTILITY = True         # +32 +/- 50 Elo, 120 games at 10,000 nodes
FUTILITY_MAX_DEPTH = 5      # 4 or 7: bench unchanged at 0a01299 (106,529; 3: 106,536, 0: 106,913): no match
FUTILITY_BASE = 90          # 60: +1.7 +/- 41.2, 120: -8.7 +/- 36.3 Elo (pairs), 200 games each at 10,000 nodes
FUTILITY_PER_DEPTH = 100
# futility per move: a quiet non-check whose LMR-reduced depth d' < 6 is skipped when the
# static eval + FUTILITY_BASE + FUTILITY_PER_DEPTH x d' cannot reach alpha (Stockfish's
# lmrDepth): +13.9 +/- 28.1 Elo (pairs), 400 games at 10,000 nodes
USE_MOVE_FUTILITY = True
# quiet SEE pruning: where futility per move may act, a late quiet non-check is also skipped
# when it loses more than (24 d' + 15) d' by SEE (Stockfish 15): +34.9 +/- 28.1 Elo (pairs,
# LOS 99.3%), 400 games in two runs at 10,000 nodes
USE_QUIET_SEE_PRUNING = True
QUIET_SEE_QUAD = 24
QUIET_SEE_LIN = 15
USE_LMP = True              # +135 +/- 45 Elo, 200 games at 3000 nodes
# late-move pruning keeps (LMP_BASE + depth^2) / (2 - improving) moves (Stockfish: 3);
# 8 against 3: +11.6 +/- 20.6 Elo (pairs), 600 games at 10,000 nodes (LOS 86.5%); 5: +0.0
# +/- 27.2 (400 games); 2: -31.4 +/- 35.6 (200 games); 8 at CPython's 10 s + 0.1 s: +0.0 +/- 28.0
# (300 games); 12 against 8: +0.9 +/- 18.4 (800 games at 10,000 nodes)
LMP_BASE = 8
LMP_MAX_DEPTH = 6           # 8: -12.9 +/- 56.8 Elo (pairs), 55 games at 10,000 nodes (stopped)
# kings and pawns only: no late-move pruning, every quiet move is searched (tempo moves
# decide there); +5.2 +/- 19.6 Elo (pairs), 200 games from Stockfish-scored pawn endings at 10,000 nodes
USE_FULL_WIDTH_PAWN_ENDINGS = True
USE_LMR = True              # +60 (+55/-52) Elo, 134 games at 3000 nodes
LMR_MIN_DEPTH = 3           # 2 searches the same tree: a depth-2 move's reduction is capped at 0
LMR_BASE = 0.5              # reduction = LMR_BASE + ln(depth) * ln(move number) / LMR_DIVISOR
                            # 0.25: +18.5 +/- 22.2 Elo (pairs), 600 games at 10,000 nodes, but
                            # -24.9 +/- 32.4 (pairs), 294 games at CPython's 10 s + 0.1 s;
                            # 0.75: -10.4 +/- 41.9, 200 games at 10,000 nodes
LMR_DIVISOR = 2.25          # against 2.75: +29.6 +/- 27.7 Elo (pairs), 400 games at 10,000 nodes
                            # (2.0: +3.5 +/- 22.5 at ed24a5c/08bdbf1 and -1.2 +/- 21.8 at
                            # 0a01299, 600 games each at 10,000 nodes)
# extra LMR reduction at expected cut nodes; 1: 0.0 +/- 22.2 Elo (pairs), 600 games at 10,000
# nodes on bab0d45 (-106 +/- 59 over 75 games at 3a2db28)
LMR_CUT_NODE = 0
# one ply less (more) reduction per this much good (bad) history (history + pawn history:
# median -9 to -28, 95% below 305-635 in a game, so at 8192 it hardly ever acts); 500: -1.2
# +/- 19.9 Elo (pairs), 600 games at 10,000 nodes; 150: +34.9, then -34.9 (200 games each)
LMR_HISTORY_DIV = 8192
USE_SEE_PRUNING = True      # +52 +/- 43 Elo, 200 games at 3000 nodes
SEE_PRUNE_MAX_DEPTH = 4     # 8: -1.7 +/- 37.9 Elo (pairs), 200 games at 10,000 nodes
SEE_PRUNE_MARGIN = 80       # a capture losing more than this per ply of depth is skipped
                            # (120: +0.0 +/- 41.6, 50: -3.5 +/- 35.2 Elo (pairs), 200 games
                            # each at 10,000 nodes)
USE_IIR = False             # on: -10 +/- 42 Elo at 3000 nodes (200 games), -67 +/- 57 at 10k (121)
USE_COUNTERMOVE = True      # +44 +/- 41 Elo, 200 games at 3000 nodes
# captures ordered by victim value and capture history (engine.ordering; off, the history
# stays empty and captures go by victim alone): +19.1 +/- 25.2 Elo (pairs), 400 games at
# 10,000 nodes against MVV-LVA
USE_CAPTURE_HISTORY = True
IIR_MIN_DEPTH = 4
SAFE_CHECK_EXT = True       # a check extends only if SEE >= 0: +24.9 +/- 24.8 Elo, 574 games at 10k nodes
USE_PROBCUT = True          # +15.6 +/- 26.8 Elo (pairs), 400 games at 10,000 nodes
PROBCUT_MIN_DEPTH = 5       # 4: -24.4 +/- 42.7, 6: +1.7 +/- 34.3 Elo (pairs), 200 games each at 10,000 nodes
# cp above beta a capture's shallow search must reach, less PROBCUT_IMPROVING while the
# static eval improves; against Stockfish 11's 190: +18.0 +/- 21.4 Elo (pairs), 600 games at 10,000 nodes
PROBCUT_MARGIN = 150
PROBCUT_IMPROVING = 45      # 0: -30.9 +/- 53.8 Elo (pairs), 124 games at 10,000 nodes (stopped)
# a small ProbCut (Stockfish 17's): a TT lower bound from a search at most 4 plies
# shallower that beats beta by SMALL_PROBCUT_MARGIN answers the node with beta + the
# margin, at any node (PV or not, in check or not): +25.2 +/- 26.3 Elo (pairs), 400 games
# at 10,000 nodes, but -13.0 +/- 26.7 (pairs), 400 games at CPython's 10 s + 0.1 s: off
USE_SMALL_PROBCUT = False
# 150: +23.5 +/- 30.1 Elo asked after ProbCut, -8.7 +/- 29.6 asked first (pairs, 400 games
# each at 10,000 nodes)
SMALL_PROBCUT_MARGIN = 200
DELTA_MARGIN = 200          # qsearch: a capture that cannot lift eval near alpha is skipped
                            # (150: +5.2 +/- 41.5, 250: -15.6 +/- 39.1 Elo (pairs), 200 games
                            # each at 10,000 nodes)
# qsearch: where delta pruning ends the captures, the best score is raised to the first
# skipped capture's bound (eval + victim + DELTA_MARGIN, still at or below alpha), so the
# node fails low with that softer bound, as Stockfish's futilityValue: +20.9 +/- 27.2 Elo
# (pairs, LOS 93.4%), 400 games at 10,000 nodes
USE_QS_FUTILITY_BOUND = True
# qsearch: the stand pat taken from the TT score where its bound says the static eval is
# too low (lower bound above it) or too high (upper bound below it), as Stockfish's, except
# in pawn endings (there it lifted issue #13's GUI ending to 112 cp at depths 8-11, bound
# 100), and the TT move tried first when it is one of the captures: the two together
# +14.5 +/- 22.6 Elo (pairs, LOS 89.6%), 600 games at 10,000 nodes; the TT move alone
# +12.2 +/- 35.3 (200 games)
USE_QS_TT_STAND_PAT = True
USE_QS_TT_MOVE = True
# qsearch: from the (QS_MOVE_COUNT + 1)th capture picked on, a plain capture that neither
# recaptures on the square the last move went to nor gives check is skipped (Stockfish
# 16's moveCount pruning in qsearch). 2: +20.0 +/- 26.1 Elo (pairs, LOS 93.4%), 400 games
# at 10,000 nodes, but -6.9 +/- 35.5 (pairs), 200 games at CPython's 10 s + 0.1 s: off (0)
QS_MOVE_COUNT = 0
# a fail-high's score pulled toward beta, (score x depth + beta) / (depth + 1), before it
# is stored and returned (Stockfish 16's): +12.2 +/- 27.2 Elo (pairs, LOS 81.1%), 400 games
# at 10,000 nodes
USE_FAIL_HIGH_BLEND = True
# at a PV node, a capture on the square where the opponent has just captured (the
# recapture) is searched at the node's depth, not a ply less: +21.5 +/- 23.2 Elo (pairs,
# LOS 96.6%), 600 games at 10,000 nodes (the last two runs +11.3 +/- 27.8); bench +16%
# (at every node, not only PV ones: -17.4 +/- 36.4 Elo (pairs), 200 games; bench +38%)
USE_RECAPTURE_EXT = True
# in check with a single legal reply: the reply is searched at the node's depth, not a ply
# less (a forced move costs the line no depth): +22.0 +/- 22.9 Elo (pairs), 600 games at 10,000 nodes
USE_SINGLE_REPLY_EXT = True
# a node that can repeat an earlier position with one move of its own is worth a draw at
# least (Stockfish's has_game_cycle, which asks it before the horizon's quiescence too):
# +10.4 +/- 19.6 Elo (pairs, LOS 85.2%), 800 games at 10,000 nodes, +20.9 +/- 36.4 (200
# games) at CPython's 10 s + 0.1 s; 1.4% fewer nodes a second there
USE_UPCOMING_REPETITION = True
# a node where no move reached alpha rewards the opponent's quiet move that led to it, in
# the opponent's history, as a cutoff would (Stockfish's prior-countermove bonus), at
# depth >= PRIOR_BONUS_MIN_DEPTH or at PV nodes
USE_PRIOR_COUNTER_BONUS = False  # on: +6.1 +/- 27.5 Elo (pairs), 400 games at 10,000 nodes
                                 # at c9ed2db; +5.8 +/- 21.1, 600 games at 0a01299
PRIOR_BONUS_MIN_DEPTH = 3
# correction history (Stockfish 16.1's): the static eval (of _search and quiescence) plus
# entry x |entry| / CORRECTION_SCALE cp, the entry one of CORRECTION_SIZE per side to move
# indexed by the pawn structure; a node not in check whose best move is quiet (or that has
# none) and whose bound says the eval was wrong moves it by (best - eval) x depth /
# CORRECTION_BONUS_DIV (within a quarter of CORRECTION_LIMIT) with gravity, as a history.
# The table stores the uncorrected eval
USE_CORRECTION_HISTORY = False   # on: -5.2 +/- 34.7 Elo (pairs), 200 games at 10,000 nodes
CORRECTION_SIZE = 16384
CORRECTION_LIMIT = 1024
CORRECTION_BONUS_DIV = 4
CORRECTION_SCALE = 32768    # at most 32 cp (8192, at most 128 cp: +3.5 +/- 33.5 Elo
                            # (pairs), 200 games at 10,000 nodes)
# Time use between iterations (clock games): the soft limit times 0.7 + 0.4 per recent
# change of best move (up to 2) and, with USE_FALLING_EVAL_AND_EASY_MOVE, times
# 1 + (drop of the score from the mean of the two iterations before) / FALLING_EVAL_CP
# (within FALLING_EVAL_MIN..MAX), times EASY_MOVE_FACTOR once the best move holds
# EASY_MOVE_SHARE of the root's nodes (the share is 0.3-0.7 in most bench positions).
USE_FALLING_EVAL_AND_EASY_MOVE = True   # +17.4 +/- 36.4 Elo (pairs), 200 games at 10 s + 0.1 s
FALLING_EVAL_CP = 200
FALLING_EVAL_MIN = 0.9
FALLING_EVAL_MAX = 1.5
EASY_MOVE_SHARE = 0.85
EASY_MOVE_FACTOR = 0.6
BOUND_REPORT_AFTER_MS = 1000   # no lowerbound/upperbound reports before this ...
BOUND_REPORT_EVERY_MS = 300    # ... nor more often than this
# The JIT warm-up (warm_up(), below): only PyPy needs one, its first search running at a
# third of its later speed while the JIT compiles; ~2,500 nodes on each bench position get
# most of that compiling done.
WARM_UP = sys.implementation.name == "pypy"
WARM_UP_NODES = 2500            # per bench position
WARM_UP_HASH_MB = 1


apply_overrides(globals(), os.environ.get("BASILISK_SEARCH", ""), "search tunable")

# LMR[depth][moves searched]: log-log reduction (Stockfish/Ethereal shape).
_LOGS = [0.0] + [math.log(_i) / math.sqrt(LMR_DIVISOR) for _i in range(1, 64)]
LMR = [[0] * 64] + [[0] + [int(LMR_BASE + _ld * _lm) for _lm in _LOGS[1:]] for _ld in _LOGS[1:]]

_INF = float("inf")
# the first picks of a node's move loop by max() + index(), the rest from one sort (same
# order): most nodes that cut do so early, the others pick 20-30 moves; run_bench(depth=5)
# 1.4% fewer instructions with 2 (1 or 3 within 0.02%)
MAX_PICKS = 2
# PyPy sorts by a key function through a boxed object an element, a list of ints unboxed: so
# there the sort is of score x 256 + (255 - index), 1.06x fewer instructions a node after six
# benches (scripts/bench_instructions.py); CPython's sort by key is cheaper than that
SORT_DECORATED = sys.implementation.name == "pypy"
QS_TT_SCORE = 1 << 20       # above every score_captures() score


def line_score(info):
    """A report dict's score as one number, to compare lines by: cp, or a mate ("mate" in
    moves) beyond any cp score, the shorter mate the higher (used by Skill and Threads)."""
    mate = info.get("mate")
    if mate is not None:
        return VALUE_MATE - 2 * mate if mate > 0 else -VALUE_MATE - 2 * mate
    return info.get("score") or 0


def _drop_quiet_non_checks(pos, moves, scores):
    """Mark USED every untried quiet move that does not give check: late-move and futility
    pruning skip them all once they start, and one pass here is cheaper than picking each.
    The test is Position.gives_check's, written out over one check_squares()."""
    check_sq, discoverers, ksq = pos.check_squares()
    line = LINE[ksq]
    board = pos.board
    for j in range(len(scores)):
        if scores[j] != USED:
            m = moves[j]
            if not m & MOVE_CAPTURE_OR_PROMOTION and m >> FLAG_SHIFT <= DOUBLE_PUSH:
                fr = m & SQ_MASK
                to = m >> TO_SHIFT & SQ_MASK
                if not (check_sq[board[fr] & 7] >> to & 1
                        or (discoverers >> fr & 1 and not line[fr] >> to & 1)):
                    scores[j] = USED


class SearchAborted(Exception):
    """Raised inside the search to unwind at once when it must stop."""


class Searcher:
    """One engine's search state (transposition table, histories) across `go` commands."""

    def __init__(self, hash_mb=16):
        self.hash_mb = hash_mb
        self.tt = new_table(hash_mb)
        self.orderer = MoveOrderer()
        self.stop_requested = False
        self.nodes = 0
        self.seldepth = 0
        self.node_limit = _INF
        self.next_check = CHECK_INTERVAL
        self.timeman = None
        self.root_depth = 1
        self.pv_table = [()] * (MAX_PLY + 8)
        self.evals = [VALUE_NONE] * (MAX_PLY + 8)
        self.correction = [0] * (2 * CORRECTION_SIZE)

    def set_hash(self, mb):
        """A table of its own of mb MB (in place of a shared one, if it had that)."""
        self.hash_mb = mb
        if isinstance(self.tt, SharedTranspositionTable):
            self.tt = new_table(mb)
        else:
            self.tt.resize(mb)

    def set_table(self, table):
        """Search with table (engine.smp's shared one) from now on."""
        self.tt = table
        self.hash_mb = table.mb

    def clear(self):
        """Forget everything learnt (ucinewgame / Clear Hash)."""
        self.tt.clear()
        self.orderer.clear()
        self.correction = [0] * (2 * CORRECTION_SIZE)

    def stop(self):
        self.stop_requested = True

    # ------------------------------------------------------------------ driver
    def search(self, pos, limits, timeman, report=None, multipv=1, skip_depth=None):
        """Search pos (which is restored on return) and return (best_move, ponder_move).

        ``report(info)`` receives dicts with keys depth, seldepth, multipv, score (cp) or
        mate (moves), bound ('lower'/'upper'/None), nodes, nps, time (ms), hashfull, pv
        (list of move ints).  An iteration cut short (time, nodes, stop) ends in one more
        set of reports marked ``final``, with the nodes and time of the whole search: first
        the line to be played (from the cut iteration if it found a new best move, at that
        depth; bound 'lower' if its move failed high and was cut before its re-search),
        then the other MultiPV lines (the cut iteration's complete ones, best first, then
        the last complete iteration's).  best_move is 0 only when there is no legal move.
        ``skip_depth(depth)``, true for an iteration to leave out (beyond depth 1), lets a
        Lazy SMP helper stay a depth apart from the main search (engine.smp).
        """
        self.stop_requested = False
        self.nodes = 0
        self.seldepth = 0
        self.timeman = timeman
        # a node budget applies from depth 2: the first iteration always completes (as in
        # Stockfish), so even `go nodes 1` plays a searched move and reports its score
        node_limit = limits.nodes if limits.nodes else _INF
        self.node_limit = _INF
        self.next_check = CHECK_INTERVAL
        self.tt.new_search()
        self.orderer.new_search()
        root_len = len(pos.stack)

        root_moves = generate_moves(pos)
        if limits.searchmoves:
            root_moves = [m for m in root_moves if m in limits.searchmoves] or root_moves
        if not root_moves:
            return 0, 0
        root_moves = self._initial_root_order(pos, root_moves)
        multipv = max(1, min(multipv or 1, len(root_moves)))
        self.root_nodes = dict.fromkeys(root_moves, 0)
        self.evals[0] = VALUE_NONE if pos.in_check() else evaluate(pos)

        best, ponder = root_moves[0], 0
        lines = []
        max_depth = min(limits.depth or MAX_DEPTH, MAX_DEPTH)
        scale_soft = getattr(timeman, "scale_soft", None)
        has_deadline = getattr(timeman, "has_deadline", lambda: True)
        best_changes = 0.0
        tops = []
        self._last_bound_report = 0.0
        for depth in range(1, max_depth + 1):
            if skip_depth is not None and depth > 1 and skip_depth(depth):
                continue
            self.root_depth = depth
            results = []
            try:
                for pv_idx in range(multipv):
                    excluded = [line[1][0] for line in results]
                    candidates = [m for m in root_moves if m not in excluded]
                    prev = lines[pv_idx][0] if pv_idx < len(lines) else None
                    self.root_partial = None
                    self.root_partial_bound = None
                    score, pv = self._aspiration(pos, depth, candidates, prev, pv_idx, report)
                    results.append((score, pv))
            except SearchAborted:
                while len(pos.stack) > root_len:
                    if pos.stack[-1][0]:
                        pos.unmake()
                    else:
                        pos.unmake_null()
                # its complete MultiPV lines in score order, as a complete iteration's are
                # (a later line can outscore the first): the GUI sees line 1 best, and it
                # is played, as Stockfish sorts each line in as it completes
                results.sort(key=lambda line: -line[0])
                # the first line of an interrupted iteration still beats the last one's
                line = results[0] if results else self.root_partial
                line_bound = None if results else self.root_partial_bound
                if line:
                    pv = line[1]
                    best, ponder = pv[0], (pv[1] if len(pv) > 1 else 0)
                if report and (line or lines):
                    # as Stockfish does on a stop: the lines as they stand, with every node
                    # counted, the one played first (the cut iteration's where it has them,
                    # the last complete iteration's for the rest)
                    shown = [(depth, line)] if line else []
                    shown += [(depth, result) for result in results[1:]]
                    for result in lines:
                        if len(shown) >= multipv:
                            break
                        if all(result[1][0] != pv[0] for _, (_, pv) in shown):
                            shown.append((depth - 1, result))
                    for i, (shown_depth, (score, pv)) in enumerate(shown):
                        # (the cut iteration's first line may be a fail high: "lowerbound")
                        bound = line_bound if i == 0 and line else None
                        info = self._info(shown_depth, i + 1, score, pv, bound)
                        info["final"] = True
                        report(info)
                break
            # a completed iteration: remember and report it, reorder the root moves
            results.sort(key=lambda line: -line[0])     # stable: ties keep search order
            if lines and results[0][1][0] != lines[0][1][0]:
                best_changes += 1
            lines = results
            lines_depth = depth
            best = lines[0][1][0]
            ponder = lines[0][1][1] if len(lines[0][1]) > 1 else 0
            line_moves = [line[1][0] for line in lines]
            rest = [m for m in root_moves if m not in line_moves]
            rest.sort(key=self.root_nodes.__getitem__, reverse=True)
            root_moves = line_moves + rest
            if report:
                for i, (score, pv) in enumerate(lines):
                    report(self._info(depth, i + 1, score, pv, None))
            # stop conditions
            top = lines[0][0]
            if depth == 1:
                self.node_limit = node_limit
                self.next_check = min(self.next_check, node_limit)
            if self.nodes >= self.node_limit or self.stop_requested:
                break
            if limits.mate and top >= VALUE_MATE_IN_MAX_PLY and VALUE_MATE - top <= 2 * limits.mate - 1:
                break
            if (abs(top) >= VALUE_MATE_IN_MAX_PLY and depth > VALUE_MATE - abs(top) + 6
                    and not limits.depth and not getattr(limits, "infinite", False)
                    and not getattr(limits, "ponder", False)):
                break   # the mate is proven well beyond its length: deeper search adds nothing
            if scale_soft is not None and has_deadline() and depth >= 4:
                # think longer while the best move keeps changing or the score falls, less
                # when one move has taken nearly all the effort
                factor = min(0.7 + 0.4 * best_changes, 2.0)
                if USE_FALLING_EVAL_AND_EASY_MOVE:
                    if len(tops) >= 2 and abs(top) < VALUE_MATE_IN_MAX_PLY:
                        falling = 1.0 + ((tops[-1] + tops[-2]) / 2 - top) / FALLING_EVAL_CP
                        factor *= min(max(falling, FALLING_EVAL_MIN), FALLING_EVAL_MAX)
                    root_nodes = self.root_nodes
                    if root_nodes[best] >= EASY_MOVE_SHARE * sum(root_nodes.values()):
                        factor *= EASY_MOVE_FACTOR
                scale_soft(factor)
                best_changes *= 0.5
            tops.append(top)
            if timeman.soft_expired():
                break
        # the move played in the table, as Stockfish's root is a node like any other: a later
        # search of this position starts from it, not from the history's favourite (stored
        # once the search is over, so its own tree is unchanged); the score only where the
        # last complete iteration chose it
        if lines and lines[0][1][0] == best:
            self.tt.store(pos.key, 0, best, lines[0][0], self.evals[0], lines_depth, BOUND_EXACT)
        else:
            self.tt.store(pos.key, 0, best, 0, self.evals[0], 0, BOUND_NONE)
        return best, ponder

    def ponder_move(self, pos, best):
        """A reply to ``best`` for the GUI to ponder on when the line played ends at it: the
        table's move in the position after it, if legal there (Stockfish's
        extract_ponder_from_tt); 0 if there is none."""
        pos.make(best)
        entry = self.tt.probe(pos.key, 1)
        reply = entry[0] if entry is not None else 0
        if reply and not is_legal_move(pos, reply):
            reply = 0
        pos.unmake()
        return reply

    def _initial_root_order(self, pos, moves):
        entry = self.tt.probe(pos.key, 0)
        tt_move = entry[0] if entry else 0
        scores = self.orderer.score(pos, moves, 0, 0)
        order = sorted(range(len(moves)), key=lambda i: -scores[i])
        ordered = [moves[i] for i in order]
        if tt_move in ordered:
            ordered.remove(tt_move)
            ordered.insert(0, tt_move)
        return ordered

    def _aspiration(self, pos, depth, candidates, prev, pv_idx, report):
        """Search the root in a window around the previous score, widening on failure."""
        if depth >= ASPIRATION_MIN_DEPTH and prev is not None and abs(prev) < VALUE_MATE_IN_MAX_PLY:
            delta = ASPIRATION_DELTA
            alpha = max(prev - delta, -VALUE_INFINITE)
            beta = min(prev + delta, VALUE_INFINITE)
        else:
            delta = VALUE_INFINITE
            alpha, beta = -VALUE_INFINITE, VALUE_INFINITE
        while True:
            score, pv = self._root(pos, depth, alpha, beta, candidates, pv_idx)
            if score <= alpha:
                bound = "upper"
                beta = (alpha + beta) // 2
                alpha = max(score - delta, -VALUE_INFINITE)
            elif score >= beta:
                bound = "lower"
                beta = min(score + delta, VALUE_INFINITE)
                candidates.remove(pv[0])
                candidates.insert(0, pv[0])
            else:
                return score, pv
            delta += delta // 2
            if report and pv:
                elapsed = self.timeman.elapsed_ms()
                if (elapsed >= BOUND_REPORT_AFTER_MS
                        and elapsed - self._last_bound_report >= BOUND_REPORT_EVERY_MS):
                    self._last_bound_report = elapsed
                    report(self._info(depth, pv_idx + 1, score, pv, bound))

    def _info(self, depth, multipv, score, pv, bound):
        elapsed = max(self.timeman.elapsed_ms(), 1.0)
        info = {"depth": depth, "seldepth": max(self.seldepth, depth), "multipv": multipv,
                "nodes": self.nodes, "nps": int(self.nodes * 1000 / elapsed),
                "time": int(elapsed), "hashfull": self.tt.hashfull(), "pv": list(pv),
                "bound": bound}
        if abs(score) >= VALUE_MATE_IN_MAX_PLY:
            plies = VALUE_MATE - abs(score)
            info["mate"] = (plies + 1) // 2 if score > 0 else -(plies // 2)
        else:
            info["score"] = score
        return info

    def _check(self):
        """Every CHECK_INTERVAL nodes: stop flag, node limit, hard deadline."""
        if self.nodes >= self.node_limit or self.stop_requested or self.timeman.hard_expired():
            raise SearchAborted
        nodes_searched(CHECK_INTERVAL)
        self.next_check = min(self.nodes + CHECK_INTERVAL, self.node_limit)

    # ------------------------------------------------------------------ root
    def _root(self, pos, depth, alpha, beta, moves, pv_idx):
        """One pass over the root moves; returns (score, pv).  pv is () on a fail low."""
        search = self._search
        pvt = self.pv_table
        root_nodes = self.root_nodes
        best_score = -VALUE_INFINITE
        best_pv = ()
        for i, move in enumerate(moves):
            before = self.nodes
            pos.make(move)
            gives_check = pos.in_check()
            new_depth = depth - 1 + (1 if gives_check else 0)
            pvt[1] = ()
            if i == 0:
                score = -search(pos, new_depth, -beta, -alpha, 1, False, gives_check)
            else:
                score = -search(pos, new_depth, -alpha - 1, -alpha, 1, True, gives_check)
                if alpha < score < beta:
                    pvt[1] = ()
                    score = -search(pos, new_depth, -beta, -alpha, 1, False, gives_check)
            pos.unmake()
            root_nodes[move] += self.nodes - before
            if score > best_score:
                best_score = score
                if score > alpha:
                    best_pv = (move,) + pvt[1]
                    if i and pv_idx == 0:
                        self.root_partial = (score, best_pv)
                        # a fail high: the score is only a lower bound, and said so if shown
                        self.root_partial_bound = "lower" if score >= beta else None
                    if score >= beta:
                        break
                    alpha = score
        return best_score, best_pv

    # ------------------------------------------------------------------ interior nodes
    @for_plain_form
    def _search(self, pos, depth, alpha, beta, ply, cut_node, in_check):
        """in_check: is the side to move in check (the parent knows it already)."""
        # Step 1. horizon, upcoming repetition (a move back to an earlier position makes a
        # draw the least this node is worth), node count, stop check
        if depth <= 0:
            return self._qsearch(pos, alpha, beta, ply, in_check)
        if (USE_UPCOMING_REPETITION and alpha < 0 and pos.halfmove >= 3
                and pos.has_game_cycle(ply)):
            alpha = 0
            if alpha >= beta:
                return alpha
        self.nodes += 1
        if self.nodes >= self.next_check:
            self._check()
        pv_node = beta - alpha > 1

        # Step 2. draws, mate-distance pruning.  Checkmate outranks the fifty-move rule,
        # so a clock at 100 is a draw only if the side to move is not mated (as Stockfish)
        if ((pos.halfmove >= 100 and (not in_check or generate_moves(pos)))
                or pos.is_repetition_draw(ply) or pos.has_insufficient_material()):
            return 0
        if ply >= MAX_DEPTH:           # the last plies are the stacks' margin
            return evaluate(pos)
        if alpha < -VALUE_MATE + ply:
            alpha = -VALUE_MATE + ply
            if alpha >= beta:
                return alpha
        if beta > VALUE_MATE - ply - 1:
            beta = VALUE_MATE - ply - 1
            if alpha >= beta:
                return beta

        # Step 3. transposition table
        key = pos.key
        tt = self.tt
        entry = tt.probe(key, ply)
        tt_move = 0
        if entry is not None:
            tt_move, tt_score, tt_eval, tt_depth, tt_bound = entry
            if (not pv_node and tt_depth >= depth
                    and (tt_bound == BOUND_EXACT
                         or (tt_bound == BOUND_LOWER and tt_score >= beta)
                         or (tt_bound == BOUND_UPPER and tt_score <= alpha))):
                return tt_score
            # the small ProbCut: a lower bound nearly as deep, far above beta, answers the
            # node before its static eval (Stockfish 17 asks after ProbCut: +13.9 +/- 23.1
            # Elo (pairs), 600 games at 10,000 nodes, for asking here)
            if (USE_SMALL_PROBCUT and tt_bound & BOUND_LOWER and tt_depth >= depth - 4
                    and tt_score >= beta + SMALL_PROBCUT_MARGIN
                    and tt_score < VALUE_MATE_IN_MAX_PLY and abs(beta) < VALUE_MATE_IN_MAX_PLY):
                return beta + SMALL_PROBCUT_MARGIN

        # Step 4. static eval and whole-node pruning (RFP +53, null move +38 Elo at 10,000 nodes)
        evals = self.evals
        improving = False
        if in_check:
            static_eval = raw_eval = eval_ = VALUE_NONE
            evals[ply] = VALUE_NONE
        else:
            if entry is not None and tt_eval != VALUE_NONE:
                raw_eval = static_eval = tt_eval
            else:
                raw_eval = static_eval = evaluate(pos)
            if USE_CORRECTION_HISTORY:
                static_eval += self._correction(pos)
            evals[ply] = static_eval
            eval_ = static_eval
            if entry is not None and abs(tt_score) < VALUE_MATE_IN_MAX_PLY and (
                    tt_bound & (BOUND_LOWER if tt_score > static_eval else BOUND_UPPER)):
                eval_ = tt_score
            improving = ply < 2 or static_eval > evals[ply - 2]
            if not pv_node:
                if (USE_REVERSE_FUTILITY and depth <= RFP_MAX_DEPTH
                        and eval_ - RFP_MARGIN * (depth - improving) >= beta
                        and eval_ < VALUE_MATE_IN_MAX_PLY):
                    return eval_
                if (USE_RAZORING and depth <= RAZOR_MAX_DEPTH
                        and eval_ + RAZOR_MARGIN * depth < alpha):
                    score = self._qsearch(pos, alpha, alpha + 1, ply, False)
                    if score <= alpha:
                        return score
                if (USE_NULL_MOVE and depth >= NULL_MOVE_MIN_DEPTH and eval_ >= beta
                        and pos.stack and pos.stack[-1][0]
                        and beta > -VALUE_MATE_IN_MAX_PLY):
                    us = pos.turn << 3
                    bbs = pos.bbs
                    # zugzwang guard: the side to move has a piece besides pawns and king
                    if pos.occ[pos.turn] & ~(bbs[us | PAWN] | bbs[us | KING]):
                        r = 3 + depth // 4 + min((eval_ - beta) // 200, 2)
                        pos.make_null()
                        score = -self._search(pos, depth - 1 - r, -beta, -beta + 1, ply + 1,
                                              not cut_node, False)
                        pos.unmake_null()
                        if score >= beta:
                            return beta if score >= VALUE_MATE_IN_MAX_PLY else score

        # Step 4b. ProbCut: a good capture whose reduced search beats beta by a margin
        # predicts that the full-depth search would beat beta too
        if (USE_PROBCUT and not pv_node and not in_check and depth >= PROBCUT_MIN_DEPTH
                and abs(beta) < VALUE_MATE_IN_MAX_PLY
                and not (entry is not None and tt_depth >= depth - 3
                         and tt_score < beta + PROBCUT_MARGIN)):
            pc_beta = beta + PROBCUT_MARGIN - PROBCUT_IMPROVING * improving
            tried = 0         # at most 2 captures (4 at expected cut nodes), as Stockfish 11
            for move in generate_captures(pos):
                if not see_ge(pos, move, pc_beta - static_eval):
                    continue
                tried += 1
                pos.make(move)
                gives_check = pos.in_check()
                score = -self._qsearch(pos, -pc_beta, -pc_beta + 1, ply + 1, gives_check)
                if score >= pc_beta:
                    score = -self._search(pos, depth - 4, -pc_beta, -pc_beta + 1, ply + 1,
                                          not cut_node, gives_check)
                pos.unmake()
                if score >= pc_beta:
                    return score
                if tried >= 2 + 2 * cut_node:
                    break

        # Step 5. internal iterative reduction (off by default: -10 +/- 42 Elo at 3000 nodes)
        if USE_IIR and not tt_move and depth >= IIR_MIN_DEPTH and (pv_node or cut_node):
            depth -= 1

        return self._moves(pos, depth, alpha, beta, ply, pv_node, cut_node, in_check, tt_move,
                           static_eval, raw_eval, improving)

    @for_plain_form
    def _moves(self, pos, depth, alpha, beta, ply, pv_node, cut_node, in_check, tt_move,
               static_eval, raw_eval, improving):
        """Steps 6 and 7 of _search.  A function of its own because PyPy's JIT traces the
        shorter functions better (bench nodes per CPU-second 82k -> 88-95k; CPython same)."""
        # Step 6. the moves (LMP +135, SEE pruning +52, LMR +60, countermove +44, futility +32 Elo)
        # the TT move is tried before anything is generated: often it is all a node needs.
        # In check (where a single reply is extended) the moves are generated first, to be
        # counted, and the TT move is looked up among them
        extend_ok = ply < 2 * self.root_depth
        single_reply = False
        if USE_SINGLE_REPLY_EXT and in_check and extend_ok:
            moves = generate_moves(pos)
            if not moves:
                return -VALUE_MATE + ply
            tt_ok = tt_move in moves
            single_reply = len(moves) == 1
        else:
            tt_ok = is_legal_move(pos, tt_move) if tt_move else False
            if tt_ok:
                moves = None
            else:
                moves = generate_moves(pos)
                if not moves:
                    return -VALUE_MATE + ply if in_check else 0
        orderer = self.orderer
        stack = pos.stack
        prev_move = stack[-1][0] if stack else 0
        scores = None
        order = None            # the move indices, sorted once from the third pick
        picks = at = 0
        best_score = -VALUE_INFINITE
        best_move = 0
        searched = 0
        quiets = []
        captures = []
        pvt = self.pv_table
        search = self._search
        prune_ok = not pv_node and not in_check
        lmp_limit = ((LMP_BASE + depth * depth) // (2 - improving)
                     if USE_LMP and prune_ok and depth <= LMP_MAX_DEPTH
                     and (not USE_FULL_WIDTH_PAWN_ENDINGS or pos.has_pieces()) else 999)
        futile = (USE_FUTILITY and prune_ok and depth <= FUTILITY_MAX_DEPTH
                  and static_eval + FUTILITY_BASE + FUTILITY_PER_DEPTH * depth <= alpha)
        see_prune = USE_SEE_PRUNING and prune_ok and depth <= SEE_PRUNE_MAX_DEPTH
        move_futility = USE_MOVE_FUTILITY and prune_ok and not futile
        quiet_see = USE_QUIET_SEE_PRUNING and prune_ok and not futile
        check_info = None
        # at a PV node, the square the opponent has just captured on: a move there (always a
        # recapture: the capturer stands on it) is extended; -1 where none may be
        recapture_to = (prev_move >> TO_SHIFT & SQ_MASK
                        if USE_RECAPTURE_EXT and pv_node and extend_ok and prev_move & MOVE_CAPTURE
                        else -1)
        lmr_ok = USE_LMR and depth >= LMR_MIN_DEPTH and not in_check
        lmr_row = LMR[depth if depth < 64 else 63]
        s = GOOD_CAPTURE
        quiets_dropped = False
        k = -1
        while True:
            k += 1
            # late: futility or late-move pruning now drops quiet non-checks (it starts
            # once a move has been searched, and holds for the rest of the node)
            late = searched and (futile or (searched >= lmp_limit
                                            and best_score > -VALUE_MATE_IN_MAX_PLY))
            if k == 0 and tt_ok:
                move = tt_move
            else:
                if scores is None:
                    if moves is None:
                        moves = generate_moves(pos)
                    scores = orderer.score(pos, moves, ply, orderer.counter_move(pos, prev_move)
                                           if USE_COUNTERMOVE else 0)
                    if tt_ok:
                        scores[moves.index(tt_move)] = USED
                if late and not quiets_dropped:
                    _drop_quiet_non_checks(pos, moves, scores)    # 2.3x fewer picks in bench
                    quiets_dropped = True
                if order is None:
                    if picks < MAX_PICKS:
                        picks += 1
                        s = max(scores)
                        if s == USED:
                            break
                        i = scores.index(s)
                    else:
                        # descending and stable: the order max() + index() would give
                        if SORT_DECORATED:     # (at most 218 moves: an index fits 8 bits)
                            order = [value * 256 + 255 - j for j, value in enumerate(scores)]
                            order.sort(reverse=True)
                        else:
                            order = sorted(range(len(scores)), key=scores.__getitem__,
                                           reverse=True)
                        at = 0
                if order is not None:
                    s = USED
                    while at < len(order):
                        i = order[at]
                        if SORT_DECORATED:
                            i = 255 - (i & 255)
                        at += 1
                        s = scores[i]
                        if s != USED:
                            break
                    if s == USED:
                        break
                scores[i] = USED
                move = moves[i]
            is_quiet = not move & MOVE_CAPTURE_OR_PROMOTION
            if (not is_quiet and see_prune and s < 0 and searched
                    and best_score > -VALUE_MATE_IN_MAX_PLY
                    and not see_ge(pos, move, -SEE_PRUNE_MARGIN * depth)):
                continue
            # futility and late-move pruning of quiet moves: the non-checks are gone already
            # (dropped above); a check is always searched
            prune = is_quiet and late
            # futility per move and quiet SEE pruning, by the move's LMR-reduced depth
            if ((move_futility or quiet_see) and is_quiet and not prune and searched
                    and best_score > -VALUE_MATE_IN_MAX_PLY):
                lmr_depth = depth - 1 - lmr_row[searched + 1 if searched < 63 else 63]
                if lmr_depth < 0:
                    lmr_depth = 0
                if ((move_futility and lmr_depth < 6
                     and static_eval + FUTILITY_BASE + FUTILITY_PER_DEPTH * lmr_depth <= alpha)
                        or (quiet_see and not see_ge(
                            pos, move, -(QUIET_SEE_QUAD * lmr_depth + QUIET_SEE_LIN) * lmr_depth))):
                    if check_info is None:
                        check_info = pos.check_squares()
                    if not pos.gives_check(move, check_info):
                        continue
            pos.make(move)
            gives_check = pos.in_check()
            if prune and not gives_check:                      # castling: known only now
                pos.unmake()
                continue
            searched += 1
            if gives_check and extend_ok:
                if SAFE_CHECK_EXT:
                    pos.unmake()
                    ext = see_ge(pos, move, 0)
                    pos.make(move)
                else:
                    ext = True
                new_depth = depth if ext else depth - 1
            elif single_reply or move >> TO_SHIFT & SQ_MASK == recapture_to:
                new_depth = depth
            else:
                new_depth = depth - 1
            if searched == 1:
                if pv_node:
                    pvt[ply + 1] = ()
                score = -search(pos, new_depth, -beta, -alpha, ply + 1, not pv_node and not cut_node,
                                gives_check)
            else:
                full = True
                if lmr_ok and is_quiet and searched > (3 if pv_node else 1) and not gives_check:
                    r = lmr_row[searched if searched < 64 else 63]
                    if pv_node:
                        r -= 1
                    if cut_node:
                        r += LMR_CUT_NODE
                    if not improving:
                        r += 1
                    if s >= COUNTER:
                        r -= 1
                    else:
                        r -= int(s / LMR_HISTORY_DIV)
                    if r > new_depth - 1:
                        r = new_depth - 1
                    if r > 0:
                        score = -search(pos, new_depth - r, -alpha - 1, -alpha, ply + 1, True,
                                          gives_check)
                        full = score > alpha
                if full:
                    score = -search(pos, new_depth, -alpha - 1, -alpha, ply + 1, not cut_node,
                                    gives_check)
                if pv_node and alpha < score < beta:
                    pvt[ply + 1] = ()
                    score = -search(pos, new_depth, -beta, -alpha, ply + 1, False, gives_check)
            pos.unmake()

            if score > best_score:
                best_score = score
                if score > alpha:
                    best_move = move
                    if pv_node:
                        pvt[ply] = (move,) + pvt[ply + 1]
                    if score >= beta:
                        if is_quiet:
                            orderer.update(pos, move, depth, ply, quiets, prev_move, captures)
                        elif (USE_CAPTURE_HISTORY and move & MOVE_CAPTURE
                              and not move & MOVE_PROMOTION):
                            captures.append(move)
                            orderer.update_captures(pos, move, depth, captures)
                        break
                    alpha = score
            if is_quiet:
                quiets.append(move)
            elif USE_CAPTURE_HISTORY and move & MOVE_CAPTURE and not move & MOVE_PROMOTION:
                captures.append(move)

        # Step 7. store
        if best_score >= beta:
            bound = BOUND_LOWER
            if (USE_FAIL_HIGH_BLEND and abs(best_score) < VALUE_MATE_IN_MAX_PLY
                    and abs(beta) < VALUE_MATE_IN_MAX_PLY):
                best_score = (best_score * depth + beta) // (depth + 1)
        elif pv_node and best_move:
            bound = BOUND_EXACT
        else:
            bound = BOUND_UPPER
            if (USE_PRIOR_COUNTER_BONUS and prev_move and not prev_move & MOVE_CAPTURE_OR_PROMOTION
                    and (depth >= PRIOR_BONUS_MIN_DEPTH or pv_node)):
                orderer.reward_prior(pos, prev_move, depth)
        if (USE_CORRECTION_HISTORY and not in_check
                and not best_move & MOVE_CAPTURE_OR_PROMOTION
                and not (bound == BOUND_LOWER and best_score <= static_eval)
                and not (not best_move and best_score >= static_eval)):
            self._correct(pos, (best_score - static_eval) * depth // CORRECTION_BONUS_DIV)
        self.tt.store(pos.key, ply, best_move, best_score, raw_eval, depth, bound)
        return best_score

    @staticmethod
    def _correction_index(pos):
        """The correction entry of the side to move and the pawn structure."""
        bbs = pos.bbs
        return pos.turn * CORRECTION_SIZE + hash((bbs[PAWN], bbs[8 | PAWN])) % CORRECTION_SIZE

    def _correction(self, pos):
        """What the correction history adds to the position's static eval (cp)."""
        c = self.correction[self._correction_index(pos)]
        return c * c // CORRECTION_SCALE if c > 0 else -(c * c // CORRECTION_SCALE)

    def _correct(self, pos, bonus):
        """Move the pawn structure's correction entry by bonus (within a quarter of the
        limit), with gravity toward +-CORRECTION_LIMIT."""
        cap = CORRECTION_LIMIT // 4
        if bonus > cap:
            bonus = cap
        elif bonus < -cap:
            bonus = -cap
        i = self._correction_index(pos)
        c = self.correction[i]
        self.correction[i] = c + bonus - c * abs(bonus) // CORRECTION_LIMIT

    # ------------------------------------------------------------------ quiescence
    # Under PyPy both quiescence functions are traced on their own, not inside their callers
    # (engine.jit; the mark matters only with PyPy's default inlining, where it gave 1.21x)
    @not_inlined
    @for_plain_form
    def _qsearch(self, pos, alpha, beta, ply, in_check):
        """in_check: as in _search (always a bool: PyPy's JIT compiles one path per type);
        in check, the node is searched by _evasions."""
        self.nodes += 1
        if self.nodes >= self.next_check:
            self._check()
        if ply > self.seldepth:
            self.seldepth = ply
        if ply >= MAX_DEPTH:           # the last plies are the stacks' margin
            return evaluate(pos)
        key = pos.key
        tt = self.tt
        entry = tt.probe(key, ply)
        if entry is not None and beta - alpha == 1:
            tt_score, tt_bound = entry[1], entry[4]
            if (tt_bound == BOUND_EXACT or (tt_bound == BOUND_LOWER and tt_score >= beta)
                    or (tt_bound == BOUND_UPPER and tt_score <= alpha)):
                return tt_score
        if in_check:
            return self._evasions(pos, alpha, beta, ply)
        if entry is not None and entry[2] != VALUE_NONE:
            raw_eval = static_eval = entry[2]
        else:
            raw_eval = static_eval = evaluate(pos)
        if USE_CORRECTION_HISTORY:
            static_eval += self._correction(pos)
        best_score = static_eval
        if (USE_QS_TT_STAND_PAT and entry is not None
                and abs(entry[1]) < VALUE_MATE_IN_MAX_PLY
                and entry[4] & (BOUND_LOWER if entry[1] > static_eval else BOUND_UPPER)
                and pos.has_pieces()):
            best_score = entry[1]
        if best_score >= beta:
            return best_score
        if best_score > alpha:
            alpha = best_score
        moves = generate_captures(pos)
        if not moves:
            return best_score
        scores = self.orderer.score_captures(pos, moves)
        tt_first = 0
        if USE_QS_TT_MOVE and entry is not None and entry[0] and entry[0] in moves:
            tt_first = entry[0]
            scores[moves.index(tt_first)] = QS_TT_SCORE
        board = pos.board
        best_move = 0
        check_info = None
        for picked in range(1, len(moves) + 1):
            s = max(scores)
            i = scores.index(s)
            scores[i] = USED
            move = moves[i]
            if not move & MOVE_PROMOTION:
                victim = SEE_VALUE[board[move >> TO_SHIFT & SQ_MASK] & 7 or PAWN]
                futility = static_eval + victim + DELTA_MARGIN
                if futility <= alpha:
                    if USE_QS_FUTILITY_BOUND and futility > best_score:
                        best_score = futility
                    if move == tt_first:
                        continue    # out of the victim order: the rest may still reach alpha
                    break       # captures come by victim, biggest first: the rest fail too
                # a plain capture (not en passant, no promotion) picked late, unless it goes
                # where the last move went (none after a null move)
                if QS_MOVE_COUNT and picked > QS_MOVE_COUNT and move >> FLAG_SHIFT == CAPTURE:
                    stack = pos.stack
                    last = stack[-1][0] if stack else NULL_MOVE
                    if not last or last >> TO_SHIFT & SQ_MASK != move >> TO_SHIFT & SQ_MASK:
                        if check_info is None:
                            check_info = pos.check_squares()
                        if not pos.gives_check(move, check_info):
                            continue
                if victim < SEE_VALUE[board[move & SQ_MASK] & 7] and not see_ge(pos, move, 0):
                    continue
            pos.make(move)
            score = -self._qsearch(pos, -beta, -alpha, ply + 1, pos.in_check())
            pos.unmake()
            if score > best_score:
                best_score = score
                if score > alpha:
                    best_move = move
                    if score >= beta:
                        break
                    alpha = score
        tt.store(key, ply, best_move, best_score, raw_eval, 0,
                 BOUND_LOWER if best_score >= beta else BOUND_UPPER)
        return best_score

    @not_inlined
    @for_plain_form
    def _evasions(self, pos, alpha, beta, ply):
        """Quiescence in check: every evasion, no stand-pat.  A loop of its own keeps the
        capture loop free of in-check tests (PyPy's first bench 30k -> 32k nodes/s)."""
        moves = generate_moves(pos)
        if not moves:
            return -VALUE_MATE + ply
        scores = self.orderer.score(pos, moves, ply, 0)
        best_score = -VALUE_INFINITE
        best_move = 0
        for _ in range(len(moves)):
            s = max(scores)
            i = scores.index(s)
            scores[i] = USED
            move = moves[i]
            pos.make(move)
            score = -self._qsearch(pos, -beta, -alpha, ply + 1, pos.in_check())
            pos.unmake()
            if score > best_score:
                best_score = score
                if score > alpha:
                    best_move = move
                    if score >= beta:
                        break
                    alpha = score
        self.tt.store(pos.key, ply, best_move, best_score, VALUE_NONE, 0,
                      BOUND_LOWER if best_score >= beta else BOUND_UPPER)
        return best_score


# ---------------------------------------------------------------------- bench
BENCH_DEPTH = 7
BENCH_POSITIONS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
    "r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - - 0 1",
    "6k1/5p2/6p1/8/7p/8/6PP/6K1 b - - 0 1",
    "8/8/1p1k4/p1p5/P1P2K2/1P6/8/8 w - - 0 1",
    "4rrk1/pp1n3p/3q2pQ/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19",
]


class _BenchLimits:
    """Just the fields the search reads (engine.timeman.Limits has them all): search.py
    sits below the front end's modules and does not import them."""

    def __init__(self, depth):
        self.depth = depth
        self.nodes = self.mate = None
        self.searchmoves = []


class NoDeadline:
    """The time manager of a search without a clock (the bench, the JIT warm-up): it ends
    at its depth or node limit, or once ``stop()`` (when given) is true."""

    def __init__(self, stop=None):
        self.start = time.perf_counter()
        self._stop = stop

    def elapsed_ms(self):
        return (time.perf_counter() - self.start) * 1000.0

    def hard_expired(self):
        return self._stop is not None and self._stop()

    soft_expired = hard_expired


# ---------------------------------------------------------------------- JIT warm-up
def warm_up(searcher, fens, timeman, on_done=None):
    """PyPy's JIT warm-up: search each of ``fens`` for WARM_UP_NODES, until ``timeman``
    expires; ``on_done(fen)`` after each one searched to its node limit.  The nodes searched.

    The caller gives ``searcher`` a table of its own (WARM_UP_HASH_MB): the warm-up must
    leave the real search's table alone."""
    nodes = 0
    for fen in list(fens):
        if timeman.hard_expired():
            break
        limits = _BenchLimits(None)
        limits.nodes = WARM_UP_NODES
        searcher.search(Position(fen), limits, timeman)
        nodes += searcher.nodes
        if on_done is not None and not timeman.hard_expired():
            on_done(fen)
    return nodes


def run_bench(depth=BENCH_DEPTH, hash_mb=16, report=None, positions=None, stop=None):
    """Search each bench FEN to depth with a fresh Searcher and empty evaluation caches (so a
    second bench in one process measures the search, not the caches the first one filled);
    (total_nodes, seconds searched).  As in Stockfish's bench, the time counts the searches
    only, not the setting up of each position's hash table (~6 ms for 16 MB on PyPy, 1 ms
    on CPython).

    ``report(fen, nodes, seconds, best_move)`` is called after each position.  ``stop()``,
    asked by the search every CHECK_INTERVAL nodes, cuts the searches short once true (the
    caller then discards the figures: see engine.engine.run_bench).
    """
    total = 0
    searched = 0.0
    for fen in positions or BENCH_POSITIONS:
        searcher = Searcher(hash_mb)
        pos = Position(fen)
        clear_eval_cache()
        t0 = time.perf_counter()
        best, _ = searcher.search(pos, _BenchLimits(depth), NoDeadline(stop))
        seconds = time.perf_counter() - t0
        searched += seconds
        total += searcher.nodes
        if report:
            report(fen, searcher.nodes, seconds, best)
    return total, searched
