"""Perft: count the leaf nodes of the legal move tree, the move generator's proof.

``perft`` makes and unmakes every move down to and including the leaves (the figure the
speed benchmark measures); ``perft_bulk`` counts the legal moves at the last ply instead.
``divide`` gives the count below each root move (Stockfish's `go perft`), and can be stopped
within a fraction of a second: it asks between subtrees of STOP_GRAIN plies.
"""

from engine.movegen import generate_moves

# divide() asks stop() before each subtree at least this deep: 8,902 leaves from the start
# position (about 10 ms of full perft on CPython), 97,862 from Kiwipete (about 0.1 s)
STOP_GRAIN = 3


class _Stopped(Exception):
    pass


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

    ``stop()``, when given, is asked before each root move, and below it before each
    move leading to a subtree of STOP_GRAIN plies or more: once it is true, divide
    returns None (pos restored).  ``report(move, count)`` is called as each count
    becomes known.
    """
    count = perft_bulk if bulk else perft
    if stop is not None:
        fast = count

        def count(pos, depth):
            if depth <= STOP_GRAIN:
                return fast(pos, depth)
            nodes = 0
            for move in generate_moves(pos):
                if stop():
                    raise _Stopped
                pos.make(move)
                try:
                    nodes += count(pos, depth - 1)
                finally:
                    pos.unmake()
            return nodes
    out = []
    for move in generate_moves(pos):
        if stop is not None and stop():
            return None
        pos.make(move)
        try:
            nodes = count(pos, depth - 1)
        except _Stopped:
            return None
        finally:
            pos.unmake()
        out.append((move, nodes))
        if report is not None:
            report(move, nodes)
    return out
