#!/usr/bin/env python3
"""Calibrate Basilisk's strength levels against Stockfish's UCI_Elo.

At each point X, Basilisk at UCI_LimitStrength + UCI_Elo X (or at Skill Level s, which
plays at engine.skill.elo_for_level(s)) plays Stockfish at UCI_LimitStrength + UCI_Elo X
through scripts/match.py (paired openings, pentanomial statistics), and a table says how
far each level is from what it claims:

    python scripts/calibrate.py --points 1350 1600 1800              # the full run (~1 h)
    python scripts/calibrate.py --points 1600 --games 4 --tc 2+0.05  # a smoke test
    python scripts/calibrate.py --skill-levels 10 15 --games 100

A level is right when its Elo difference is 0 within the error; a level at +D plays
about D Elo stronger than its UCI_Elo says: engine/skill.py's ELO_AT_LEVEL then gets the
point (its level, X + D).  Stockfish 15.1's UCI_Elo goes no lower than 1350 (its range is read from the
engine): a point below that is played against Stockfish at its minimum, and the table's
"Basilisk ~" column (opponent Elo + difference) is then the figure to read.
A game lost by a forfeit (time, illegal move, crash, protocol) says nothing about
strength: the last column counts them (ours/Stockfish's); replay a point that has some.
Each match's own output goes to stderr as it runs; the table goes to stdout.
"""

import argparse
import re
import shlex
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from engine.skill import elo_for_level  # noqa: E402  (the script runs from a checkout)
MATCH = REPO / "scripts" / "match.py"
STOCKFISH = "/usr/games/stockfish"
DEFAULT_POINTS = (1350, 1600, 1800)

GAMES_RE = re.compile(r"^Games: (\d+)\s+A: \+(\d+) =(\d+) -(\d+)\s+score ([\d.]+)%", re.M)
ELO_RE = re.compile(r"^Elo difference \(A - B\), pairs \(pentanomial\): (\S+) \+/- (\S+)", re.M)
FORFEIT_RE = re.compile(r"^Forfeits by ([AB]) .*?\): (.*)$", re.M)
# Stockfish's default Move Overhead (10 ms) is too little for the pipes of a loaded
# machine: in a smoke run at 2 s + 0.05 s it lost 3 games of 4 on time.
STOCKFISH_OPTIONS = ("Threads=1", "Hash=16", "Move Overhead=100")


