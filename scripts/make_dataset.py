#!/usr/bin/env python3
"""Quiet positions labelled with their game's result: the dataset of scripts/tune.py.

Self-play (the default): Basilisk plays itself in-process (engine.search.Searcher, a fixed
--nodes a move, a fresh hash each game), one game per opening of --openings picked by
--seed, in --concurrency processes.  A game ends by the rules, at --max-plies (a draw), or,
unless --no-adjudicate, once the search's scores agree for long enough (match.py's rule:
1000 cp for 6 plies is lost, within 10 cp for 8 plies from ply 80 is drawn).
With --pgn, the games of those files instead, labelled with their Result tags.  With
--stockfish, Stockfish plays the games instead (same openings, --nodes a move, one thread,
a fresh hash each game: deterministic), and each position also gets Stockfish's score from
that search, white's view, as a third field: 'FEN;result;cp' (scripts/tune.py --lambda
blends it with the result).

Every position from ply --skip-plies of its game on is written, unless it is not quiet:
the side to move is in check, the move played from it (the search's best move, in
self-play) captures or promotes, or the engine's quiescence search scores it differently
from the static evaluation.

    python3 scripts/make_dataset.py --games 4000 --nodes 2000 --concurrency 2 --out positions.txt
    python3 scripts/make_dataset.py --pgn games.pgn --out positions.txt
    python3 scripts/make_dataset.py --stockfish /usr/games/stockfish --nodes 4000 \
        --games 4000 --concurrency 2 --out sf-positions.txt

The file starts with '#' lines naming the command, the engine commit and what was kept,
has one 'FEN;result' line per position (result 1, 0.5 or 0 from white's view), and ends
with a '#' line of totals.  The same command at the same commit writes the same file,
whatever --concurrency; a progress counter goes to stderr.
"""

import argparse
import multiprocessing
import os
import shlex
import subprocess
import sys
import time
from collections import Counter, namedtuple
from pathlib import Path

import chess.pgn

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engine.evaluate import evaluate  # noqa: E402
from engine.movegen import generate_moves  # noqa: E402
from engine.notation import parse_uci_move  # noqa: E402
from engine.position import Position  # noqa: E402
from engine.search import Searcher  # noqa: E402
from engine.timeman import Limits  # noqa: E402
from engine.types import WHITE, VALUE_INFINITE, MOVE_CAPTURE_OR_PROMOTION  # noqa: E402
from match import parse_opening, pick_openings, read_opening_records, shared_data_file  # noqa: E402

RESULT_VALUES = {"1-0": "1", "0-1": "0", "1/2-1/2": "0.5"}
# Adjudication, as scripts/match.py's Adjudicator: scores from white's view, a mate as this
MATE_CP = 100000
RESIGN_CP, RESIGN_PLIES = 1000, 6
DRAW_CP, DRAW_PLIES, DRAW_MIN_PLY = 10, 8, 80

Settings = namedtuple("Settings", "nodes hash_mb max_plies skip_plies adjudicate stockfish")
# One game to take positions from: played from (fen, moves) on when result is None, else
# replayed as given.
Job = namedtuple("Job", "index fen moves result")


class _NoClock:
    """The search's clock for a node-limited move: no deadline, and a time that stays 0 so
    no time-dependent bound reports reach the scores (the file must not depend on load)."""

    def elapsed_ms(self):
        return 0.0

    def hard_expired(self):
        return False

    def soft_expired(self):
        return False


def quiescence(searcher, pos):
    """The engine's quiescence score of pos (not in check), side to move's view."""
    searcher.timeman = _NoClock()
    searcher.nodes = 0
    searcher.next_check = float("inf")
    return searcher._qsearch(pos, -VALUE_INFINITE, VALUE_INFINITE, 0, False)


def is_quiet(pos, move, searcher):
    """Not in check, the move played from it neither captures nor promotes, and quiescence
    search finds nothing better than the static evaluation."""
    if pos.in_check() or move & MOVE_CAPTURE_OR_PROMOTION:
        return False
    return quiescence(searcher, pos) == evaluate(pos)


def rules_end(pos, legal, ply, max_plies):
    """(result, reason) when the rules or the ply cap end the game here, else None."""
    if not legal:
        if pos.in_check():
            return ("0-1" if pos.turn == WHITE else "1-0"), "checkmate"
        return "1/2-1/2", "stalemate"
    if pos.halfmove >= 100:
        return "1/2-1/2", "fifty moves"
    if pos.is_repetition(3):
        return "1/2-1/2", "threefold repetition"
    if pos.has_insufficient_material():
        return "1/2-1/2", "insufficient material"
    if ply >= max_plies:
        return "1/2-1/2", "ply cap"
    return None


