#!/usr/bin/env python3
"""Play a match between two chess engines and measure their Elo difference.

Each engine is a command line (shlex-split) speaking UCI or xboard. Openings
come from a book in data/openings (a .epd of FENs, or a .pgn whose
mainlines are played out), are picked by --seed, and each is played twice with
colours swapped so that a lopsided opening cancels out. The script keeps the
clock itself: it measures the wall time of every move and forfeits a side
that overruns its clock, returns an illegal move, crashes or breaks protocol,
and reports each kind of forfeit separately, because those point at engine
bugs rather than at playing strength.

Examples (opponents as installed by scripts/install_opponents.sh):

    scripts/match.py -a sunfish-uci -b /usr/games/stockfish \\
        --b-option UCI_LimitStrength=true UCI_Elo=1350 \\
        --games 4 --tc 2+0.05 --concurrency 2 --pgn out.pgn

    scripts/match.py -a sunfish-uci-pypy -b /usr/games/fairymax --b-protocol xboard \\
        --games 2 --tc 5+0.1

    scripts/match.py -a "python3 -m engine" -b sunfish-uci --games 400 \\
        --sprt 0 10 0.05 0.05 --tc 10+0.1

Results are from engine A's point of view. Elo, its 95% interval and LOS are
reported per game pair (pentanomial: pairs scoring 0, 1/2, 1, 3/2, 2 points,
as fishtest counts them) and, beside them, per game (trinomial W/D/L, which
overstates the error when an opening favours one colour). A game whose
partner is missing (an odd --games) is left out of the pair figures. The
SPRT tests logistic Elo on pairs unless --sprt-model trinomial is given.

Opponent quirks: Fairy-Max has no setboard, so it plays only from .pgn books
(the default) and not with --chess960; it takes --st in whole seconds and has
no --nodes. HoiChess exits on a fractional --st ("Illegal time value"), so
give it whole seconds, and plays from its own book when a position is in it.
Neither xboard engine plays Chess960, nor does sunfish.
"""
from __future__ import annotations

import argparse
import asyncio
import io
import logging
import math
import queue
import random
import re
import shlex
import signal
import statistics
import sys
import threading
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import chess
import chess.engine
import chess.pgn

# The repository's data/ first, then ../shared/data beside it (where new data arrives).
REPO = Path(__file__).resolve().parents[1]
DATA_DIRS = (REPO / "data", REPO.parent / "shared" / "data")
DEFAULT_BOOK = "8moves_v3.pgn"
DEFAULT_BOOK_960 = "FRC_openings.epd"

# What a move request asks the engine to report: depth and score feed the PGN
# comments and the optional adjudication.
MOVE_INFO = chess.engine.INFO_BASIC | chess.engine.INFO_SCORE

# Forfeit kinds, counted per engine in the summary.
TIME, ILLEGAL, CRASH, PROTOCOL = "time loss", "illegal move", "crash", "protocol error"
FORFEIT_KINDS = (TIME, ILLEGAL, CRASH, PROTOCOL)


# --------------------------------------------------------------------------
# Statistics (pure math; tested in tests/test_match_stats.py)
# --------------------------------------------------------------------------

def score_fraction(wins: int, draws: int, losses: int) -> float:
    """Points per game, 1 for a win and 1/2 for a draw."""
    games = wins + draws + losses
    return (wins + 0.5 * draws) / games if games else 0.5


def elo_from_score(score: float) -> float:
    """Elo difference that the logistic model maps to an expected score.

    0 and 1 map to -inf and +inf: a perfect score bounds nothing.
    """
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def expected_score(elo: float) -> float:
    """Inverse of elo_from_score."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_variance(wins: int, draws: int, losses: int) -> float:
    """Variance of a single game's score (trinomial: 1, 1/2, 0)."""
    games = wins + draws + losses
    if not games:
        return 0.0
    mean = score_fraction(wins, draws, losses)
    return (wins * (1.0 - mean) ** 2 + draws * (0.5 - mean) ** 2
            + losses * (0.0 - mean) ** 2) / games


GAME_SCORES = (0.0, 0.5, 1.0)  # loss, draw, win
# A game pair's points for A (0, 0.5, 1, 1.5, 2) as a per-game score: the
# pentanomial outcome classes LL, LD, DD+WL, WD, WW.
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)


def pentanomial_index(first_points: float, second_points: float) -> int:
    """Class 0..4 of a game pair from A's points in its two games."""
    return round(2 * (first_points + second_points))


def pentanomial_stats(pentanomial: list[int]) -> tuple[float, float]:
    """Mean and variance of a pair's per-game score (pair points / 2)."""
    pairs = sum(pentanomial)
    if not pairs:
        return 0.5, 0.0
    mean = sum(n * a for n, a in zip(pentanomial, PAIR_SCORES)) / pairs
    return mean, sum(n * (a - mean) ** 2 for n, a in zip(pentanomial, PAIR_SCORES)) / pairs


def two_sided_z(confidence: float) -> float:
    """The normal quantile of a two-sided interval: 1.96 for 0.95."""
    return statistics.NormalDist().inv_cdf(0.5 + confidence / 2.0)


def elo_interval(mean: float, stderr: float, confidence: float) -> float:
    """Half the width of the score interval mean +/- z stderr, mapped to Elo.

    cutechess-cli and fishtest report this one symmetric number for a
    slightly asymmetric interval; an end at 0 or 1 makes it infinite.
    """
    z = two_sided_z(confidence)
    low = elo_from_score(mean - z * stderr)
    high = elo_from_score(mean + z * stderr)
    return (high - low) / 2.0 if math.isfinite(low) and math.isfinite(high) else math.inf


def elo_with_margin(wins: int, draws: int, losses: int,
                    confidence: float = 0.95) -> tuple[float, float]:
    """Elo difference and its +/- error margin from single games (trinomial).

    Treats every game as independent, which overstates the error when the
    two games of a pair are correlated (an opening that favours one colour).
    """
    games = wins + draws + losses
    if not games:
        return 0.0, math.inf
    mean = score_fraction(wins, draws, losses)
    stderr = math.sqrt(score_variance(wins, draws, losses) / games)
    return elo_from_score(mean), elo_interval(mean, stderr, confidence)


