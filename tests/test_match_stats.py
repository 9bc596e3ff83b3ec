"""Elo, error bar, LOS and SPRT arithmetic of scripts/match.py (no engines run).

Per game (trinomial W/D/L) and per game pair (pentanomial: pairs scoring
0, 1/2, 1, 3/2, 2 points for A); the pentanomial figures are checked against
second computations written out here: pair scores expanded into a list, and
the SPRT's maximum likelihood found by brute force over a grid.
"""
import itertools
import math
import re
import statistics
import sys
from pathlib import Path

import chess
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import match  # noqa: E402

Z95 = 1.959963984540054


def normal_approx_llr(wins, draws, losses, elo0, elo1):
    """The textbook normal-approximation LLR, written out independently."""
    games = wins + draws + losses
    mean = (wins + draws / 2) / games
    var = (wins * (1 - mean) ** 2 + draws * (0.5 - mean) ** 2 + losses * mean ** 2) / games
    s0 = 1 / (1 + 10 ** (-elo0 / 400))
    s1 = 1 / (1 + 10 ** (-elo1 / 400))
    return games * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)


def test_76_percent_is_about_200_elo():
    elo, _ = match.elo_with_margin(76, 0, 24)
    assert elo == pytest.approx(400 * math.log10(76 / 24))
    assert elo == pytest.approx(200.24, abs=0.01)


def test_even_scores_are_zero_elo():
    assert match.elo_with_margin(50, 0, 50)[0] == pytest.approx(0.0)
    assert match.elo_with_margin(0, 30, 0)[0] == pytest.approx(0.0)
    assert match.elo_with_margin(10, 20, 10)[0] == pytest.approx(0.0)


def test_draws_count_half():
    assert match.score_fraction(2, 2, 0) == pytest.approx(0.75)
    assert match.elo_with_margin(2, 2, 0)[0] == pytest.approx(match.elo_from_score(0.75))


def test_elo_and_expected_score_are_inverse():
    for elo in (-400.0, -35.5, 0.0, 12.0, 200.0, 800.0):
        assert match.elo_from_score(match.expected_score(elo)) == pytest.approx(elo)


def test_perfect_scores_are_unbounded():
    assert match.elo_from_score(1.0) == math.inf
    assert match.elo_from_score(0.0) == -math.inf
    assert match.elo_with_margin(5, 0, 0) == (math.inf, math.inf)


def test_error_bar_for_fifty_fifty():
    # N = 100, per-game variance 1/4: score 0.5 +/- 1.96 * 0.05
    _, margin = match.elo_with_margin(50, 0, 50)
    hi = 0.5 + Z95 * 0.05
    assert margin == pytest.approx(400 * math.log10(hi / (1 - hi)))
    assert margin == pytest.approx(68.99, abs=0.01)


def test_error_bar_is_symmetric_between_the_players():
    elo_a, margin_a = match.elo_with_margin(30, 25, 45)
    elo_b, margin_b = match.elo_with_margin(45, 25, 30)
    assert elo_a == pytest.approx(-elo_b)
    assert margin_a == pytest.approx(margin_b)


def test_error_bar_shrinks_with_the_square_root_of_games():
    _, small = match.elo_with_margin(40, 20, 40)
    _, large = match.elo_with_margin(400, 200, 400)
    assert large == pytest.approx(small / math.sqrt(10), rel=0.01)


def test_draws_narrow_the_error_bar():
    assert match.elo_with_margin(10, 80, 10)[1] < match.elo_with_margin(50, 0, 50)[1]


def test_los():
    assert match.likelihood_of_superiority(0, 0) == 0.5
    assert match.likelihood_of_superiority(7, 7) == pytest.approx(0.5)
    assert match.likelihood_of_superiority(10, 0) == pytest.approx(0.5 * (1 + math.erf(10 / math.sqrt(20))))
    assert match.likelihood_of_superiority(12, 5) + match.likelihood_of_superiority(5, 12) == pytest.approx(1.0)


def test_sprt_bounds():
    lower, upper = match.sprt_bounds(0.05, 0.05)
    assert upper == pytest.approx(math.log(19))
    assert lower == pytest.approx(-math.log(19))
    assert match.sprt_bounds(0.05, 0.1) == pytest.approx((math.log(0.1 / 0.95), math.log(0.9 / 0.05)))