def adjudicate(scores, ply):
    """(result, reason) once the last scores (white's view) agree long enough, else None."""
    run = scores[-RESIGN_PLIES:]
    if len(run) == RESIGN_PLIES:
        if all(s >= RESIGN_CP for s in run):
            return "1-0", "adjudicated: black is lost"
        if all(s <= -RESIGN_CP for s in run):
            return "0-1", "adjudicated: white is lost"
    run = scores[-DRAW_PLIES:]
    if ply >= DRAW_MIN_PLY and len(run) == DRAW_PLIES and all(abs(s) <= DRAW_CP for s in run):
        return "1/2-1/2", "adjudicated: drawn"
    return None


def white_score(info, turn):
    score = info["score"] if "score" in info else (MATE_CP if info["mate"] > 0 else -MATE_CP)
    return score if turn == WHITE else -score


def play_out(pos, ply, settings, choose):
    """Play from pos (ply plies into its game) to the end: choose(pos) gives the move and
    the white-view score of the search that chose it (None if it gave none).  Returns
    (result, reason, [(quiet FEN, score)], positions looked at)."""
    quiet_searcher = Searcher(1)
    labelled, looked_at, scores = [], 0, []
    while True:
        legal = generate_moves(pos)
        ending = rules_end(pos, legal, ply, settings.max_plies)
        if ending:
            break
        move, score = choose(pos)
        if ply >= settings.skip_plies:
            looked_at += 1
            if is_quiet(pos, move, quiet_searcher):
                labelled.append((pos.fen(), score))
        if score is not None:
            scores.append(score)
        pos.make(move)
        ply += 1
        if settings.adjudicate:
            ending = adjudicate(scores, ply)
            if ending:
                break
    return ending[0], ending[1], labelled, looked_at


def game_positions(job, settings):
    """(result, reason, [(quiet FEN, score)], positions looked at) of one game, played by
    Basilisk or replayed (score None)."""
    pos = Position(job.fen)
    if job.result is not None:
        quiet_searcher = Searcher(1)
        labelled, looked_at = [], 0
        for ply, text in enumerate(job.moves):
            move = parse_uci_move(pos, text)
            if move is None:
                break                   # an illegal move in the file ends the game for us
            if ply >= settings.skip_plies:
                looked_at += 1
                if is_quiet(pos, move, quiet_searcher):
                    labelled.append((pos.fen(), None))
            pos.make(move)
        return job.result, "as recorded", labelled, looked_at

    for text in job.moves:                                  # the opening
        pos.make(parse_uci_move(pos, text))
    searcher = Searcher(settings.hash_mb)
    limits = Limits()
    limits.nodes = settings.nodes

    def basilisk(pos):
        infos = []
        best, _ = searcher.search(pos, limits, _NoClock(), report=infos.append)
        return best, white_score(infos[-1], pos.turn) if infos else None
    return play_out(pos, len(job.moves), settings, basilisk)


_stockfish = {}      # process id -> its Stockfish: a forked worker must not use its parent's


def stockfish_game(job, settings):
    """(result, reason, [(quiet FEN, Stockfish's score)], positions looked at) of one game
    Stockfish plays against itself at settings.nodes a move."""
    import chess.engine
    stockfish = _stockfish.get(os.getpid())
    if stockfish is None:
        stockfish = _stockfish[os.getpid()] = chess.engine.SimpleEngine.popen_uci(settings.stockfish)
        stockfish.configure({"Threads": 1, "Hash": settings.hash_mb})
    board = chess.Board(job.fen)
    pos = Position(job.fen)
    for text in job.moves:
        board.push_uci(text)
        pos.make(parse_uci_move(pos, text))
    limit = chess.engine.Limit(nodes=settings.nodes)

    def stockfish_move(pos):
        played = stockfish.play(board, limit, info=chess.engine.INFO_SCORE, game=job.index)
        score = played.info.get("score")
        board.push(played.move)             # play_out makes the same move on pos
        return (parse_uci_move(pos, played.move.uci()),
                None if score is None else score.white().score(mate_score=MATE_CP))
    return play_out(pos, len(job.moves), settings, stockfish_move)


def _worker(args):
    job, settings = args
    if settings.stockfish:
        return (job.index,) + stockfish_game(job, settings)
    return (job.index,) + game_positions(job, settings)


def self_play_jobs(openings_file, games, seed):
    records = read_opening_records(openings_file)
    if games > len(records):
        sys.exit("error: %d games but only %d openings in %s (each game needs its own: "
                 "self-play from one opening repeats itself)" % (games, len(records), openings_file))
    for index, record in enumerate(pick_openings(records, games, seed)):
        board = parse_opening(records[record], openings_file.suffix.lower() == ".pgn", False)
        yield Job(index, board.root().fen(), [move.uci() for move in board.move_stack], None)


def pgn_jobs(paths):
    index = 0
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as handle:
            while True:
                game = chess.pgn.read_game(handle)
                if game is None:
                    break
                result = game.headers.get("Result")
                if result not in RESULT_VALUES or game.headers.get("Variant", "Standard") != "Standard":
                    continue
                moves = [move.uci() for move in game.mainline_moves()]
                yield Job(index, game.board().fen(), moves, result)
                index += 1


