"""Static exchange evaluation reads its piece values from ordering.SEE_VALUE alone."""

import random

import engine.ordering as ordering
from engine.movegen import generate_moves
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
    after = [[ordering.see_ge(pos, m, 2 * t) for t in thresholds] for pos, m in cases]
    assert len(cases) > 300 and after == before
