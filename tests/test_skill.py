"""Strength levels (engine.skill): the options, the untouched full-strength search, the
weakened search's node budgets and legal moves, the seeded random choice, and a weakened
engine under python-chess's `chess.engine` as a strict client."""

import io
import logging
import random
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine import skill
from engine.engine import Engine
from engine.movegen import generate_moves
from engine.position import Position
from engine.search import Searcher
from engine.skill import SkillPlan, pick_index, strength_level
from engine.timeman import Limits, plan_search
from engine.uci import UciSession

import chess  # noqa: E402  (the oracle: missing, the run must fail, not skip)
import chess.engine  # noqa: E402

from test_uci import ProtocolProblems  # noqa: E402  (python-chess's warnings about an engine)

REPO = Path(__file__).resolve().parent.parent
ENGINE_CMD = [sys.executable, "-m", "engine"]
FENS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - - 0 1",
    "8/8/1p1k4/p1p5/P1P2K2/1P6/8/8 w - - 0 1",
    "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
]


def run_go(engine, fen, strength=None, depth=None, nodes=None, multipv=1):
    """One `go` through the facade; (best, ponder, info dicts, nodes searched)."""
    pos = Position(fen)
    limits = Limits()
    limits.depth, limits.nodes = depth, nodes
    legal = generate_moves(pos)
    infos, result = [], []
    engine.go(pos, limits, plan_search(limits, pos.turn, len(legal)), legal, multipv,
              on_info=infos.append, on_bestmove=lambda best, ponder: result.append((best, ponder)),
              strength=strength)
    assert engine.wait_idle(60)
    assert len(result) == 1
    return result[0][0], result[0][1], infos, engine.searcher.nodes


def assert_legal(fen, move, ponder=0):
    from engine.notation import move_to_uci
    board = chess.Board(fen)
    played = chess.Move.from_uci(move_to_uci(move))
    assert played in board.legal_moves, "illegal %s in %s" % (played, fen)
    if ponder:
        board.push(played)
        assert chess.Move.from_uci(move_to_uci(ponder)) in board.legal_moves


# ---------------------------------------------------------------------- the options
def uci_option_lines():
    out = subprocess.run(ENGINE_CMD, input="uci\nquit\n", cwd=str(REPO), capture_output=True,
                         text=True, timeout=60)
    return [line for line in out.stdout.splitlines() if line.startswith("option name ")]


def test_options_in_uci_with_type_default_and_range():
    lines = uci_option_lines()
    assert "option name UCI_LimitStrength type check default false" in lines
    assert ("option name UCI_Elo type spin default %d min %d max %d"
            % (skill.DEFAULT_ELO, skill.MIN_ELO, skill.MAX_ELO)) in lines
    assert ("option name Skill Level type spin default %d min %d max %d"
            % (skill.MAX_LEVEL, skill.MIN_LEVEL, skill.MAX_LEVEL)) in lines
    # the defaults are full strength, and the Elo default is a level in between
    assert strength_level(False, skill.DEFAULT_ELO, skill.MAX_LEVEL) is None
    assert 0 < strength_level(True, skill.DEFAULT_ELO, skill.MAX_LEVEL) < skill.MAX_LEVEL


def test_level_mapping():
    assert strength_level(False, 800, 20) is None
    assert strength_level(False, 800, 0) == 0
    assert strength_level(False, 1900, 7) == 7
    assert strength_level(True, skill.MAX_ELO, 0) is None          # LimitStrength wins
    assert strength_level(True, skill.MIN_ELO, 20) == pytest.approx(skill.ELO_AT_LEVEL[0][0])
    for level, elo in skill.ELO_AT_LEVEL[:-1]:      # each calibration point, both ways
        assert strength_level(True, elo, 3) == pytest.approx(level)
        assert skill.elo_for_level(level) == pytest.approx(elo)
    assert strength_level(True, skill.ELO_AT_LEVEL[-1][1], 3) is None
    assert strength_level(True, 100, 20) == 0 and strength_level(False, 0, 99) is None
    levels = [strength_level(True, elo, 20) for elo in range(skill.MIN_ELO, skill.MAX_ELO, 10)]
    below_full = [level for level in levels if level is not None]
    assert below_full == sorted(below_full) and len(set(below_full)) == len(below_full)
    assert levels[len(below_full):] == [None] * (len(levels) - len(below_full))
    # halfway between two points is halfway between their levels
    (l0, e0), (l1, e1) = skill.ELO_AT_LEVEL[1:3]
    assert strength_level(True, (e0 + e1) / 2, 20) == pytest.approx((l0 + l1) / 2)
    # below the first point the first segment goes on (Skill Level 0 is weaker than MIN_ELO)
    assert skill.elo_for_level(0) < skill.MIN_ELO
    assert skill.level_for_elo(skill.elo_for_level(2.5)) == pytest.approx(2.5)


