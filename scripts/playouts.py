"""Seeded random playouts with Basilisk's own move generator: positions for benchmarks
and tests that start from given FENs (scripts/bench_components.py,
tests/test_bitboard_form.py)."""

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.movegen import generate_moves  # noqa: E402
from engine.position import Position  # noqa: E402


def random_playouts(fens, per_fen, max_plies, seed):
    """per_fen FENs from each of fens, each reached by 0 to max_plies - 1 random moves
    (fewer where the game ends), in order; the same seed gives the same list."""
    rng = random.Random(seed)
    out = []
    for fen in fens:
        for _ in range(per_fen):
            pos = Position(fen)
            for _ in range(rng.randrange(max_plies)):
                moves = generate_moves(pos)
                if not moves:
                    break
                pos.make(rng.choice(moves))
            out.append(pos.fen())
    return out
