"""The step API's any-double lead: the leader's choice is a step of its own (``Game.choosing_lead``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bergen_sim.model.rules import Rules
from bergen_sim.model.state import deals_from_trace
from bergen_sim.services.files.trace import read_jsonl, split_matches
from bergen_sim.services.game import Game, Move, MoveError, replay

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def test_recorded_lead_choices_step_through_a_game_event_for_event():
    for recorded in split_matches(read_jsonl(GOLDEN / "2p-classic-any-double.jsonl")):
        assert replay(recorded).events == recorded


def test_the_leader_chooses_its_double_as_a_move():
    recorded = next(split_matches(read_jsonl(GOLDEN / "2p-classic-any-double.jsonl")))
    game = Game(Rules.from_trace(recorded[0]["rules"]), deal_source=deals_from_trace(recorded))
    lead = next(e for e in recorded if e["type"] == "lead")
    deal = next(
        e
        for e in recorded
        if e["type"] == "deal"
        and e["hand"] == 1
        and any(t.split("-")[0] == t.split("-")[1] for h in e["hands"] for t in h)
    )
    doubles = [t for t in deal["hands"][lead["seat"]] if t.split("-")[0] == t.split("-")[1]]
    assert game.choosing_lead and game.to_move == lead["seat"]
    assert sorted(m.tile for m in game.legal_moves()) == sorted(doubles)
    assert all(m.end.name == "L" for m in game.legal_moves())
    with pytest.raises(MoveError, match="not legal"):
        game.play(Move("0-1", "L"))
    game.play(Move(lead["tile"], "L"))
    assert not game.choosing_lead
    assert [e for e in game.events if e["type"] == "lead"] == [lead]


def test_a_later_hands_leader_sees_an_empty_table_when_choosing_its_double():
    """The view handed to the lead choice is the new hand's: no play log, no draw/pass log left over from the
    last hand (the logs used to keep the last hand's entries and count until the double was led)."""
    from bergen_sim.engine import layout as L

    rules = Rules.make(players=2, lead="any-double")
    for seed in range(20):
        game = Game(rules, seed=seed)
        while not game.is_over and not (game.hand_number >= 2 and game.choosing_lead):
            game.play(game.policy_move("first"))
        if not game.is_over:
            break
    assert game.hand_number >= 2 and game.choosing_lead
    view = game.view().array
    assert view[L.V_PLAYS_N] == 0 and view[L.V_LOG_N] == 0 and view[L.V_PLAY_NO] == 0
    assert not view[L.V_PLAYS : L.V_SIZE].any()  # both logs, their entries cleared
    assert game.view().played == []
