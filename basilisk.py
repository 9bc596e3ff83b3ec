#!/usr/bin/env python3
"""Launcher for tools that start an engine as `interpreter script` (lichess-bot's
`interpreter`, a Windows .bat for Arena): `python3 basilisk.py` or `pypy3 basilisk.py` is
`python -m engine` from any working directory."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from engine.__main__ import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