def test_sprt_llr_matches_normal_approximation_near_the_hypotheses():
    for wdl in ((3030, 4000, 2970), (3000, 4000, 3000), (2900, 4200, 2900)):
        assert match.sprt_llr(*wdl, 0, 5) == pytest.approx(normal_approx_llr(*wdl, 0, 5), rel=1e-3)


def test_sprt_llr_sign_and_symmetry():
    assert match.sprt_llr(0, 0, 0, 0, 10) == 0.0
    assert match.sprt_llr(60, 80, 40, 0, 10) > 0
    assert match.sprt_llr(40, 80, 60, 0, 10) < 0
    # the same test seen from the other player: results and hypotheses mirrored
    assert match.sprt_llr(60, 80, 40, 0, 10) == pytest.approx(match.sprt_llr(40, 80, 60, 0, -10))


def test_sprt_all_wins_still_counts_as_evidence():
    # with one outcome only, the most likely H distributions put the rest of
    # the mass on losses: LLR = N log(s1 / s0)
    expected = 100 * math.log(match.expected_score(10) / 0.5)
    assert match.sprt_llr(100, 0, 0, 0, 10) == pytest.approx(expected, rel=1e-3)


def test_sprt_decision():
    assert match.sprt_decision(3.0, 0.05, 0.05) == "H1"
    assert match.sprt_decision(-3.0, 0.05, 0.05) == "H0"
    assert match.sprt_decision(0.5, 0.05, 0.05) is None
    assert match.sprt_decision(match.sprt_llr(2000, 0, 1000, 0, 10), 0.05, 0.05) == "H1"
    assert match.sprt_decision(match.sprt_llr(1000, 0, 2000, 0, 10), 0.05, 0.05) == "H0"


# --------------------------------------------------------------------------
# Game pairs (pentanomial)
# --------------------------------------------------------------------------

PAIR_POINTS = (0.0, 0.5, 1.0, 1.5, 2.0)


def pair_scores(pentanomial):
    """Every pair's per-game score (points / 2), one list entry per pair."""
    return [points / 2 for points, count in zip(PAIR_POINTS, pentanomial) for _ in range(count)]


def elo_of(score):
    return 400 * math.log10(score / (1 - score))


def test_pentanomial_elo_and_margin_from_the_pair_scores():
    pentanomial = [5, 15, 40, 30, 10]
    scores = pair_scores(pentanomial)
    mean = statistics.mean(scores)
    stderr = math.sqrt(statistics.pvariance(scores) / len(scores))
    elo, margin = match.pentanomial_elo_with_margin(pentanomial)
    assert mean == pytest.approx(0.5625)
    assert elo == pytest.approx(elo_of(mean))
    assert elo == pytest.approx(43.66, abs=0.01)
    assert margin == pytest.approx((elo_of(mean + Z95 * stderr) - elo_of(mean - Z95 * stderr)) / 2)
    assert match.pentanomial_los(pentanomial) == pytest.approx(
        statistics.NormalDist().cdf((mean - 0.5) / stderr))


def test_normalized_elo_is_the_excess_score_over_the_per_game_spread():
    pentanomial = [5, 15, 40, 30, 10]
    scores = pair_scores(pentanomial)
    mean = statistics.mean(scores)
    per_game_sd = math.sqrt(2 * statistics.pvariance(scores))
    nelo, margin = match.pentanomial_nelo_with_margin(pentanomial)
    assert nelo == pytest.approx((mean - 0.5) / per_game_sd * 800 / math.log(10))
    # the margin depends on the number of games alone: z x 347.4 / sqrt(games)
    games = 2 * sum(pentanomial)
    assert margin == pytest.approx(Z95 * 800 / math.log(10) / math.sqrt(games))
    assert match.pentanomial_nelo_with_margin([4 * n for n in pentanomial])[1] == pytest.approx(margin / 2)
    # the same mean with less spread between pairs: a larger nElo, the same Elo
    tighter = [0, 5, 65, 30, 0]
    assert statistics.mean(pair_scores(tighter)) == pytest.approx(mean)
    assert match.pentanomial_nelo_with_margin(tighter)[0] > nelo
    assert match.pentanomial_elo_with_margin(tighter)[0] == pytest.approx(
        match.pentanomial_elo_with_margin(pentanomial)[0])
    assert match.pentanomial_nelo_with_margin([3, 3, 3, 3, 3])[0] == 0.0
    assert match.pentanomial_nelo_with_margin([0, 0, 7, 0, 0]) == (0.0, math.inf)
    assert match.pentanomial_nelo_with_margin([0, 0, 0, 0, 0]) == (0.0, math.inf)


