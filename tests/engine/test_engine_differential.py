"""The compiled engine against the plain-Python reference engine.

Exact: the compiled engine plays keyed deals with the ``first`` policy and
writes a trace; the reference engine is given the same deals (hand by hand,
redeals included) and chooses the first listed move itself.  Both must write
the same events, byte for byte once serialised (so key order counts too).

Statistical: with the ``random`` policy the two engines play different deals
and moves (the reference shuffles with Python's ``random``), so their
statistics must agree only within sampling error: every difference must stay
within 4 standard errors.
"""

from __future__ import annotations

import json
import math
import random
from collections import Counter

import numpy as np
import pytest

from bergen_sim.engine import layout as L
from bergen_sim.model.rules import SETTINGS, Rules
from bergen_sim.services.execution.jobs import engine_for
from bergen_sim.services.files.trace import generate, split_matches
from tests.helpers import walk_match
from tests.oracle import deals_from_trace, play_match_reference, random_choose, random_deal_source

RULE_SETS = {
    "2p-standard": dict(players=2),
    "3p-standard": dict(players=3),
    "4p-standard": dict(players=4),
    "4p-partnerships": dict(players=4, partnerships=True),
    "4p-partnerships-pips": dict(players=4, partnerships=True, settlement="pips"),
    "2p-classic": dict(players=2, preset="classic"),
    "3p-american": dict(players=3, settlement="american"),
    "2p-reserve0": dict(players=2, boneyard_reserve=0),
    "3p-highest-double": dict(players=3, lead="highest-double"),
    "2p-no-boneyard": dict(players=2, hand_size=14, boneyard_reserve=0),
    "4p-full-deal": dict(players=4, hand_size=7, boneyard_reserve=0, settlement="american"),
    "3p-one-tile-boneyard": dict(players=3, hand_size=9, boneyard_reserve=1),
    "2p-hand-size-1": dict(players=2, hand_size=1),
    "3p-small-hands": dict(players=3, hand_size=2, target=3, out_points=0),
    "4p-partners-uncut": dict(
        players=4,
        partnerships=True,
        hand_size=2,
        reduced_headers=False,
        target=5,
        settlement="american",
        blocked_points=0,
    ),
    "2p-target-1": dict(players=2, target=1),
    "3p-spinner": dict(players=3, spinner=True),
    "2p-classic-any-double": dict(players=2, preset="classic"),
    "2p-double-nine": dict(players=2, domino_set="double-nine"),
    "4p-any-double-double-nine": dict(players=4, domino_set="double-nine", lead="any-double"),
    "5p-double-nine-nospinner": dict(players=5, domino_set="double-nine", spinner=False),
    "6p-partnerships-double-twelve": dict(players=6, partnerships=True, domino_set="double-twelve"),
    "7p-double-fifteen-american": dict(players=7, domino_set="double-fifteen", settlement="american"),
    "8p-double-eighteen-any-double": dict(players=8, domino_set="double-eighteen", lead="any-double"),
    "8p-partnerships-double-eighteen": dict(players=8, partnerships=True, domino_set="double-eighteen"),
    "8p-double-six-small-hands": dict(players=8, hand_size=3),
}


def first_move(seat, hand, moves, info):
    """The reference's counterpart of the ``first`` policy: the first listed move."""
    return moves[0]


def assert_reference_agrees(rules: Rules, seed: int, matches: int) -> int:
    """Replay the compiled engine's keyed deals through the reference; returns events compared."""
    engine = engine_for(rules, ("first",) * rules.players)
    compared = 0
    for recorded in split_matches(generate(engine, seed, 0, matches)):
        head = recorded[0]
        produced = play_match_reference(
            rules.to_dict(),
            deals_from_trace(recorded),
            first_move,
            match_index=head["match"],
            seed=seed,
            policies=head["policies"],
        )
        assert json.dumps(produced) == json.dumps(recorded), f"match {head['match']} differs"
        walk_match(recorded, rules)
        compared += len(recorded)
    return compared


@pytest.mark.parametrize("seed, name", list(enumerate(RULE_SETS)))
def test_first_policy_traces_identical(seed, name):
    rules = Rules.make(**RULE_SETS[name])
    assert assert_reference_agrees(rules, seed=seed, matches=60) >= 60 * 4


