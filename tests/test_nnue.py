"""The evaluation network (engine/nnue.py) against a plain reference: the packed lanes kept
by make/unmake equal the sum of the pieces' weight rows, the clipped dot product over them
equals one computed lane by lane, and the evaluation is symmetric under a colour flip.

The network is read at import (the one shipped in engine/, or BASILISK_NNUE's), so these
run the engine in a subprocess: on the shipped network, and on random networks written
here whose weights are large enough that lanes clip at both ends.  A file that does not
load leaves the engine on its terms, and says so."""

import json
import os
import random
import struct
import subprocess
import sys
from array import array
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
HIDDEN = 8
# the C dot product (audioop, CPython up to 3.12) is what CPython evaluates with
CPYTHON_DOT = sys.implementation.name == "cpython" and sys.version_info < (3, 13)


def write_network(path, seed, hidden=HIDDEN, residual=False):
    rng = random.Random(seed)
    w1 = [rng.randint(-500, 500) for _ in range(768 * hidden)]
    b1 = [rng.randint(-300, 400) for _ in range(hidden)]
    w2 = [rng.randint(-127, 127) for _ in range(2 * hidden)]
    head = b"test network"
    data = b"BNN1" + struct.pack("<HHiH", hidden, len(head), rng.randint(-5000, 5000), int(residual)) + head
    values = array("h", w1 + b1 + w2)
    if sys.byteorder == "big":
        values.byteswap()
    path.write_bytes(data + values.tobytes())


CHECK = r'''
import json, random, sys
import chess
from engine import nnue
from engine import evaluate as ev
from engine.evaluate import evaluate, clear_cache, game_phase
from engine.movegen import generate_moves
from engine.position import Position

def reference(pos):
    """The network's score from its definition: lane by lane, no packing."""
    acc = [list(nnue._B1), list(nnue._B1)]
    for sq, piece in enumerate(pos.board):
        if piece:
            colour, kind = piece >> 3, (piece & 7) - 1
            rows = (nnue._W1[(colour * 6 + kind) * 64 + sq],
                    nnue._W1[((1 - colour) * 6 + kind) * 64 + (sq ^ 56)])
            for view in (0, 1):
                for i in range(nnue.HIDDEN):
                    acc[view][i] += rows[view][i]
    us, them = acc[pos.turn], acc[1 - pos.turn]
    units = [min(max(v, 0), 255) for v in us + them]
    total = sum(u * w for u, w in zip(units, nnue._W2)) + nnue._B2
    return total * 400 // (255 * 64) if total >= 0 else -(-total * 400 // (255 * 64))

rng = random.Random(int(sys.argv[1]))
checked = clipped = 0
for game in range(12):
    pos = Position()
    for ply in range(160):
        moves = generate_moves(pos)
        if not moves:
            break
        pos.make(rng.choice(moves))
        assert pos.psq == pos.compute_psq()
        lanes, packed = nnue.split(pos.psq)
        assert 0 <= lanes < 1 << nnue.SHIFT
        assert nnue.score(lanes, pos.turn) == reference(pos), pos.fen()
        mirror = Position(chess.Board(pos.fen()).mirror().fen())
        assert nnue.score(nnue.split(mirror.psq)[0], mirror.turn) == reference(pos)
        phase = game_phase(pos)
        if phase > ev.ENDGAME_MAX_PHASE and not pos.in_check():
            clear_cache()
            total = evaluate(pos)
            terms = ev.terms_score(pos)
            assert evaluate(pos) == total          # terms_score left the cache alone
            assert total == (terms + reference(pos) if nnue.RESIDUAL else reference(pos)), pos.fen()
            assert evaluate(mirror) == total
            sign = 1 if pos.turn == 0 else -1
            assert ev.evaluate_terms(pos)["total"] == sign * total, pos.fen()   # the `eval` text
        checked += 1
    while pos.stack:
        pos.unmake()
    assert pos.psq == Position().psq
# endings of phase 1-2, where the network answers only without an endgame verdict: a
# mating drive (KRK), exact results (KBNK's table, KNNK, a lone bishop), none (a bishop and
# a pawn, a knight against a pawn)
from engine.endgame import endgame_verdict
for fen in ("8/8/8/4k3/8/8/8/R3K3 w - - 0 1", "8/8/8/3k4/8/8/8/2BNK3 b - - 0 1",
            "8/8/8/4k3/8/8/8/2NNK3 w - - 0 1", "8/8/3k4/8/8/8/8/4KB2 w - - 0 1",
            "8/8/4k3/8/3P4/8/1B6/4K3 w - - 0 1", "8/5k2/8/8/2n5/8/3P4/4K3 b - - 0 1"):
    pos = Position(fen)
    phase = game_phase(pos)
    assert 0 < phase <= ev.ENDGAME_MAX_PHASE, fen
    clear_cache()
    total = evaluate(pos)
    sign = 1 if pos.turn == 0 else -1
    assert ev.evaluate_terms(pos)["total"] == sign * total, fen
    if nnue.RESIDUAL:
        answers = ev._network_answers(phase, endgame_verdict(pos))
        assert total == ev.terms_score(pos) + (reference(pos) if answers else 0), fen
    checked += 1
print(json.dumps({"checked": checked, "enabled": nnue.ENABLED, "residual": nnue.RESIDUAL,
                  "fast_dot": nnue.FAST_DOT}))
'''


