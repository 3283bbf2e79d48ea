"""The differential harness (tests/helpers.py) on the compiled engine, both directions, event for event.

* compiled -> reference: matches traced by the compiled engine (its keyed
  deals, its policies' choices) are replayed through the reference engine,
  which must write every recorded event itself (:func:`assert_reference_agrees`);
* reference -> compiled: matches played by the reference engine (random
  deals, uniform-random choices) are replayed through the compiled engine
  (:func:`bergen_sim.services.files.trace.replay_match`), which must do the same.

``RULE_SETS`` lists the games both engines play; a game the compiled engine
learns joins by adding its rules here (sets, spinner, any-double, 5-8 players).
"""

from __future__ import annotations

import pytest

from bergen_sim.model.rules import Rules
from bergen_sim.runtime.runner import Engine
from bergen_sim.services.files.trace import generate, replay_match, split_matches
from tests.helpers import assert_reference_agrees, assert_same_events, reference_matches

RULE_SETS = {
    "2p": Rules.make(players=2),
    "3p-highest-american": Rules.make(players=3, lead="highest-double", settlement="american"),
    "4p-partnerships-reserve0": Rules.make(players=4, partnerships=True, boneyard_reserve=0, hand_size=4),
}


@pytest.mark.parametrize("name", RULE_SETS)
def test_compiled_traces_replay_through_the_reference(name):
    rules = RULE_SETS[name]
    events = generate(Engine(rules, ["random"] * rules.players), 17, 0, 30)
    assert events[0]["format"] == "bergen-trace/2" and events[0]["rules"] == rules.to_dict()
    assert assert_reference_agrees(events) == 30


@pytest.mark.parametrize("name", RULE_SETS)
def test_reference_matches_replay_through_the_compiled_engine(name):
    rules = RULE_SETS[name]
    events = reference_matches(rules, 30, seed=5)
    for recorded in split_matches(events):
        assert_same_events(replay_match(recorded), recorded, f"{name} match {recorded[0]['match']}")


def test_the_harness_catches_a_wrong_event():
    events = reference_matches(RULE_SETS["2p"], 1, seed=1)
    play = next(e for e in events if e["type"] == "play")
    play["points"] += 1
    with pytest.raises(AssertionError, match="event"):
        assert_reference_agrees(events)
