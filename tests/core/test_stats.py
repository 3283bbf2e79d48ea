"""The statistics module's intervals hold their promise: coverage checked by simulation.

Synthetic matches with a random number of hands and a per-match win chance
(strong clustering, as in real matches) are drawn 2,000 times, vectorised, so
each check takes well under a second.  The checks can fail: the naive
interval that treats hands as independent is shown to under-cover on the same
data, and unadjusted tests to make false discoveries that Holm's do not.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bergen_sim.core import stats

REPS = 2_000
UNITS = 200  # matches per repetition


def clustered(rng: np.random.Generator, shift: float = 0.0):
    """(hands, wins, wins_shifted) per match, shape (REPS, UNITS): per-match chance p_i ~ 0.1 + 0.8 Beta(0.7, 0.7)."""
    hands = 1 + rng.poisson(3.0, size=(REPS, UNITS))
    p = 0.1 + 0.8 * rng.beta(0.7, 0.7, size=(REPS, UNITS))
    wins = rng.binomial(hands, p)
    shifted = rng.binomial(hands, p - shift)
    return hands, wins, shifted


def coverage(lo, hi, truth) -> float:
    return float(np.mean((np.asarray(lo) <= truth) & (truth <= np.asarray(hi))))


def test_clustered_ratio_interval_covers_95_percent_where_the_per_hand_interval_does_not():
    rng = np.random.default_rng(11)
    hands, wins, _ = clustered(rng)
    sums = {
        "n": np.full(REPS, UNITS),
        "sx": wins.sum(1),
        "sy": hands.sum(1),
        "sxx": (wins * wins).sum(1),
        "syy": (hands * hands).sum(1),
        "sxy": (wins * hands).sum(1),
    }
    _, lo, hi = stats.clustered_ratio(sums)
    assert 0.93 <= coverage(lo, hi, 0.5) <= 0.97
    naive = np.array([stats.wilson_interval(w, n) for w, n in zip(sums["sx"], sums["sy"])])
    assert coverage(naive[:, 0], naive[:, 1], 0.5) < 0.90  # hands are not independent


def test_cluster_sums_feed_the_same_interval_as_the_sums_written_out():
    wins, hands = np.array([[1, 2, 0, 3]]).T[:, 0], np.array([2, 3, 1, 4])
    direct = stats.ratio_interval(6, 10, 14, 30, 20, 4)
    assert stats.clustered_ratio(stats.cluster_sums(wins, hands)) == pytest.approx(direct)


def test_paired_difference_covers_95_percent_and_is_narrower_than_the_independent_one():
    rng = np.random.default_rng(12)
    hands, wins, shifted = clustered(rng, shift=0.05)
    paired = np.array([stats.paired_ratio_difference(wins[r], hands[r], shifted[r], hands[r]) for r in range(REPS)])
    assert 0.93 <= coverage(paired[:, 1], paired[:, 2], 0.05) <= 0.97
    one = stats.cluster_sums  # the unpaired route: each side's own clustered interval, combined by MOVER
    a = [stats.clustered_ratio(one(wins[r], hands[r])) for r in range(200)]
    b = [stats.clustered_ratio(one(shifted[r], hands[r])) for r in range(200)]
    unpaired = np.array([stats.difference(*x, *y) for x, y in zip(a, b)])
    assert np.median(paired[:200, 2] - paired[:200, 1]) < 0.85 * np.median(unpaired[:, 2] - unpaired[:, 1])


def test_holm_controls_the_family_wise_error_rate_where_unadjusted_tests_do_not():
    rng = np.random.default_rng(13)
    m = 10
    estimates = rng.normal(0.0, 1.0, size=(REPS, m))  # ten true zeros, standard error 1
    any_false = np.mean([stats.holm(row, np.ones(m))["reject"].any() for row in estimates])
    unadjusted = np.mean((np.abs(estimates) > stats.Z95).any(axis=1))
    assert any_false <= 0.065
    assert unadjusted > 0.3


def test_holm_finds_large_effects():
    result = stats.holm([8.0, 0.1, -6.0, 0.0], [1.0, 1.0, 1.0, 1.0])
    assert result["reject"].tolist() == [True, False, True, False]


def _joint_coverage(rng, correlation: float, m: int, reps: int = 20_000) -> float:
    """How often every simultaneous interval of a family of m holds its true value, in simulation."""
    truth = rng.normal(0.0, 2.0, size=m)  # some effects near zero, some far: coverage must not depend on them
    shared = rng.normal(size=(reps, 1))
    noise = np.sqrt(correlation) * shared + np.sqrt(1 - correlation) * rng.normal(size=(reps, m))
    se = rng.uniform(0.5, 2.0, size=m)
    est = truth + se * noise
    z = stats.simultaneous(est[0], se)["z"]
    return float(np.mean((np.abs(est - truth) <= z * se).all(axis=1)))


@pytest.mark.parametrize("m, correlation", [(1, 0.0), (4, 0.0), (27, 0.0), (27, 0.5), (120, 0.0)])
def test_simultaneous_intervals_cover_the_whole_family_95_percent_of_the_time(m, correlation):
    """Bonferroni: at least 95% jointly, within Monte Carlo error (20,000 families: standard error 0.15 points);
    independent estimates sit at (1 - 0.05/m)^m, a fifth of a point above."""
    covered = _joint_coverage(np.random.default_rng(m), correlation, m)
    assert covered >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / 20_000)
    if correlation == 0.0:
        assert abs(covered - (1 - 0.05 / m) ** m) <= 3 * math.sqrt(0.95 * 0.05 / 20_000)


def test_holms_step_wise_intervals_would_not_cover_the_family():
    """What the simultaneous intervals replace: each estimate +- the z of its own Holm step covers jointly far
    less than 95% when most effects are large (the steps then reach the unadjusted 1.96)."""
    rng = np.random.default_rng(5)
    m, reps = 20, 20_000
    truth = np.r_[np.full(m - 1, 10.0), 0.0]
    est = truth + rng.normal(size=(reps, m))
    covered = 0
    for row in est:
        order = np.argsort(-np.abs(row))
        z_step = np.empty(m)
        z_step[order] = [NormalDist().inv_cdf(1 - 0.05 / (2 * (m - k))) for k in range(m)]
        covered += bool((np.abs(row - truth) <= z_step).all())
    assert covered / reps < 0.93


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(-5, 5), st.floats(0.01, 3)), min_size=1, max_size=30))
def test_holm_rejects_whatever_a_simultaneous_interval_separates_from_zero(pairs):
    est, se = map(np.array, zip(*pairs))
    r, family = stats.holm(est, se), stats.simultaneous(est, se)
    separated = (family["lo"] > 0) | (family["hi"] < 0)
    assert not (separated & ~r["reject"]).any()
    assert (family["hi"] - family["lo"] >= 2 * stats.Z95 * se - 1e-9).all()  # never narrower than the 95% interval


def test_add_family_marks_every_row_of_every_listed_column():
    a = pd.DataFrame({"gain": [0.1, 0.0], "gain_lo": [0.05, -0.05], "gain_hi": [0.15, 0.05]})
    b = pd.DataFrame({"change": [0.2], "change_lo": [0.1], "change_hi": [0.3]})
    assert stats.add_family([(a, "gain"), (b, "change")]) == 3
    assert a["gain_family"].tolist() == [3, 3]
    assert a.loc[0, "gain_adj_lo"] < 0.05 and b.loc[0, "change_adj_lo"] > 0
    verdict, words = stats.judged(a.iloc[1], "gain", "points per hand")
    assert verdict == "no clear difference" and "rule out a difference larger than" in words


def test_equivalence_bound_is_the_far_end_of_the_interval():
    assert stats.equivalence_bound(-0.3, 0.1) == pytest.approx(0.3)


def test_differences_of_proportions_are_printed_in_percentage_points():
    assert stats.number(0.00074, -0.0001, 0.0015, "leader_win_rate_gain").endswith("pp [-0.010, +0.150]")
    assert stats.number(0.5, 0.4, 0.6, "win_rate").startswith("50")
    assert "percentage points" in stats.signed_points(0.01, 0.0, 0.02, True)
    assert stats.signed_points(0.5, 0.4, 0.6, False, "hands per match").startswith("+0.5 hands per match (95% CI +0.4")
    assert stats.phrase({"r": 1.91579, "r_lo": 1.91554, "r_hi": 1.91605}, "r") == "1.9158 (95% CI 1.9155–1.9161)"


@pytest.mark.parametrize("matches, p", [(30, 0.07), (30, 0.5), (50, 0.15), (200, 0.03), (2_000, 0.4)])
def test_a_clustered_proportion_keeps_its_coverage_in_small_and_extreme_cells(matches, p):
    """A comeback cell: each match reaches it once or twice (a blocked hand nobody wins repeats a score) and is
    won or lost as a whole. Agresti-Coull at the effective size covers 95% within Monte Carlo error (4,000 cells: a
    standard error of 0.34 points; it may be conservative); the delta method's normal interval falls short at
    30 matches and p = 0.07."""
    rng = np.random.default_rng(matches)
    reps = 4_000
    covered = {"clustered": 0, "delta": 0}
    for _ in range(reps):
        starts = 1 + (rng.random(matches) < 0.2)  # hand starts in the cell, per match
        wins = (rng.random(matches) < p) * starts
        sums = stats.cluster_sums(wins, starts)
        for name, interval in (("clustered", stats.clustered_proportion), ("delta", stats.clustered_ratio)):
            _, lo, hi = interval(sums)
            covered[name] += bool(lo <= p <= hi)
    slack = 3 * math.sqrt(0.95 * 0.05 / reps)
    assert covered["clustered"] / reps >= 0.95 - slack
    if (matches, p) == (30, 0.07):
        assert covered["delta"] / reps < 0.90


def test_a_contrast_of_two_seats_of_the_same_hands_covers_with_its_dependence():
    """'Holds the lowest double: yes / no' are the two seats of one hand, and one seat's win is the other's loss:
    Newcombe's difference of the two clustered intervals treats them as independent and is too narrow;
    group_difference counts their covariance within the match and covers 95% (2,000 runs of 300 matches)."""
    rng = np.random.default_rng(21)
    reps, matches, p = 2_000, 300, 0.6
    truth = p - (1 - p)
    covered = {"paired": 0, "newcombe": 0}
    for _ in range(reps):
        hands = rng.integers(1, 6, size=matches)
        match = np.repeat(np.arange(matches), hands)
        leader_won = rng.random(match.size) < p
        units = np.r_[match, match]
        groups = np.r_[np.ones(match.size, dtype=int), np.zeros(match.size, dtype=int)]  # 1: the leading seat
        won = np.r_[leader_won, ~leader_won].astype(float)
        ones = np.ones(units.size)
        _, lo, hi = stats.group_difference(stats.group_cross_sums(units, groups, won, ones, 2), 1, 0)
        covered["paired"] += lo <= truth <= hi
        per = stats.group_cluster_sums(units, groups, won, ones, 2)
        a, b = (stats.clustered_ratio({k: v[g] for k, v in per.items()}) for g in (1, 0))
        _, lo, hi = stats.difference(*a, *b)
        covered["newcombe"] += lo <= truth <= hi
    slack = 3 * math.sqrt(0.95 * 0.05 / reps)
    assert abs(covered["paired"] / reps - 0.95) <= slack
    assert covered["newcombe"] / reps < 0.90
