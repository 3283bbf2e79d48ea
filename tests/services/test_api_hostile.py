"""Hostile arguments to the Python API (a notebook's calls): refused with one clear line, never cut,
wrapped, silently defaulted or crashing the interpreter (docs/safety.md)."""

from __future__ import annotations

import numpy as np
import pytest

from bergen_sim.core.errors import BergenError
from bergen_sim.core.limits import LimitError, check_range
from bergen_sim.engine.keyed_random import keyed_deals
from bergen_sim.model.domain import Move
from bergen_sim.model.rules import Rules
from bergen_sim.runtime.runner import Engine
from bergen_sim.services.files.record import parse_record
from bergen_sim.services.game_review import review


@pytest.mark.parametrize("value", [2.5, True, "7", float("inf"), np.bool_(True), np.float64(3.0), None])
def test_a_whole_number_is_never_read_from_a_float_a_bool_or_text(value):
    with pytest.raises(LimitError, match="must be a whole number 0..9"):
        check_range("seed", value, 0, 9)
    assert check_range("seed", np.int64(5), 0, 9) == 5


@pytest.mark.parametrize(
    "args, message",
    [
        (([0, 1, 2, 3], [0], [0]), "must have the same length"),  # the compiled loop read past the short ones
        (([0.5], [0], [0]), "one-dimensional sequence of whole numbers"),
        (([[0, 1]], [[0, 0]], [[0, 0]]), "not 2-dimensional"),
    ],
)
def test_keyed_deals_refuses_keys_it_cannot_deal(args, message):
    with pytest.raises(LimitError, match=message):
        keyed_deals(1, *args)


@pytest.mark.parametrize("n_tiles", [5, 27, 0, -1, 28.0, True])
def test_keyed_deals_refuses_a_size_no_set_has(n_tiles):
    with pytest.raises(LimitError, match="one of 28, 55, 91, 136, 190"):
        keyed_deals(1, [0], [1], [0], n_tiles)
    assert keyed_deals(2, [0, 1], [1, 1], [0, 0], 55).shape == (2, 55)


def test_engine_play_checks_its_counts_and_takes_no_matches():
    engine = Engine(Rules.make(), ["first"])
    empty = engine.play(1, 0, 0, hand_rows=True)
    assert empty.match_rows.shape[0] == 0 and empty.hand_rows.shape[0] == 0 and not empty.totals.any()
    for seed, first, n, message in [
        (1, 0, -5, "n_matches must be 0.."),
        (1, 0, True, "n_matches must be a whole"),
        (1, -1, 2, "first_match must be 0.."),
        (1.7, 0, 3, "seed must be a whole"),
    ]:
        with pytest.raises(LimitError, match=message):
            engine.play(seed, first, n)


def test_an_empty_policy_list_is_refused_and_a_name_is_not_its_letters():
    with pytest.raises(BergenError, match="one per seat"):
        Engine(Rules.make(), [])
    assert Engine(Rules.make(), "first").policy_names == ["first", "first"]


@pytest.mark.parametrize("action", [-1, 3.7, True, "5", 760, 10**30])
def test_an_action_number_is_not_cut_or_wrapped(action):
    with pytest.raises(ValueError, match="an action is"):
        Move.from_action(action)
    assert Move.from_action(np.int64(5)) == Move.from_action(5)


@pytest.mark.extras
def test_the_gym_env_refuses_a_step_after_an_illegal_action_ended_the_episode():
    pytest.importorskip("gymnasium")
    from bergen_sim.adapters.gym_env import BergenEnv

    env = BergenEnv(opponents="first")
    obs, _ = env.reset(seed=1)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    with pytest.raises(RuntimeError, match="illegal action: call reset"):
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    obs, _ = env.reset(seed=2)
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))  # a new episode plays again


RECORD = """bergen-record 1
rules players=2 hand_size=2 target=3
deal 1-1 1-2 | 2-3 4-4
1: draw 0-0 0-1
1: 0-1 L
"""


