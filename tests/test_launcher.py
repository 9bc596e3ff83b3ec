"""basilisk.py, the launcher for tools that start engines as `interpreter script`: it must
work from any working directory, as lichess-bot and GUIs start engines in folders of their own."""

import subprocess
import sys
from pathlib import Path

LAUNCHER = Path(__file__).resolve().parents[1] / "basilisk.py"


def test_launcher_speaks_uci_from_another_directory(tmp_path):
    proc = subprocess.run([sys.executable, str(LAUNCHER)], input="uci\nisready\nquit\n",
                          capture_output=True, text=True, cwd=tmp_path, timeout=60)
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0, proc.stderr
    assert lines[0].startswith("id name Basilisk"), lines
    assert "uciok" in lines and lines[-1] == "readyok", lines


def test_launcher_passes_command_line_arguments(tmp_path):
    proc = subprocess.run([sys.executable, str(LAUNCHER), "--version"], capture_output=True,
                          text=True, cwd=tmp_path, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith("Basilisk "), (proc.stdout, proc.stderr)