def run_check(net, seed):
    """CHECK with the network at path net (None: the shipped one)."""
    env = {k: v for k, v in os.environ.items() if k != "BASILISK_NNUE"}
    if net is not None:
        env["BASILISK_NNUE"] = str(net)
    out = subprocess.run([sys.executable, "-c", CHECK, str(seed)], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout)


@pytest.mark.parametrize("seed,residual", [(1, False), (2, False), (3, True)])
def test_packed_lanes_and_score_match_the_reference(tmp_path, seed, residual):
    """Also: the evaluation is the network's score (a residual network's: the terms' plus
    the network's) wherever a piece other than a pawn or king stands, the same for the
    colour-flipped position."""
    net = tmp_path / "net.bin"
    write_network(net, seed, residual=residual)
    result = run_check(net, seed)
    assert result["enabled"] is True
    assert result["residual"] is residual
    assert result["checked"] > 500
    assert result["fast_dot"] is CPYTHON_DOT     # so the checks above ran the C dot product


def test_the_shipped_network_is_on_by_default_and_matches_the_reference():
    """engine/'s network (session 100's r6, docs/measurements.md), loaded with BASILISK_NNUE
    unset: real weights keep every lane within int16 and agree with the reference too."""
    result = run_check(None, 4)
    assert result["enabled"] is True
    assert result["residual"] is True
    assert result["checked"] > 500
    assert result["fast_dot"] is CPYTHON_DOT


