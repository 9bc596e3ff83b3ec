"""engine.jit: the PyPy hint changes nothing a caller can see, and reaches PyPy's JIT."""

import os
import subprocess
import sys

import engine.jit as jit
from engine.evaluate import evaluate
from engine.position import Position

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_jit_hint_returns_the_function_itself():
    """not_inlined only advises PyPy: the decorated function is the same object and still
    works, and evaluate (whose uncached path carries it) still evaluates."""
    def plain(x):
        return x + 1

    assert jit.not_inlined(plain) is plain and plain(1) == 2
    assert isinstance(evaluate(Position()), int)


def test_jit_hint_marks_the_function_entry(monkeypatch):
    """Where pypyjit exists, the hint marks the function's code at its entry (offset 0)."""
    calls = []
    monkeypatch.setattr(jit, "_dont_trace_here", lambda *args: calls.append(args))

    def plain(x):
        return x + 1

    assert jit.not_inlined(plain) is plain
    assert calls == [(0, False, plain.__code__)]


def test_trace_eagerness_is_lowered_once_after_the_search_has_searched_enough(monkeypatch):
    """The search reports its nodes; past the countdown the eagerness is set, once."""
    from engine.search import run_bench
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    calls = []
    monkeypatch.setattr(jit, "_set_param", calls.append)
    monkeypatch.setattr(jit, "_countdown", [3000])
    nodes = run_bench(depth=6, positions=[fen])[0]
    assert nodes > 3000 + 2 * 256
    assert calls == ["trace_eagerness=%d" % jit.TRACE_EAGERNESS]
    assert jit._countdown[0] <= 0
    run_bench(depth=3, positions=[fen])
    assert len(calls) == 1


def test_nothing_is_counted_down_where_there_is_no_jit(monkeypatch):
    """Under CPython (no pypyjit) the countdown starts at 0 and stays there."""
    if jit._set_param is None:
        assert jit._countdown[0] == 0
    monkeypatch.setattr(jit, "_countdown", [0])
    jit.nodes_searched(10 ** 6)
    assert jit._countdown == [0]


# Imports the engine's jit module in a fresh interpreter with a stand-in pypyjit module in
# sys.modules (PyPy's own is built in, so one on the path would not replace it) and prints
# each set_param call on a line of its own.
_FAKE_JIT_IMPORT = """
import sys, types
calls = []
fake = types.ModuleType("pypyjit")
fake.set_param = calls.append
fake.dont_trace_here = lambda *args: None
sys.modules["pypyjit"] = fake
import engine.jit
print("\\n".join(calls))
"""


def _set_params_at_import(jit_overrides=""):
    """The set_param calls engine.jit makes at import, with BASILISK_JIT=jit_overrides."""
    env = dict(os.environ, BASILISK_JIT=jit_overrides)
    out = subprocess.run([sys.executable, "-c", _FAKE_JIT_IMPORT], cwd=ROOT, env=env,
                         capture_output=True, text=True, check=True).stdout
    return out.splitlines()


def test_recursion_is_not_unrolled_where_there_is_a_jit():
    """With pypyjit present, importing the engine sets max_unroll_recursion (-1 by default,
    BASILISK_JIT may set it back to PyPy's 7); nothing else is set at import."""
    assert jit.MAX_UNROLL_RECURSION == -1
    assert _set_params_at_import() == ["max_unroll_recursion=-1"]
    assert _set_params_at_import("MAX_UNROLL_RECURSION=7") == ["max_unroll_recursion=7"]
