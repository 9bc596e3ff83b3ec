"""scripts/uci_fuzz.py: a few random rounds find nothing in the engine, and its checks find
what a planted broken engine does wrong."""
import os
import random
import sys
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import uci_fuzz  # noqa: E402

# Answers the handshake, plays a1a1 to every search, writes a traceback to stderr, leaves a
# child process behind, and ignores quit and the end of its input (SIGTERM still ends it).
BROKEN_ENGINE = textwrap.dedent("""
    import subprocess, sys, time
    subprocess.Popen(["sleep", "60"])
    sys.stderr.write("Traceback (most recent call last):\\n  planted\\n")
    sys.stderr.flush()
    for line in sys.stdin:
        words = line.split()
        reply = {"uci": "uciok", "isready": "readyok"}.get(words[0] if words else "")
        if words[:1] == ["stop"] or (words[:1] == ["go"]
                                     and "infinite" not in words and "ponder" not in words):
            reply = "bestmove a1a1"
        if reply:
            print(reply, flush=True)
    time.sleep(60)
""")


def test_a_few_random_rounds_find_nothing(capsys):
    assert uci_fuzz.main(["--rounds", "3", "--seed", "11"]) == 0, capsys.readouterr().out


def test_the_checks_catch_a_broken_engine(tmp_path, monkeypatch):
    for name in ("SEARCH_SECONDS", "EXIT_SECONDS"):    # it answers at once or never
        monkeypatch.setattr(uci_fuzz, name, 2.0)
    script = tmp_path / "broken.py"
    script.write_text(BROKEN_ENGINE)
    rng = random.Random(5)
    found = [uci_fuzz.run_round([sys.executable, str(script)], str(tmp_path), rng)
             for _ in range(3)]
    every = [problem for problems in found for problem in problems]
    assert all(any("traceback on stderr" in p for p in problems) for problems in found), found
    if os.path.isdir("/proc"):          # (helpers are found through /proc: Linux)
        assert all(any("processes left" in p for p in problems) for problems in found), found
    assert any("illegal bestmove a1a1" in p or "where no move is legal" in p for p in every), every
    assert any("no exit within" in p for p in every), every
