"""The analyzer's stopping rule and review's loss, on simulated worlds whose true values are known.

Nothing is compiled: the rule's own functions (``look_points``,
``z_separation``, ``_verdict``, ``_held_out_behind_best``) are run on
per-world match-win values drawn here, so the error rates are those of the
procedure itself.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from bergen_sim.search import position as P

REPS = 1_000
WORLDS, BATCH = 16_000, 1_000  # five looks: 1,000, 2,000, 4,000, 8,000 and 16,000 worlds
#: three Monte Carlo standard errors of a 5% rate over REPS analyses
SLACK = 3 * math.sqrt(0.05 * 0.95 / REPS)


def _equal_moves(rng: np.random.Generator, n_moves: int) -> np.ndarray:
    """Per-world match wins (0 or 1) of moves that are all worth exactly one half, with common worlds."""
    luck = rng.random((WORLDS, 1))  # a world's deal helps every move alike
    return (rng.random((WORLDS, n_moves)) < 0.25 + 0.5 * luck).astype(float)


def _stops(values: np.ndarray, looks: list[int], z: float) -> tuple[str | None, int]:
    """(verdict, worlds) of the rule run on ``values``: the first look with a verdict, else the budget."""
    mirror = np.full(values.shape[1], -1)
    for done in looks:
        verdict = P._verdict(values[:done], values[:done], z, mirror)
        if verdict:
            return verdict, done
    return None, looks[-1]


def test_the_rule_looks_at_doubling_worlds_and_the_budget():
    assert P.look_points(WORLDS, BATCH) == [1_000, 2_000, 4_000, 8_000, 16_000]
    assert P.look_points(5_000, 1) == [100, 200, 400, 800, 1_600, 3_200, 5_000]
    assert P.look_points(50, 10) == []  # too few worlds to judge: the analysis spends its budget


@pytest.mark.parametrize("n_moves", [2, 3])
def test_moves_of_equal_value_are_called_separated_at_most_5_percent_of_the_time(n_moves):
    rng = np.random.default_rng(n_moves)
    looks = P.look_points(WORLDS, BATCH)
    z = P.z_separation(n_moves, len(looks))
    separated = sum(_stops(_equal_moves(rng, n_moves), looks, z)[0] == "separated" for _ in range(REPS))
    assert separated / REPS <= 0.05 + SLACK


def test_looking_after_every_batch_without_paying_for_it_calls_far_more_separations():
    """The rule this replaces: every one of 16 batches tested at the one-look level, 2 equal moves."""
    rng = np.random.default_rng(7)
    every_batch = list(range(BATCH, WORLDS + 1, BATCH))
    z = P.z_separation(2, 1)
    separated = sum(_stops(_equal_moves(rng, 2), every_batch, z)[0] == "separated" for _ in range(REPS))
    assert separated / REPS > 0.10


def test_a_real_difference_is_still_found():
    """A move 3 points of match-win probability better than two others is separated within the budget."""
    rng = np.random.default_rng(11)
    looks = P.look_points(WORLDS, BATCH)
    z = P.z_separation(3, len(looks))
    found = 0
    for _ in range(200):
        values = _equal_moves(rng, 3)
        values[:, 1] = np.maximum(values[:, 1], rng.random(WORLDS) < 0.06)  # +3 points on average
        found += _stops(values, looks, z)[0] == "separated"
    assert found / 200 >= 0.9


def test_review_calls_an_equal_move_an_error_rarely_on_held_out_worlds():
    """Two equal moves, the second one played: review calls it an error (its loss's interval above 0) at most
    2.5% of the time with the loss measured on worlds that did not choose the best move, at the stopping rule's
    level; a 95% interval on the worlds that chose it, where the best of two noisy estimates is luckier and the
    analysis stopped because the gap looked large, calls errors more often."""
    rng = np.random.default_rng(3)
    looks = P.look_points(WORLDS, BATCH)
    z = P.z_separation(2, len(looks))
    made = 1
    held_out = same_worlds = 0
    for _ in range(REPS):
        values = _equal_moves(rng, 2)
        _, done = _stops(values, looks, z)
        seen = values[:done]
        best = P._ranking(seen, seen)[0]
        if best == made:
            continue
        held_out += P._held_out_behind_best(seen, seen, made, z).low > 0
        same_worlds += P._estimate(seen[:, best] - seen[:, made], "win_behind_best").low > 0
    assert held_out / REPS <= 0.025 + SLACK
    assert same_worlds > held_out