def test_the_c_dot_product_is_exact_at_the_extremes(monkeypatch):
    """audioop.findfactor's dot product, a float ratio scaled back, equals the integer one
    with every output weight at the int16 limits and the units anywhere in [0, QA]."""
    from engine import nnue
    if nnue.findfactor is None:
        assert not nnue.FAST_DOT
        return
    rng = random.Random(5)
    lanes_count = 64                      # 32 hidden, the shipped shape
    monkeypatch.setattr(nnue, "SHIFT", 16 * lanes_count, raising=False)
    for trial in range(300):
        if trial < 3:
            weights = [(32767, -32767, -32768)[trial]] * lanes_count
        else:
            weights = [rng.choice((-32768, 32767, rng.randint(-32768, 32767)))
                       for _ in range(lanes_count)]
        black = weights[lanes_count // 2:] + weights[:lanes_count // 2]
        monkeypatch.setattr(nnue, "_OUT_WHITE", tuple(weights), raising=False)
        monkeypatch.setattr(nnue, "_OUT_BLACK", tuple(black), raising=False)
        monkeypatch.setattr(nnue, "_OUT_WHITE_INT16", array("h", weights).tobytes(), raising=False)
        monkeypatch.setattr(nnue, "_OUT_BLACK_INT16", array("h", black).tobytes(), raising=False)
        monkeypatch.setattr(nnue, "_NORM", sum(w * w for w in weights), raising=False)
        for units in ([nnue.QA] * lanes_count, [0] * (lanes_count - 1) + [1],
                      [rng.choice((0, nnue.QA, rng.randint(0, nnue.QA))) for _ in range(lanes_count)]):
            lanes = sum(u << (16 * i) for i, u in enumerate(units))
            for turn in (0, 1):
                exact = sum(u * w for u, w in zip(units, black if turn else weights))
                assert nnue._dot_by_map(lanes, turn) == exact
                assert nnue._dot_by_findfactor(lanes, turn) == exact, (trial, units, turn)


def test_engine_searches_with_a_network(tmp_path):
    net = tmp_path / "net.bin"
    write_network(net, 3)
    env = dict(os.environ, BASILISK_NNUE=str(net))
    commands = "uci\nposition startpos moves e2e4 e7e5\ngo depth 4\nisready\n"
    proc = subprocess.Popen([sys.executable, "-m", "engine"], cwd=REPO, env=env, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.communicate(commands, timeout=120)
    assert "readyok" in out and "bestmove" in out, err[-2000:]
    assert "Traceback" not in out + err


OFF_CHECK = r"""
import json, random, sys
from engine import nnue
from engine.evaluate import evaluate, evaluate_terms, terms_score
from engine.movegen import generate_moves
from engine.position import Position
rng = random.Random(5)
same = 0
for game in range(6):
    pos = Position()
    for ply in range(80):
        moves = generate_moves(pos)
        if not moves:
            break
        pos.make(rng.choice(moves))
        assert "network" not in evaluate_terms(pos)
        same += evaluate(pos) == terms_score(pos)
print(json.dumps({"enabled": nnue.ENABLED, "problem": nnue.PROBLEM, "same": same}))
"""


def engine_env(setting):
    return dict(os.environ, BASILISK_NNUE=setting)


@pytest.mark.parametrize("setting", ["off", "OFF", "0", ""])
def test_the_network_can_be_switched_off(setting):
    """BASILISK_NNUE=off (or 0, or empty): the evaluation is the terms' alone."""
    out = subprocess.run([sys.executable, "-c", OFF_CHECK], cwd=REPO, env=engine_env(setting),
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout)
    assert result["enabled"] is False and result["problem"] is None
    assert result["same"] > 300


@pytest.mark.parametrize("content", [b"not a network at all", b"BNN1\x08\x00", b"BNN1" + bytes(20),
                                     None])
def test_a_file_that_does_not_load_leaves_the_terms_and_says_why(tmp_path, content):
    """Not a network, cut short, or missing: the engine plays on its terms and reports the
    file's problem as a UCI error, once, never a traceback."""
    bad = tmp_path / "bad.bin"
    if content is not None:
        bad.write_bytes(content)
    out = subprocess.run([sys.executable, "-c", OFF_CHECK], cwd=REPO, env=engine_env(str(bad)),
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout)
    assert result["enabled"] is False and str(bad) in result["problem"]
    commands = "uci\nisready\nposition startpos moves e2e4\ngo depth 3\nisready\nquit\n"
    proc = subprocess.run([sys.executable, "-m", "engine"], cwd=REPO, env=engine_env(str(bad)),
                          input=commands, capture_output=True, text=True, timeout=120)
    lines = proc.stdout.splitlines()
    errors = [line for line in lines if line.startswith("info string error: network ")]
    assert len(errors) == 1 and str(bad) in errors[0], proc.stdout
    assert any(line.startswith("bestmove ") for line in lines)
    assert lines.count("readyok") == 2
    assert "Traceback" not in proc.stdout + proc.stderr
    bench = subprocess.run([sys.executable, "-m", "engine", "bench", "1"], cwd=REPO,
                           env=engine_env(str(bad)), capture_output=True, text=True, timeout=120)
    assert bench.returncode == 0 and "Nodes searched" in bench.stdout
    assert "error: network %s not loaded" % bad in bench.stderr
