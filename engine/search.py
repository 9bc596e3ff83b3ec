"""Search (stub: plain iterative-deepening alpha-beta; the API is the real one).

The search never prints.  It reports through a callback with one dict per `info` line
and stops by raising SearchAborted internally when ``stop_requested`` is set or the
time manager's hard deadline passes.
"""

import time

from engine.evaluate import evaluate
from engine.movegen import generate_moves
from engine.types import VALUE_MATE, VALUE_INFINITE, MAX_PLY, VALUE_MATE_IN_MAX_PLY


class SearchAborted(Exception):
    """Raised inside the search to unwind at once when it must stop."""


class Searcher:
    """One engine's search state (transposition table, histories) across `go` commands."""

    def __init__(self, hash_mb=16):
        self.hash_mb = hash_mb
        self.stop_requested = False
        self.nodes = 0

    def set_hash(self, mb):
        self.hash_mb = mb

    def clear(self):
        """Forget everything learnt (ucinewgame / Clear Hash)."""

    def hashfull(self):
        return 0

    def stop(self):
        self.stop_requested = True

    def search(self, pos, limits, timeman, report=None, multipv=1):
        """Search pos (which is restored on return) and return (best_move, ponder_move).

        ``report(info)`` receives dicts with keys depth, seldepth, multipv, score (cp) or
        mate (moves), bound ('lower'/'upper'/None), nodes, nps, time (ms), hashfull, pv
        (list of move ints).  best_move is 0 only when there is no legal move.
        """
        self.stop_requested = False
        self.nodes = 0
        self.timeman = timeman
        root_moves = generate_moves(pos)
        if limits.searchmoves:
            root_moves = [m for m in root_moves if m in limits.searchmoves] or root_moves
        if not root_moves:
            return 0, 0
        best, pv = root_moves[0], [root_moves[0]]
        max_depth = limits.depth or MAX_PLY
        for depth in range(1, max_depth + 1):
            try:
                score, pv_new = self._root(pos, root_moves, depth)
            except SearchAborted:
                break
            best, pv = pv_new[0], pv_new
            root_moves.remove(best)
            root_moves.insert(0, best)
            if report:
                elapsed = max(timeman.elapsed_ms(), 1)
                info = {"depth": depth, "seldepth": depth, "multipv": 1, "nodes": self.nodes,
                        "nps": int(self.nodes * 1000 / elapsed), "time": int(elapsed),
                        "hashfull": 0, "pv": pv, "bound": None}
                if abs(score) >= VALUE_MATE_IN_MAX_PLY:
                    plies = VALUE_MATE - abs(score)
                    info["mate"] = (plies + 1) // 2 if score > 0 else -(plies // 2)
                else:
                    info["score"] = score
                report(info)
            if limits.nodes and self.nodes >= limits.nodes:
                break
            if timeman.soft_expired() or self.stop_requested:
                break
        return best, (pv[1] if len(pv) > 1 else 0)

    def _check(self, limits_nodes=None):
        if self.stop_requested or self.timeman.hard_expired():
            raise SearchAborted

    def _root(self, pos, moves, depth):
        alpha, beta = -VALUE_INFINITE, VALUE_INFINITE
        best_pv = [moves[0]]
        for move in moves:
            pos.make(move)
            try:
                score, child_pv = self._negamax(pos, depth - 1, -beta, -alpha, 1)
            finally:
                pos.unmake()
            score = -score
            if score > alpha:
                alpha = score
                best_pv = [move] + child_pv
        return alpha, best_pv

    def _negamax(self, pos, depth, alpha, beta, ply):
        self.nodes += 1
        if self.nodes & 255 == 0:
            self._check()
        if ply and (pos.halfmove >= 100 or pos.is_repetition(2)):
            return 0, []
        if depth <= 0:
            return evaluate(pos), []
        moves = generate_moves(pos)
        if not moves:
            return (-VALUE_MATE + ply if pos.in_check() else 0), []
        best_pv = []
        for move in moves:
            pos.make(move)
            try:
                score, child_pv = self._negamax(pos, depth - 1, -beta, -alpha, ply + 1)
            finally:
                pos.unmake()
            score = -score
            if score > alpha:
                alpha = score
                best_pv = [move] + child_pv
                if alpha >= beta:
                    break
        return alpha, best_pv
