"""Shared test helpers: where the shared data lives, perft EPD parsing, python-chess oracles."""

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"


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


def oracle_board(fen, chess960=False):
    import chess
    return chess.Board(fen, chess960=chess960)


def oracle_perft(board, depth):
    if depth == 0:
        return 1
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in board.generate_legal_moves():
        board.push(move)
        total += oracle_perft(board, depth - 1)
        board.pop()
    return total


def divide_report(fen, depth, chess960):
    """Text naming the root moves whose counts differ from python-chess's (for failures)."""
    from engine.notation import move_to_uci
    from engine.perft import divide
    from engine.position import Position

    ours = {move_to_uci(m, chess960): n for m, n in divide(Position(fen), depth, bulk=True)}
    board = oracle_board(fen, chess960)
    theirs = {}
    for move in board.legal_moves:
        board.push(move)
        theirs[board.peek().uci()] = oracle_perft(board, depth - 1)
        board.pop()
    lines = ["divide at depth %d for %s" % (depth, fen)]
    for uci in sorted(set(ours) | set(theirs)):
        if ours.get(uci) != theirs.get(uci):
            lines.append("  %s: basilisk %s, python-chess %s" % (uci, ours.get(uci), theirs.get(uci)))
    return "\n".join(lines)
