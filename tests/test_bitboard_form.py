"""Bit 63 (h8) as the sign bit (engine.bitboard.SIGNED, PyPy's form) against the plain form.

CPython runs the plain form and PyPy the signed one; BASILISK_SIGNED_BITBOARDS=1 selects
the signed form here too, so these tests check on CPython what PyPy runs: the same moves
in the same order, the same checks, exchanges, evaluations and search trees.
"""

import json
import os
import random
import subprocess
import sys

import engine.bitboard as bitboard
from engine.bitboard import BB_SQUARES, BIT63, popcount, squares_of, to_bitboard, unsigned
from playouts import random_playouts

# Positions where h8 matters: pieces on it, pawns promoting onto it, checks from it.
H8_FENS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "4k2r/6P1/8/8/8/8/8/4K3 w k - 0 1",            # g7xh8 and g8 promotions, the h8 rook castles
    "4k2n/6PP/8/8/8/8/8/4K3 w - - 0 1",            # h7 blocked, g7xh8 promotes
    "7k/8/8/8/8/8/8/R3K2B w Q - 0 1",              # king on h8, rook and bishop towards it
    "7q/8/8/8/8/8/8/K5k1 w - - 0 1",                # a lone queen on h8 checks along the diagonal
    "7b/8/8/8/8/8/8/k5K1 b - - 0 1",                # a lone bishop on h8
    "6rk/5Npp/8/8/8/8/8/6K1 b - - 0 1",            # smothered-mate pattern around h8
    "1k5r/8/8/8/8/8/8/R3K2R b KQ - 0 1",
]

# 12 random playouts of up to 39 moves from each
PLAYOUTS = random_playouts(H8_FENS, 12, 40, seed=7)

# Runs under the interpreter with the form given by the environment; prints JSON.
CHILD = r"""
import json, sys
import engine.bitboard as bitboard
from engine.evaluate import evaluate
from engine.movegen import generate_moves
from engine.ordering import see_ge
from engine.perft import perft
from engine.position import Position
from engine.search import run_bench

positions = json.loads(sys.argv[1])
out = {"signed": bitboard.SIGNED, "bench": run_bench(depth=4)[0], "positions": []}
for fen in positions:
    pos = Position(fen)
    moves = generate_moves(pos)
    checks, exchanges = [], []
    for m in moves:
        exchanges.append(see_ge(pos, m, 0))
        pos.make(m)
        checks.append(pos.in_check())
        pos.unmake()
    out["positions"].append({"fen": fen, "moves": moves, "captures": generate_moves(pos, False),
                             "checks": checks, "see": exchanges,
                             "eval": evaluate(pos) if not pos.in_check() else None,
                             "perft2": perft(pos, 2) if moves else 0})
print(json.dumps(out))
"""


