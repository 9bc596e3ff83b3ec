#!/usr/bin/env python3
"""Run an EPD test suite (bm / am operations) against a chess engine.

Each position is searched with a fixed time (--movetime, seconds) or node
budget (--nodes); the engine's move solves it when it is one of the `bm`
moves and none of the `am` moves. The default suite is
data/epd/wac.epd (Win At Chess, 300 tactical positions).

Examples:

    scripts/epd.py sunfish-uci --first 20 --movetime 0.5
    scripts/epd.py "python3 -m engine" --nodes 50000 --concurrency 2
    scripts/epd.py /usr/games/stockfish --suite my_suite.epd

Engine starting, option parsing and failure classification are shared with
scripts/match.py.
"""
from __future__ import annotations

import argparse
import logging
import shlex
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.engine

from match import (EngineSlot, EngineSpec, MoveReply, inspect_engine, parse_option_items, request_move,
                   shared_data_file)

DEFAULT_SUITE = "wac.epd"


@dataclass(frozen=True)
class Problem:
    number: int
    name: str
    board: chess.Board
    best: tuple[chess.Move, ...]
    avoid: tuple[chess.Move, ...]

    def is_solved_by(self, move: chess.Move | None) -> bool:
        return move is not None and (not self.best or move in self.best) and move not in self.avoid


def load_problems(path: Path, first: int | None) -> list[Problem]:
    """Parse the suite; bm/am SAN moves are resolved by python-chess.

    A line python-chess cannot read, or one with neither bm nor am, is
    reported and skipped rather than silently scored.
    """
    problems = []
    lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    for number, line in enumerate((line for line in lines if line and not line.startswith("#")), 1):
        try:
            board, ops = chess.Board.from_epd(line)
        except ValueError as err:
            print(f"skipping line {number}: {err}", file=sys.stderr)
            continue
        best, avoid = tuple(ops.get("bm", ())), tuple(ops.get("am", ()))
        if not best and not avoid:
            print(f"skipping line {number}: no bm or am operation", file=sys.stderr)
            continue
        problems.append(Problem(number, str(ops.get("id", f"#{number}")), board, best, avoid))
        if first is not None and len(problems) >= first:
            break
    return problems


class SlotPool:
    """One engine per worker thread, all closed at the end."""

    def __init__(self, spec: EngineSpec) -> None:
        self.spec = spec
        self._local = threading.local()
        self._slots: list[EngineSlot] = []
        self._lock = threading.Lock()

    def slot(self) -> EngineSlot:
        if not hasattr(self._local, "slot"):
            self._local.slot = EngineSlot(self.spec)
            with self._lock:
                self._slots.append(self._local.slot)
        return self._local.slot

    def close(self) -> None:
        for slot in self._slots:
            slot.close()


def search_limit(args: argparse.Namespace) -> tuple[chess.engine.Limit, float]:
    """The per-position limit and how long to wait before giving up on the engine."""
    if args.nodes is not None:
        return chess.engine.Limit(nodes=args.nodes), args.move_timeout
    return chess.engine.Limit(time=args.movetime), 2.0 * args.movetime + 5.0


def solve(problem: Problem, pool: SlotPool, limit: chess.engine.Limit, watchdog: float) -> MoveReply:
    """Search one position in a fresh game, so no hash carries over."""
    return request_move(pool.slot(), problem.board, limit, problem.number, watchdog)


def format_moves(board: chess.Board, moves: tuple[chess.Move, ...]) -> str:
    return " ".join(board.san(move) for move in moves)


def result_line(problem: Problem, reply: MoveReply) -> str:
    """One line per position: verdict, move played, expected moves, depth, score, time."""
    board = problem.board
    if reply.forfeit:
        return f"{problem.name:<10} ERROR {reply.forfeit}: {reply.detail}"
    verdict = "ok  " if problem.is_solved_by(reply.move) else "FAIL"
    wanted = (f"bm {format_moves(board, problem.best)}" if problem.best else "") + \
             (f" am {format_moves(board, problem.avoid)}" if problem.avoid else "")
    score = reply.info.get("score")
    score_text = "" if score is None else str(score.relative)
    depth = reply.info.get("depth", "")
    return (f"{problem.name:<10} {verdict} played {board.san(reply.move):<7} ({wanted.strip()})"
            f"  depth {depth} score {score_text} {reply.elapsed:.2f}s")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog=__doc__.split("\n\n", 1)[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("engine", metavar="CMD", help="command line that starts the engine (shlex-split)")
    parser.add_argument("--protocol", choices=("uci", "xboard"), default="uci")
    parser.add_argument("--option", action="append", nargs="+", metavar="NAME=VALUE",
                        help="engine option(s), e.g. Hash=64")
    parser.add_argument("--suite", default=DEFAULT_SUITE,
                        help=f"EPD file: a path, or a name in data/epd or ../shared/data/epd (default {DEFAULT_SUITE})")
    parser.add_argument("--first", type=int, metavar="N", help="only the first N positions")
    limits = parser.add_mutually_exclusive_group()
    limits.add_argument("--movetime", type=float, default=1.0, metavar="SECONDS",
                        help="time per position (default 1.0)")
    limits.add_argument("--nodes", type=int, help="node budget per position instead of time")
    parser.add_argument("--move-timeout", type=float, default=120.0, metavar="SECONDS",
                        help="with --nodes: give up on a position after this long (default 120)")
    parser.add_argument("--concurrency", type=int, default=1, help="positions at a time (default 1)")
    parser.add_argument("--verbose", action="store_true", help="show python-chess warnings")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING if args.verbose else logging.ERROR)
    suite = shared_data_file(args.suite, "epd")
    problems = load_problems(suite, args.first)
    spec = EngineSpec(tuple(shlex.split(args.engine)), args.protocol, parse_option_items(args.option))
    name = inspect_engine(spec, openings=[], chess960=False)  # exits if it will not start
    limit, watchdog = search_limit(args)
    print(f"{suite}: {len(problems)} positions, {name} [{shlex.join(spec.command)}], "
          f"{f'{args.nodes} nodes' if args.nodes else f'{args.movetime:g}s'} per position", flush=True)
    pool, solved, failed, started = SlotPool(spec), 0, [], time.monotonic()
    try:
        with ThreadPoolExecutor(max_workers=max(1, args.concurrency)) as executor:
            replies = executor.map(lambda problem: solve(problem, pool, limit, watchdog), problems)
            for problem, reply in zip(problems, replies):
                print(result_line(problem, reply), flush=True)
                if not reply.forfeit and problem.is_solved_by(reply.move):
                    solved += 1
                else:
                    failed.append(problem.name)
    finally:
        pool.close()
    if failed:
        print(f"unsolved: {' '.join(failed)}")
    print(f"solved {solved} / {len(problems)}  ({time.monotonic() - started:.0f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