def test_the_table_grows_with_the_level():
    plans = [SkillPlan(level) for level in range(skill.MAX_LEVEL)]
    for weaker, stronger in zip(plans, plans[1:]):
        assert weaker.depth <= stronger.depth and weaker.nodes <= stronger.nodes
        assert weaker.weakness > stronger.weakness
    assert plans[0].nodes >= skill.MIN_NODES and plans[0].depth >= 1
    assert plans[-1].nodes > plans[0].nodes and plans[-1].depth > plans[0].depth


# ---------------------------------------------------------------------- full strength untouched
def test_options_off_leave_the_search_untouched():
    """Through the UCI session, with the options off but non-default: the same best move
    and node count at depth 6 as a bare Searcher."""
    fen = FENS[1]
    searcher = Searcher(16)
    limits = Limits()
    limits.depth = 6
    bare_best, _ = searcher.search(Position(fen), limits, plan_search(limits, 0, 30))
    out = io.StringIO()
    session = UciSession(out=out)
    session.loader.start()
    for line in ("setoption name UCI_LimitStrength value false", "setoption name UCI_Elo value 800",
                 "setoption name Skill Level value 20", "position fen " + fen, "go depth 6"):
        session.handle_line(line)
    assert session.engine.wait_idle(60)
    lines = out.getvalue().splitlines()
    last_info = [line for line in lines if line.startswith("info depth 6 ")][-1]
    assert int(re.search(r" nodes (\d+)", last_info).group(1)) == searcher.nodes
    from engine.notation import move_to_uci
    assert lines[-1].split()[1] == move_to_uci(bare_best)


def test_strength_options_weaken_go_through_the_uci():
    """The options reach the search through the UCI: `go depth 8` at Skill Level 0, and at
    UCI_LimitStrength + UCI_Elo 800 (which wins over Skill Level 20), searches no deeper
    and no more nodes than the level's SkillPlan allows (from the start position the node
    budget is what binds, in a K+P v K ending the depth cap); with a clock the level still
    thinks its pause; set back to full strength, the same `go depth 8` reaches depth 8."""
    out = io.StringIO()
    session = UciSession(out=out)
    session.loader.start()

    def go(*commands, position="startpos", go_line="go depth 8"):
        """(output lines, deepest info depth, nodes searched, seconds) of one `go`."""
        mark = len(out.getvalue())
        started = time.perf_counter()
        for line in commands + ("position " + position, go_line):
            session.handle_line(line)
        assert session.engine.wait_idle(60)
        seconds = time.perf_counter() - started
        lines = out.getvalue()[mark:].splitlines()
        infos = [line for line in lines if line.startswith("info depth ")]
        assert infos and lines[-1].startswith("bestmove "), lines
        fen = chess.STARTING_FEN if position == "startpos" else position[len("fen "):]
        assert chess.Move.from_uci(lines[-1].split()[1]) in chess.Board(fen).legal_moves, lines
        return lines, max(int(line.split()[2]) for line in infos), session.engine.searcher.nodes, seconds

    session.handle_line("debug on")
    for commands, level in (
            (("setoption name Skill Level value 0",), strength_level(False, 1500, 0)),
            (("setoption name Skill Level value 20", "setoption name UCI_LimitStrength value true",
              "setoption name UCI_Elo value 800"), strength_level(True, 800, 20))):
        plan = SkillPlan(level)
        assert plan.depth < 8
        for position in ("startpos", "fen 8/8/8/4k3/8/8/4PK2/8 w - - 0 1"):
            lines, depth, nodes, _ = go(*commands, position=position)
            commands = ()
            assert "info string strength level %.1f" % level in lines, lines
            # the node limit is exact, and one ply of these positions fits in the budget
            # many times over (no second search of a cut first ply)
            assert depth <= plan.depth and nodes <= plan.nodes, (position, level, depth, nodes)
    # with a clock: still the level's depth, and at least its think pause (a lower bound
    # on wall time: a loaded machine only makes it longer)
    lines, depth, _, seconds = go("setoption name UCI_LimitStrength value false",
                                  "setoption name Skill Level value 0",
                                  go_line="go wtime 10000 btime 10000")
    plan = SkillPlan(0)
    soft_ms = float(re.search(r"soft (\d+) ms", "\n".join(lines)).group(1))
    assert depth <= plan.depth
    assert seconds * 1000 >= plan.think_ms(soft_ms) - 1, (seconds, soft_ms)
    # back to full strength: the depth asked for, and no level
    lines, depth, _, _ = go("setoption name Skill Level value 20")
    assert depth == 8 and not any("strength level" in line for line in lines), lines


