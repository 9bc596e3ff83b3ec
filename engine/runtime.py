"""Interpreter settings for the engine's processes, made at their start.

CPython's cyclic garbage collector looks at the young container objects (tuples, lists)
every ``GC_THRESHOLD`` allocations of them (``tune_collector``).  The search makes several a
node, none of them in a cycle, so at CPython's default of 700 it spent about 0.85% of its
instructions collecting: as much as turning the collector off saves.

PyPy sizes its nursery (where every new object is born; a minor collection empties it) from
the cache size that /proc/cpuinfo reports, and virtual machines report it oddly: some a
cache of hundreds of megabytes (300 MB on some of this project's 2-core VMs, so a 150 MB
nursery, far outside the real caches, where each allocation touches a cache line that has
long left them), others only the L2 of a core (512 KB, so a 1 MB nursery, emptied four
times as often as a 4 MB one that the 32 MB L3 beside it would hold).  So the entry point
starts the same command again (the same process, by exec) with ``PYPY_GC_NURSERY`` set to
``NURSERY`` when PyPy chose a nursery above ``NURSERY_MAX_BYTES``, or one below ``NURSERY``
where the last-level cache that sysfs reports holds at least ``CACHE_PER_NURSERY`` times it.
A ``PYPY_GC_NURSERY`` the user set is left alone.  Under CPython, or where exec would start
a new process (Windows), nothing happens.
"""

import os
import sys

# Above this, the reported cache is no cache one core can use (desktop and server CPUs
# report their last-level cache, 8-64 MB, which gives PyPy a 4-32 MB nursery)
NURSERY_MAX_BYTES = 32 << 20
# PyPy's own choice when it finds no cache size. Against the 150 MB one, PyPy `bench` after
# six benches 1.28x (median 1.31x; scripts/bench_compare.py --b-env PYPY_GC_NURSERY=4MB);
# against the 1 MB one beside a 32 MB L3, 1.22x (median 1.25x; 2 MB 0.88x of 4 MB, 8 and 16
# MB the same as 4: docs/measurements.md, "Speed", session 61)
NURSERY = "4MB"
NURSERY_BYTES = 4 << 20
NURSERY_VARIABLE = "PYPY_GC_NURSERY"
# A smaller nursery is raised to NURSERY only where the last-level cache is at least this
# many times NURSERY (the nursery then takes at most a quarter of it)
CACHE_PER_NURSERY = 4
CACHE_DIRECTORY = "/sys/devices/system/cpu/cpu0/cache"
# Young-generation collections every this many container allocations (CPython's default 700):
# `run_bench(depth=5)` 0.85% fewer instructions, the same as with the collector off
GC_THRESHOLD = 10000


def tune_collector():
    """Collect young objects every GC_THRESHOLD allocations (CPython; PyPy has its own
    collector, with no such setting)."""
    if sys.implementation.name == "cpython":
        import gc
        gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])


def pypy_nursery_bytes():
    """The nursery size this PyPy process chose, or None (CPython, or PyPy hides it)."""
    if sys.implementation.name != "pypy":
        return None
    try:
        import gc
        return int(gc.get_stats()._s.nursery_size)
    except Exception:           # another PyPy version: leave its choice alone
        return None


def last_level_cache_bytes(directory=CACHE_DIRECTORY):
    """The size of the outermost data cache of the first CPU as sysfs gives it (Linux), or
    None where it does not."""
    best_level, best_size = 0, None
    try:
        names = os.listdir(directory)
    except OSError:
        return None
    for name in names:
        if not name.startswith("index"):
            continue
        try:
            with open(os.path.join(directory, name, "level")) as handle:
                level = int(handle.read())
            with open(os.path.join(directory, name, "type")) as handle:
                kind = handle.read().strip()
            with open(os.path.join(directory, name, "size")) as handle:
                text = handle.read().strip().upper()
            unit = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:])
            size = int(text[:-1]) * unit if unit else int(text)
        except (OSError, ValueError):
            continue
        if kind != "Instruction" and level > best_level:
            best_level, best_size = level, size
    return best_size


def restart_wanted(nursery, cache):
    """Should a PyPy that chose a nursery of ``nursery`` bytes, beside a last-level cache of
    ``cache`` bytes (None: unknown), run with NURSERY instead?"""
    if nursery > NURSERY_MAX_BYTES:
        return True
    return (nursery < NURSERY_BYTES and cache is not None
            and cache >= CACHE_PER_NURSERY * NURSERY_BYTES)


def needs_restart():
    """Would this process run better started again with another nursery?"""
    if os.name != "posix" or NURSERY_VARIABLE in os.environ:
        return False
    size = pypy_nursery_bytes()
    return size is not None and restart_wanted(size, last_level_cache_bytes())


def command_line():
    """The command that started this process, to start it again: ``python -m engine ...``
    or the ``basilisk`` script with its arguments (interpreter options are not kept)."""
    if os.path.basename(sys.argv[0]) == "__main__.py":
        return [sys.executable, "-m", "engine"] + sys.argv[1:]
    return [sys.executable] + sys.argv


def restart_if_needed(argv=None):
    """Exec ``argv`` (default: this command) with ``NURSERY`` when ``needs_restart()``;
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