def test_pentanomial_index_counts_a_pairs_points():
    for first, second in itertools.product((0.0, 0.5, 1.0), repeat=2):
        assert PAIR_POINTS[match.pentanomial_index(first, second)] == first + second


def test_swapping_the_players_negates_the_pentanomial_figures():
    pentanomial = [3, 11, 30, 18, 6]
    elo, margin = match.pentanomial_elo_with_margin(pentanomial)
    elo_b, margin_b = match.pentanomial_elo_with_margin(pentanomial[::-1])
    assert elo > 0
    assert elo_b == pytest.approx(-elo)
    assert margin_b == pytest.approx(margin)
    assert match.pentanomial_los(pentanomial) + match.pentanomial_los(pentanomial[::-1]) == pytest.approx(1.0)
    assert match.sprt_llr_pentanomial(pentanomial, 0, 10) == pytest.approx(
        match.sprt_llr_pentanomial(pentanomial[::-1], 0, -10))


def test_the_pentanomial_interval_narrows_with_more_pairs():
    pentanomial = [3, 11, 30, 18, 6]
    _, small = match.pentanomial_elo_with_margin(pentanomial)
    _, large = match.pentanomial_elo_with_margin([4 * n for n in pentanomial])
    assert large < small
    assert large == pytest.approx(small / 2, rel=0.01)


def test_independent_games_give_the_same_error_bar_either_way():
    # W/D/L = 1/4, 1/2, 1/4 per game, independent within a pair: the pair
    # outcomes are the convolution 1, 4, 6, 4, 1 (/16), the same 32 games.
    _, pentanomial_margin = match.pentanomial_elo_with_margin([1, 4, 6, 4, 1])
    _, trinomial_margin = match.elo_with_margin(8, 16, 8)
    assert pentanomial_margin == pytest.approx(trinomial_margin)


def counts_of(pairs):
    """Pentanomial counts and W/D/L of the same games, given as (points, points) pairs."""
    pentanomial = [0] * 5
    for first, second in pairs:
        pentanomial[match.pentanomial_index(first, second)] += 1
    games = [points for pair in pairs for points in pair]
    return pentanomial, (games.count(1.0), games.count(0.5), games.count(0.0))


# Openings that favour one colour: most pairs are a win and a loss.
CORRELATED_PAIRS = ([(0.0, 0.0)] * 2 + [(0.0, 0.5)] * 3 + [(1.0, 0.0)] * 40
                    + [(1.0, 0.5)] * 3 + [(1.0, 1.0)] * 2)


def test_correlated_pairs_have_a_smaller_pentanomial_variance():
    pentanomial, (wins, draws, losses) = counts_of(CORRELATED_PAIRS)
    assert pentanomial == [2, 3, 40, 3, 2] and (wins, draws, losses) == (47, 6, 47)
    # variance of the mean per-game score: from 50 pairs, and from 100 games taken as independent
    pair_variance = match.pentanomial_stats(pentanomial)[1] / 50
    game_variance = match.score_variance(wins, draws, losses) / 100
    assert pair_variance < game_variance / 4
    assert match.pentanomial_elo_with_margin(pentanomial)[1] < match.elo_with_margin(wins, draws, losses)[1] / 2