def engine_commit():
    """The checkout's commit, and whether engine/ differs from it."""
    def git(*args):
        return subprocess.run(["git", "-C", str(REPO)] + list(args), capture_output=True,
                              text=True, check=True).stdout.strip()
    try:
        commit = git("rev-parse", "--short=12", "HEAD")
        changed = git("status", "--porcelain", "--", "engine")
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return commit + (" with uncommitted changes in engine/" if changed else "")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="the dataset file to write")
    parser.add_argument("--games", type=int, default=100, help="self-play games (default %(default)s)")
    parser.add_argument("--nodes", type=int, default=2000, help="search nodes a move (default %(default)s)")
    parser.add_argument("--seed", type=int, default=1, help="picks the openings (default %(default)s)")
    parser.add_argument("--openings", default="8moves_v3.pgn",
                        help="opening book, a file or a name in data/openings (default %(default)s)")
    parser.add_argument("--concurrency", type=int, default=1, help="worker processes")
    parser.add_argument("--hash", type=int, default=16, help="MB of hash per game (default %(default)s)")
    parser.add_argument("--max-plies", type=int, default=400, help="a game this long is a draw")
    parser.add_argument("--skip-plies", type=int, default=20,
                        help="no position before this ply of its game (default %(default)s: the "
                             "8-move openings and two moves after)")
    parser.add_argument("--no-adjudicate", dest="adjudicate", action="store_false",
                        help="play every game out to its end by the rules or the ply cap")
    parser.add_argument("--pgn", nargs="+", metavar="FILE", help="take the games of these files instead")
    parser.add_argument("--stockfish", metavar="PATH",
                        help="Stockfish plays the games, and its scores label the positions")
    args = parser.parse_args(argv)
    command = shlex.join([Path(sys.executable).name] + (sys.argv if argv is None else
                                                         ["scripts/make_dataset.py"] + list(argv)))
    settings = Settings(args.nodes, args.hash, args.max_plies, args.skip_plies, args.adjudicate,
                        args.stockfish)

    if args.pgn:
        jobs = pgn_jobs(args.pgn)
        source = "the games of %s, with their results" % ", ".join(args.pgn)
        total = None
    else:
        openings = shared_data_file(args.openings, "openings")
        jobs = self_play_jobs(openings, args.games, args.seed)
        source = ("%s self-play, %d games at %d nodes a move, openings from %s picked by "
                  "seed %d, %s" % ("Stockfish (%s; its scores, white's view, as a third field)"
                                   % args.stockfish if args.stockfish else "Basilisk",
                                   args.games, args.nodes, openings.name, args.seed,
                                   "adjudicated" if args.adjudicate else "not adjudicated"))
        total = args.games

    results, reasons = Counter(), Counter()
    written = looked_at = 0
    started = time.monotonic()
    with open(args.out, "w", encoding="utf-8") as out:
        out.write("# Basilisk tuning positions: 'FEN;result%s', result 1, 0.5 or 0 from white's "
                  "view\n" % (";cp" if args.stockfish else ""))
        out.write("# command: %s\n" % command)
        out.write("# engine: %s\n" % engine_commit())
        out.write("# source: %s\n" % source)
        out.write("# kept: positions from ply %d on, not in check, whose move played neither "
                  "captures nor promotes, and whose quiescence score is the static evaluation\n"
                  % args.skip_plies)
        tasks = ((job, settings) for job in jobs)
        if args.concurrency > 1:
            pool = multiprocessing.Pool(args.concurrency)
            finished = pool.imap(_worker, tasks)        # in job order: the file is reproducible
        else:
            pool = None
            finished = map(_worker, tasks)
        try:
            for _, result, reason, fens, seen in finished:
                value = RESULT_VALUES[result]
                if settings.stockfish:
                    out.writelines("%s;%s;%d\n" % (fen, value, score) for fen, score in fens
                                   if score is not None)
                else:
                    out.writelines("%s;%s\n" % (fen, value) for fen, _ in fens)
                results[result] += 1
                reasons[reason] += 1
                written += len(fens)
                looked_at += seen
                games = sum(results.values())
                sys.stderr.write("\rgames %d%s, positions %d, %.0f s" % (
                    games, "/%d" % total if total else "", written, time.monotonic() - started))
                sys.stderr.flush()
        finally:
            if pool is not None:
                pool.terminate()
            if os.getpid() in _stockfish:
                _stockfish.pop(os.getpid()).quit()
        sys.stderr.write("\n")
        out.write("# totals: %d games (1-0 %d, 0-1 %d, 1/2-1/2 %d; %s); %d positions written of "
                  "%d from ply %d on\n" % (
                      sum(results.values()), results["1-0"], results["0-1"], results["1/2-1/2"],
                      ", ".join("%s %d" % item for item in sorted(reasons.items())),
                      written, looked_at, args.skip_plies))
    print("%s: %d positions from %d games" % (args.out, written, sum(results.values())))
    return 0


if __name__ == "__main__":
    from engine.runtime import restart_if_needed
    restart_if_needed()         # PyPy: a nursery that fits the caches
    sys.exit(main())
