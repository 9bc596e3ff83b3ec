"""Perft: count the leaf nodes of the legal move tree, the move generator's proof.

``perft`` makes and unmakes every move down to and including the leaves (the figure the
speed benchmark measures); ``perft_bulk`` counts the legal moves at the last ply instead.
``divide`` gives the count below each root move (Stockfish's `go perft`), and can be stopped
between root moves.
"""

from engine.movegen import generate_moves


def perft(pos, depth):
    """Leaf count at ``depth`` with make/unmake at every node, leaves included."""
    if depth <= 0:
        return 1
    moves = generate_moves(pos)
    make = pos.make
    unmake = pos.unmake
    if depth == 1:
        for move in moves:
            make(move)
            unmake()
        return len(moves)
    nodes = 0
    for move in moves:
        make(move)
        nodes += perft(pos, depth - 1)
        unmake()
    return nodes


def perft_bulk(pos, depth):
    """Leaf count, with the last ply counted from the move list (no make/unmake there)."""
    if depth <= 0:
        return 1
    moves = generate_moves(pos)
    if depth == 1:
        return len(moves)
    make = pos.make
    unmake = pos.unmake
    nodes = 0
    for move in moves:
        make(move)
        nodes += perft_bulk(pos, depth - 1)
        unmake()
    return nodes


def divide(pos, depth, bulk=False, stop=None, report=None):
    """[(move, count)] for each root move, in generation order.

    ``stop()``, when given, is asked before each root move: once it is true, divide
    returns None.  ``report(move, count)`` is called as each count becomes known.
    """
    count = perft_bulk if bulk else perft
    out = []
    for move in generate_moves(pos):
        if stop is not None and stop():
            return None
        pos.make(move)
        nodes = count(pos, depth - 1)
        pos.unmake()
        out.append((move, nodes))
        if report is not None:
            report(move, nodes)
    return out