def test_pentanomial_edge_cases_match_the_trinomial_ones():
    assert match.pentanomial_elo_with_margin([0, 0, 0, 0, 0]) == match.elo_with_margin(0, 0, 0) == (0.0, math.inf)
    assert match.pentanomial_elo_with_margin([0, 0, 0, 0, 6]) == match.elo_with_margin(12, 0, 0) == (math.inf, math.inf)
    assert match.pentanomial_elo_with_margin([6, 0, 0, 0, 0]) == (-math.inf, math.inf)
    assert match.elo_with_margin(0, 0, 12)[0] == -math.inf
    for all_even in ([0, 0, 9, 0, 0], [0, 2, 0, 2, 0]):
        elo, margin = match.pentanomial_elo_with_margin(all_even)
        assert elo == pytest.approx(0.0) and math.isfinite(margin)
        assert match.pentanomial_los(all_even) == pytest.approx(0.5)
    assert match.pentanomial_elo_with_margin([0, 0, 9, 0, 0]) == match.elo_with_margin(0, 18, 0) == (0.0, 0.0)
    assert match.pentanomial_los([0, 0, 0, 0, 6]) == 1.0
    assert match.pentanomial_los([0, 0, 0, 3, 0]) == 1.0
    assert match.pentanomial_los([6, 0, 0, 0, 0]) == 0.0
    assert match.pentanomial_los([0, 0, 0, 0, 0]) == 0.5
    assert match.format_elo(match.pentanomial_elo_with_margin([0, 0, 0, 0, 6])[0]) == "+inf"


# --------------------------------------------------------------------------
# SPRT on game pairs
# --------------------------------------------------------------------------

def grid_max_log_likelihood(freqs, mean):
    """max sum f_i log p_i over pair distributions p with per-game mean `mean`.

    Brute force: p0, p1, p3 range over a grid and p2, p4 follow from the
    two constraints (sum 1, mean `mean`); the grid then shrinks around its
    best point. The log-likelihood is concave, so the best point of each
    grid stays within the next one.
    """
    def log_likelihood(p0, p1, p3):
        rest = 1 - p0 - p1 - p3                     # p2 + p4
        half_mean = mean - 0.25 * p1 - 0.75 * p3    # 0.5 p2 + p4
        p2, p4 = 2 * (rest - half_mean), 2 * half_mean - rest
        probs = (p0, p1, p2, p3, p4)
        if min(probs) <= 0:
            return -math.inf
        return sum(f * math.log(p) for f, p in zip(freqs, probs))

    center, half_width, steps = (freqs[0], freqs[1], freqs[3]), 0.5, 5
    for _ in range(40):
        axes = [[c + half_width * k / steps for k in range(-steps, steps + 1)] for c in center]
        center = max(itertools.product(*axes), key=lambda point: log_likelihood(*point))
        half_width *= 0.4
    return log_likelihood(*center)


def grid_llr(pentanomial, elo0, elo1):
    regularised = [n or 1e-3 for n in pentanomial]
    freqs = [n / sum(regularised) for n in regularised]
    s0, s1 = (1 / (1 + 10 ** (-elo / 400)) for elo in (elo0, elo1))
    return sum(pentanomial) * (grid_max_log_likelihood(freqs, s1) - grid_max_log_likelihood(freqs, s0))


@pytest.mark.parametrize("pentanomial, elo0, elo1", [
    ([5, 15, 40, 30, 10], 0, 10),
    ([12, 30, 50, 25, 8], 0, 5),
    ([1, 9, 60, 20, 0], -5, 15),
    ([0, 0, 0, 0, 20], 0, 10),
])
def test_pentanomial_llr_matches_a_brute_force_maximum_likelihood(pentanomial, elo0, elo1):
    assert match.sprt_llr_pentanomial(pentanomial, elo0, elo1) == pytest.approx(
        grid_llr(pentanomial, elo0, elo1), rel=1e-5, abs=1e-7)


def test_pentanomial_llr_matches_normal_approximation_near_the_hypotheses():
    # fishtest's GSPRT approximation N (s1 - s0) (2m - s0 - s1) / (2 var) on pairs
    for pentanomial in ([300, 1500, 3400, 1520, 280], [250, 1450, 3600, 1450, 250]):
        scores = pair_scores(pentanomial)
        mean, var = statistics.mean(scores), statistics.pvariance(scores)
        s0, s1 = match.expected_score(0), match.expected_score(5)
        approx = len(scores) * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)
        assert match.sprt_llr_pentanomial(pentanomial, 0, 5) == pytest.approx(approx, rel=1e-3)


