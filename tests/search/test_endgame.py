"""The end-game solver (bergen_sim/search/endgame.py) against plain minimax over the Python game.

Once nothing can be drawn a dealt world has no chance left, so the value of
every move is the minimax of the match-win probability at the end of the
hand.  Here that value is computed a second, independent way: by trying
every line of play on clones of the step API's game (the Python game,
which shares no rule code with the compiled one), with the same (random)
match-value table at the leaves.  The compiled alpha-beta search must give
the same value for every legal move, in positions reached by random play.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from bergen_sim.engine import layout as L
from bergen_sim.engine.hand import play
from bergen_sim.engine.play_rules import set_hand
from bergen_sim.engine.tileset import no_tiles_for
from bergen_sim.engine.view import used_slots
from bergen_sim.model.rules import Rules
from bergen_sim.search.endgame import OVER_BUDGET, restore, solve, solve_decision, stack_for
from bergen_sim.search.match_value import _normalized, win_probability
from bergen_sim.search.pimc import load_world
from bergen_sim.search.reader import world_buffers
from bergen_sim.services.game import Game
from tests.oracle import tile_names

#: games with two sides, where the solver is exact: the standard game, the spinner, partnerships
GAMES = {
    "standard": Rules.make(),
    "spinner": Rules.make(domino_set="double-nine", spinner=True, hand_size=7),
    "partnerships": Rules.make(players=4, partnerships=True),
}


def _table(rules: Rules) -> np.ndarray:
    """A match-value table of random chances (normalized as real ones are: the two sides' chances sum to 1).

    Any table will do to compare two searches of the same tree, and random
    values make ties between moves, which could hide a wrong value, rare.
    """
    gen = np.random.default_rng(rules.players)
    return _normalized(gen.random(rules.target**2), rules.target, 2)


def _leaf(rules: Rules, table: np.ndarray, scores, side: int) -> float:
    view = np.zeros(L.V_SIZE, dtype=np.int64)
    view[L.V_SCORE : L.V_SCORE + len(scores)] = scores
    return float(win_probability(table, rules.to_array(), view, side))


def move_values(game: Game, rules: Rules, table: np.ndarray, side: int) -> list[float]:
    """The minimax value for ``side`` of each legal move, on clones of the Python game."""
    values = []
    for move in game.legal_moves():
        child = game.clone()
        child.play(move)
        values.append(minimax(child, rules, table, side))
    return values


def minimax(game: Game, rules: Rules, table: np.ndarray, side: int) -> float:
    """Best play by both sides to the end of the hand, on clones of the Python game."""
    if game.is_over or game.chance_phase == "deal":
        return _leaf(rules, table, game.scores, side)
    assert game.chance_phase is None, "nothing may be drawn once the boneyard is down to the reserve"
    values = move_values(game, rules, table, side)
    return max(values) if rules.side_of(game.to_move) == side else min(values)


def endgame_positions(rules: Rules, seed: int, count: int, most_tiles: int):
    """Positions of random play (random deals and draws) with nothing left to draw and 2+ legal moves."""
    rng = random.Random(seed)
    names = tile_names(rules.max_number)
    found = 0
    while found < count:
        game = Game(rules, chance=True)
        while not game.is_over and found < count:
            if game.chance_phase == "deal":
                tiles = names[:]
                rng.shuffle(tiles)
                size = rules.hand_size
                game.deal([tiles[i * size : (i + 1) * size] for i in range(rules.players)])
                continue
            if game.chance_phase == "draw":
                seen = {t for s in range(rules.players) for t in game.hand(s)}
                for event in game.events:
                    if event["type"] == "deal":
                        table_tiles = set()
                    elif event["type"] in ("lead", "play"):
                        table_tiles.add(event["tile"])
                seen |= table_tiles
                game.draw(rng.choice(sorted(set(names) - seen)))
                continue
            moves = game.legal_moves()
            in_hands = sum(len(game.hand(s)) for s in range(rules.players))
            if (
                not game.choosing_lead
                and len(moves) >= 2
                and game.boneyard_count == rules.boneyard_reserve
                and in_hands <= most_tiles
            ):
                found += 1
                yield game.clone()
            game.play(rng.choice(moves))


def _world(game: Game, rules: Rules):
    """The game's true world (every hand as dealt, the reserve as the boneyard) in scratch hand buffers."""
    no_tiles = no_tiles_for(rules.n_tiles)
    view = game.view(game.to_move).array
    hands0, bone, _evidence, _line, b = world_buffers(no_tiles)
    for s in range(rules.players):
        mask = sum(1 << L.TILE_INDEX[t] for t in game.hand(s))
        set_hand(hands0, s, np.int64(mask) if rules.n_tiles <= 64 else _words(mask))
    return view, hands0, bone, b


def _load(rules: Rules, view, hands0, bone, b) -> None:
    load_world(rules.to_array(), view, used_slots(view), b, hands0, bone, rules.boneyard_reserve)


def compiled_values(game: Game, rules: Rules, table: np.ndarray, nodes: int = 10**6):
    """The solver's value of each legal move (for the seat to move's side) in the game's true world."""
    view, hands0, bone, b = _world(game, rules)
    rules_vec = rules.to_array()
    seat, side = int(view[L.V_SEAT]), int(view[L.V_SIDE])
    stack = stack_for(view, rules_vec)
    values = []
    for move in game.legal_moves():
        _load(rules, view, hands0, bone, b)
        if play(rules_vec, b, seat, move.tile.index, int(move.end)):
            values.append(win_probability(table, rules_vec, b.policy_view, side))
            continue
        budget = np.full(1, nodes, dtype=np.int64)
        values.append(solve(rules_vec, b, seat, table, side, -1.0, 2.0, stack, budget))
        assert values[-1] != OVER_BUDGET
    return np.array(values)


def _decision(game: Game, rules: Rules):
    """The world loaded into buffers at the seat to move's decision, its moves listed as advance() lists them."""
    view, hands0, bone, b = _world(game, rules)
    _load(rules, view, hands0, bone, b)
    moves = game.legal_moves()
    for k, move in enumerate(moves):
        b.move_tiles[k], b.move_ends[k] = move.tile.index, int(move.end)
    return b, len(moves), int(view[L.V_SEAT])


def _words(mask: int):
    return tuple(np.int64(((mask >> (64 * w)) + (1 << 63)) % (1 << 64) - (1 << 63)) for w in range(L.SET_WORDS))


@pytest.mark.parametrize("game_name", list(GAMES))
def test_solver_matches_minimax_over_the_reference_engine(game_name):
    rules = GAMES[game_name]
    table = _table(rules)
    for game in endgame_positions(rules, seed=7, count=6, most_tiles=7):
        expected = move_values(game, rules, table, rules.side_of(game.to_move))
        np.testing.assert_allclose(
            compiled_values(game, rules, table), expected, rtol=0, atol=1e-12, err_msg=game.line_text()
        )


def test_a_decision_is_worth_its_best_move_and_comes_back_when_the_budget_runs_out():
    """solve_decision gives the mover's side the best of its moves' values (the other side the worst), and with
    too few nodes reports OVER_BUDGET and restore() puts the decision back exactly as it was."""
    rules = GAMES["standard"]
    rules_vec = rules.to_array()
    table = _table(rules)
    checked = 0
    for game in endgame_positions(rules, seed=11, count=8, most_tiles=8):
        values = compiled_values(game, rules, table)
        for side in (0, 1):
            b, n, seat = _decision(game, rules)
            stack = stack_for(b.policy_view, rules_vec)
            budget = np.full(1, 10**6, dtype=np.int64)
            value = solve_decision(rules_vec, b, n, seat, table, side, stack, budget)
            own = values if side == rules.side_of(seat) else 1.0 - values  # two sides: the chances sum to 1
            best = own.max() if side == rules.side_of(seat) else own.min()
            assert value == pytest.approx(best, abs=1e-9)
        if 10**6 - budget[0] < 2:
            continue  # every move ends the hand at once: no node to run out of
        b, n, seat = _decision(game, rules)
        before = (b.policy_view.copy(), b.hands.copy(), b.move_tiles[:n].copy(), b.move_ends[:n].copy())
        stack = stack_for(b.policy_view, rules_vec)
        assert solve_decision(rules_vec, b, n, seat, table, 0, stack, np.full(1, 1, dtype=np.int64)) == OVER_BUDGET
        restore(b, stack, 0)
        head = L.V_PLAYS + L.PLAY_SIZE * before[0][L.V_PLAYS_N]
        used = used_slots(before[0])
        assert np.array_equal(b.policy_view[:head], before[0][:head])
        assert np.array_equal(b.policy_view[L.V_LOG_N : used], before[0][L.V_LOG_N : used])
        assert np.array_equal(b.hands, before[1])
        assert np.array_equal(b.move_tiles[:n], before[2]) and np.array_equal(b.move_ends[:n], before[3])
        checked += 1
    assert checked >= 4
