"""The OpenSpiel game (``bergen-sim[openspiel]``): OpenSpiel's own checks, the chance model, and algorithms.

``pyspiel.random_sim_test`` plays random matches and checks the API's
consistency: legal actions sorted and empty for the other seats, chance
outcomes, clones equal, every state serialized and deserialized equal,
returns within the utility range, the game length within MaxGameLength.
OpenSpiel cannot undo a Python-implemented state (its Python-game
trampoline has no UndoAction and ``history()`` cannot be popped from Python),
so the undo check is done the way it is defined: every state rebuilt from
its history prefix equals the state that was there.
"""

from __future__ import annotations

import random
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pyspiel = pytest.importorskip("pyspiel")

import bergen_sim.openspiel_game as og
from bergen_sim.engine import layout as L
from bergen_sim.rules import Rules

PARAMS = {
    "2p-standard": {},
    "3p-target-5": {"players": 3, "target": 5},
    "4p-partnerships": {"players": 4, "partnerships": True, "target": 5, "boneyard_reserve": 0},
    "2p-classic-small": {"preset": "classic", "hand_size": 2, "target": 4},
    "3p-hand-size-1": {"players": 3, "hand_size": 1},
}


def play_randomly(state, rng: random.Random, steps: int | None = None):
    """Apply chance outcomes by their probabilities and uniform moves; yields each state before its action."""
    k = 0
    while not state.is_terminal() and (steps is None or k < steps):
        yield state
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            action = rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
        else:
            action = rng.choice(state.legal_actions())
        state.apply_action(action)
        k += 1


@pytest.mark.parametrize("name", sorted(PARAMS))
def test_openspiel_random_sim_test_with_serialization(name):
    game = pyspiel.load_game(og.SHORT_NAME, PARAMS[name])
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)


def test_doctests():
    import doctest

    failed, tried = doctest.testmod(og)
    assert tried > 0 and failed == 0


@settings(max_examples=12, deadline=None)
@given(players=st.integers(2, 4), partnerships=st.booleans(), hand_size=st.integers(1, 7),
       target=st.integers(1, 6), reserve=st.integers(0, 3), preset=st.sampled_from(["standard", "classic"]))
