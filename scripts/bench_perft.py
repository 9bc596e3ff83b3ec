#!/usr/bin/env python3
"""Perft speed: Basilisk against python-chess, in one process and one run.

Full perft makes and unmakes every move down to the leaves (python-chess: push/pop);
bulk perft counts the legal moves at the last ply.  Prints nodes/second for both and
their ratio.  Each position is timed ``--rounds`` times, the two sides alternating, and the
best time of each side counts: a single timing of either side moves by 10-20% from run to
run on the same machine.  Usage: python scripts/bench_perft.py [--quick] [--rounds N]
[--no-reference]
"""

import argparse
import os
import platform
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from engine.perft import perft, perft_bulk  # noqa: E402
from engine.position import Position  # noqa: E402
from oracle import oracle_perft as chess_perft_bulk  # noqa: E402
from oracle import oracle_perft_full as chess_perft  # noqa: E402

POSITIONS = [
    ("startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 4),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 3),
    ("cpw-pos3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5),
    ("cpw-pos4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 4),
    ("cpw-pos5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 3),
]


def timed(fn, *args):
    start = time.perf_counter()
    nodes = fn(*args)
    return nodes, time.perf_counter() - start


def run(label, ours, theirs, positions, reference, rounds):
    total = {"ours": [0, 0.0], "ref": [0, 0.0]}
    print("\n%s perft, best of %d alternating rounds" % (label, rounds))
    print("%-10s %5s %10s %14s %14s %7s" % ("position", "depth", "nodes", "basilisk n/s", "python-chess", "ratio"))
    if reference:
        import chess
    for name, fen, depth in positions:
        ours_secs, ref_secs = [], []
        for _ in range(rounds):
            nodes, secs = timed(ours, Position(fen), depth)
            ours_secs.append(secs)
            if reference:
                ref_nodes, secs = timed(theirs, chess.Board(fen), depth)
                ref_secs.append(secs)
        secs = min(ours_secs)
        total["ours"][0] += nodes
        total["ours"][1] += secs
        ref_text, ratio_text = "-", "-"
        if reference:
            ref_secs = min(ref_secs)
            if ref_nodes != nodes:
                print("MISMATCH on %s: basilisk %d, python-chess %d" % (name, nodes, ref_nodes))
            total["ref"][0] += ref_nodes
            total["ref"][1] += ref_secs
            ref_text = "%.0f" % (ref_nodes / ref_secs)
            ratio_text = "%.2fx" % ((nodes / secs) / (ref_nodes / ref_secs))
        print("%-10s %5d %10d %14.0f %14s %7s" % (name, depth, nodes, nodes / secs, ref_text, ratio_text))
    ours_nps = total["ours"][0] / total["ours"][1]
    if reference:
        ref_nps = total["ref"][0] / total["ref"][1]
        print("%-10s %5s %10d %14.0f %14.0f %6.2fx" % ("TOTAL", "", total["ours"][0], ours_nps, ref_nps,
                                                     ours_nps / ref_nps))
    else:
        print("%-10s %5s %10d %14.0f" % ("TOTAL", "", total["ours"][0], ours_nps))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one ply shallower everywhere")
    parser.add_argument("--warmup", action="store_true",
                        help="run everything once untimed first (lets PyPy's JIT warm up)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="timings per position and side, alternating; the best counts (default 3)")
    parser.add_argument("--no-reference", action="store_true", help="skip python-chess (e.g. under pypy3 without it)")
    args = parser.parse_args()
    reference = not args.no_reference
    if reference:
        try:
            import chess  # noqa: F401
        except ImportError:
            print("python-chess is not installed here; running Basilisk alone (--no-reference)")
            reference = False
    positions = [(n, f, d - 1 if args.quick else d) for n, f, d in POSITIONS]
    print("interpreter: %s %s" % (platform.python_implementation(), platform.python_version()))
    if args.warmup:
        for _, fen, depth in positions:
            perft(Position(fen), depth)
            perft_bulk(Position(fen), depth)
    rounds = max(1, args.rounds)
    run("full (make/unmake at every node, leaves included)", perft, chess_perft, positions, reference, rounds)
    run("bulk (legal moves counted at the last ply)", perft_bulk, chess_perft_bulk, positions, reference, rounds)


if __name__ == "__main__":
    main()