def pentanomial_elo_with_margin(pentanomial: list[int],
                                confidence: float = 0.95) -> tuple[float, float]:
    """Elo difference and its +/- error margin from game pairs (pentanomial).

    The per-game score is the mean pair score / 2; its standard error comes
    from the spread of the pair scores, so colour-swapped games that cancel
    each other out shrink the interval as they should.
    """
    pairs = sum(pentanomial)
    if not pairs:
        return 0.0, math.inf
    mean, variance = pentanomial_stats(pentanomial)
    return elo_from_score(mean), elo_interval(mean, math.sqrt(variance / pairs), confidence)


# nElo per unit of (score - 1/2) / per-game standard deviation (fishtest, fastchess)
NELO_SCALE = 800.0 / math.log(10.0)


def pentanomial_nelo_with_margin(pentanomial: list[int],
                                 confidence: float = 0.95) -> tuple[float, float]:
    """Normalized Elo from game pairs and its +/- error margin, as fishtest and fastchess
    report it: the excess score over the per-game spread, (mean - 1/2) / sqrt(2 var_pair)
    x 800 / ln 10.  Its margin depends only on the number of games, so the same two engines
    give a larger nElo on a book that tells them apart better (e.g. unbalanced openings):
    nElo is the figure to compare books or time controls by, not Elo."""
    pairs = sum(pentanomial)
    mean, variance = pentanomial_stats(pentanomial)
    if not pairs or variance == 0.0:
        return 0.0, math.inf
    z = two_sided_z(confidence)
    # the mean's standard error, sqrt(var_pair / pairs), over the same spread: 1 / sqrt(games)
    return ((mean - 0.5) / math.sqrt(2.0 * variance) * NELO_SCALE,
            z * NELO_SCALE / math.sqrt(2.0 * pairs))


def likelihood_of_superiority(wins: int, losses: int) -> float:
    """Probability that A is the stronger engine; draws carry no information."""
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


def pentanomial_los(pentanomial: list[int]) -> float:
    """Probability that A is the stronger engine, from the pair scores.

    Normal approximation of the mean pair score against 1/2, as fishtest
    reports it; with no spread at all the sign of the excess decides.
    """
    pairs = sum(pentanomial)
    mean, variance = pentanomial_stats(pentanomial)
    if not pairs or variance == 0.0:
        return 0.5 if mean == 0.5 else float(mean > 0.5)
    return statistics.NormalDist().cdf((mean - 0.5) / math.sqrt(variance / pairs))


def constrained_mle(freqs: list[float], mean: float,
                    scores: tuple[float, ...] = GAME_SCORES) -> list[float]:
    """Most likely distribution over `scores` with the given mean score.

    Given observed frequencies f_i of the scores a_i, the maximum-likelihood
    distribution with mean `mean` is p_i = f_i / (1 + t (a_i - mean)), where
    t solves sum f_i (a_i - mean) / (1 + t (a_i - mean)) = 0. That sum falls
    monotonically across the interval where every denominator is positive,
    so bisection finds t. Needs min(scores) < mean < max(scores) and every
    f_i > 0.
    """
    shifts = [score - mean for score in scores]
    low, high = -1.0 / max(shifts), -1.0 / min(shifts)
    for _ in range(200):
        mid = (low + high) / 2.0
        if sum(f * d / (1.0 + mid * d) for f, d in zip(freqs, shifts)) > 0.0:
            low = mid
        else:
            high = mid
    t = (low + high) / 2.0
    return [f / (1.0 + t * d) for f, d in zip(freqs, shifts)]


def generalised_llr(counts: list[int], scores: tuple[float, ...],
                    elo0: float, elo1: float) -> float:
    """GSPRT log-likelihood ratio of logistic Elo elo1 against elo0.

    counts[i] is how often the outcome scoring scores[i] per game happened.
    Each hypothesis is represented by the most likely distribution whose
    expected per-game score is that hypothesis's, and the LLR is
    N * sum f_i log(p1_i / p0_i). Empty classes get a count of 1e-3, as
    fishtest does, to keep every p_i positive: an all-wins run still
    accumulates evidence.
    """
    total = sum(counts)
    if not total:
        return 0.0
    regularised = [count or 1e-3 for count in counts]
    freqs = [count / sum(regularised) for count in regularised]
    p0 = constrained_mle(freqs, expected_score(elo0), scores)
    p1 = constrained_mle(freqs, expected_score(elo1), scores)
    return total * sum(f * math.log(b / a) for f, a, b in zip(freqs, p0, p1))


def sprt_llr(wins: int, draws: int, losses: int, elo0: float, elo1: float) -> float:
    """Trinomial (W/D/L, one game at a time) LLR of H1 (Elo = elo1) against H0.

    For large samples it equals the normal approximation
    N (s1 - s0) (2m - s0 - s1) / (2 var) on single games.
    """
    return generalised_llr([losses, draws, wins], GAME_SCORES, elo0, elo1)


def sprt_llr_pentanomial(pentanomial: list[int], elo0: float, elo1: float) -> float:
    """Pentanomial (game pairs) LLR of H1 (Elo = elo1) against H0, logistic Elo.

    fishtest's LLR_logistic on [LL, LD, DD+WL, WD, WW]: the hypotheses are
    per-game expected scores, N counts pairs, and a pair's outcome scores
    0, 1/4, 1/2, 3/4 or 1 per game.
    """
    return generalised_llr(list(pentanomial), PAIR_SCORES, elo0, elo1)


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's stopping bounds (lower accepts H0, upper accepts H1)."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def sprt_decision(llr: float, alpha: float, beta: float) -> str | None:
    """'H0', 'H1' or None while the test must go on."""
    lower, upper = sprt_bounds(alpha, beta)
    if llr >= upper:
        return "H1"
    if llr <= lower:
        return "H0"
    return None


# --------------------------------------------------------------------------
# Shared data and openings
# --------------------------------------------------------------------------