def test_pentanomial_llr_sign_and_empty_match():
    assert match.sprt_llr_pentanomial([0, 0, 0, 0, 0], 0, 10) == 0.0
    assert match.sprt_llr_pentanomial([5, 15, 40, 30, 10], 0, 10) > 0
    assert match.sprt_llr_pentanomial([10, 30, 40, 15, 5], 0, 10) < 0
    assert math.isfinite(match.sprt_llr_pentanomial([0, 0, 9, 0, 0], 0, 10))


def test_correlated_pairs_give_the_pentanomial_sprt_more_evidence():
    pentanomial, (wins, draws, losses) = counts_of(CORRELATED_PAIRS + [(1.0, 0.5)] * 6)
    assert wins > losses
    assert match.sprt_llr_pentanomial(pentanomial, 0, 10) > match.sprt_llr(wins, draws, losses, 0, 10) > 0


# --------------------------------------------------------------------------
# Counting pairs as the games come in, and the --sprt settings
# --------------------------------------------------------------------------

def finished_game(number, result):
    job = match.GameJob(number, opening_index=0, opening=chess.Board(), a_is_white=number % 2 == 1)
    return match.GameResult(job, result, "test")


def test_tally_pairs_games_by_opening_in_any_order():
    tally = match.Tally()
    # games 1-2 share an opening (A white, then black), likewise 3-4; 5 has no partner
    for number, result in ((2, "0-1"), (3, "0-1"), (5, "1-0"), (1, "1/2-1/2"), (4, "1-0")):
        tally.add(finished_game(number, result))
    assert (tally.wins, tally.draws, tally.losses) == (2, 1, 2)
    # pair 1-2: A drew, then won as black (1.5 points); pair 3-4: A lost both
    assert tally.pentanomial == [1, 0, 0, 1, 0]
    assert tally.pairs == 2
    assert tally.unpaired == 1


def test_sprt_settings_pick_the_model():
    tally = match.Tally()
    for number, result in enumerate(["1-0", "1-0", "1-0", "1/2-1/2", "1/2-1/2", "0-1"] * 10, start=1):
        tally.add(finished_game(number, result))
    pentanomial = match.SprtSettings(0, 10, 0.05, 0.05)
    trinomial = match.SprtSettings(0, 10, 0.05, 0.05, model="trinomial")
    assert pentanomial.llr(tally) == match.sprt_llr_pentanomial(tally.pentanomial, 0, 10)
    assert trinomial.llr(tally) == match.sprt_llr(tally.wins, tally.draws, tally.losses, 0, 10)
    assert pentanomial.llr(tally, "trinomial") == trinomial.llr(tally)
    assert pentanomial.llr(tally) != trinomial.llr(tally)
    assert pentanomial.decision(tally) == match.sprt_decision(pentanomial.llr(tally), 0.05, 0.05)


def sprt_from_command_line(*words):
    parser = match.build_parser()
    args = parser.parse_args(["-a", "engine-a", "-b", "engine-b", *words])
    return match.sprt_settings(args, parser)


def test_sprt_command_line():
    assert sprt_from_command_line() is None
    assert sprt_from_command_line("--sprt", "0", "10", "0.05", "0.1") == match.SprtSettings(0, 10, 0.05, 0.1)
    assert sprt_from_command_line("--sprt", "0", "5", "0.05", "0.05", "--sprt-model", "trinomial").model == "trinomial"
    for bad in (["0", "10", "0", "0.05"], ["0", "10", "0.05", "1"], ["5", "5", "0.05", "0.05"],
                ["0", "90000", "0.05", "0.05"]):
        with pytest.raises(SystemExit):
            sprt_from_command_line("--sprt", *bad)


def summary_of(tally, sprt):
    settings = match.MatchSettings(tc=match.TimeControl(nodes=500), max_plies=400, adjudicate=False,
                                   event="test", names=("A-engine", "B-engine"))
    match.print_summary(tally, settings, sprt, None, elapsed=1.0)