def random_rules(rng: random.Random) -> Rules:
    """A random legal rule set of any set, spinner, lead and table (hand size and reserve within the set)."""
    domino_set = rng.choice(list(L.DOMINO_SETS))
    tiles = L.set_size(L.DOMINO_SETS[domino_set])
    players = rng.randint(2, 8)
    partnerships = players in (4, 6, 8) and rng.random() < 0.5
    hand_size = rng.randint(1, min(tiles // players, 12))
    settings = dict(
        domino_set=domino_set,
        spinner=rng.random() < 0.5,
        hand_size=hand_size,
        target=rng.randint(1, 20),
        lead=rng.choice(L.LEAD_NAMES),
        settlement=rng.choice(["german", "pips", "american"]),
        blocked_points=rng.randint(0, 3),
        out_points=rng.randint(0, 3),
        boneyard_reserve=rng.randint(0, min(3, tiles - players * hand_size)),
        reduced_headers=rng.random() < 0.5,
    )
    assert set(settings) == set(SETTINGS)
    return Rules.make(players=players, partnerships=partnerships, **settings)


def test_first_policy_traces_identical_under_random_rule_sets():
    rng = random.Random(20240607)
    for k in range(40):
        assert_reference_agrees(random_rules(rng), seed=k, matches=15)


# --- random policy: statistics within sampling error --------------------------------------------


def reference_statistics(rules: Rules, matches: int, seed: int) -> dict[str, tuple[float, float]]:
    """(estimate, standard error) of per-hand and per-match statistics from reference matches."""
    rng = random.Random(seed)
    rule_dict = rules.to_dict()
    per_hand: list[Counter] = []
    hands_per_match = []
    for i in range(matches):
        events = play_match_reference(
            rule_dict,
            random_deal_source(rng, rules.players, rules.hand_size, rules.max_number),
            random_choose(rng),
            match_index=i,
            seed=seed,
        )
        hands_per_match.append(walk_match(events, rules, per_hand)["hands"])
    return {
        "double_headers_per_hand": _mean_se([h["double_headers"] for h in per_hand]),
        "triple_headers_per_hand": _mean_se([h["triple_headers"] for h in per_hand]),
        "draws_per_hand": _mean_se([h["draws"] for h in per_hand]),
        "blocked_rate": _mean_se([h["blocked_hands"] for h in per_hand]),
        "hands_per_match": _mean_se(hands_per_match),
        "leader_side_win_rate": _mean_se([h["leader_side_hand_wins"] for h in per_hand if h["decided_hands"]]),
    }


def _mean_se(values) -> tuple[float, float]:
    """Sample mean and its standard error."""
    values = np.asarray(values, dtype=float)
    return float(values.mean()), float(values.std(ddof=1) / math.sqrt(len(values)))


def compiled_statistics(rules: Rules, matches: int, seed: int) -> dict[str, tuple[float, float]]:
    """The same statistics from the compiled engine's hand and match rows."""
    chunk = engine_for(rules, ("random",) * rules.players).play(seed, 0, matches, hand_rows=True)
    hands, rows = chunk.hand_rows, chunk.match_rows
    decided = hands[:, L.H_WINNER] >= 0
    leader_side = hands[:, L.H_LEADER] % 2 if rules.partnerships else hands[:, L.H_LEADER]
    return {
        "double_headers_per_hand": _mean_se(hands[:, L.H_DOUBLE_HEADERS]),
        "triple_headers_per_hand": _mean_se(hands[:, L.H_TRIPLE_HEADERS]),
        "draws_per_hand": _mean_se(hands[:, L.H_DRAWS]),
        "blocked_rate": _mean_se(hands[:, L.H_END] == L.HAND_BLOCKED),
        "hands_per_match": _mean_se(rows[:, L.M_HANDS]),
        "leader_side_win_rate": _mean_se((hands[:, L.H_WINNER] == leader_side)[decided]),
    }


@pytest.mark.parametrize(
    "name",
    [
        "2p-standard",
        "3p-american",
        "4p-partnerships",
        "2p-classic",
        "4p-any-double-double-nine",
        # slow: the one case that needs the three-word random kernel (about 35 s cold);
        # the default tier checks the three-word engine trace for trace with `first` below
        pytest.param("6p-partnerships-double-twelve", marks=pytest.mark.slow),
    ],
)
def test_random_policy_statistics_agree(name):
    rules = Rules.make(**RULE_SETS[name])
    reference = reference_statistics(rules, matches=1500, seed=11)
    compiled = compiled_statistics(rules, matches=20_000, seed=11)
    for key, (ref_value, ref_se) in reference.items():
        value, se = compiled[key]
        z = (value - ref_value) / math.sqrt(ref_se**2 + se**2)
        assert abs(z) < 4, f"{key}: compiled {value:.4f} vs reference {ref_value:.4f} (z = {z:.1f})"
