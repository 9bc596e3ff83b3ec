"""Interpreter settings that only a process start can give: applied by starting again.

PyPy sizes its nursery (where every new object is born; a minor collection empties it) as
half the cache size that /proc/cpuinfo reports. Some virtual machines report a cache of
hundreds of megabytes (300 MB on this project's 2-core VMs, so a 150 MB nursery). A nursery
that size lies far outside the real caches: each allocation touches a cache line that has
long left them, and PyPy's search allocates a frame at every call. So when PyPy chose a
nursery above ``NURSERY_MAX_BYTES``, the entry point starts the same command again (the same
process, by exec) with ``PYPY_GC_NURSERY`` set to ``NURSERY``. A ``PYPY_GC_NURSERY`` the
user set is left alone. Under CPython, or where exec would start a new process (Windows),
nothing happens.
"""

import os
import sys

# Above this, the reported cache is no cache one core can use (desktop and server CPUs
# report their last-level cache, 8-64 MB, which gives PyPy a 4-32 MB nursery)
NURSERY_MAX_BYTES = 32 << 20
# PyPy's own choice when it finds no cache size. Against the 150 MB one, PyPy `bench` after
# six benches 1.28x (median 1.31x; scripts/bench_compare.py --b-env PYPY_GC_NURSERY=4MB)
NURSERY = "4MB"
NURSERY_VARIABLE = "PYPY_GC_NURSERY"


def pypy_nursery_bytes():
    """The nursery size this PyPy process chose, or None (CPython, or PyPy hides it)."""
    if sys.implementation.name != "pypy":
        return None
    try:
        import gc
        return int(gc.get_stats()._s.nursery_size)
    except Exception:           # another PyPy version: leave its choice alone
        return None


def needs_restart():
    """Would this process run better started again with a smaller nursery?"""
    if os.name != "posix" or NURSERY_VARIABLE in os.environ:
        return False
    size = pypy_nursery_bytes()
    return size is not None and size > NURSERY_MAX_BYTES


def command_line():
    """The command that started this process, to start it again: ``python -m engine ...``
    or the ``basilisk`` script with its arguments (interpreter options are not kept)."""
    if os.path.basename(sys.argv[0]) == "__main__.py":
        return [sys.executable, "-m", "engine"] + sys.argv[1:]
    return [sys.executable] + sys.argv


def restart_if_needed(argv=None):
    """Exec ``argv`` (default: this command) with the small nursery when ``needs_restart()``;
    returns only when no restart was needed, or it failed (then the process goes on as it
    is). Call it before anything has been read from stdin or written to stdout."""
    if not needs_restart():
        return
    os.environ[NURSERY_VARIABLE] = NURSERY
    argv = command_line() if argv is None else argv
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(argv[0], argv)
    except OSError:
        del os.environ[NURSERY_VARIABLE]
