"""Shared test helpers: where the shared data lives, perft EPD parsing, python-chess oracles."""

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"

sys.path.insert(0, str(REPO / "scripts"))
from oracle import oracle_board, oracle_divide, oracle_perft  # noqa: E402,F401  (re-exported to tests)


def data_file(*parts):
    """Path of a shared data file; fails the test clearly when ../shared/data is missing."""
    path = DATA.joinpath(*parts)
    if not path.exists():
        pytest.fail("shared data file missing: %s (expected ../shared/data beside the repo)" % path)
    return path


def read_perft_suite(name):
    """[(line_no, fen, {depth: nodes})] from a `FEN ;D1 n ;D2 n ...` file."""
    out = []
    for no, line in enumerate(data_file("perft", name).read_text().splitlines(), 1):
        if not line.strip():
            continue
        fen, *counts = line.split(";")
        depths = {}
        for item in counts:
            d, n = item.split()
            depths[int(d[1:])] = int(n)
        out.append((no, fen.strip(), depths))
    return out


def divide_report(fen, depth, chess960):
    """Text naming the root moves whose counts differ from python-chess's (for failures)."""
    from engine.notation import move_to_uci
    from engine.perft import divide
    from engine.position import Position

    ours = {move_to_uci(m, chess960): n for m, n in divide(Position(fen), depth, bulk=True)}
    theirs = oracle_divide(fen, depth, chess960)
    lines = ["divide at depth %d for %s" % (depth, fen)]
    for uci in sorted(set(ours) | set(theirs)):
        if ours.get(uci) != theirs.get(uci):
            lines.append("  %s: basilisk %s, python-chess %s" % (uci, ours.get(uci), theirs.get(uci)))
    return "\n".join(lines)
