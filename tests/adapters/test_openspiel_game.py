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

import bergen_sim.adapters.openspiel_game as og
from bergen_sim.core.errors import BergenError
from bergen_sim.engine import layout as L
from bergen_sim.model.rules import Rules

PARAMS = {
    "2p-standard": {},
    "3p-target-5": {"players": 3, "target": 5},
    "4p-partnerships": {"players": 4, "partnerships": True, "target": 5, "boneyard_reserve": 0},
    "2p-classic-small": {"preset": "classic", "hand_size": 2, "target": 4},
    "3p-hand-size-1": {"players": 3, "hand_size": 1},
    "2p-double-twelve-spinner": {"domino_set": "double-twelve", "spinner": "on", "target": 5},
    "6p-double-nine": {"players": 6, "domino_set": "double-nine", "target": 5},
    "8p-partnerships-double-nine": {"players": 8, "partnerships": True, "domino_set": "double-nine", "target": 5},
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
@given(
    players=st.integers(2, 8),
    partnerships=st.booleans(),
    hand_size=st.integers(1, 7),
    target=st.integers(1, 4),
    reserve=st.integers(0, 3),
    preset=st.sampled_from(["standard", "classic"]),
    domino_set=st.sampled_from(sorted(L.DOMINO_SETS)),
    spinner=st.sampled_from(["on", "off", "default"]),
)
def test_random_rule_sets_pass_random_sim_test(
    players, partnerships, hand_size, target, reserve, preset, domino_set, spinner
):
    tiles = L.set_size(L.DOMINO_SETS[domino_set])
    hand_size = min(hand_size, tiles // players)
    params = {
        "players": players,
        "partnerships": partnerships and players in (4, 6, 8),
        "preset": preset,
        "hand_size": hand_size,
        "target": target,
        "domino_set": domino_set,
        "spinner": spinner,
        "boneyard_reserve": min(reserve, tiles - players * hand_size),
    }
    pyspiel.random_sim_test(pyspiel.load_game(og.SHORT_NAME, params), num_sims=1, serialize=True, verbose=False)


def test_loaded_by_name_with_parameters():
    game = pyspiel.load_game("bergen(players=3,target=5,settlement=american)")
    assert game.num_players() == 3 and game.rules == Rules.make(players=3, target=5, settlement="american")
    with pytest.raises(Exception, match="settlement"):
        pyspiel.load_game("bergen(settlement=nosuch)")


def test_a_combination_the_rules_refuse_is_refused_at_load_time_in_one_line():
    from bergen_sim.core.errors import RuleError

    with pytest.raises(
        RuleError,
        match=r"hand_size must be 1..4 with 6 players \(28 tiles of double-six\), not 5, or use domino_set=double-nine",
    ):
        pyspiel.load_game("bergen(players=6,hand_size=5)")
    with pytest.raises(RuleError, match="partnerships need 4, 6 or 8 players"):
        pyspiel.load_game("bergen(players=5,partnerships=True)")


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"players": 3},
        {"domino_set": "double-nine"},
        {"players": 6, "domino_set": "double-twelve", "spinner": "off"},
        {"players": 8, "partnerships": True, "domino_set": "double-eighteen"},
    ],
    ids=["2p", "3p", "2p-double-nine", "6p-double-twelve-no-spinner", "8p-double-eighteen"],
)
def test_sizes_follow_the_set(params):
    """Actions 4 x tiles, chance outcomes one per tile, tensors sized by the set, the seats and the spinner."""
    game = pyspiel.load_game(og.SHORT_NAME, params)
    rules = game.rules
    tiles, numbers, n = rules.n_tiles, rules.max_number + 1, rules.players
    ends = 4 if rules.spinner else 2
    assert game.num_distinct_actions() == 4 * tiles and game.max_chance_outcomes() == tiles
    observation = n + n + tiles + tiles + ends * numbers + ends + n + 1 + rules.sides + n * numbers
    assert game.observation_tensor_shape() == [observation]
    assert game.information_state_tensor_shape() == [observation + 2 * tiles + (tiles - 1) * (n + tiles + 4)]
    obs = og.BergenObserver(rules, pyspiel.IIGObservationType(perfect_recall=False), None)
    assert ("up_end" in obs.dict) == rules.spinner and obs.dict["voids"].shape == (n, numbers)


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
    assert obs.dict["voids"].shape == (3, 7) and obs.dict["hand"].shape == (28,) and "up_end" not in obs.dict
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
@pytest.mark.parametrize(
    "kind, iterations, params", [("outcome", 30, SMALL), ("external", 20, {"hand_size": 1, "target": 3})]
)
def test_sampling_mccfr_runs(kind, iterations, params):
    from open_spiel.python.algorithms import external_sampling_mccfr, outcome_sampling_mccfr

    np.random.seed(7)  # the solvers sample with NumPy's global generator: a fixed seed fixes the run
    game = pyspiel.load_game(og.SHORT_NAME, params)
    solver = (
        outcome_sampling_mccfr.OutcomeSamplingSolver(game)
        if kind == "outcome"
        else external_sampling_mccfr.ExternalSamplingSolver(game)
    )
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
    from bergen_sim.core.errors import BergenError

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


