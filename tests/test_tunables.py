"""apply_overrides: the one parser behind BASILISK_SEARCH and BASILISK_EVAL."""

import os
import subprocess
import sys

import pytest

from engine.tunables import apply_overrides


def tunables():
    return {"USE_X": True, "DEPTH": 3, "BASE": 0.5, "PAIR": (30, 50), "lower": 1}


def test_each_type_is_parsed_like_its_default():
    ns = tunables()
    apply_overrides(ns, " USE_X=0, DEPTH=7,BASE=1.25 ,PAIR=-4:9,", "tunable")
    assert ns["USE_X"] is False and ns["DEPTH"] == 7 and ns["BASE"] == 1.25 and ns["PAIR"] == (-4, 9)
    apply_overrides(ns, "USE_X=1", "tunable")
    assert ns["USE_X"] is True
    apply_overrides(ns, "", "tunable")
    assert ns == dict(tunables(), PAIR=(-4, 9), DEPTH=7, BASE=1.25)


@pytest.mark.parametrize("text, message", [
    ("NO_SUCH=1", "unknown tunable 'NO_SUCH'"),
    ("lower=2", "unknown tunable 'lower'"),
    ("DEPTH=1.5", "bad value '1.5' for tunable DEPTH"),
    ("DEPTH", "bad value '' for tunable DEPTH"),
    ("USE_X=yes", "bad value 'yes' for tunable USE_X"),
    ("PAIR=30", "needs 2 values"),
    ("PAIR=1:2:3", "needs 2 values"),
])
def test_bad_items_raise_naming_the_item(text, message):
    ns = tunables()
    with pytest.raises(ValueError, match=message):
        apply_overrides(ns, text, "tunable")
    assert ns == tunables()


def run_with_env(name, value, code):
    env = dict(os.environ, **{name: value})
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=60)


def test_search_evaluate_and_timeman_read_their_environment_variables():
    done = run_with_env("BASILISK_SEARCH", "USE_LMR=0,LMR_BASE=1.5",
                        "import engine.search as s; print(s.USE_LMR, s.LMR_BASE)")
    assert done.returncode == 0 and done.stdout.split() == ["False", "1.5"], done.stderr
    done = run_with_env("BASILISK_EVAL", "BISHOP_PAIR=1:2",
                        "import engine.evaluate as e; print(e.BISHOP_PAIR)")
    assert done.returncode == 0 and done.stdout.strip() == "(1, 2)", done.stderr
    done = run_with_env("BASILISK_TIME", "SUDDEN_DEATH_MOVES=24,HARD_RATIO=3.5",
                        "import engine.timeman as t; print(t.SUDDEN_DEATH_MOVES, t.HARD_RATIO)")
    assert done.returncode == 0 and done.stdout.split() == ["24", "3.5"], done.stderr
    done = run_with_env("BASILISK_SEARCH", "USE_LMRR=0", "import engine.search")
    assert done.returncode != 0 and "unknown search tunable 'USE_LMRR'" in done.stderr


def test_jit_reads_its_environment_variable():
    done = run_with_env("BASILISK_JIT", "TRACE_EAGERNESS=50,EAGER_AFTER_NODES=1000",
                        "import engine.jit as j; print(j.TRACE_EAGERNESS, j.EAGER_AFTER_NODES)")
    assert done.returncode == 0 and done.stdout.split() == ["50", "1000"], done.stderr
    done = run_with_env("BASILISK_JIT", "TRACE_EAGER=5", "import engine.jit")
    assert done.returncode != 0 and "unknown JIT tunable 'TRACE_EAGER'" in done.stderr
