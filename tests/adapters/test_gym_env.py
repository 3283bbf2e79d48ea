"""The Gymnasium environment (``bergen-sim[gym]``): Gymnasium's own checker, masking, rewards, reproducibility."""

from __future__ import annotations

import json

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env

from bergen_sim.adapters.gym_env import ENV_ID, BergenEnv
from bergen_sim.model.rules import Rules
from bergen_sim.services.game import N_ACTIONS, Game, Move, n_actions, play_out, replay


@pytest.mark.parametrize(
    "rules",
    [Rules.make(players=2), Rules.make(players=4, partnerships=True), Rules.make(players=3, hand_size=2, target=3)],
    ids=["2p", "4p-partners", "3p-tiny"],
)
def test_gymnasium_env_checker_passes(rules):
    check_env(gymnasium.make(ENV_ID, rules=rules, opponents="expert").unwrapped, skip_render_check=False)


LARGER = {
    "2p-double-twelve-spinner": Rules.make(players=2, domino_set="double-twelve", spinner=True, target=5),
    "6p-double-nine": Rules.make(players=6, domino_set="double-nine", target=5),
    "8p-partners-double-fifteen": Rules.make(players=8, partnerships=True, domino_set="double-fifteen", target=5),
}


@pytest.mark.parametrize("name", sorted(LARGER))
def test_larger_sets_and_tables_pass_the_checker_with_spaces_sized_by_the_set(name):
    rules = LARGER[name]
    env = gymnasium.make(ENV_ID, rules=rules, opponents="random").unwrapped
    check_env(env, skip_render_check=False)
    tiles, numbers, ends = rules.n_tiles, rules.max_number + 1, 4 if rules.spinner else 2
    assert env.action_space.n == 4 * tiles == n_actions(rules)
    space = env.observation_space
    assert space["hand"].n == tiles and space["voids"].n == (rules.players, numbers)
    assert list(space["ends"].nvec) == [numbers] * ends and space["double_ends"].n == ends
    total, _ = _episode(env, 3, np.random.default_rng(1))
    assert env.game.is_over and total in (-1.0, 1.0)


def test_doctests():
    import doctest

    import bergen_sim.adapters.gym_env

    failed, tried = doctest.testmod(bergen_sim.adapters.gym_env)
    assert tried > 0 and failed == 0


def test_registered_and_made_by_id():
    env = gymnasium.make(ENV_ID, opponents="greedy", render_mode="ansi")
    obs, info = env.reset(seed=1)
    assert obs["action_mask"].shape == (N_ACTIONS,)
    assert "[" in env.render()


def test_hand_size_1_is_refused():
    with pytest.raises(ValueError, match="never move"):
        BergenEnv(Rules.make(players=2, hand_size=1))


def test_actions_round_trip():
    assert [Move.from_action(a).action for a in range(N_ACTIONS)] == list(range(N_ACTIONS))


def _episode(env, seed, rng):
    obs, info = env.reset(seed=seed)
    total, steps = 0.0, 0
    while True:
        legal = np.flatnonzero(obs["action_mask"])
        assert np.array_equal(obs["action_mask"], info["action_mask"])
        assert np.array_equal(legal, np.flatnonzero(env.action_masks()))
        assert [Move.from_action(a) for a in legal] == env.game.legal_moves()  # both in tile order, L before R
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        total += reward
        steps += 1
        assert not truncated and not info["illegal_action"]
        if terminated:
            return total, steps


def test_masked_random_episodes_end_with_the_match_and_the_right_reward():
    env = BergenEnv(Rules.make(players=3), seat=1, opponents=["random", "greedy"])
    rng = np.random.default_rng(0)
    for seed in range(5):
        total, _ = _episode(env, seed, rng)
        game = env.game
        assert game.is_over and total == (1.0 if game.winner == 1 else -1.0)
        assert game.events[0]["policies"] == ["random", "agent", "greedy"]
        assert json.dumps(replay(game.events).events) == json.dumps(game.events)


def test_same_seed_same_episode_and_illegal_action_ends_it():
    env = BergenEnv()
    one, _ = env.reset(seed=11)
    first = env.game.events
    two, _ = env.reset(seed=11)
    assert env.game.events == first and all(np.array_equal(one[k], two[k]) for k in one)
    illegal = int(np.flatnonzero(one["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    assert env.game.events == first  # nothing was played


def test_an_episode_is_the_step_apis_match():
    """Agent and opponents all playing `first` give the step API's (and so the compiled engine's) match."""
    env = BergenEnv(opponents="first")
    obs, _ = env.reset(seed=5)
    seed = env.game.seed
    while True:
        obs, reward, terminated, _, _ = env.step(env.game.policy_move("first").action)
        if terminated:
            break
    assert env.game.events[1:] == play_out(Game(Rules.make(), seed=seed), "first").events[1:]


def test_the_docs_state_the_sizes_the_adapters_use():
    import re
    from pathlib import Path

    from bergen_sim.engine import layout as L

    text = (Path(__file__).resolve().parents[2] / "docs" / "step-api.md").read_text()
    rows = re.findall(r"^\| (double-\w+) \| (\d+) \| (\d+) \| (\d+) \|$", text, flags=re.M)
    assert [name for name, *_ in rows] == list(L.DOMINO_SETS)
    for name, tiles, actions, numbers in rows:
        rules = Rules.make(players=2, domino_set=name)
        assert (int(tiles), int(actions), int(numbers)) == (rules.n_tiles, n_actions(rules), rules.max_number + 1)
    assert "Discrete(56)" not in text and f"Discrete({n_actions(Rules.make())})" in text
