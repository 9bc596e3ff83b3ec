"""The command line, and the only place that reads it: ``basilisk`` (or ``python -m
engine``) runs the UCI loop; see USAGE for the rest."""

import sys
import time

from engine import __version__
from engine.runtime import restart_if_needed, tune_collector

USAGE = """usage: basilisk                    the UCI engine on stdin/stdout
       basilisk bench [depth]      search the bench positions; prints the node count
       basilisk perft --depth N [--fen FEN] [--bulk] [--chess960]
                                   count the leaf nodes below each move (divide)
       basilisk --help | --version"""

# The subcommands import the board modules themselves (engine.engine builds its tables at
# import), so that `basilisk` alone starts the UCI loop without waiting for them.


def perft_command(argv):
    import argparse     # costs start-up time the UCI loop need not pay

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


def bench_command(argv):
    """`basilisk bench [depth]`: progress on stderr, the summary on stdout."""
    from engine.engine import run_bench, BENCH_MAX_DEPTH, NETWORK_PROBLEM

    depth = None
    if argv:
        try:
            depth = int(argv[0])
        except ValueError:
            depth = 0
        if not 1 <= depth <= BENCH_MAX_DEPTH:
            sys.stderr.write("usage: basilisk bench [depth]  (depth 1..%d)\n" % BENCH_MAX_DEPTH)
            return 2
    if NETWORK_PROBLEM:                 # its count is then the terms'
        sys.stderr.write("error: %s\n" % NETWORK_PROBLEM)
    lines = run_bench(depth, progress=sys.stderr)
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.flush()
    return 0


def main(argv=None):
    """Run what the command line asks; the exit status."""
    if argv is None:            # the process's own command line: it may start again first
        restart_if_needed()
    tune_collector()
    argv = list(sys.argv[1:] if argv is None else argv)
    from engine.uci import ENGINE_NAME, main as uci_main    # after the restart: 20 ms on PyPy
    if not argv:
        return uci_main()
    command = argv[0]
    if command in ("-h", "--help"):
        print(USAGE)
        return 0
    if command == "--version":
        print("%s %s" % (ENGINE_NAME, __version__))
        return 0
    if command == "bench":
        return bench_command(argv[1:])
    if command == "perft":
        return perft_command(argv[1:])
    sys.stderr.write("basilisk: unknown arguments %s\n%s\n" % (" ".join(argv), USAGE))
    return 2


if __name__ == "__main__":
    sys.exit(main())
