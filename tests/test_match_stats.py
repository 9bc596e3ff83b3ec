"""Elo, error bar, LOS and SPRT arithmetic of scripts/match.py (no engines run)."""
import math
import sys
from pathlib import Path

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
