"""engine.runtime: PyPy started again with a 4 MB nursery when it chose a huge one, or a
small one beside a large last-level cache."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine import runtime

REPO = Path(__file__).resolve().parents[1]
NURSERY_PROBE = "from engine.runtime import pypy_nursery_bytes; print(pypy_nursery_bytes())"


def _environment(pid):
    with open("/proc/%d/environ" % pid, "rb") as handle:
        pairs = handle.read().split(b"\0")
    return dict(pair.decode().split("=", 1) for pair in pairs if b"=" in pair)


def _without_nursery_setting():
    env = dict(os.environ)
    env.pop(runtime.NURSERY_VARIABLE, None)
    return env


def test_the_command_line_to_start_again(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["/x/engine/__main__.py", "bench", "3"])
    assert runtime.command_line() == [sys.executable, "-m", "engine", "bench", "3"]
    monkeypatch.setattr(sys, "argv", ["/x/bin/basilisk", "perft", "--depth", "2"])
    assert runtime.command_line() == [sys.executable, "/x/bin/basilisk", "perft", "--depth", "2"]


def test_a_nursery_the_user_set_is_kept(monkeypatch):
    monkeypatch.setenv(runtime.NURSERY_VARIABLE, "400MB")
    assert not runtime.needs_restart()


def test_only_a_nursery_above_the_bound_restarts(monkeypatch):
    monkeypatch.delenv(runtime.NURSERY_VARIABLE, raising=False)
    monkeypatch.setattr(runtime, "last_level_cache_bytes", lambda: None)
    monkeypatch.setattr(runtime, "pypy_nursery_bytes", lambda: runtime.NURSERY_MAX_BYTES + 1)
    assert runtime.needs_restart() == (os.name == "posix")
    monkeypatch.setattr(runtime, "pypy_nursery_bytes", lambda: runtime.NURSERY_MAX_BYTES)
    assert not runtime.needs_restart()
    monkeypatch.setattr(runtime, "pypy_nursery_bytes", lambda: 1 << 20)    # cache unknown
    assert not runtime.needs_restart()
    monkeypatch.setattr(runtime, "pypy_nursery_bytes", lambda: None)      # CPython
    assert not runtime.needs_restart()


def test_a_small_nursery_is_raised_only_beside_a_large_cache(monkeypatch):
    four, mb = runtime.NURSERY_BYTES, 1 << 20
    assert runtime.NURSERY == "%dMB" % (four // mb)
    assert runtime.restart_wanted(mb, 32 * mb)          # 512 KB reported, a 32 MB L3 beside
    assert runtime.restart_wanted(mb, runtime.CACHE_PER_NURSERY * four)
    assert not runtime.restart_wanted(mb, runtime.CACHE_PER_NURSERY * four - 1)
    assert not runtime.restart_wanted(mb, None)
    assert not runtime.restart_wanted(four, 64 * mb)    # already as large: left alone
    assert not runtime.restart_wanted(16 * mb, 64 * mb)
    assert runtime.restart_wanted(150 * mb, None)       # a huge one, whatever the cache
    monkeypatch.delenv(runtime.NURSERY_VARIABLE, raising=False)
    monkeypatch.setattr(runtime, "pypy_nursery_bytes", lambda: mb)
    monkeypatch.setattr(runtime, "last_level_cache_bytes", lambda: 32 * mb)
    assert runtime.needs_restart() == (os.name == "posix")


def test_the_last_level_cache_from_sysfs(tmp_path):
    def cache(index, level, kind, size):
        folder = tmp_path / ("index%d" % index)
        folder.mkdir()
        (folder / "level").write_text("%d\n" % level)
        (folder / "type").write_text(kind + "\n")
        (folder / "size").write_text(size + "\n")
    assert runtime.last_level_cache_bytes(str(tmp_path)) is None
    cache(0, 1, "Data", "32K")
    cache(1, 1, "Instruction", "32K")
    assert runtime.last_level_cache_bytes(str(tmp_path)) == 32 << 10
    cache(2, 2, "Unified", "512K")
    cache(3, 3, "Unified", "32768K")
    cache(4, 4, "Instruction", "1M")                    # not a data cache
    (tmp_path / "uevent").write_text("")
    assert runtime.last_level_cache_bytes(str(tmp_path)) == 32 << 20
    (tmp_path / "index3" / "size").write_text("garbled\n")
    assert runtime.last_level_cache_bytes(str(tmp_path)) == 512 << 10
    assert runtime.last_level_cache_bytes(str(tmp_path / "missing")) is None


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc/<pid>/environ")
def test_the_engine_runs_with_a_small_nursery():
    """The UCI engine, started as a GUI starts it: PyPy's own choice where restart_wanted()
    says so; otherwise the same process (same pid) runs on with ``NURSERY`` and answers."""
    env = _without_nursery_setting()
    chosen = subprocess.run([sys.executable, "-c", NURSERY_PROBE], cwd=str(REPO), env=env,
                            capture_output=True, text=True, check=True).stdout.strip()
    proc = subprocess.Popen([sys.executable, "-m", "engine"], cwd=str(REPO), env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        proc.stdin.write("isready\n")
        proc.stdin.flush()
        assert proc.stdout.readline().strip() == "readyok"
        setting = _environment(proc.pid).get(runtime.NURSERY_VARIABLE)
        proc.stdin.write("go depth 2\n")
        proc.stdin.close()                      # end of input: quit once the search ends
        assert proc.stdout.read().splitlines()[-1].startswith("bestmove ")
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    if chosen == "None":                        # CPython
        assert setting is None
    elif runtime.restart_wanted(int(chosen), runtime.last_level_cache_bytes()):
        assert setting == runtime.NURSERY
        restarted = subprocess.run([sys.executable, "-c", NURSERY_PROBE], cwd=str(REPO),
                                   env=dict(env, PYPY_GC_NURSERY=setting),
                                   capture_output=True, text=True, check=True).stdout
        assert int(restarted) == runtime.NURSERY_BYTES
    else:
        assert setting is None


_COLLECTOR_PROBE = r"""
import gc, sys
from engine import runtime
threshold = getattr(gc, "get_threshold", lambda: (0,))    # PyPy's gc has none
before = threshold()
import engine.__main__ as entry
calls = []
entry.tune_collector = lambda: (calls.append(1), runtime.tune_collector())
entry.main(["--version"])
print(sys.implementation.name, before[0], threshold()[0], len(calls))
"""


def test_the_entry_point_lets_cpythons_collector_run_less_often():
    """The engine's command line sets the young-generation threshold to GC_THRESHOLD on
    CPython (PyPy's collector has no such setting: it is called there and does nothing)."""
    out = subprocess.run([sys.executable, "-c", _COLLECTOR_PROBE], cwd=REPO,
                         capture_output=True, text=True, check=True).stdout.split()
    name, before, after, calls = out[-4], int(out[-3]), int(out[-2]), int(out[-1])
    assert calls == 1
    if name == "cpython":
        assert before != runtime.GC_THRESHOLD and after == runtime.GC_THRESHOLD
    else:
        assert after == before
