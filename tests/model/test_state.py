"""The package's Python game (bergen_sim/model/state.py) against the golden traces and the independent oracle.

Differential in both directions, event for event (key order included): the oracle's random matches of any
rules replay through the model, and the model's random matches replay through the oracle (which also walks
them with :func:`tests.helpers.walk_match`).  The step API (``Game``) runs on the model and is checked against
the golden traces and the compiled engine in tests/services/test_game.py.
"""

from __future__ import annotations

import copy
import doctest
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bergen_sim.model.state
from bergen_sim.model.domain import Move, Tile, tiles_of_set
from bergen_sim.model.rules import Rules
from bergen_sim.model.state import MatchState, Phase, deals_from_trace, play_match, settle_blocked, shuffled_deals
from bergen_sim.services.files.trace import read_jsonl, split_matches
from tests import oracle
from tests.helpers import assert_reference_agrees, assert_same_events, reference_matches, rule_books

GOLDEN = sorted((Path(__file__).resolve().parents[1] / "golden").glob("*.jsonl"))


def replay_state(recorded: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One recorded match's deals and decisions (plays; leads with any-double) stepped through a MatchState."""
    head = recorded[0]
    rules = Rules.from_trace(head["rules"])
    chosen_leads = rules.lead == "any-double"
    decisions = iter(
        [
            Move(e["tile"], e.get("end", "L"))
            for e in recorded
            if e["type"] == "play" or (chosen_leads and e["type"] == "lead")
        ]
    )
    state = MatchState(
        rules, match_index=head["match"], seed=head["seed"], policies=head["policies"], format=head["format"]
    )
    return play_match(state, deals_from_trace(recorded), lambda _: next(decisions)).trace()


def test_doctests():
    failed, tried = doctest.testmod(bergen_sim.model.state)
    assert tried > 0 and failed == 0


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_the_model_reproduces_every_golden_trace(path):
    for recorded in split_matches(read_jsonl(path)):
        assert_same_events(replay_state(recorded), recorded, f"{path.stem} match {recorded[0]['match']}")


@settings(max_examples=80, deadline=None)
@given(rule_books(), st.integers(0, 2**32))
def test_the_oracles_random_matches_replay_through_the_model(rules, seed):
    for recorded in split_matches(reference_matches(rules, 2, seed=seed)):
        assert_same_events(replay_state(recorded), recorded, f"match {recorded[0]['match']}")


@settings(max_examples=80, deadline=None)
@given(rule_books(), st.integers(0, 2**32))
def test_the_models_random_matches_replay_through_the_oracle(rules, seed):
    rng = random.Random(seed)
    state = MatchState(rules, seed=seed, policies=["uniform-random"] * rules.players)
    play_match(state, shuffled_deals(rng, rules), lambda s: rng.choice(s.moves))
    assert assert_reference_agrees(state.trace()) == 1


def test_a_clone_goes_its_own_way():
    rules = Rules.make(players=3)
    rng = random.Random(1)
    state = MatchState(rules)
    state.deal(*shuffled_deals(rng, rules)(1, 0))
    while state.phase != Phase.PLAY:
        state.deal(*shuffled_deals(rng, rules)(state.hand_number, state.attempt))
    before = copy.deepcopy(state.trace()), [list(h) for h in state.hands], list(state.scores)
    other = state.clone()
    play_match(other, shuffled_deals(rng, rules), lambda s: s.moves[-1])
    assert other.is_over and not state.is_over
    assert (state.trace(), state.hands, state.scores) == before


def test_steps_out_of_turn_or_off_the_rules_are_refused():
    rules = Rules.make(players=2, hand_size=2)
    state = MatchState(rules)
    with pytest.raises(ValueError, match="phase 'deal', not 'play'"):
        state.play(Move("0-0", "L"))
    with pytest.raises(ValueError, match="2 hands of 2 tiles"):
        state.deal([[Tile(1, 1)]], None)
    with pytest.raises(ValueError, match="double-six set dealt once"):
        state.deal([[Tile(1, 1), Tile(1, 2)], [Tile(1, 1), Tile(4, 4)]], None)
    with pytest.raises(ValueError, match="double-six set dealt once"):
        state.deal([[Tile(1, 1), Tile(1, 7)], [Tile(2, 3), Tile(4, 4)]], None)
    state.deal([[Tile(1, 1), Tile(1, 2)], [Tile(2, 3), Tile(4, 4)]], None)  # the boneyard's order left open
    assert state.phase == Phase.DRAW and state.seat == 1
    with pytest.raises(ValueError, match="'1-2' cannot be drawn"):
        state.draw(Tile(1, 2))
    state.draw(Tile(0, 1))
    with pytest.raises(ValueError, match="illegal move 0-1 U; legal: 0-1 L, 0-1 R"):
        state.play(Move("0-1", "U"))
    assert [e.to_dict()["type"] for e in state.events] == ["match", "deal", "lead", "draw"]
    assert state.trace()[1]["boneyard"] is None


@pytest.mark.parametrize("settlement", ["german", "pips", "american"])
def test_blocked_hands_are_settled_as_the_oracle_settles_them(settlement):
    """3,000 random leftovers of 0-3 tiles a seat, 2-8 players (sides holding doubles on both sides of a blocked
    hand are too rare in played matches to pin every settlement)."""
    for seed in range(3000):
        rng = random.Random(seed)
        players = rng.randint(2, 8)
        rules = Rules.make(
            players=players,
            partnerships=players in (4, 6, 8) and rng.random() < 0.5,
            domino_set="double-nine",
            hand_size=3,
            settlement=settlement,
        )
        tiles = tiles_of_set(rules.max_number)
        rng.shuffle(tiles)
        hands = [tiles[3 * seat : 3 * seat + rng.randint(0, 3)] for seat in range(players)]
        expected = oracle.settle_blocked(rules.to_dict(), [[str(t) for t in hand] for hand in hands])
        assert settle_blocked(rules, hands) == expected, (seed, hands)
