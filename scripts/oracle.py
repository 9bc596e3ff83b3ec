"""python-chess as the reference: perft counts and divides that Basilisk is checked and timed against.

Shared by tests/conftest.py, scripts/perft.py and scripts/bench_perft.py so that all three
compare against the same code.  Imports python-chess lazily: the engine never needs it.
"""


def oracle_board(fen, chess960=False):
    """A python-chess board for fen."""
    import chess
    return chess.Board(fen, chess960=chess960)


def oracle_perft(board, depth):
    """Leaf count, counting the legal moves at the last ply (bulk)."""
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


def oracle_perft_full(board, depth):
    """Leaf count with push/pop down to every leaf (the fair rival of a full perft)."""
    if depth == 0:
        return 1
    total = 0
    for move in board.generate_legal_moves():
        board.push(move)
        total += oracle_perft_full(board, depth - 1)
        board.pop()
    return total


def oracle_divide(fen, depth, chess960=False):
    """{uci: leaf count} for every legal root move."""
    board = oracle_board(fen, chess960)
    out = {}
    for move in list(board.legal_moves):
        board.push(move)
        out[move.uci()] = oracle_perft(board, depth - 1)
        board.pop()
    return out