def stockfish_elo_range(command):
    """(min, max) of the opponent's UCI_Elo option, None if it has none."""
    try:
        out = subprocess.run(shlex.split(command), input="uci\nquit\n", capture_output=True,
                             text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.search(r"option name UCI_Elo type spin default \d+ min (\d+) max (\d+)", out)
    return (int(found.group(1)), int(found.group(2))) if found else None


def parse_summary(text):
    """{games, wins, draws, losses, score, elo, margin, forfeits: (A's, B's)} from
    match.py's summary (forfeits: time losses, illegal moves, crashes, protocol errors)."""
    games = GAMES_RE.findall(text)
    elo = ELO_RE.findall(text)
    if not games or not elo:
        return None
    n, w, d, l, score = games[-1]
    value, margin = elo[-1]
    forfeits = {side: sum(int(count) for count in re.findall(r": (\d+)", counts))
                for side, counts in FORFEIT_RE.findall(text)}
    return {"games": int(n), "wins": int(w), "draws": int(d), "losses": int(l),
            "score": float(score), "elo": float(value), "margin": float(margin),
            "forfeits": (forfeits.get("A", 0), forfeits.get("B", 0))}


def run_point(args, ours, theirs_elo):
    """Play one point; the parsed summary (None if the match failed) and its output."""
    command = [sys.executable, str(MATCH), "-a", args.engine, "--a-option", *ours,
               "--a-name", "Basilisk " + " ".join(ours),
               "-b", args.stockfish, "--b-option", *STOCKFISH_OPTIONS,
               "UCI_LimitStrength=true", "UCI_Elo=%d" % theirs_elo,
               "--b-name", "Stockfish UCI_Elo %d" % theirs_elo,
               "--games", str(args.games), "--tc", args.tc, "--openings", args.openings,
               "--concurrency", str(args.concurrency), "--seed", str(args.seed)]
    if args.pgn:
        command += ["--pgn", args.pgn]
    print("$ " + shlex.join(command), file=sys.stderr, flush=True)
    proc = subprocess.Popen(command, cwd=str(REPO), stdout=subprocess.PIPE, text=True)
    lines = []
    for line in proc.stdout:
        lines.append(line)
        sys.stderr.write(line)
        sys.stderr.flush()
    proc.wait()
    text = "".join(lines)
    return (parse_summary(text) if proc.returncode == 0 else None), text


def build_parser():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog=__doc__.split("\n\n", 1)[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--points", type=int, nargs="+", metavar="ELO",
                      help="UCI_Elo values to measure (default %s)" % " ".join(map(str, DEFAULT_POINTS)))
    what.add_argument("--skill-levels", type=int, nargs="+", metavar="LEVEL",
                      help="measure Skill Level values instead (each against the UCI_Elo it claims)")
    parser.add_argument("--games", type=int, default=200, help="games per point (default 200)")
    parser.add_argument("--tc", default="10+0.1", help="clock, BASE+INC seconds (default 10+0.1)")
    parser.add_argument("--openings", default="8moves_v3.pgn", help="book (default 8moves_v3.pgn)")
    parser.add_argument("--concurrency", type=int, default=2, help="games at a time (default 2)")
    parser.add_argument("--seed", type=int, default=1, help="picks the openings (default 1)")
    parser.add_argument("--engine", default="%s -m engine" % shlex.quote(sys.executable),
                        help="Basilisk's command line (default: this Python, -m engine)")
    parser.add_argument("--stockfish", default=STOCKFISH, help="the opponent (default %s)" % STOCKFISH)
    parser.add_argument("--pgn", help="append all games to this PGN file")
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    elo_range = stockfish_elo_range(args.stockfish)
    if elo_range is None:
        sys.exit("error: %s does not start or has no UCI_Elo option" % args.stockfish)
    if args.skill_levels:
        points = [(("Skill Level=%d" % s,), "Skill %d" % s, round(elo_for_level(s)))
                  for s in args.skill_levels]
    else:
        points = [(("UCI_LimitStrength=true", "UCI_Elo=%d" % x), "Elo %d" % x, x)
                  for x in (args.points or DEFAULT_POINTS)]
    rows = []
    for ours, label, claimed in points:
        opponent = min(max(claimed, elo_range[0]), elo_range[1])
        if opponent != claimed:
            print("note: %s plays Stockfish at UCI_Elo %d (its range is %d..%d)"
                  % (label, opponent, elo_range[0], elo_range[1]), file=sys.stderr)
        summary, _ = run_point(args, ours, opponent)
        rows.append((label, claimed, opponent, summary))
    print()
    print("Basilisk vs Stockfish (UCI_LimitStrength), %s, %s, %d games a point"
          % (args.tc, args.openings, args.games))
    print("%-10s %8s %6s %8s %18s %11s  %s" % ("Basilisk", "SF Elo", "games", "score %",
                                               "Elo diff (95%)", "Basilisk ~", "forfeits ours/SF"))
    for label, claimed, opponent, summary in rows:
        if summary is None:
            print("%-10s %8d  match failed (see its output above)" % (label, opponent))
            continue
        measured = opponent + summary["elo"]
        print("%-10s %8d %6d %8.1f %18s %11s  %s" % (
            label, opponent, summary["games"], summary["score"],
            "%+.0f +/- %.0f" % (summary["elo"], summary["margin"]),
            "%.0f" % measured if abs(summary["elo"]) != float("inf") else "?",
            "%d/%d" % summary["forfeits"]))
    return 0 if all(row[3] is not None for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
