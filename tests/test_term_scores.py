"""scripts/term_scores.py: candidate evaluation terms scored on the evaluation's residuals.

The counts change sign with the colours, agree with the tuner where the evaluation has the
term, and give hand-counted values on small positions; the fit recovers a weight planted in
synthetic results; the script runs end to end on a small dataset.
"""

import random

import chess
import pytest

import term_scores
import tune
from engine.position import Position
from test_tune import playout_fens  # random game positions, captures preferred now and then

FENS = playout_fens(150, 81)


def test_counts_change_sign_with_the_colours():
    nonzero = set()
    for fen in FENS:
        counts = term_scores.term_counts(Position(fen))
        mirrored = term_scores.term_counts(Position(chess.Board(fen).mirror().fen()))
        assert mirrored == {name: -n for name, n in counts.items()}, fen
        nonzero.update(name for name, n in counts.items() if n)
    # every term counts somewhere in these games, so the symmetry is not of zeros
    assert nonzero >= set(term_scores.TERMS) - {"trapped rook", "rook on seventh"}


def test_minor_behind_pawn_counts_as_the_tuner_counts_it():
    checked = 0
    for fen in FENS:
        pos = Position(fen)
        sample = tune.extract(pos)
        if sample is None:
            continue
        coefs = dict(zip(sample.terms, sample.coefs))
        assert (term_scores.term_counts(pos)["minor behind pawn"]
                == coefs.get(tune.T_MINOR_BEHIND, 0)), fen
        checked += coefs.get(tune.T_MINOR_BEHIND, 0) != 0
    assert checked > 20


@pytest.mark.parametrize("fen, expected", [
    # the rook on h1 has one safe move (g1), an own pawn on its file, and its king on f1
    ("4k3/8/8/8/8/8/6PP/5K1R w - - 0 1", {"trapped rook": 1}),
    # the knight on d5, attacked by the rook, defended by nothing; white to move
    ("4k3/8/8/3n4/8/8/8/3RK3 w - - 0 1",
     {"hanging": 1, "hanging, side to move": 1, "hanging, other side": 0}),
    # the same with black to move
    ("4k3/8/8/3n4/8/8/8/3RK3 b - - 0 1",
     {"hanging": 1, "hanging, side to move": 0, "hanging, other side": 1}),
    # the white king attacks the undefended knight on d2
    ("4k3/8/8/8/8/8/3n4/4K3 w - - 0 1", {"threat by king": 1, "hanging": 1}),
    # white's rook on the 7th with the black king on the 8th (black's on its 1st rank)
    ("4k3/R7/8/8/8/8/8/4K2r w - - 0 1", {"rook on seventh": 1}),
    # a rook on the file of the enemy queen
    ("3qk3/8/8/8/8/8/8/3RK3 w - - 0 1", {"rook on queen file": 1}),
    # white pawns on a, c, d and h: three islands against black's one (f-g)
    ("4k3/5pp1/8/8/8/8/P1PP3P/4K3 w - - 0 1", {"pawn islands": 2}),
])
def test_hand_counted_positions(fen, expected):
    counts = term_scores.term_counts(Position(fen))
    for name, n in expected.items():
        assert counts[name] == n, name


def test_fit_recovers_a_planted_weight():
    rng = random.Random(5)
    k, mg, eg = 1.2, 20.0, -10.0
    rows = []
    for _ in range(4000):
        e = rng.uniform(-300, 300)
        n = rng.randint(-2, 2)
        share = rng.random()
        target = tune.expected_result(e + n * (mg * share + eg * (1 - share)), k)
        rows.append(term_scores.Row(target, e, 1.0, share, {"x": n}))
    fitted = term_scores.fit_term(rows, k, "x")
    assert fitted == pytest.approx((mg, eg), abs=1.0)
    assert term_scores.error(rows, k, "x", *fitted) < term_scores.error(rows, k) / 50
    rows_without = [term_scores.Row(r.target, r.eval, 1.0, r.mg_share, {"x": 0}) for r in rows]
    assert term_scores.fit_term(rows_without, k, "x") is None


def test_the_script_scores_every_term(tmp_path, capsys):
    rng = random.Random(3)
    data = tmp_path / "tiny.txt"
    data.write_text("".join("%s;%s\n" % (fen, rng.choice(["1", "0.5", "0"]))
                            for fen in FENS[:100]))
    assert term_scores.main(["--data", str(data)]) == 0
    out = capsys.readouterr().out
    assert "held out" in out
    for name in term_scores.TERMS:
        assert "\n%s " % name in out
