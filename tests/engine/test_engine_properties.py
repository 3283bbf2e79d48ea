"""Properties of the compiled engine over random seeds and rule settings.

Hypothesis draws rule sets (2-4 players, partnerships, every settlement,
reserve 0..2, both leads, the cut on and off, out/blocked points, target and
hand size) and seeds; every trace the engine writes is walked by
:func:`tests.helpers.walk_match`, which asserts that tiles are conserved, that no
tile is drawn at or below the reserve, that scores never fall and that the
match ends exactly when a side reaches the target.  The trace must also add
up to the same totals, match rows and hand rows as an untraced run.

Also here: keyed randomness (deals do not depend on the policies or on how the
matches are split into calls) and the redeal rate.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bergen_sim import RunOptions
from bergen_sim.engine import layout as L
from bergen_sim.model.rules import Rules
from bergen_sim.services.execution.jobs import engine_for
from bergen_sim.services.files.trace import generate, split_matches
from bergen_sim.services.simulation import simulate
from tests.helpers import summary_counts, trace_summary, walk_match

PROPERTY_SETTINGS = settings(
    max_examples=60, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow]
)


@st.composite
def rule_sets(draw) -> Rules:
    players = draw(st.integers(2, 4))
    partnerships = players == 4 and draw(st.booleans())
    hand_size = draw(st.integers(1, 28 // players))
    boneyard = 28 - players * hand_size
    return Rules.make(
        players=players,
        partnerships=partnerships,
        hand_size=hand_size,
        target=draw(st.integers(1, 25)),
        lead=draw(st.sampled_from(["lowest-double", "highest-double"])),
        settlement=draw(st.sampled_from(["german", "pips", "american"])),
        blocked_points=draw(st.integers(0, 4)),
        out_points=draw(st.integers(0, 4)),
        boneyard_reserve=draw(st.integers(0, min(2, boneyard))),
        reduced_headers=draw(st.booleans()),
    )


@PROPERTY_SETTINGS
@given(rules=rule_sets(), seed=st.integers(0, 2**64 - 1), policy=st.sampled_from(["random", "first"]))
def test_traces_keep_the_invariants_and_add_up_to_the_untraced_run(rules, seed, policy):
    matches = 6
    engine = engine_for(rules, (policy,) * rules.players)
    events = generate(engine, seed, 0, matches)
    per_hand: list[Counter] = []
    per_match = [walk_match(m, rules, per_hand) for m in split_matches(events)]
    assert len(per_match) == matches

    # the same seed untraced: totals (through simulate's summary), match rows and hand rows
    summary = simulate(
        rules=Rules.make(players=rules.players, partnerships=rules.partnerships, **_settings(rules)),
        policies=[policy],
        matches=matches,
        seed=seed,
        options=RunOptions(workers=1),
    ).summary
    assert trace_summary(events, rules) == summary_counts(summary)
    chunk = engine.play(seed, 0, matches, hand_rows=True)
    _check_match_rows(chunk.match_rows, per_match, rules)
    _check_hand_rows(chunk.hand_rows, per_hand, rules)


def _settings(rules: Rules) -> dict:
    return {k: v for k, v in rules.to_dict().items() if k not in ("players", "partnerships")}


def _check_match_rows(rows: np.ndarray, per_match: list[Counter], rules: Rules) -> None:
    assert rows[:, L.M_MATCH].tolist() == list(range(len(per_match)))
    for row, counts in zip(rows, per_match):
        winner = next(side for side in range(rules.sides) if counts[f"wins_{side}"])
        assert row[L.M_WINNER] == winner
        assert row[L.M_SCORE + winner] >= rules.target
        assert all(row[L.M_SCORE + side] < rules.target for side in range(rules.sides) if side != winner)
        assert all(row[L.M_SCORE + side] == -1 for side in range(rules.sides, L.MAX_SEATS))
        assert row[L.M_HANDS] == counts["hands"]
        assert row[L.M_REDEALS] == counts["redeals"]
        assert row[L.M_DOUBLE_HEADERS] == counts["double_headers"]
        assert row[L.M_TRIPLE_HEADERS] == counts["triple_headers"]
        assert row[L.M_PLAYS] == counts["plays"]
        assert row[L.M_DRAWS] == counts["draws"]
        assert row[L.M_BLOCKED_HANDS] == counts["blocked_hands"]
        assert row[L.M_DECIDED_HANDS] == counts["decided_hands"]
        assert row[L.M_LEADER_SIDE_WINS] == counts["leader_side_hand_wins"]


def _check_hand_rows(rows: np.ndarray, per_hand: list[Counter], rules: Rules) -> None:
    """Hand rows agree with the trace, and each hand's score change is its seats' points plus any
    settlement, which belongs to the winning side rather than to a seat."""
    assert len(rows) == len(per_hand)
    for k, (row, counts) in enumerate(zip(rows, per_hand)):
        assert row[L.H_LEADER] == counts["leader"]
        assert row[L.H_END] == counts["end"] and row[L.H_WINNER] == counts["winner"]
        for field, key in [
            (L.H_REDEALS, "redeals"),
            (L.H_PLAYS, "plays"),
            (L.H_DRAWS, "draws"),
            (L.H_PASSES, "passes"),
            (L.H_DOUBLE_HEADERS, "double_headers"),
            (L.H_TRIPLE_HEADERS, "triple_headers"),
        ]:
            assert row[field] == counts[key], key
        seat_points = [counts[f"seat_points_{s}"] for s in range(rules.players)]
        assert row[L.H_SEAT_POINTS : L.H_SEAT_POINTS + rules.players].tolist() == seat_points
        gained = [sum(p for s, p in enumerate(seat_points) if rules.side_of(s) == side) for side in range(rules.sides)]
        if row[L.H_END] == L.HAND_BLOCKED and row[L.H_WINNER] >= 0:
            gained[row[L.H_WINNER]] += rules.blocked_points
        before = row[L.H_SCORE_BEFORE : L.H_SCORE_BEFORE + rules.sides]
        if k + 1 < len(rows) and rows[k + 1, L.H_MATCH] == row[L.H_MATCH]:
            after = rows[k + 1, L.H_SCORE_BEFORE : L.H_SCORE_BEFORE + rules.sides]
            assert (after - before).tolist() == gained
        else:
            assert row[L.H_HAND] > 0 and max(before + gained) >= rules.target


# --- keyed randomness ----------------------------------------------------------------------------


def _deals_by_key(events) -> dict[tuple[int, int, int], list]:
    """Every deal of a trace keyed by (match, hand, redeal attempt)."""
    deals, attempts, match = {}, Counter(), -1
    for ev in events:
        if ev["type"] == "match":
            match = ev["match"]
        elif ev["type"] == "deal":
            key = (match, ev["hand"])
            deals[key + (attempts[key],)] = [ev["hands"], ev["boneyard"]]
            attempts[key] += 1
    return deals


def test_deals_do_not_depend_on_the_policies():
    rules = Rules.make(players=3, hand_size=2)  # six tiles dealt: one deal in seven is redealt
    by_random = _deals_by_key(generate(engine_for(rules, ("random",) * 3), 99, 0, 60))
    by_first = _deals_by_key(generate(engine_for(rules, ("first",) * 3), 99, 0, 60))
    common = set(by_random) & set(by_first)
    assert {(m, 1, 0) for m in range(60)} <= common
    assert sum(1 for key in common if key[2] > 0) > 20  # redeal attempts are keyed too
    assert len(common) > 200
    assert all(by_random[key] == by_first[key] for key in common)
    # and the policies do make different games of them
    assert by_random != by_first


def test_results_do_not_depend_on_how_matches_are_split():
    rules = Rules.make(players=4, partnerships=True)
    engine = engine_for(rules, ("random",) * 4)
    whole = engine.play(7, 0, 100, hand_rows=True)
    parts = [
        engine.play(7, 0, 50, hand_rows=True),
        engine.play(7, 50, 30, hand_rows=True),
        engine.play(7, 80, 20, hand_rows=True),
    ]
    assert np.array_equal(whole.match_rows, np.concatenate([p.match_rows for p in parts]))
    assert np.array_equal(whole.hand_rows, np.concatenate([p.hand_rows for p in parts]))
    assert np.array_equal(whole.totals, sum(p.totals for p in parts))
    # a trace of matches 50..59 is the same as those matches inside a longer trace
    long = list(split_matches(generate(engine, 7, 0, 60)))
    assert list(split_matches(generate(engine, 7, 50, 10))) == long[50:]


def test_different_seeds_give_different_games():
    engine = engine_for(Rules.make(players=2), ("random",) * 2)
    assert not np.array_equal(engine.play(1, 0, 50).match_rows, engine.play(2, 0, 50).match_rows)


# --- the redeal rate -----------------------------------------------------------------------------


def _check_redeal_rate(players: int, hand_size: int, matches: int, seed: int) -> None:
    """redeals/hands against p/(1-p), p = C(21,k)/C(28,k) the chance that k dealt tiles hold no double.

    Redeals before a hand are geometric: mean p/(1-p), variance p/(1-p)^2.
    """
    k = players * hand_size
    p = math.comb(21, k) / math.comb(28, k)
    s = simulate(
        rules=Rules.make(players=players, hand_size=hand_size),
        matches=matches,
        seed=seed,
        policies=["random"],
        options=RunOptions(workers=1),
    ).summary
    hands = s["hands"]
    expected = p / (1 - p)
    sigma = math.sqrt(p) / (1 - p) / math.sqrt(hands)
    assert abs(s["redeals"] / hands - expected) < 4 * sigma, (s["redeals"], hands, expected, sigma)
    assert sigma < expected / 10  # the test has power: enough hands to see a 40% error


def test_redeal_rate_standard_two_player_deal():
    _check_redeal_rate(players=2, hand_size=6, matches=80_000, seed=3)  # k = 12, p ~ 0.97%


def test_redeal_rate_small_hands():
    _check_redeal_rate(players=2, hand_size=2, matches=3_000, seed=4)  # k = 4, p ~ 29%
    _check_redeal_rate(players=4, hand_size=2, matches=3_000, seed=5)  # k = 8, p ~ 6.5%