def _run_child(signed):
    env = dict(os.environ, BASILISK_SIGNED_BITBOARDS="1" if signed else "0")
    proc = subprocess.run([sys.executable, "-c", CHILD, json.dumps(PLAYOUTS)], env=env,
                          capture_output=True, text=True, check=True,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return json.loads(proc.stdout)


def test_both_forms_give_the_same_moves_checks_exchanges_evaluations_and_trees():
    plain = _run_child(False)
    signed = _run_child(True)
    if sys.implementation.name != "pypy":       # PyPy is signed whatever the setting
        assert plain["signed"] is False
    assert signed["signed"] is True
    assert plain["bench"] == signed["bench"] > 0
    assert len(plain["positions"]) == len(signed["positions"]) == 12 * len(H8_FENS)
    h8_taken = 0
    for a, b in zip(plain["positions"], signed["positions"]):
        assert a == b, a["fen"]
        h8_taken += a["fen"].split("/")[0][-1].isalpha()     # the last square of rank 8
    assert h8_taken >= 20           # the positions do put pieces on h8


def test_this_form_round_trips_and_counts():
    rng = random.Random(3)
    values = [0, 1 << 63, (1 << 64) - 1, (1 << 63) - 1] + [rng.getrandbits(64) for _ in range(2000)]
    for plain in values:
        bb = to_bitboard(plain)
        assert unsigned(bb) == plain
        assert popcount(bb) == bin(plain).count("1")
        assert squares_of(bb) == [sq for sq in range(64) if plain >> sq & 1]
        assert all(bool(bb >> sq & 1) == bool(plain >> sq & 1) for sq in range(64))
        if bitboard.SIGNED:
            assert -(1 << 63) <= bb < 1 << 63       # a machine word on PyPy
        else:
            assert bb == plain
    assert BB_SQUARES[63] == BIT63 == to_bitboard(1 << 63)
    assert BB_SQUARES[63].bit_length() - 1 == 63     # a one-square board still names its square


def test_tables_are_in_this_form():
    tables = [bitboard.BB_SQUARES, bitboard.KNIGHT_ATTACKS, bitboard.KING_ATTACKS,
              bitboard.ROOK_RAYS, bitboard.BISHOP_RAYS, *bitboard.PAWN_ATTACKS, *bitboard.LINE]
    tables += [list(t.values()) for t in bitboard.ROOK_TABLE + bitboard.BISHOP_TABLE]
    for table in tables:
        for bb in table:
            assert bb == to_bitboard(unsigned(bb))
    # h8 is in some of them, so the form shows
    assert any(bb < 0 for bb in bitboard.KNIGHT_ATTACKS) == bitboard.SIGNED


# Runs under PyPy: every machine-word int the engine keeps (module constants, tables, a
# position's key and boards, cached pawn structures) must be an unboxed one.  PyPy keeps
# an int made by big-int arithmetic (x & (2**64 - 1), x - 2**64) as a big int object even
# when its value is small; such a constant made every operation it met a big-int call
# (engine.bitboard.machine_int).  Prints the names of those found, as JSON.
BOXED_CHILD = r"""
import json, sys, __pypy__
import engine.bitboard, engine.evaluate, engine.movegen, engine.ordering, engine.position
import engine.search, engine.zobrist, engine.endgame, engine.psqt, engine.tt
from engine.evaluate import evaluate, _pawn_cache
from engine.movegen import generate_moves
from engine.position import Position

def boxed(x):
    return (type(x) is int and -2**63 <= x < 2**63
            and not __pypy__.internal_repr(x).startswith("<W_IntObject"))

found = []
def walk(name, value, depth=0):
    if boxed(value):
        found.append(name)
    elif depth < 3 and isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            walk("%s[%d]" % (name, i), item, depth + 1)
    elif depth < 3 and isinstance(value, dict):
        for key, item in value.items():
            walk("%s key %r" % (name, key), key, depth + 1)
            walk("%s[%r]" % (name, key), item, depth + 1)

for module in (engine.bitboard, engine.evaluate, engine.movegen, engine.ordering,
               engine.position, engine.search, engine.zobrist, engine.endgame, engine.psqt,
               engine.tt):
    for name, value in vars(module).items():
        if name not in ("BB_ALL", "KEY_MASK", "_FULL", "_NOT_A"):   # > 2**63 or import-only
            walk(module.__name__ + "." + name, value)
checked = 0
for fen in json.loads(sys.argv[1]):
    pos = Position(fen)
    for move in generate_moves(pos):
        pos.make(move)
        walk("key after %s" % move, pos.key)
        walk("bbs", pos.bbs); walk("occ", pos.occ); walk("psq", pos.psq)
        if not pos.in_check():
            evaluate(pos)
        pos.unmake()
        checked += 1
walk("pawn cache", list(_pawn_cache.values()))
print(json.dumps({"found": found[:20], "count": len(found), "checked": checked}))
"""


def test_pypy_keeps_the_engines_ints_unboxed():
    if sys.implementation.name == "pypy":
        python = sys.executable
    else:
        import shutil
        python = shutil.which("pypy3")
        if python is None:
            import pytest
            pytest.skip("PyPy only: no pypy3 here (make test-pypy runs it)")
    proc = subprocess.run([python, "-c", BOXED_CHILD, json.dumps(PLAYOUTS[::6])],
                          capture_output=True, text=True, check=True,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    result = json.loads(proc.stdout)
    assert result["checked"] > 300
    assert result["count"] == 0, result["found"]