def _played_state(params: dict, steps: int, seed: int = 1):
    """A game and a state after ``steps`` random actions, then on to the next decision."""
    game = pyspiel.load_game(og.SHORT_NAME, params)
    state = game.new_initial_state()
    rng = random.Random(seed)
    for _ in play_randomly(state, rng, steps=steps):
        pass
    for _ in play_randomly(state, rng):
        if not state.is_chance_node():
            break
    assert not state.is_terminal()
    return game, state


@pytest.mark.parametrize("params", [{}, {"players": 6, "domino_set": "double-nine", "target": 5}], ids=["2p", "6p"])
def test_state_strings_are_plain_text_replayed_through_the_rules(params):
    game, state = _played_state(params, 60)
    text = state.serialize()
    lines = text.split("\n")
    assert lines[0] == og.STATE_FORMAT and lines[1] == f"game={game}"
    assert lines[2] == "actions=" + ",".join(map(str, state.history()))
    again = game.deserialize_state(text)
    assert (str(again), again.history()) == (str(state), state.history())
    both = pyspiel.serialize_game_and_state(game, state)
    assert "__dict__" not in both and text in both
    game2, state2 = pyspiel.deserialize_game_and_state(both)
    assert game2.rules == game.rules and str(state2) == str(state)
    # other games still go through OpenSpiel's own functions
    kuhn = pyspiel.load_game("kuhn_poker")
    assert str(
        pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(kuhn, kuhn.new_initial_state()))[1]
    ) == str(kuhn.new_initial_state())


class _Marker:
    """Unpickling this creates the file ``path``: what a hostile pickled payload could do."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_a_tampered_state_string_with_a_pickled_payload_runs_nothing_and_is_refused(tmp_path):
    import base64
    import pickle

    game, state = _played_state({}, 20)
    marker = tmp_path / "ran"
    payload = base64.b64encode(pickle.dumps({"x": _Marker(marker)})).decode()
    history = ",".join(f"{p}:{a}" for p, a in ((-1, a) for a in state.history()))
    tampered = f"history={history}\nmove_number={len(state.history())}\n__dict__={payload}"
    with pytest.raises(og.StateStringError, match="not a Bergen state string"):
        game.deserialize_state(tampered)
    with pytest.raises(og.StateStringError, match="not a Bergen state string"):
        pyspiel.deserialize_game_and_state(f"[Meta]\nVersion: 1\n\n[Game]\n{game}\n[State]\n{tampered}\n")
    for spelled in (f" {game}\r", str(game).upper(), f"{game}\n# a comment"):
        with pytest.raises(og.StateStringError):
            pyspiel.deserialize_game_and_state(f"[Game]\n{spelled}\n[State]\n{tampered}\n")
    sneaky = state.serialize() + f"\n__dict__={payload}"
    with pytest.raises(og.StateStringError, match="not a Bergen state string"):
        game.deserialize_state(sneaky)
    assert not marker.exists()


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda t: t.replace("players=2", "players=3"), "is of game .* not of this game"),
        (lambda t: t.replace("game=bergen(", "game=kuhn_poker("), "is not the game bergen"),
        (lambda t: t.replace("players=2", "players=True"), "players=True is of the wrong kind"),
        (lambda t: t.replace("players=2", "nosuch=2"), "has no parameter 'nosuch'"),
        (lambda t: t + ",99999", "actions= must be action numbers|is not a tile the dealer may|is not legal"),
        (lambda t: t.replace("actions=", "actions=x"), "actions= must be action numbers"),
        (lambda t: t.split("\n", 1)[1], "not a Bergen state string"),
    ],
)
def test_a_state_string_that_is_not_one_of_this_game_is_refused_in_one_line(change, message):
    game, state = _played_state({}, 30)
    with pytest.raises(BergenError, match=message) as caught:
        game.deserialize_state(change(state.serialize()))
    assert "\n" not in str(caught.value)


def test_an_action_the_rules_do_not_allow_is_refused_by_its_number():
    game, state = _played_state({}, 30)
    legal = set(state.legal_actions())
    illegal = next(a for a in range(game.num_distinct_actions()) if a not in legal)
    number = len(state.history()) + 1
    with pytest.raises(og.StateStringError, match=rf"action #{number} \({illegal}\) is not legal for seat"):
        game.deserialize_state(state.serialize() + f",{illegal}")
    over = game.new_initial_state()
    for _ in play_randomly(over, random.Random(4)):
        pass
    with pytest.raises(og.StateStringError, match="comes after the end of the match"):
        game.deserialize_state(over.serialize() + ",0")


def test_a_resampled_world_has_no_state_string():
    game, state = _played_state({"players": 3}, 60, seed=2)
    sample = state.resample_from_infostate(state.current_player(), random.Random(0).random)
    with pytest.raises(og.StateStringError, match="resample_from_infostate has no state string"):
        sample.serialize()