# ---------------------------------------------------------------------- weakened searches
def test_levels_give_legal_moves_and_fewer_nodes_lower_down():
    engine = Engine(hash_mb=4)
    engine.skill_rng.seed(7)
    totals = {}
    for level in (0, 6, 12, 19):
        total = 0
        for fen in FENS:
            engine.new_game()
            best, ponder, infos, nodes = run_go(engine, fen, strength=level)
            assert_legal(fen, best, ponder)
            assert infos and all(info.get("multipv") == 1 for info in infos)
            # within the budget, or a second search of the one ply the budget cut short
            assert nodes <= SkillPlan(level).nodes or max(info["depth"] for info in infos) == 1
            pv = infos[-1]["pv"]
            assert pv[0] == best        # the last line the GUI sees is the move played
            total += nodes
        totals[level] = total
    print("\nnodes over %d positions by level: %s" % (len(FENS), totals))
    assert totals[0] < totals[6] < totals[12] < totals[19]


def test_a_level_limits_depth_and_nodes_given_by_go():
    engine = Engine(hash_mb=4)
    _, _, infos, nodes = run_go(engine, FENS[2], strength=19, depth=2)
    assert max(info["depth"] for info in infos) <= 2
    _, _, _, nodes = run_go(engine, FENS[2], strength=19, nodes=700)
    assert nodes <= 700


def test_the_weakened_choice_is_seeded_deterministic():
    def moves(seed):
        engine = Engine(hash_mb=4)
        engine.skill_rng.seed(seed)
        return [run_go(engine, fen, strength=2)[0] for fen in FENS for _ in range(2)]
    first = moves(11)
    assert first == moves(11)
    assert any(moves(seed) != first for seed in (12, 13, 14))     # the seed matters


def complete_candidates(infos, count):
    """{multipv: first move} of the deepest iteration that reported all ``count`` exact
    lines (what a weak level chooses among; the GUI asked for all of them)."""
    by_depth = {}
    for info in infos:
        if info.get("bound") or info.get("final") or not info.get("pv"):
            continue
        by_depth.setdefault(info["depth"], {})[info["multipv"]] = info["pv"][0]
    complete = [depth for depth, lines in by_depth.items() if len(lines) == count]
    assert complete, infos
    return by_depth[max(complete)]


