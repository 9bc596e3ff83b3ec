"""Zobrist keys: Polyglot's published test vectors, python-chess's hash, and from-scratch
recomputation after make/unmake (incl. null moves).  ``pos.key`` is the Polyglot hash on
CPython and that hash cut to 63 bits on PyPy; ``polyglot_key`` is the full hash on both."""

import random
import sys

import chess
import chess.polyglot

from conftest import read_perft_suite
from engine.notation import parse_uci_move
from engine.position import Position
from engine.zobrist import KEY_MASK, polyglot_key

# Test vectors published with the Polyglot book format specification.
POLYGLOT_VECTORS = [
    ("", 0x463B96181691FC9C),
    ("e2e4", 0x823C9B50FD114196),
    ("e2e4 d7d5", 0x0756B94461C50FB0),
    ("e2e4 d7d5 e4e5", 0x662FAFB965DB29D4),
    ("e2e4 d7d5 e4e5 f7f5", 0x22A48B5A8E47FF78),
    ("e2e4 d7d5 e4e5 f7f5 e1e2", 0x652A607CA3F242C1),
    ("e2e4 d7d5 e4e5 f7f5 e1e2 e8f7", 0x00FDD303C946BDD9),
    ("a2a4 b7b5 h2h4 b5b4 c2c4", 0x3C8123EA7B067637),
    ("a2a4 b7b5 h2h4 b5b4 c2c4 b4c3 a1a3", 0x5C3F9B829B279560),
]


def play(pos, moves):
    for text in moves.split():
        move = parse_uci_move(pos, text)
        assert move is not None, text
        pos.make(move)
        assert pos.key == pos.compute_key(), text


def test_polyglot_vectors():
    for moves, key in POLYGLOT_VECTORS:
        pos = Position()
        play(pos, moves)
        assert polyglot_key(pos) == key, "%s: %016x != %016x" % (moves, polyglot_key(pos), key)
        assert pos.key == key & KEY_MASK


def test_suite_keys_equal_python_chess():
    for line, fen, _ in read_perft_suite("standard.epd"):
        pos = Position(fen)
        expected = chess.polyglot.zobrist_hash(chess.Board(fen))
        assert polyglot_key(pos) == expected, "line %d" % line
        assert pos.key == expected & KEY_MASK, "line %d" % line


def test_key_is_a_machine_word_on_pypy_and_polyglot_on_cpython():
    if sys.implementation.name == "pypy":
        assert KEY_MASK == (1 << 63) - 1
    else:
        assert KEY_MASK == (1 << 64) - 1
    pos = Position()
    assert pos.key == polyglot_key(pos) & KEY_MASK


def test_polyglot_key_along_random_games():
    """Thousands of positions: the from-scratch hash equals python-chess's, and the
    incremental key equals it (masked on PyPy), through make and unmake."""
    rng = random.Random(12)
    checked = 0
    high_bit_seen = False
    for _ in range(40):
        pos, board = Position(), chess.Board()
        for _ in range(60):
            legal = list(board.legal_moves)
            if not legal:
                break
            expected = chess.polyglot.zobrist_hash(board)
            assert polyglot_key(pos) == expected, board.fen()
            assert pos.key == expected & KEY_MASK, board.fen()
            assert pos.key < 1 << 63 or KEY_MASK >> 63
            high_bit_seen |= expected >> 63 == 1
            checked += 1
            move = rng.choice(legal)
            pos.make(parse_uci_move(pos, move.uci()))
            board.push(move)
    assert checked > 2000 and high_bit_seen


def test_null_move_key_and_restore():
    pos = Position("rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3")
    # en passant possible for white; the null move drops it
    before = (pos.key, pos.fen(), pos.ep)
    pos.make_null()
    assert pos.key == pos.compute_key() and pos.ep == 0 and pos.turn == 1
    pos.unmake_null()
    assert (pos.key, pos.fen(), pos.ep) == before
    pos.validate()


def test_transpositions_share_a_key():
    a, b = Position(), Position()
    play(a, "g1f3 g8f6 b1c3 b8c6")
    play(b, "b1c3 b8c6 g1f3 g8f6")
    assert a.key == b.key
    c = Position()
    play(c, "e2e4 e7e5 g1f3")
    d = Position()
    play(d, "g1f3 e7e5 e2e4")
    assert c.key == d.key


def test_repetition_is_not_seen_across_a_null_move():
    pos = Position("4k3/8/8/8/8/8/8/4K2R w - - 0 1")
    for text in ("h1h2", "e8d8", "h2h1", "d8e8"):
        pos.make(parse_uci_move(pos, text))
    assert pos.is_repetition(2)            # back where it started: a real repetition
    pos = Position("4k3/8/8/8/8/8/8/4K2R w - - 0 1")
    pos.make_null()
    pos.make(parse_uci_move(pos, "e8d8"))
    pos.make_null()
    pos.make(parse_uci_move(pos, "d8e8"))
    # same squares and side to move as the start, but only by passing twice: no repetition
    assert pos.key == pos.stack[0][5]
    assert not pos.is_repetition(2)
