"""Hints for PyPy's JIT, given from the code; under CPython they do nothing.

PyPy's JIT inlines the functions a hot loop calls into that loop's trace. A long, branchy
function inlined into many callers makes every one of their traces long, and each of its
branches becomes a bridge off each of them. ``not_inlined`` asks PyPy to compile such a
function as a trace of its own, which the callers' traces call.

Such a call is not free: the caller allocates the callee's frame, sized by its locals (about
2 KB for the evaluation), at every call.  So a cheap early exit (a cache probe) belongs in a
small function that may be inlined, in front of the marked one (engine.evaluate does this).
"""

try:
    from pypyjit import dont_trace_here as _dont_trace_here
except ImportError:         # CPython (or a PyPy without its JIT)
    _dont_trace_here = None


def not_inlined(function):
    """Decorator: under PyPy, trace ``function`` on its own instead of inside its callers."""
    if _dont_trace_here is not None:
        _dont_trace_here(0, False, function.__code__)
    return function
