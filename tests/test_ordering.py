"""Static exchange evaluation reads its piece values from ordering.SEE_VALUE alone."""

import random

import engine.ordering as ordering
from engine.jit import refreshed
from engine.movegen import generate_moves
from engine.notation import parse_uci_move
from engine.position import Position
from engine.search import BENCH_POSITIONS
from engine.types import MOVE_CAPTURE


def captures_from_playouts(seed=5, plies=12):
    rng = random.Random(seed)
    out = []
    for fen in BENCH_POSITIONS:
        pos = Position(fen)
        for _ in range(plies):
            moves = generate_moves(pos)
            if not moves:
                break
            out += [(pos.copy(), m) for m in moves if m & MOVE_CAPTURE]
            pos.make(rng.choice(moves))
    return out


def test_see_ge_scales_with_the_see_value_table(monkeypatch):
    """Doubling every value doubles every exchange: no piece value is written anywhere else."""
    cases = captures_from_playouts()
    thresholds = range(-1200, 1201, 20)
    before = [[ordering.see_ge(pos, m, t) for t in thresholds] for pos, m in cases]
    assert any(any(row) and not all(row) for row in before)     # some exchanges are close
    monkeypatch.setattr(ordering, "SEE_VALUE", tuple(2 * v for v in ordering.SEE_VALUE))
    # the plain form (CPython's) holds the constants it read at import: compile it again
    monkeypatch.setattr(ordering, "see_ge", refreshed(ordering.see_ge))
    after = [[ordering.see_ge(pos, m, 2 * t) for t in thresholds] for pos, m in cases]
    assert len(cases) > 300 and after == before


def _capture_index(pos, m):
    to = m >> ordering.TO_SHIFT & ordering.SQ_MASK
    return (pos.board[m & ordering.SQ_MASK] << 6 | to) << 3 | (pos.board[to] & 7 or ordering.PAWN)


def test_capture_history_orders_captures_of_equal_victims():
    """Two safe captures of a rook: their order follows the capture history, and the
    capture of the queen stays ahead of both."""
    # Nb5xd6 and Bh2xd6 take the rook; Nb5xd4 takes the queen
    pos = Position("3k4/8/3r4/1N6/3q4/8/7B/4K3 w - - 0 1")
    moves = generate_moves(pos)
    by_name = {(m & 63, m >> 6 & 63): m for m in moves}
    knight_takes = by_name[(33, 43)]
    bishop_takes = by_name[(15, 43)]
    orderer = ordering.MoveOrderer()
    base = orderer.score(pos, moves, 0, 0)
    s = dict(zip(moves, base))
    queen_take = [m for m in moves
                  if m & MOVE_CAPTURE and pos.board[m >> 6 & 63] & 7 == ordering.QUEEN]
    assert len(queen_take) == 1 and s[queen_take[0]] > max(s[knight_takes], s[bishop_takes])
    for first, second in ((knight_takes, bishop_takes), (bishop_takes, knight_takes)):
        orderer = ordering.MoveOrderer()
        orderer.update_captures(pos, first, 6, [second, first])
        scores = dict(zip(moves, orderer.score(pos, moves, 0, 0)))
        assert scores[queen_take[0]] > scores[first] > scores[second] > ordering.KILLER_1
        assert orderer.capture_history[_capture_index(pos, first)] > 0
        assert orderer.capture_history[_capture_index(pos, second)] < 0


def test_a_quiet_cutoff_punishes_the_captures_tried_before_it():
    pos = Position("3k4/8/3r4/1N6/8/8/7B/4K3 w - - 0 1")
    moves = generate_moves(pos)
    capture = next(m for m in moves if m & MOVE_CAPTURE)
    quiet = next(m for m in moves if not m & MOVE_CAPTURE)
    orderer = ordering.MoveOrderer()
    orderer.update(pos, quiet, 5, 1, [quiet], 0, [capture])
    assert orderer.capture_history[_capture_index(pos, capture)] < 0
    assert orderer.killers[1][0] == quiet


def test_the_search_feeds_the_capture_history():
    from engine.search import run_bench
    import engine.search as search
    seen = []
    original = search.Searcher.search

    def spy(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        seen.append(sum(1 for h in self.orderer.capture_history if h))
        return result

    search.Searcher.search = spy
    try:
        run_bench(depth=5, positions=BENCH_POSITIONS[1:2])
    finally:
        search.Searcher.search = original
    assert seen and seen[0] > 10


def test_pawn_history_is_kept_per_pawn_structure():
    """A quiet cutoff rewards its move in the pawn history of the structure it was found
    in (and punishes the quiets tried before it there): the same move with the same
    pieces but another pawn structure keeps only the plain history; a new game forgets it."""
    here = Position("4k3/pp6/8/8/8/8/PP6/R3K3 w - - 0 1")
    other = Position("4k3/1p6/p7/8/8/8/PP6/R3K3 w - - 0 1")       # a7-a6: another structure
    assert ordering.pawn_bucket(here) != ordering.pawn_bucket(other)
    moves = generate_moves(here)
    by_uci = {(m & 63, m >> 6 & 63): m for m in moves}
    best, tried = by_uci[(0, 3)], by_uci[(0, 2)]          # Ra1-d1 cut after Ra1-c1
    orderer = ordering.MoveOrderer()
    orderer.update(here, best, 6, 1, [tried, best], 0, [])
    here_scores = dict(zip(moves, orderer.score(here, moves, 2, 0)))
    other_scores = dict(zip(moves, orderer.score(other, generate_moves(other), 2, 0)))
    index = here.board[0] << 6 | 3                          # (rook, d1)
    plain = orderer.history[index]
    assert plain > 0
    assert here_scores[best] == plain + orderer.pawn_history[ordering.pawn_bucket(here) | index]
    assert here_scores[best] > other_scores[best] == plain
    assert here_scores[tried] < other_scores[tried] < 0
    orderer.new_search()                                    # a new search keeps it ...
    assert any(orderer.pawn_history)
    orderer.clear()                                         # ... a new game does not
    assert not any(orderer.pawn_history)


def test_reward_prior_raises_the_movers_history_with_gravity():
    """The opponent's quiet move that left us failing low is rewarded by (its piece, to):
    the same bonus and bound as a cutoff's update, nothing else touched."""
    pos = Position()
    pos.make(parse_uci_move(pos, "e2e4"))
    prior = pos.stack[-1][0]
    orderer = ordering.MoveOrderer()
    i = pos.board[28] << 6 | 28                      # the white pawn now on e4
    orderer.reward_prior(pos, prior, 5)
    assert orderer.history[i] == ordering.history_bonus(5) == 100
    assert sum(1 for h in orderer.history if h) == 1
    for _ in range(2000):
        orderer.reward_prior(pos, prior, 30)
    assert ordering.HISTORY_MAX * 0.95 < orderer.history[i] <= ordering.HISTORY_MAX
