"""Basilisk: a UCI chess engine in pure Python."""

__version__ = "0.1.0"