def test_summary_reports_pairs_beside_games(capsys):
    tally = match.Tally()
    for number, result in ((1, "1-0"), (2, "1/2-1/2"), (3, "1-0"), (4, "1-0"), (5, "1-0")):
        tally.add(finished_game(number, result))
    summary_of(tally, match.SprtSettings(0, 10, 0.05, 0.05))
    out = capsys.readouterr().out
    assert "Pairs: 2" in out and "[0, 0, 1, 1, 0]" in out
    assert "1 unpaired game left out" in out
    pentanomial_elo = match.format_elo(match.pentanomial_elo_with_margin(tally.pentanomial)[0])
    trinomial_elo = match.format_elo(match.elo_with_margin(tally.wins, tally.draws, tally.losses)[0])
    assert pentanomial_elo != trinomial_elo
    assert f"pairs (pentanomial): {pentanomial_elo}" in out
    assert f"games (trinomial):   {trinomial_elo}" in out
    assert "SPRT (pentanomial, logistic Elo)" in out and "trinomial LLR" in out


def test_summary_of_an_empty_or_one_sided_match_does_not_crash(capsys):
    summary_of(match.Tally(), match.SprtSettings(0, 10, 0.05, 0.05, model="trinomial"))
    tally = match.Tally()
    for number in range(1, 7):
        tally.add(finished_game(number, "1-0" if number % 2 else "0-1"))  # A wins every game
    summary_of(tally, None)
    out = capsys.readouterr().out
    assert "Pairs: 0" in out and "Pairs: 3" in out
    assert "pairs (pentanomial): +inf +/- inf" in out


def test_autogroup_warning_only_for_timed_matches_with_autogroup_on(tmp_path):
    """A timed match warns while the kernel's autogroup scheduling is on (nice cannot
    protect it then); node-limited matches, autogroup off, or no such file: no warning."""
    switch = tmp_path / "sched_autogroup_enabled"
    switch.write_text("1\n")
    assert "autogroup" in match.autogroup_warning(True, switch)
    assert match.autogroup_warning(False, switch) is None
    switch.write_text("0\n")
    assert match.autogroup_warning(True, switch) is None
    assert match.autogroup_warning(True, tmp_path / "missing") is None


def test_a_killed_match_ends_with_the_summary_of_its_finished_games(tmp_path):
    """SIGTERM, or SIGINT to a match started in the background (where the shell sets SIGINT
    to be ignored), ends it with the summary of the games finished so far, exit status 0."""
    import signal
    import subprocess
    repo = Path(__file__).resolve().parent.parent
    engine = f"{sys.executable} {repo / 'basilisk.py'}"
    for sig in (signal.SIGTERM, signal.SIGINT):
        proc = subprocess.Popen(
            [sys.executable, str(repo / "scripts" / "match.py"), "-a", engine, "-b", engine,
             "--nodes", "200", "--max-plies", "16", "--games", "400", "--concurrency", "1",
             "--pgn", str(tmp_path / "out.pgn")],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("Finished game 2 "):
                break
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
        out = "".join(lines) + out
        assert proc.returncode == 0, err
        assert "interrupted: summary of the finished games" in out
        games = int(re.search(r"^Games: (\d+)", out, re.M).group(1))
        assert 2 <= games < 400
        assert "Traceback" not in err


def test_an_engine_may_have_a_node_budget_of_its_own():
    """--a-nodes/--b-nodes: in a node-limited match that engine gets its own budget, the other
    the match's; in a clock match the option changes nothing, and without --nodes it is refused."""
    parser = match.build_parser()
    args = parser.parse_args(["-a", "engine-a", "-b", "engine-b", "--nodes", "10000",
                              "--b-nodes", "11500"])
    spec_a, spec_b = match.engine_spec(args, "a"), match.engine_spec(args, "b")
    assert (spec_a.nodes, spec_b.nodes) == (None, 11500)
    tc = match.make_time_control(args)
    clocks = {chess.WHITE: 0.0, chess.BLACK: 0.0}
    assert match.side_limit(tc, spec_a, clocks, None).nodes == 10000
    assert match.side_limit(tc, spec_b, clocks, None).nodes == 11500
    clock = match.TimeControl(base=10.0, increment=0.1)
    limit = match.side_limit(clock, spec_b, {chess.WHITE: 9.0, chess.BLACK: 8.0}, None)
    assert limit.nodes is None and limit.white_clock == 9.0 and limit.black_clock == 8.0
    with pytest.raises(SystemExit):
        match.main(["-a", "engine-a", "-b", "engine-b", "--b-nodes", "11500"])
