"""Hints for PyPy's JIT, given from the code; under CPython they do nothing.

PyPy's JIT inlines the functions a hot loop calls into that loop's trace. A long, branchy
function inlined into many callers makes every one of their traces long, and each of its
branches becomes a bridge off each of them. So at import the engine sets PyPy's
``max_unroll_recursion`` to ``MAX_UNROLL_RECURSION`` (below): at -1 no Python function is
inlined into another's trace, and each is compiled as a trace of its own that the callers'
traces call.  ``not_inlined`` asks the same for one function; it acts only where PyPy's
default is set back (``BASILISK_JIT=MAX_UNROLL_RECURSION=7``).

Such a call is not free: the caller allocates the callee's frame, sized by its locals (about
2 KB for the evaluation), at every call.  So a cheap early exit (a cache probe) belongs in a
small function of its own, in front of the large one (engine.evaluate does this).
"""

import os

from engine.tunables import apply_overrides

try:
    from pypyjit import dont_trace_here as _dont_trace_here, set_param as _set_param
except ImportError:         # CPython (or a PyPy without its JIT)
    _dont_trace_here = _set_param = None

# A guard that fails sends the search back to the interpreter until it has failed
# trace_eagerness times; only then is a bridge compiled for it.  TRACE_EAGERNESS takes
# effect once the process has searched EAGER_AFTER_NODES nodes (0: never, PyPy's default
# of 200 stays).  Off: 20 after 200,000 nodes gave a fresh process's first game 1.53x fewer
# nodes (docs/measurements.md, "Speed", sessions 45-46).
TRACE_EAGERNESS = 20
EAGER_AFTER_NODES = 0
# While tracing, PyPy inlines a called function into the trace unless it is already on the
# trace's stack this many times (default 7: a recursion unrolled seven deep).  At -1 each
# function is traced on its own, the usual advice for recursive code: warm `bench` 1.19x,
# the first `go movetime 1000` 1.54x against 7 (docs/measurements.md, "Speed").
MAX_UNROLL_RECURSION = -1
# BASILISK_JIT overrides the three above at import (``EAGER_AFTER_NODES=200000``,
# ``MAX_UNROLL_RECURSION=7`` for PyPy's default)
apply_overrides(globals(), os.environ.get("BASILISK_JIT", ""), "JIT tunable")
if _set_param is not None:
    _set_param("max_unroll_recursion=%d" % MAX_UNROLL_RECURSION)
# nodes until it takes effect, in a list (a module global rebound that often would undo
# PyPy's compiled code that reads it); 0: nothing left to do, as under CPython
_countdown = [EAGER_AFTER_NODES if _set_param is not None and TRACE_EAGERNESS > 0 else 0]


def nodes_searched(nodes):
    """The search reports its nodes as it goes (engine.search, every few hundred)."""
    left = _countdown[0]
    if left > 0:
        left -= nodes
        _countdown[0] = left
        if left <= 0:
            _set_param("trace_eagerness=%d" % TRACE_EAGERNESS)


def not_inlined(function):
    """Decorator: under PyPy, trace ``function`` on its own instead of inside its callers."""
    if _dont_trace_here is not None:
        _dont_trace_here(0, False, function.__code__)
    return function