def shared_data_file(name: str, subdir: str) -> Path:
    """Resolve a data file: an existing path as given, else a name in data/<subdir> of the
    repository, else in ../shared/data/<subdir>; exits with a clear message if none has it."""
    given = Path(name)
    if given.is_file():
        return given
    for data_dir in DATA_DIRS:
        path = data_dir / subdir / name
        if path.is_file():
            return path
    sys.exit(f"error: data file not found: {name} (looked in "
             + " and ".join(str(d / subdir) for d in DATA_DIRS) + ")")


def read_opening_records(path: Path) -> list[str]:
    """Split a book into raw records without parsing them.

    Parsing all 34700 games of 8moves_v3.pgn costs about a minute, so only the
    records the seed picks are parsed (parse_opening).
    """
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix.lower() == ".pgn":
        chunks = ("\n" + text).split("\n[Event ")
        return ["[Event " + chunk for chunk in chunks[1:]]
    return [line.strip() for line in text.splitlines()
            if line.strip() and not line.startswith("#")]


def board_from_epd_line(line: str, chess960: bool) -> chess.Board:
    """A board from an EPD line or a plain six-field FEN line."""
    fields = line.split(";")[0].split()
    if len(fields) >= 6 and fields[4].isdigit() and fields[5].isdigit():
        return chess.Board(" ".join(fields[:6]), chess960=chess960)
    board, _ = chess.Board.from_epd(line, chess960=chess960)
    return board


def parse_opening(record: str, is_pgn: bool, chess960: bool) -> chess.Board:
    """The opening position; for PGN records the board keeps the moves.

    Keeping the move stack lets engines receive `position startpos moves ...`
    (UCI) or plain moves (xboard), which is what lets Fairy-Max, an engine
    without setboard, play from a PGN book.
    """
    if not is_pgn:
        return board_from_epd_line(record, chess960)
    game = chess.pgn.read_game(io.StringIO(record))
    if game is None:
        raise ValueError(f"unreadable PGN record: {record[:80]!r}")
    return game.end().board()  # a Variant "Chess960" header is honoured by python-chess


def pick_openings(records: list[str], count: int, seed: int) -> list[int]:
    """Indices of `count` openings: a seeded shuffle, cycled if the book is short."""
    order = list(range(len(records)))
    random.Random(seed).shuffle(order)
    return [order[i % len(order)] for i in range(count)]


# --------------------------------------------------------------------------
# Engines
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class EngineSpec:
    """How to start one engine: command, protocol, options and a display name."""
    command: tuple[str, ...]
    protocol: str = "uci"
    options: tuple[tuple[str, str], ...] = ()
    name: str | None = None
    nodes: int | None = None     # with a node budget: this engine's own (see side_limit)


class _FeaturesAssumingSetboard(dict):
    """xboard feature table that reports `setboard` as declared.

    python-chess refuses any xboard engine that does not declare setboard,
    although it only sends setboard for positions that do not start from the
    standard array. Fairy-Max declares setboard=0 and indeed lacks it, yet
    plays fine from PGN openings; the real declaration stays readable through
    dict.get for declares_setboard().
    """

    def get(self, key, default=None):
        if key == "setboard":
            return 1
        return super().get(key, default)


class LenientXBoardProtocol(chess.engine.XBoardProtocol):
    """XBoardProtocol that accepts engines without setboard (see above)."""

    def __init__(self) -> None:
        super().__init__()
        self.features = _FeaturesAssumingSetboard()


def declares_setboard(engine: chess.engine.SimpleEngine) -> bool:
    """Whether an engine can be given arbitrary positions."""
    features = getattr(engine.protocol, "features", None)
    if features is None:  # UCI: `position fen` is mandatory
        return True
    return bool(dict.get(features, "setboard", 0))


def supports_chess960(engine: chess.engine.SimpleEngine) -> bool:
    """UCI_Chess960 for UCI engines, the fischerandom variant for xboard ones."""
    features = getattr(engine.protocol, "features", None)
    if features is None:
        return "UCI_Chess960" in engine.options
    return "fischerandom" in str(dict.get(features, "variants", "")).split(",")


def open_engine(spec: EngineSpec) -> chess.engine.SimpleEngine:
    """Start an engine and apply its options."""
    protocol = chess.engine.UciProtocol if spec.protocol == "uci" else LenientXBoardProtocol
    engine = chess.engine.SimpleEngine.popen(protocol, list(spec.command), timeout=30.0)
    try:
        if spec.options:
            engine.configure(dict(spec.options))
    except BaseException:
        close_engine(engine)
        raise
    return engine


def close_engine(engine: chess.engine.SimpleEngine | None) -> None:
    """Ask an engine to quit, and kill it if it will not."""
    if engine is None:
        return
    try:
        engine.quit()
    except Exception:
        pass
    finally:
        engine.close()


class EngineSlot:
    """One engine process for one worker, restarted after it misbehaves.

    A crashed, hung or confused engine cannot be trusted with the next game,
    so it is discarded and a fresh process is started on demand.
    """

    def __init__(self, spec: EngineSpec) -> None:
        self.spec = spec
        self._engine: chess.engine.SimpleEngine | None = None

    @property
    def engine(self) -> chess.engine.SimpleEngine:
        if self._engine is None:
            self._engine = open_engine(self.spec)
        return self._engine

    def discard(self) -> None:
        engine, self._engine = self._engine, None
        if engine is not None:
            engine.close()

    def close(self) -> None:
        engine, self._engine = self._engine, None
        close_engine(engine)


def parse_option_items(items: list[list[str]] | None) -> tuple[tuple[str, str], ...]:
    """`Name=Value` words from the command line, names may contain spaces."""
    pairs = []
    for item in (word for group in items or [] for word in group):
        name, sep, value = item.partition("=")
        if not sep or not name:
            sys.exit(f"error: option {item!r} is not of the form Name=Value")
        pairs.append((name.strip(), value.strip()))
    return tuple(pairs)


