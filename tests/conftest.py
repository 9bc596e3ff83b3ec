"""Shared test helpers: where the test data lives, perft EPD parsing, python-chess oracles."""

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

sys.path.insert(0, str(REPO / "scripts"))
from oracle import oracle_board, oracle_divide, oracle_perft  # noqa: E402,F401  (re-exported to tests)
from perft import DATA_DIRS, find_data, parse_perft_suite  # noqa: E402


def refresh_methods(monkeypatch, cls):
    """Compile cls's plain-form methods again for the rest of a test, after it changed a
    module constant: the plain form (CPython's) holds the values it read at import
    (engine.jit); monkeypatch puts the originals back afterwards."""
    from engine.jit import refreshed_methods

    for name, method in refreshed_methods(cls).items():
        monkeypatch.setattr(cls, name, method)


def refresh_evaluation(monkeypatch):
    """Compile the evaluation's terms again for the rest of a test, after it changed a
    module constant (the plain form holds the values it read at import), and point
    evaluate() and terms_score() at them, with the network or without."""
    import engine.evaluate as ev
    from engine.jit import refreshed

    fresh = refreshed(ev._evaluate_terms)
    monkeypatch.setattr(ev, "_evaluate_terms", fresh)
    monkeypatch.setattr(ev, "_evaluate", ev._cache_miss_function(fresh))


def data_file(*parts):
    """Path of a data file in the repository's data/ (or ../shared/data); fails the test
    clearly when neither has it."""
    path = find_data(*parts)
    if path is None:
        pytest.fail("data file missing: %s (looked in %s)"
                    % ("/".join(parts), " and ".join(str(d) for d in DATA_DIRS)))
    return path


def read_perft_suite(name):
    """[(line_no, fen, {depth: nodes})] from a `FEN ;D1 n ;D2 n ...` file in data/perft."""
    return parse_perft_suite(data_file("perft", name))


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