def test_a_weak_level_plays_other_moves_than_the_best_among_its_candidates():
    """Level 0 over the positions and a few seeds: each move is legal and one of the
    candidate lines of its last complete iteration, and some are not the best of them
    nor the full-strength best at the level's depth (an engine that never randomised,
    always playing its search's best, fails this)."""
    plan = SkillPlan(0)
    engine = Engine(hash_mb=4)
    chosen = other_than_best = other_than_full = 0
    for fen in FENS:
        count = min(skill.MULTIPV, len(generate_moves(Position(fen))))
        engine.new_game()
        full_best = run_go(engine, fen, depth=plan.depth)[0]
        for seed in range(4):
            engine.new_game()
            engine.skill_rng.seed(seed)
            best, ponder, infos, _ = run_go(engine, fen, strength=0, multipv=count)
            assert_legal(fen, best, ponder)
            candidates = complete_candidates(infos, count)
            assert best in candidates.values(), (fen, seed, best, candidates)
            chosen += 1
            other_than_best += best != candidates[1]
            other_than_full += best != full_best
    print("\nlevel 0: %d of %d moves not the best candidate, %d not the full-strength best"
          % (other_than_best, chosen, other_than_full))
    assert other_than_best >= 3 and other_than_full >= 3


def test_the_line_played_is_shown_last_with_the_whole_search_cost():
    """With MultiPV 1, a weak level that plays another line than its search's best shows
    that line last (its depth reported a second time), with the nodes and time of the
    whole search, not of the moment the line was first found.  One search, even where the
    budget runs out inside the first ply: the search finishes that ply whatever its budget."""
    replayed = cut = 0
    for fen in FENS:
        for seed in range(3):
            engine = Engine(hash_mb=4)
            engine.skill_rng.seed(seed)
            searched = []
            search = engine.searcher.search

            def counted(*args, **kwargs):
                result = search(*args, **kwargs)
                searched.append(engine.searcher.nodes)
                return result

            engine.searcher.search = counted
            # level 5: depth 2 at most, whose 4-line iteration the budget cuts (after the
            # first ply's lines were reported) from the first three positions
            best, _, infos, _ = run_go(engine, fen, strength=5)
            last = infos[-1]
            assert last["pv"][0] == best and last["multipv"] == 1
            before = [info for info in infos[:-1] if info["depth"] == last["depth"]]
            assert len(searched) == 1
            if before and before[-1]["pv"][0] != best:
                replayed += 1
                assert last["nodes"] == searched[0], (last, searched)
                assert last["time"] >= before[-1]["time"]
                cut += searched[0] > before[-1]["nodes"]
    assert replayed >= 3 and cut >= 2


def test_multipv_shows_the_lines_asked_for():
    engine = Engine(hash_mb=4)
    _, _, infos, _ = run_go(engine, FENS[1], strength=10, multipv=2)
    assert {info["multipv"] for info in infos} == {1, 2}


# ---------------------------------------------------------------------- the random choice
def choice_counts(scores, level, trials=3000, seed=5):
    rng = random.Random(seed)
    weakness = SkillPlan(level).weakness
    counts = [0] * len(scores)
    for _ in range(trials):
        counts[pick_index(scores, weakness, rng)] += 1
    return counts


def test_the_picker_chooses_among_complete_iterations_only():
    picker = SkillPlan(5).picker(legal_count=1)
    line = {"depth": 3, "multipv": 1, "score": 20, "pv": [1], "bound": None}
    picker.add(line)
    # a cut iteration's closing summary (engine.search: "final") is not a candidate
    picker.add({"depth": 4, "multipv": 1, "score": -300, "pv": [2], "bound": None, "final": True})
    picker.add({"depth": 4, "multipv": 1, "score": 90, "pv": [3], "bound": "lower"})
    assert picker.complete == [line]
    assert picker.choose(random.Random(1)) is line


def test_pick_is_seeded_deterministic():
    scores = [40, 35, 10, -30]
    rng_a, rng_b = random.Random(9), random.Random(9)
    picks = [pick_index(scores, 150, rng_a) for _ in range(200)]
    assert picks == [pick_index(scores, 150, rng_b) for _ in range(200)]
    assert len(set(picks)) > 1          # and it is a choice, not a constant


def test_pick_prefers_better_scored_candidates():
    scores = [0, -20, -40, -60]
    strong = choice_counts(scores, 19)            # 10 cp of weakness: always the best
    assert strong[0] == sum(strong)
    middle = choice_counts(scores, 10)            # 100 cp: every candidate, better ones more
    assert middle[0] > middle[1] > middle[2] > middle[3] > 0
    assert middle[0] > 0.4 * sum(middle)
    weak = choice_counts(scores, 0)               # 200 cp: nearly a coin, still ordered
    assert weak[0] > weak[3] > 0.1 * sum(weak)
    assert weak[0] < middle[0]