def inspect_engine(spec: EngineSpec, openings: list[chess.Board], chess960: bool) -> str:
    """Start an engine once, before any game, and return its display name.

    Exits with a message when the engine will not start, rejects an option,
    or cannot play the chosen book or variant, instead of forfeiting every
    game of the match for the same reason.
    """
    label = f"{shlex.join(spec.command)!r} ({spec.protocol})"
    try:
        engine = open_engine(spec)
    except (OSError, chess.engine.EngineError, TimeoutError) as err:
        sys.exit(f"error: cannot start {label}: {err}")
    try:
        if chess960 and not supports_chess960(engine):
            sys.exit(f"error: {label} does not support Chess960")
        standard = chess.Board().fen()
        if not declares_setboard(engine) and any(b.root().fen() != standard for b in openings):
            sys.exit(f"error: {label} has no setboard, so it can only play openings that "
                     "start from the standard position: use a .pgn book")
        return spec.name or engine.id.get("name") or spec.command[0]
    finally:
        close_engine(engine)


# --------------------------------------------------------------------------
# Time control
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class TimeControl:
    """One of: a clock (base+inc), a fixed time per move, or a node budget."""
    base: float | None = None
    increment: float = 0.0
    movetime: float | None = None
    nodes: int | None = None
    margin: float = 0.0
    move_timeout: float = 60.0

    @property
    def uses_clock(self) -> bool:
        return self.base is not None

    def label(self) -> str:
        """PGN TimeControl tag value."""
        if self.uses_clock:
            return f"{self.base:g}+{self.increment:g}"
        if self.movetime is not None:
            return f"{self.movetime:g}/move"
        return f"{self.nodes} nodes"

    def limit(self, clocks: dict[bool, float], clock_id: object) -> chess.engine.Limit:
        """The search limit for the side to move."""
        if self.uses_clock:
            return chess.engine.Limit(white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                                      white_inc=self.increment, black_inc=self.increment,
                                      clock_id=clock_id)
        if self.movetime is not None:
            # whole seconds stay integers: HoiChess dies on `st 1.0`
            movetime = int(self.movetime) if float(self.movetime).is_integer() else self.movetime
            return chess.engine.Limit(time=movetime)
        return chess.engine.Limit(nodes=self.nodes)

    def watchdog(self, remaining: float) -> float:
        """How long to wait for a move before giving up on the engine.

        On a clock the move is lost on time anyway past `remaining`; the
        extra second only lets a late move arrive so the PGN can show it.
        """
        if self.uses_clock:
            return remaining + self.margin + 1.0
        if self.movetime is not None:
            return 2.0 * self.movetime + 1.0
        return self.move_timeout

    def overran(self, elapsed: float, remaining: float) -> bool:
        """Whether a move overran the clock (clock mode only; no grace but --timemargin)."""
        return self.uses_clock and elapsed > remaining + self.margin


def side_limit(tc: TimeControl, spec: EngineSpec, clocks: dict[bool, float],
               clock_id: object) -> chess.engine.Limit:
    """The limit for the engine of ``spec``: the match's, except that in a node-limited
    match an engine with a budget of its own (--a-nodes/--b-nodes) gets that one.  Giving
    the faster side of an A/B pair proportionally more nodes charges a feature's cost a
    node, as a clock does, without the clock's dependence on the machine's load."""
    if tc.nodes is not None and spec.nodes is not None:
        return chess.engine.Limit(nodes=spec.nodes)
    return tc.limit(clocks, clock_id)


