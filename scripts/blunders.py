#!/usr/bin/env python3
"""Where lost games turned, and whether more nodes would have saved them.

Reads a match PGN written by scripts/match.py (the move comments carry each side's
score), finds in every game the named engine lost the move after which the opponent's
own score first jumped from below --before to at least --after pawns, checks with a
reference engine at a fixed depth that the move really lost that much (--min-loss
centipawns against the reference's best move), and searches the position again with the
engine at each node budget given, counting how often it now avoids the move.

    python scripts/blunders.py logs/sf2000.pgn --name Basilisk \\
        --engine ".venv-pypy/bin/python -m engine" --nodes 10000 30000 300000

So it tells a search that runs out of depth (more nodes find another move) from an
evaluation that misjudges (more nodes play the same move).
"""
from __future__ import annotations

import argparse
import shlex
import shutil
import sys

import chess
import chess.engine
import chess.pgn

from match import comment_score


def turning_points(pgn_path: str, name: str, before: float, after: float):
    """(game number, FEN before the move, the move) for each game `name` lost with a jump."""
    with open(pgn_path, encoding="utf-8") as handle:
        number = 0
        while True:
            game = chess.pgn.read_game(handle)
            if game is None:
                return
            number += 1
            white = game.headers.get("White", "").startswith(name)
            black = game.headers.get("Black", "").startswith(name)
            result = game.headers.get("Result")
            if not ((white and result == "0-1") or (black and result == "1-0")):
                continue
            board = game.board()
            opponent_prev = None
            last = None
            ours = chess.WHITE if white else chess.BLACK
            for node in game.mainline():
                score = comment_score(node.comment)
                if board.turn == ours:
                    last = (board.fen(), node.move)
                elif score is not None:
                    if opponent_prev is not None and opponent_prev < before and score >= after:
                        yield number, last[0], last[1]
                        break
                    opponent_prev = score
                board.push(node.move)


def centipawns(score: chess.engine.PovScore, color: chess.Color) -> int:
    return score.pov(color).score(mate_score=10000)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pgn")
    parser.add_argument("--name", default="Basilisk", help="the engine's name in the PGN (prefix)")
    parser.add_argument("--engine", default=f"{sys.executable} -m engine",
                        help="command line of the engine to search the positions again")
    parser.add_argument("--nodes", type=int, nargs="+", default=[10000, 30000, 300000])
    parser.add_argument("--reference", default=shutil.which("stockfish") or "/usr/games/stockfish")
    parser.add_argument("--depth", type=int, default=18, help="reference engine's depth")
    parser.add_argument("--before", type=float, default=1.0)
    parser.add_argument("--after", type=float, default=2.0)
    parser.add_argument("--min-loss", type=int, default=150)
    args = parser.parse_args(argv)
    if not shutil.which(args.reference):
        sys.exit("no reference engine at %r (scripts/install_opponents.sh installs Stockfish)"
                 % args.reference)

    reference = chess.engine.SimpleEngine.popen_uci(args.reference)
    engine = chess.engine.SimpleEngine.popen_uci(shlex.split(args.engine))
    avoided = {n: 0 for n in args.nodes}
    checked = 0
    try:
        for number, fen, move in turning_points(args.pgn, args.name, args.before, args.after):
            board = chess.Board(fen)
            best = reference.analyse(board, chess.engine.Limit(depth=args.depth))
            board.push(move)
            reply = reference.analyse(board, chess.engine.Limit(depth=args.depth))
            board.pop()
            loss = centipawns(best["score"], board.turn) + centipawns(reply["score"], not board.turn)
            if loss < args.min_loss:
                continue
            checked += 1
            picks = []
            for nodes in args.nodes:
                # a new game each time (ucinewgame): no search sees another's hash table
                found = engine.play(board, chess.engine.Limit(nodes=nodes), game=object())
                avoided[nodes] += found.move != move
                picks.append(f"{nodes}: {board.san(found.move)}")
            print(f"game {number:3d}  {fen:70s} played {board.san(move):7s} loss {loss:5d}  "
                  f"reference {board.san(best['pv'][0]):7s} | " + "  ".join(picks), flush=True)
    finally:
        engine.quit()
        reference.quit()
    print(f"\n{checked} losing turns of at least {args.min_loss} cp (reference depth {args.depth})")
    for nodes in args.nodes:
        print(f"  at {nodes:>8,} nodes the engine avoids {avoided[nodes]:3d} of {checked}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