def test_random_rule_sets_pass_random_sim_test(players, partnerships, hand_size, target, reserve, preset):
    hand_size = min(hand_size, 28 // players)
    params = {"players": players, "partnerships": partnerships and players == 4, "preset": preset,
              "hand_size": hand_size, "target": target,
              "boneyard_reserve": min(reserve, 28 - players * hand_size)}
    pyspiel.random_sim_test(pyspiel.load_game(og.SHORT_NAME, params), num_sims=1, serialize=True, verbose=False)


def test_loaded_by_name_with_parameters():
    game = pyspiel.load_game("bergen(players=3,target=5,settlement=american)")
    assert game.num_players() == 3 and game.rules == Rules.make(players=3, target=5, settlement="american")
    with pytest.raises(Exception, match="settlement"):
        pyspiel.load_game("bergen(settlement=nosuch)")


def test_undo_by_history_prefix():
    game = pyspiel.load_game(og.SHORT_NAME, {"players": 3, "target": 4})
    seen = [(str(s), s.history()) for s in play_randomly(game.new_initial_state(), random.Random(5))]
    for text, history in seen[:: max(1, len(seen) // 40)]:
        rebuilt = game.new_initial_state()
        for action in history:
            rebuilt.apply_action(action)
        assert (str(rebuilt), rebuilt.history()) == (text, history)


def test_the_deal_is_conditioned_on_a_double_exactly():
    """2 seats x 1 tile: of the 28*27 ordered deals, those with a double number 28*27 - 21*20 = 336;
    the first tile is a given double in 27 of them and a given plain tile in 7."""
    rules = Rules.make(players=2, hand_size=1)
    first = dict(og.deal_outcomes(rules, []))
    total = 28 * 27 - comb(21, 1) * comb(20, 1)
    assert total == 336
    for t in range(L.N_TILES):
        double = L.TILE_LO[t] == L.TILE_HI[t]
        assert first[t] == pytest.approx((27 if double else 7) / total)
    assert sum(first.values()) == pytest.approx(1.0)
    second = dict(og.deal_outcomes(rules, [L.TILE_INDEX["2-5"]]))
    assert sorted(L.TILE_NAMES[t] for t in second) == [f"{n}-{n}" for n in range(7)]
    # with a double already dealt the rest is uniform
    after_double = og.deal_outcomes(Rules.make(players=2), [L.TILE_INDEX["3-3"]])
    assert [p for _, p in after_double] == pytest.approx([1 / 27] * 27)


def test_a_played_match_never_redeals_and_scores_like_the_rules():
    game = pyspiel.load_game(og.SHORT_NAME)
    state = game.new_initial_state()
    for _ in play_randomly(state, random.Random(2)):
        pass
    events = state.game.events
    assert not any(e["type"] == "redeal" for e in events)
    assert events[-1]["type"] == "match_end" and max(events[-1]["score"]) >= 15
    assert state.returns()[state.game.winner] == 1.0 and sum(state.returns()) == 0.0


def test_tensors_are_declared_by_name_and_shape():
    game = pyspiel.load_game(og.SHORT_NAME, {"players": 3})
    obs = og.BergenObserver(game.rules, pyspiel.IIGObservationType(perfect_recall=False), None)
    info = og.BergenObserver(game.rules, pyspiel.IIGObservationType(perfect_recall=True), None)
    assert obs.dict["voids"].shape == (3, 7) and obs.dict["hand"].shape == (28,)
    assert info.dict["plays"].shape == (27, 3 + 28 + 4)  # seat, tile, end (L, R, U, D)
    assert list(game.observation_tensor_shape()) == [obs.tensor.size]
    assert list(game.information_state_tensor_shape()) == [info.tensor.size]
    for state in play_randomly(game.new_initial_state(), random.Random(3), steps=120):
        for player in range(3):
            for tensor in (state.observation_tensor(player), state.information_state_tensor(player)):
                assert 0.0 <= min(tensor) and max(tensor) <= 1.0


def test_resampled_worlds_look_the_same_to_the_seat_and_play_on_legally():
    game = pyspiel.load_game(og.SHORT_NAME, {"players": 3, "target": 6})
    rng = random.Random(9)
    checked = 0
    for state in play_randomly(game.new_initial_state(), rng):
        if state.is_chance_node() or state.game.view().play_number < 3:
            continue
        player = state.current_player()
        sample = state.resample_from_infostate(player, rng.random)
        assert sample.information_state_string(player) == state.information_state_string(player)
        assert sample.observation_string(player) == state.observation_string(player)
        assert sample.information_state_tensor(player) == state.information_state_tensor(player)
        assert sample.legal_actions() == state.legal_actions()
        for s in range(3):  # counts kept, and no tile in two places
            assert len(sample.game.hand(s)) == len(state.game.hand(s))
        held = [t for s in range(3) for t in sample.game.hand(s)]
        assert len(set(held)) == len(held) and not set(held) & set(sample.game.view().played)
        for _ in play_randomly(sample, rng):
            pass
        assert sample.is_terminal()
        checked += 1
        if checked == 5:
            break
    assert checked == 5


SMALL = {"hand_size": 2, "target": 3}


def _one_bot_move(bot_step, params=SMALL, seed=0):
    game = pyspiel.load_game(og.SHORT_NAME, params)
    rng = random.Random(seed)
    for state in play_randomly(game.new_initial_state(), rng):
        if not state.is_chance_node() and len(state.legal_actions()) > 1:
            action = bot_step(game, state)
            assert action in state.legal_actions()
            return action
    raise AssertionError("no decision with a choice")


def test_python_ismcts_bot_runs():
    from open_spiel.python.algorithms import ismcts, mcts

    def step(game, state):
        rs = np.random.RandomState(0)
        bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 2.0, 30, random_state=rs)
        return bot.step(state)

    _one_bot_move(step)


def test_mcts_bots_run():
    from open_spiel.python.algorithms import mcts

    def python_step(game, state):
        rs = np.random.RandomState(0)
        return mcts.MCTSBot(game, 2.0, 30, mcts.RandomRolloutEvaluator(1, rs), random_state=rs).step(state)

    _one_bot_move(python_step)
    # OpenSpiel's C++ MCTS bot plays whole matches through pyspiel.evaluate_bots (calling its step() on a
    # Python state directly from Python crashes inside pyspiel, so it is only used the way OpenSpiel runs bots)
    game = pyspiel.load_game(og.SHORT_NAME, SMALL)
    evaluator = pyspiel.RandomRolloutEvaluator(1, 0)
    bot = pyspiel.MCTSBot(game, evaluator, 2.0, 30, 10**6, False, 1, False)
    returns = pyspiel.evaluate_bots(game.new_initial_state(), [bot, pyspiel.make_uniform_random_bot(1, 5)], 1)
    assert sorted(returns) == [-1.0, 1.0]


# external sampling walks every action of the traverser, so its cost grows steeply with the hand (2 tiles:
# from 1 s to over a minute an iteration, by the solver's own unseeded draws): one-tile hands keep it short
@pytest.mark.parametrize("kind, iterations, params", [("outcome", 30, SMALL),
                                                      ("external", 20, {"hand_size": 1, "target": 3})])
def test_sampling_mccfr_runs(kind, iterations, params):
    from open_spiel.python.algorithms import external_sampling_mccfr, outcome_sampling_mccfr

    np.random.seed(7)  # the solvers sample with NumPy's global generator: a fixed seed fixes the run
    game = pyspiel.load_game(og.SHORT_NAME, params)
    solver = (outcome_sampling_mccfr.OutcomeSamplingSolver(game) if kind == "outcome"
              else external_sampling_mccfr.ExternalSamplingSolver(game))
    for _ in range(iterations):
        solver.iteration()
    policy = solver.average_policy()
    for state in play_randomly(game.new_initial_state(), random.Random(4)):
        if not state.is_chance_node():
            probs = policy.action_probabilities(state)
            assert set(probs) == set(state.legal_actions()) and sum(probs.values()) == pytest.approx(1.0)
            break


def test_rl_environment_runs_episodes_with_a_tabular_learner():
    """OpenSpiel's RL environment (what DQN, NFSP, policy-gradient agents use) drives the game."""
    from open_spiel.python import rl_environment
    from open_spiel.python.algorithms import tabular_qlearner

    env = rl_environment.Environment("bergen(hand_size=2,target=3)")
    actions = env.action_spec()["num_actions"]
    agents = [tabular_qlearner.QLearner(player_id=p, num_actions=actions) for p in range(2)]
    for _ in range(10):
        step = env.reset()
        while not step.last():
            player = step.observations["current_player"]
            step = env.step([agents[player].step(step).action])
        for agent in agents:
            agent.step(step)
        assert sorted(step.rewards) == [-1.0, 1.0]


@pytest.mark.parametrize("action", [999, -1, 2.0, True])
def test_a_chance_action_that_is_no_tile_the_dealer_may_take_is_refused_on_one_line(action):
    from bergen_sim.errors import BergenError

    state = pyspiel.load_game(og.SHORT_NAME, {}).new_initial_state()
    assert state.is_chance_node()
    with pytest.raises(BergenError, match="is not a tile the dealer may deal now"):
        state._apply_action(action)
    state.apply_action(3)
    with pytest.raises(BergenError, match="is not a tile the dealer may deal now"):
        state._apply_action(3)  # dealt already
    if not isinstance(action, bool) and action in (999, -1):
        with pytest.raises(BergenError, match="is not a tile: tiles are 0..27"):
            state._action_to_string(pyspiel.PlayerId.CHANCE, action)