def parse_tc(text: str) -> tuple[float, float]:
    """'10+0.1' -> (10.0, 0.1); '60' -> (60.0, 0.0)."""
    base, _, inc = text.partition("+")
    try:
        return float(base), float(inc or 0.0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad time control {text!r}, expected SECONDS+INC")


# --------------------------------------------------------------------------
# Playing one game
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class GameJob:
    number: int
    opening_index: int
    opening: chess.Board
    a_is_white: bool

    @property
    def pair(self) -> int:
        """Games 1 and 2 share an opening with colours swapped, as do 3 and 4, ..."""
        return (self.number - 1) // 2


@dataclass
class GameResult:
    job: GameJob
    result: str                 # "1-0", "0-1" or "1/2-1/2"
    reason: str
    forfeit: str | None = None  # one of FORFEIT_KINDS when a side forfeited
    loser_is_a: bool | None = None
    pgn: str = ""

    @property
    def a_points(self) -> float:
        if self.result == "1/2-1/2":
            return 0.5
        white_won = self.result == "1-0"
        return 1.0 if white_won == self.job.a_is_white else 0.0


@dataclass(frozen=True)
class MatchSettings:
    tc: TimeControl
    max_plies: int
    adjudicate: bool
    event: str
    names: tuple[str, str]      # display names of A and B


@dataclass
class MoveReply:
    """What one move request produced: a move, or the reason the side forfeits."""
    move: chess.Move | None
    elapsed: float
    info: dict = field(default_factory=dict)
    forfeit: str | None = None
    detail: str = ""
    resigned: bool = False


def request_move(slot: EngineSlot, board: chess.Board, limit: chess.engine.Limit,
                 game_key: object, watchdog: float) -> MoveReply:
    """Ask an engine for a move, timing it and classifying any failure.

    SimpleEngine.play has no timeout for clock limits, so the protocol call
    is wrapped in our own watchdog to survive a hung engine.
    """
    try:
        engine = slot.engine  # a (re)start happens here, before the clock runs
        start = time.perf_counter()
        coro = asyncio.wait_for(engine.protocol.play(board, limit, game=game_key, info=MOVE_INFO), watchdog)
        played = asyncio.run_coroutine_threadsafe(coro, engine.protocol.loop).result()
        elapsed = time.perf_counter() - start
    except Exception as err:
        slot.discard()
        kind, detail = classify_failure(err)
        return MoveReply(None, 0.0, forfeit=kind, detail=detail)
    if played.resigned:
        return MoveReply(None, elapsed, played.info, resigned=True)
    if played.move is None:
        return MoveReply(None, elapsed, played.info, forfeit=ILLEGAL, detail="no move (null bestmove)")
    if played.move not in board.legal_moves:
        return MoveReply(played.move, elapsed, played.info, forfeit=ILLEGAL, detail=f"illegal move {played.move}")
    return MoveReply(played.move, elapsed, played.info)


def classify_failure(err: Exception) -> tuple[str, str]:
    """Map an exception from a move request to a forfeit kind and a description.

    python-chess reports an illegal bestmove as an EngineError wrapping the
    ValueError from move parsing, so that case is told apart from other
    protocol errors.
    """
    if isinstance(err, TimeoutError):
        return TIME, "no move before the watchdog"
    if isinstance(err, chess.engine.EngineTerminatedError):
        return CRASH, f"engine terminated: {err}"
    if isinstance(err, chess.engine.EngineError) and err.args and isinstance(err.args[0], ValueError):
        return ILLEGAL, str(err.args[0])
    if isinstance(err, chess.engine.EngineError):
        return PROTOCOL, f"protocol error: {err}"
    if isinstance(err, OSError):
        return CRASH, f"engine failed to start: {err}"
    return PROTOCOL, f"{type(err).__name__}: {err}"


def natural_end(board: chess.Board, plies: int, max_plies: int) -> tuple[str, str] | None:
    """Result and reason when the rules (or the ply cap) end the game."""
    outcome = board.outcome(claim_draw=True)
    if outcome is not None:
        return outcome.result(), outcome.termination.name.lower().replace("_", " ")
    if plies >= max_plies:
        return "1/2-1/2", f"ply cap ({max_plies})"
    return None


def loss_for(side: chess.Color) -> str:
    return "0-1" if side == chess.WHITE else "1-0"


def loss_reason(side: chess.Color, reply: MoveReply) -> str:
    colour = chess.COLOR_NAMES[side]
    return f"{colour} {reply.forfeit}: {reply.detail}" if reply.forfeit else f"{colour} resigns"


class Adjudicator:
    """Optional early ending from the engines' own scores (off by default).

    Resign: the last RESIGN_PLIES scores (half from each engine) all agree
    that one side is ahead by at least RESIGN_CP. Draw: from game ply
    DRAW_MIN_PLY on, the last DRAW_PLIES scores all lie within DRAW_CP of
    zero. A move without a score breaks the run.
    """
    RESIGN_CP, RESIGN_PLIES = 1000, 6
    DRAW_CP, DRAW_PLIES, DRAW_MIN_PLY = 10, 8, 80

    def __init__(self) -> None:
        self.scores: deque[int | None] = deque(maxlen=max(self.RESIGN_PLIES, self.DRAW_PLIES))

    def update(self, info: dict, ply: int) -> tuple[str, str] | None:
        """Record the mover's score (as White's view) and rule if the run is long enough."""
        score = info.get("score")
        self.scores.append(score.white().score(mate_score=100_000) if score else None)
        recent = list(self.scores)
        resign_run = recent[-self.RESIGN_PLIES:]
        if len(resign_run) == self.RESIGN_PLIES and None not in resign_run:
            if all(s >= self.RESIGN_CP for s in resign_run):
                return "1-0", "adjudication: black is lost"
            if all(s <= -self.RESIGN_CP for s in resign_run):
                return "0-1", "adjudication: white is lost"
        draw_run = recent[-self.DRAW_PLIES:]
        if (ply >= self.DRAW_MIN_PLY and len(draw_run) == self.DRAW_PLIES and None not in draw_run
                and all(abs(s) <= self.DRAW_CP for s in draw_run)):
            return "1/2-1/2", "adjudication: drawn"
        return None


def move_comment(reply: MoveReply) -> str:
    """PGN comment in cutechess style: score/depth and time used."""
    score, depth = reply.info.get("score"), reply.info.get("depth")
    parts = []
    if score is not None:
        pov = score.relative  # the mover's point of view
        text = f"#{pov.mate():+d}" if pov.is_mate() else f"{pov.score() / 100:+.2f}"
        parts.append(f"{text}/{depth}" if depth else text)
    parts.append(f"{reply.elapsed:.3f}s")
    return " ".join(parts)


_COMMENT_SCORE = re.compile(r"\s*(#)?([+-]?\d+(?:\.\d+)?)/\d+")


def comment_score(comment: str) -> float | None:
    """The mover's score in pawns read back from a move_comment ('+0.32/8 0.605s'); a mate
    ('#+3/12') as +-100; None without a score (book moves, no depth)."""
    m = _COMMENT_SCORE.match(comment)
    if not m:
        return None
    value = float(m.group(2))
    return math.copysign(100.0, value) if m.group(1) else value


def play_game(job: GameJob, slots: dict[bool, EngineSlot], settings: MatchSettings) -> GameResult:
    """Play one game from its opening to the end; slots maps colour -> engine."""
    tc = settings.tc
    board = job.opening.copy()
    clocks = {chess.WHITE: tc.base or 0.0, chess.BLACK: tc.base or 0.0}
    comments: list[str] = []
    adjudicator = Adjudicator() if settings.adjudicate else None
    game_key = object()  # a fresh key makes python-chess send ucinewgame/new
    forfeit = loser = None
    while (end := natural_end(board, len(comments), settings.max_plies)) is None:
        side = board.turn
        reply = request_move(slots[side], board, side_limit(tc, slots[side].spec, clocks, game_key),
                             game_key, tc.watchdog(clocks[side]))
        if reply.forfeit is None and tc.overran(reply.elapsed, clocks[side]):
            reply.forfeit = TIME
            reply.detail = f"used {reply.elapsed:.3f}s with {clocks[side]:.3f}s left"
        if reply.forfeit or reply.resigned:
            forfeit, loser = reply.forfeit, side
            end = loss_for(side), loss_reason(side, reply)
            break
        clocks[side] += tc.increment - reply.elapsed
        board.push(reply.move)
        comments.append(move_comment(reply))
        if adjudicator and (end := adjudicator.update(reply.info, board.ply())):
            break
    result, reason = end
    loser_is_a = None if loser is None else (loser == chess.WHITE) == job.a_is_white
    pgn = format_pgn(job, board, comments, result, reason, settings)
    return GameResult(job, result, reason, forfeit, loser_is_a, pgn)


def format_pgn(job: GameJob, board: chess.Board, comments: list[str],
               result: str, reason: str, settings: MatchSettings) -> str:
    """The finished game as PGN text, opening moves included and marked."""
    game = chess.pgn.Game.from_board(board)
    white, black = settings.names if job.a_is_white else settings.names[::-1]
    game.headers.update({
        "Event": settings.event, "Site": "local", "Date": date.today().strftime("%Y.%m.%d"),
        "Round": str(job.number), "White": white, "Black": black, "Result": result,
        "TimeControl": settings.tc.label(), "Opening": f"book #{job.opening_index}",
        "Termination": reason,
    })
    nodes = list(game.mainline())
    book_plies = len(nodes) - len(comments)
    if book_plies:
        nodes[book_plies - 1].comment = "end of book"
    for node, comment in zip(nodes[book_plies:], comments):
        node.comment = comment
    if nodes:
        nodes[-1].comment = f"{nodes[-1].comment}; {reason}".lstrip("; ")
    else:
        game.comment = reason
    return str(game) + "\n\n"


# --------------------------------------------------------------------------
# Running the match
# --------------------------------------------------------------------------

def worker(specs: tuple[EngineSpec, EngineSpec], jobs: queue.Queue, results: queue.Queue,
           stop: threading.Event, settings: MatchSettings) -> None:
    """Play games from the queue with this worker's own pair of engines."""
    slot_a, slot_b = EngineSlot(specs[0]), EngineSlot(specs[1])
    try:
        while not stop.is_set():
            try:
                job = jobs.get_nowait()
            except queue.Empty:
                break
            slots = {chess.WHITE: slot_a if job.a_is_white else slot_b,
                     chess.BLACK: slot_b if job.a_is_white else slot_a}
            results.put(play_game(job, slots, settings))
    except BaseException as err:  # report, so the main thread never waits forever
        results.put(err)
    finally:
        slot_a.close()
        slot_b.close()
        results.put(None)


@dataclass
class Tally:
    """Running score from A's point of view, plus forfeits per engine.

    Games are counted one by one (W/D/L) and, once both games of an opening
    are in, as a pair in the pentanomial counts [LL, LD, DD+WL, WD, WW].
    """
    wins: int = 0
    draws: int = 0
    losses: int = 0
    pentanomial: list = field(default_factory=lambda: [0] * len(PAIR_SCORES))
    forfeits: Counter = field(default_factory=Counter)  # (is_a, kind) -> count
    first_of_pair: dict = field(default_factory=dict)   # pair -> A's points in its first finished game

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def pairs(self) -> int:
        return sum(self.pentanomial)

    @property
    def unpaired(self) -> int:
        """Finished games whose partner is missing (an odd last game, or a stopped match)."""
        return len(self.first_of_pair)

    def add(self, game: GameResult) -> None:
        if game.a_points == 1.0:
            self.wins += 1
        elif game.a_points == 0.5:
            self.draws += 1
        else:
            self.losses += 1
        if game.forfeit:
            self.forfeits[(game.loser_is_a, game.forfeit)] += 1
        pair = game.job.pair
        if pair in self.first_of_pair:
            self.pentanomial[pentanomial_index(self.first_of_pair.pop(pair), game.a_points)] += 1
        else:
            self.first_of_pair[pair] = game.a_points



SPRT_MODELS = ("pentanomial", "trinomial")
# Beyond this the expected score rounds to 0 or 1 and no distribution has it as its mean.
MAX_SPRT_ELO = 2000.0


@dataclass(frozen=True)
class SprtSettings:
    """--sprt: H0 Elo = elo0 against H1 Elo = elo1 (logistic Elo), error rates, model.

    The pentanomial model (the default) tests game pairs, as fishtest and
    fastchess do; the trinomial one treats every game as independent.
    """
    elo0: float
    elo1: float
    alpha: float
    beta: float
    model: str = SPRT_MODELS[0]

    def llr(self, tally: Tally, model: str | None = None) -> float:
        """The log-likelihood ratio so far, under this test's model unless told otherwise."""
        if (model or self.model) == "trinomial":
            return sprt_llr(tally.wins, tally.draws, tally.losses, self.elo0, self.elo1)
        return sprt_llr_pentanomial(tally.pentanomial, self.elo0, self.elo1)

    def decision(self, tally: Tally) -> str | None:
        return sprt_decision(self.llr(tally), self.alpha, self.beta)

    def bounds_label(self) -> str:
        lower, upper = sprt_bounds(self.alpha, self.beta)
        return f"{lower:+.2f}..{upper:+.2f}"


def progress_bar(done: int, total: int, width: int = 30) -> str:
    filled = round(width * done / total) if total else width
    return "[" + "#" * filled + "-" * (width - filled) + "]"


def format_elo(value: float) -> str:
    if not math.isfinite(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value + 0.0:+.1f}"  # + 0.0 turns -0.0 into 0.0


def progress_line(tally: Tally, total: int, sprt: SprtSettings | None) -> str:
    """One-line running score, cutechess style, with the SPRT LLR when active."""
    score = score_fraction(tally.wins, tally.draws, tally.losses)
    line = (f"  Score of A vs B: {tally.wins} - {tally.losses} - {tally.draws} "
            f"[{score:.3f}] {tally.games}/{total} {progress_bar(tally.games, total)}")
    if sprt:
        line += f"  LLR {sprt.llr(tally):+.2f} ({sprt.bounds_label()}, {tally.pairs} pairs)"
    return line


def game_line(game: GameResult, settings: MatchSettings) -> str:
    white, black = settings.names if game.job.a_is_white else settings.names[::-1]
    return (f"Finished game {game.job.number} ({white} vs {black}, book #{game.job.opening_index}): "
            f"{game.result} {{{game.reason}}}")


def print_summary(tally: Tally, settings: MatchSettings, sprt: SprtSettings | None,
                  sprt_result: str | None, elapsed: float) -> None:
    """Final report: W/D/L, pairs, Elo with error bar and LOS per pair and per game, forfeits, SPRT."""
    w, d, l = tally.wins, tally.draws, tally.losses
    name_a, name_b = settings.names
    print()
    print(f"Match: A = {name_a}  vs  B = {name_b}  ({settings.tc.label()}, {elapsed:.0f}s)")
    print(f"Games: {tally.games}   A: +{w} ={d} -{l}   "
          f"score {100 * score_fraction(w, d, l):.1f}%   draw ratio {100 * d / max(1, tally.games):.1f}%")
    unpaired = tally.unpaired
    left_out = (f"   ({unpaired} unpaired game{'s' if unpaired != 1 else ''} left out of the pair figures)"
                if unpaired else "")
    print(f"Pairs: {tally.pairs}   A scoring 0, 0.5, 1, 1.5, 2: {tally.pentanomial}{left_out}")
    elo, margin = pentanomial_elo_with_margin(tally.pentanomial)
    alike = "   (every pair scored the same: no spread to measure)" if (
        tally.pairs > 1 and tally.pentanomial.count(tally.pairs) == 1) else ""
    print(f"Elo difference (A - B), pairs (pentanomial): {format_elo(elo)} +/- {margin:.1f} (95%)   "
          f"LOS: {100 * pentanomial_los(tally.pentanomial):.1f}%{alike}")
    nelo, nmargin = pentanomial_nelo_with_margin(tally.pentanomial)
    print(f"Normalized Elo (A - B), pairs:               {format_elo(nelo)} +/- {nmargin:.1f} (95%)")
    elo, margin = elo_with_margin(w, d, l)
    print(f"Elo difference (A - B), games (trinomial):   {format_elo(elo)} +/- {margin:.1f} (95%)   "
          f"LOS: {100 * likelihood_of_superiority(w, l):.1f}%")
    for is_a, name in ((True, name_a), (False, name_b)):
        counts = ", ".join(f"{kind}: {tally.forfeits[(is_a, kind)]}" for kind in FORFEIT_KINDS)
        print(f"Forfeits by {'A' if is_a else 'B'} ({name}): {counts}")
    if sprt:
        verdict = {"H1": "H1 accepted", "H0": "H0 accepted", None: "inconclusive"}[sprt_result]
        other = next(model for model in SPRT_MODELS if model != sprt.model)
        print(f"SPRT ({sprt.model}, logistic Elo) elo0={sprt.elo0:g} elo1={sprt.elo1:g} "
              f"alpha={sprt.alpha:g} beta={sprt.beta:g}: LLR {sprt.llr(tally):+.2f} "
              f"{sprt.bounds_label()} -> {verdict}   ({other} LLR {sprt.llr(tally, other):+.2f})")


def stop_with_summary_on_signals() -> None:
    """Ctrl-C and `kill` (SIGTERM) both end the match with the summary of the finished
    games, also when it runs in the background, where a shell starts it ignoring SIGINT."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGINT, interrupt)
    signal.signal(signal.SIGTERM, interrupt)


def run_match(specs: tuple[EngineSpec, EngineSpec], jobs: list[GameJob], settings: MatchSettings,
              concurrency: int, pgn_path: Path | None, sprt: SprtSettings | None) -> None:
    """Run the games on `concurrency` workers, report progress, stop on an SPRT verdict."""
    job_queue: queue.Queue = queue.Queue()
    for job in jobs:
        job_queue.put(job)
    results: queue.Queue = queue.Queue()
    stop = threading.Event()
    workers = [threading.Thread(target=worker, args=(specs, job_queue, results, stop, settings), daemon=True)
               for _ in range(max(1, min(concurrency, len(jobs))))]
    for thread in workers:
        thread.start()
    tally, sprt_result, running, started = Tally(), None, len(workers), time.monotonic()
    pgn_file = pgn_path.open("a", encoding="utf-8") if pgn_path else None
    try:
        while running:
            item = results.get()
            if item is None:
                running -= 1
                continue
            if isinstance(item, BaseException):
                stop.set()
                raise item
            tally.add(item)
            if pgn_file:
                pgn_file.write(item.pgn)
                pgn_file.flush()
            print(game_line(item, settings))
            print(progress_line(tally, len(jobs), sprt), flush=True)
            if sprt and sprt_result is None:
                sprt_result = sprt.decision(tally)
                if sprt_result:
                    print(f"SPRT: {sprt_result} accepted; finishing games in progress")
                    stop.set()
    except KeyboardInterrupt:
        stop.set()
        print("\ninterrupted: summary of the finished games")
    finally:
        if pgn_file:
            pgn_file.close()
    print_summary(tally, settings, sprt, sprt_result, time.monotonic() - started)


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------

def add_engine_arguments(parser: argparse.ArgumentParser, letter: str) -> None:
    group = parser.add_argument_group(f"engine {letter.upper()}")
    group.add_argument(f"-{letter}", f"--engine-{letter}", required=True, metavar="CMD",
                       help="command line that starts the engine (shlex-split)")
    group.add_argument(f"--{letter}-protocol", choices=("uci", "xboard"), default="uci")
    group.add_argument(f"--{letter}-option", action="append", nargs="+", metavar="NAME=VALUE",
                       help="engine option(s), e.g. UCI_LimitStrength=true UCI_Elo=1800")
    group.add_argument(f"--{letter}-name", help="name in the PGN (default: the engine's own)")
    group.add_argument(f"--{letter}-nodes", type=int, metavar="N",
                       help="with --nodes: this engine's own budget a move (e.g. the faster side "
                            "of an A/B pair given more, by the ratio of its speed)")


def engine_spec(args: argparse.Namespace, letter: str) -> EngineSpec:
    return EngineSpec(command=tuple(shlex.split(getattr(args, f"engine_{letter}"))),
                      protocol=getattr(args, f"{letter}_protocol"),
                      options=parse_option_items(getattr(args, f"{letter}_option")),
                      name=getattr(args, f"{letter}_name"),
                      nodes=getattr(args, f"{letter}_nodes"))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog=__doc__.split("\n\n", 1)[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_engine_arguments(parser, "a")
    add_engine_arguments(parser, "b")
    parser.add_argument("--games", type=int, default=20, help="number of games (default 20)")
    parser.add_argument("--openings", help="book: a path, or a file name in data/openings (or ../shared/data/openings) "
                        f"(default {DEFAULT_BOOK}; {DEFAULT_BOOK_960} with --chess960)")
    parser.add_argument("--seed", type=int, default=1, help="picks the openings (default 1)")
    parser.add_argument("--chess960", action="store_true", help="play Chess960 (FRC_openings.epd)")
    limits = parser.add_mutually_exclusive_group()
    limits.add_argument("--tc", type=parse_tc, default=None, metavar="BASE+INC",
                        help="clock in seconds, e.g. 10+0.1 (the default)")
    limits.add_argument("--st", type=float, metavar="SECONDS", help="fixed time per move")
    limits.add_argument("--nodes", type=int, help="fixed node budget per move")
    parser.add_argument("--timemargin", type=float, default=0.0, metavar="SECONDS",
                        help="clock overrun tolerated before a time loss (default 0)")
    parser.add_argument("--move-timeout", type=float, default=60.0, metavar="SECONDS",
                        help="with --nodes: a move taking longer counts as a time loss (default 60)")
    parser.add_argument("--concurrency", type=int, default=2, help="games at a time (default 2)")
    parser.add_argument("--pgn", type=Path, help="append finished games to this PGN file")
    parser.add_argument("--max-plies", type=int, default=400,
                        help="plies after the opening before the game is drawn (default 400)")
    parser.add_argument("--adjudicate", action="store_true",
                        help="end hopeless games (both sides' scores beyond 10 pawns for 6 plies) "
                             "and dead draws (|score| <= 0.1 for 8 plies after ply 80)")
    parser.add_argument("--sprt", type=float, nargs=4, metavar=("ELO0", "ELO1", "ALPHA", "BETA"),
                        help="stop early when the SPRT accepts H0 or H1 (ELO0, ELO1 in logistic Elo)")
    parser.add_argument("--sprt-model", choices=SPRT_MODELS, default=SPRT_MODELS[0],
                        help="what the SPRT counts: game pairs (pentanomial, the default, as fishtest) "
                             "or single games (trinomial)")
    parser.add_argument("--event", default="Basilisk match", help="PGN Event tag")
    parser.add_argument("--verbose", action="store_true", help="show python-chess warnings")
    return parser


def sprt_settings(args: argparse.Namespace, parser: argparse.ArgumentParser) -> SprtSettings | None:
    """The --sprt test, or a usage error for bounds the test cannot work with."""
    if not args.sprt:
        return None
    elo0, elo1, alpha, beta = args.sprt
    if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0):
        parser.error("--sprt: ALPHA and BETA must lie strictly between 0 and 1")
    if elo0 == elo1 or max(abs(elo0), abs(elo1)) > MAX_SPRT_ELO:
        parser.error(f"--sprt: ELO0 and ELO1 must differ and lie within +/-{MAX_SPRT_ELO:g}")
    return SprtSettings(elo0, elo1, alpha, beta, args.sprt_model)


def make_time_control(args: argparse.Namespace) -> TimeControl:
    if args.st is not None:
        return TimeControl(movetime=args.st, margin=args.timemargin)
    if args.nodes is not None:
        return TimeControl(nodes=args.nodes, move_timeout=args.move_timeout)
    base, inc = args.tc or (10.0, 0.1)
    return TimeControl(base=base, increment=inc, margin=args.timemargin)


def make_jobs(args: argparse.Namespace) -> list[GameJob]:
    """Pair each picked opening with both colour assignments."""
    book = shared_data_file(args.openings or (DEFAULT_BOOK_960 if args.chess960 else DEFAULT_BOOK), "openings")
    records = read_opening_records(book)
    if not records:
        sys.exit(f"error: no openings in {book}")
    is_pgn = book.suffix.lower() == ".pgn"
    picks = pick_openings(records, math.ceil(args.games / 2), args.seed)
    boards = {index: parse_opening(records[index], is_pgn, args.chess960) for index in set(picks)}
    print(f"Openings: {len(set(picks))} from {book} (seed {args.seed})")
    return [GameJob(number, picks[(number - 1) // 2], boards[picks[(number - 1) // 2]], number % 2 == 1)
            for number in range(1, args.games + 1)]


AUTOGROUP_SWITCH = Path("/proc/sys/kernel/sched_autogroup_enabled")


def autogroup_warning(timed: bool, switch: Path = AUTOGROUP_SWITCH) -> str | None:
    """A warning for a timed match while the kernel's autogroup scheduling is on: then
    nice does not keep other sessions' work from slowing the engines (docs/development.md)."""
    if not timed:
        return None
    try:
        if switch.read_text().strip() != "1":
            return None
    except OSError:
        return None
    return (f"warning: {switch} is 1, so niced work in other sessions still takes an equal "
            "share of the CPU from this timed match (as root: echo 0 > that file)")


def distinct_names(name_a: str, name_b: str) -> tuple[str, str]:
    """Keep self-play PGNs readable by telling equal names apart."""
    return (f"{name_a} (A)", f"{name_b} (B)") if name_a == name_b else (name_a, name_b)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    sprt = sprt_settings(args, parser)
    logging.basicConfig(level=logging.WARNING if args.verbose else logging.ERROR)
    specs = (engine_spec(args, "a"), engine_spec(args, "b"))
    for spec, letter in zip(specs, "ab"):
        if spec.nodes is not None and (args.nodes is None or spec.nodes < 1):
            parser.error(f"--{letter}-nodes needs --nodes, and a budget of 1 or more")
    jobs = make_jobs(args)
    openings = [job.opening for job in jobs]
    names = distinct_names(*(inspect_engine(spec, openings, args.chess960) for spec in specs))
    settings = MatchSettings(tc=make_time_control(args), max_plies=args.max_plies,
                             adjudicate=args.adjudicate, event=args.event,
                             names=names)
    for letter, name, spec in zip("AB", settings.names, specs):
        own = f"  ({spec.nodes} nodes a move)" if spec.nodes is not None else ""
        print(f"{letter}: {name}  [{shlex.join(spec.command)}]{own}")
    warning = autogroup_warning(args.nodes is None)
    if warning:
        print(warning, file=sys.stderr)
    stop_with_summary_on_signals()
    run_match(specs, jobs, settings, args.concurrency, args.pgn, sprt)
    return 0


if __name__ == "__main__":
    sys.exit(main())
