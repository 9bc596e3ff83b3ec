"""engine.jit: the PyPy hint changes nothing a caller can see, and reaches PyPy's JIT."""

import engine.jit as jit
from engine.evaluate import evaluate
from engine.position import Position


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
