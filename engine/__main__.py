"""Command line: `basilisk` (UCI loop), `basilisk perft --depth N [--fen FEN] [--bulk]`,
`basilisk bench [depth]`."""

import sys
import time


def perft_command(argv):
    import argparse     # here, not at the top: it costs start-up time the UCI loop need not pay

    from engine.notation import move_to_uci
    from engine.perft import divide
    from engine.position import Position, FenError, STARTING_FEN

    parser = argparse.ArgumentParser(prog="basilisk perft",
                                     description="Count leaf nodes; prints the divide like Stockfish's `go perft`.")
    parser.add_argument("--depth", type=int, required=True)
    parser.add_argument("--fen", default=STARTING_FEN)
    parser.add_argument("--bulk", action="store_true", help="count legal moves at the last ply instead of making them")
    parser.add_argument("--chess960", action="store_true", help="print castling as king takes rook")
    args = parser.parse_args(argv)
    try:
        pos = Position(args.fen)
    except FenError as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 2
    chess960 = args.chess960 or pos.is_chess960_layout()
    start = time.perf_counter()
    total = 0
    for move, count in divide(pos, max(args.depth, 1), bulk=args.bulk):
        print("%s: %d" % (move_to_uci(move, chess960), count))
        total += count
    elapsed = time.perf_counter() - start
    print()
    print("Nodes searched: %d" % total)
    print("Time: %.3f s, %.0f nodes/s" % (elapsed, total / max(elapsed, 1e-9)), file=sys.stderr)
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "perft":
        return perft_command(argv[1:])
    if argv and argv[0] == "bench":
        from engine.uci import bench_command
        return bench_command(argv[1:])
    from engine.uci import main as uci_main
    return uci_main(argv)


if __name__ == "__main__":
    sys.exit(main())