def test_pick_never_gives_away_more_than_the_weakness():
    weakness = SkillPlan(0).weakness
    scores = [0, -(weakness + 1), -2 * weakness]
    assert choice_counts(scores, 0) == [3000, 0, 0]
    # a mate found is always played; being mated is always avoided
    rng = random.Random(1)
    mate_for_us = [{"score": 300, "pv": [1]}, {"mate": 3, "pv": [2]}]
    values = [skill.line_score(line) for line in mate_for_us]
    assert all(pick_index(values, weakness, rng) == 1 for _ in range(200))
    assert skill.line_score({"mate": -2}) < -skill.line_score({"mate": 5}) < 0


# ---------------------------------------------------------------------- as a GUI sees it
def test_weakened_engine_plays_a_game_through_python_chess():
    """Basilisk at UCI_Elo 1000 (white) against Skill Level 5 (black, pondering) at
    2 s + 0.05 s, 40 plies: legal moves, no protocol problem, no time loss, and the
    weak levels still take a little time per move."""
    handler = ProtocolProblems()
    logger = logging.getLogger("chess.engine")
    logger.addHandler(handler)
    white = chess.engine.SimpleEngine.popen_uci(ENGINE_CMD, cwd=str(REPO), timeout=10)
    black = chess.engine.SimpleEngine.popen_uci(ENGINE_CMD, cwd=str(REPO), timeout=10)
    try:
        white.configure({"UCI_LimitStrength": True, "UCI_Elo": 1000})
        black.configure({"Skill Level": 5})
        board = chess.Board()
        clock = {chess.WHITE: 2.0, chess.BLACK: 2.0}
        spent_by = {chess.WHITE: [], chess.BLACK: []}
        while not board.is_game_over(claim_draw=True) and board.ply() < 40:
            turn = board.turn
            limit = chess.engine.Limit(white_clock=clock[chess.WHITE], black_clock=clock[chess.BLACK],
                                       white_inc=0.05, black_inc=0.05)
            start = time.perf_counter()
            result = (white if turn else black).play(board, limit, ponder=not turn)
            spent = time.perf_counter() - start
            assert result.move in board.legal_moves, (result.move, board.fen())
            clock[turn] -= spent
            assert clock[turn] > 0, "lost on time at ply %d" % board.ply()
            clock[turn] += 0.05
            spent_by[turn].append(spent)
            board.push(result.move)
        print("\nweakened game: %d plies, %s; median move %.0f / %.0f ms" % (
            board.ply(), board.result(claim_draw=True),
            1000 * sorted(spent_by[chess.WHITE])[len(spent_by[chess.WHITE]) // 2],
            1000 * sorted(spent_by[chess.BLACK])[len(spent_by[chess.BLACK]) // 2]))
        # the think pause: not an instant answer (half the ~60 ms plan, less the lag)
        assert sorted(spent_by[chess.WHITE])[len(spent_by[chess.WHITE]) // 2] > 0.02
    finally:
        white.quit()
        black.quit()
        logger.removeHandler(handler)
    assert handler.records == []


def test_weakened_go_infinite_waits_for_stop():
    out = io.StringIO()
    session = UciSession(out=out)
    session.loader.start()
    for line in ("setoption name Skill Level value 3", "position startpos", "go infinite"):
        session.handle_line(line)
    time.sleep(0.5)     # the weak search is long done, but bestmove waits
    assert "bestmove" not in out.getvalue()
    session.handle_line("stop")
    assert session.engine.wait_idle(10)
    assert out.getvalue().count("bestmove") == 1


def start_weak_clocked_search(position, go):
    """(session, out) of a level-0 search started by ``position`` and ``go``, once its quick
    search has reported and settled (0.3 s later) without a bestmove: it waits for its think
    pause, or for ponderhit."""
    out = io.StringIO()
    session = UciSession(out=out)
    session.loader.start()
    for line in ("setoption name Skill Level value 0", position, go):
        session.handle_line(line)
    deadline = time.perf_counter() + 30
    while "info depth" not in out.getvalue() and time.perf_counter() < deadline:
        time.sleep(0.01)
    time.sleep(0.3)
    assert "info depth" in out.getvalue() and "bestmove" not in out.getvalue()
    return session, out


def test_stop_cuts_the_think_pause_short(monkeypatch):
    """A weak level with a clock waits out its think pause before bestmove; `stop` ends
    that wait at once.  The pause is made 9 s here (half the soft limit of a 10-minute
    clock), so only a cut pause answers within the 5 s allowed after stop."""
    monkeypatch.setattr(skill, "THINK_MAX_MS", 60000)
    session, out = start_weak_clocked_search("position startpos", "go wtime 600000 btime 600000")
    stopped = time.perf_counter()
    session.handle_line("stop")
    assert session.engine.wait_idle(5)
    assert time.perf_counter() - stopped < 5
    assert out.getvalue().count("bestmove") == 1


def test_a_weak_level_waits_out_its_think_pause_after_ponderhit(monkeypatch):
    """A weak level's quick search ends long before the GUI's ponderhit; from there its
    clock runs, and the level still thinks its minimum time on it (half the soft limit, at
    most THINK_MAX_MS: 0.6 s here) rather than answering at once, as it did before."""
    monkeypatch.setattr(skill, "THINK_MAX_MS", 600)
    session, out = start_weak_clocked_search("position startpos moves e2e4",
                                             "go ponder wtime 600000 btime 600000")
    hit = time.perf_counter()       # only the ponderhit is awaited now
    session.handle_line("ponderhit")
    assert session.engine.wait_idle(10)
    assert time.perf_counter() - hit >= 0.55
    assert out.getvalue().count("bestmove") == 1


def test_go_mate_searches_at_full_strength_whatever_the_level():
    """A weak level plays a shallow search's pick; `go mate N` asks for a mate search, so it
    is one at full strength: it finds the mate in 3 (WAC.050) that level 0 does not look for,
    and runs until it has it (a weak level's search would end at its depth at once)."""
    out = io.StringIO()
    session = UciSession(out=out)
    session.loader.start()
    for line in ("setoption name UCI_LimitStrength value true",
                 "setoption name UCI_Elo value 800",
                 "position fen k4r2/1R4pb/1pQp1n1p/3P4/5p1P/3P2P1/r1q1R2K/8 w - - 0 1",
                 "go mate 3"):
        session.handle_line(line)
    assert session.engine.wait_idle(60)
    text = out.getvalue()
    assert text.count("bestmove") == 1 and "score mate 3" in text, text[-500:]
    assert text.split("bestmove ")[1].split()[0] == "b7b6"


# ---------------------------------------------------------------------- calibration tooling
def test_calibrate_reads_the_match_summary():
    import calibrate
    text = "\n".join([
        "Match: A = x  vs  B = y  (10+0.1, 600s)",
        "Games: 40   A: +12 =10 -18   score 42.5%   draw ratio 25.0%",
        "Pairs: 20   A scoring 0, 0.5, 1, 1.5, 2: [2, 5, 8, 4, 1]",
        "Elo difference (A - B), pairs (pentanomial): -52.5 +/- 88.1 (95%)   LOS: 12.0%",
        "Elo difference (A - B), games (trinomial):   -52.5 +/- 99.0 (95%)   LOS: 13.0%",
        "Forfeits by A (Basilisk UCI_Elo=1600): time loss: 1, illegal move: 0, crash: 0, protocol error: 0",
        "Forfeits by B (Stockfish UCI_Elo 1600): time loss: 2, illegal move: 1, crash: 0, protocol error: 0",
    ])
    summary = calibrate.parse_summary(text)
    assert summary["games"] == 40 and (summary["wins"], summary["draws"], summary["losses"]) == (12, 10, 18)
    assert summary["score"] == 42.5 and summary["elo"] == -52.5 and summary["margin"] == 88.1
    assert summary["forfeits"] == (1, 3)
    assert calibrate.parse_summary("Games: 0") is None
    # its Skill Level mapping is the engine's
    assert calibrate.elo_for_level is skill.elo_for_level
