"""Perft suites from data/perft against their published counts (and python-chess
where a depth has no published count).  Deep runs are marked slow (`make test-slow`)."""

import random

import pytest

from conftest import divide_report, oracle_board, oracle_perft, read_perft_suite
from engine.perft import perft, perft_bulk
from engine.position import Position

STANDARD = read_perft_suite("standard.epd")
CHESS960 = read_perft_suite("chess960.epd")


def check(fen, depth, expected, chess960, bulk=False):
    count = (perft_bulk if bulk else perft)(Position(fen), depth)
    assert count == expected, "perft(%d) = %d, expected %d\n%s" % (
        depth, count, expected, divide_report(fen, depth, chess960))


@pytest.mark.parametrize("line,fen,depths", STANDARD, ids=["std%d" % e[0] for e in STANDARD])
def test_standard_to_depth_3(line, fen, depths):
    """Every position to D3 with make/unmake at every node (python-chess supplies missing counts)."""
    for depth in (1, 2, 3):
        expected = depths.get(depth)
        if expected is None:
            expected = oracle_perft(oracle_board(fen), depth)
        check(fen, depth, expected, chess960=False)


def test_chess960_to_depth_2():
    for line, fen, depths in CHESS960:
        for depth in (1, 2):
            check(fen, depth, depths[depth], chess960=True)


def test_chess960_sample_to_depth_3():
    sample = random.Random(960).sample(CHESS960, 100)
    for line, fen, depths in sample:
        check(fen, 3, depths[3], chess960=True, bulk=True)


@pytest.mark.slow
@pytest.mark.parametrize("line,fen,depths", STANDARD, ids=["std%d" % e[0] for e in STANDARD])
def test_standard_deep(line, fen, depths):
    """D4 and D5 everywhere, D6 where it is under 20M nodes (bulk counting at the last ply)."""
    for depth, expected in sorted(depths.items()):
        if depth >= 4 and (depth <= 5 or expected <= 20_000_000):
            check(fen, depth, expected, chess960=False, bulk=True)


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(8))
def test_chess960_all_to_depth_4(chunk):
    for line, fen, depths in CHESS960[chunk::8]:
        check(fen, 4, depths[4], chess960=True, bulk=True)