def test_review_reads_seat_0_as_seat_0_and_refuses_an_empty_list_and_bad_numbers():
    game = parse_record(RECORD)
    assert [d.seat for d in review([game], worlds=8, batch=8).decisions] == [1]  # seat 1's play, its only choice
    assert review([game], seats=0, worlds=8, batch=8).decisions == []  # was: every seat's (0 read as "no seats")
    assert [d.seat for d in review([game], seats=1, worlds=8, batch=8).decisions] == [1]
    for kwargs, message in [
        ({"seats": []}, "names no seat"),
        ({"seats": [True]}, "seat must be a whole"),
        ({"worlds": 2.5}, "worlds must be a whole"),
        ({"seed": 1.5}, "seed must be a whole"),
        ({"blunder": "x"}, "blunder is a loss"),
    ]:
        with pytest.raises(BergenError, match=message):
            review([game], **{"worlds": 8, "batch": 8, **kwargs})


def test_a_game_refuses_seats_seeds_and_match_indices_it_does_not_have():
    from bergen_sim.services.game import Game, play_out

    game = Game(Rules.make(players=2), seed=3)
    assert game.hand(1) == Game(Rules.make(players=2), seed=3).hand(1)
    for seat in (-1, 2, True, 0.0, "1"):  # -1 was the last seat's hand, True seat 1
        with pytest.raises(LimitError, match="seat must be"):
            game.hand(seat)
        with pytest.raises(LimitError, match="seat must be"):
            game.view(seat)
    for kwargs, message in [
        ({"seed": 2.5}, "seed must be a whole number"),
        ({"seed": -1}, "seed must be"),
        ({"match": -1}, "match must be 0..4,611,686,018,427,387,904"),
        ({"match": "2"}, "match must be a whole number"),
    ]:
        with pytest.raises(LimitError, match=message):
            Game(Rules.make(players=2), **kwargs)
    # play_out read past a short list (IndexError at that seat's turn) and ignored extra names
    for names in (["random"], ["random"] * 3):
        with pytest.raises(BergenError, match=r"one policy name \(text\) per seat \(2\), not \['random'"):
            play_out(Game(Rules.make(players=2), seed=1), names)
    assert play_out(Game(Rules.make(players=2), seed=1), ["random", "first"]).is_over


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("voids", {1: 3}, "voids of seat 1 must be a list of numbers, not 3"),
        ("voids", {1: [-3]}, "voids of seat 1 must be a whole number 0 or more, not -3"),
        ("voids", [3], "voids must map seats to lists of numbers"),
        ("voids", {"1": [3]}, "voids: seat '1' is not a whole number"),
        ("left", None, "left must be a whole number 0 or more, not None"),
        ("right", -1, "right must be a whole number 0 or more, not -1"),
        ("left_double", "no", "left_double must be True or False"),
        ("hand", "3-5,1-3", "hand must be a list of tile names"),
        ("hand", (35, 13), "hand: 35 is not a tile name"),
        ("counts", (4, 5.0), "counts must be a whole number, not 5.0"),
        ("scores", (14, "2"), "scores must be a whole number, not '2'"),
        ("seat", True, "seat must be a whole number"),
        ("spinner", "4", "spinner must be a whole number 0 or more or None, not '4'"),
        ("played_by", {1: "3-4"}, "played_by of seat 1 must be a list of tile names"),
    ],
)
def test_a_position_built_in_python_with_a_field_of_the_wrong_type_is_refused_on_one_line(field, value, message):
    import dataclasses

    from bergen_sim.search.position import Position, PositionError, position_view

    good = Position.from_mapping(
        {
            "seat": 0,
            "hand": "3-5,1-3,5-6,0-0",
            "ends": "3,5",
            "played": "4-4,3-4,4-5",
            "counts": "4,5",
            "boneyard": 16,
            "scores": "14,12",
        }
    )
    position_view(good, Rules.make(players=2))
    with pytest.raises(PositionError, match=message):
        position_view(dataclasses.replace(good, **{field: value}), Rules.make(players=2))
