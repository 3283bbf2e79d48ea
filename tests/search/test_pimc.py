"""The ``pimc`` search policy, the rollout engine under it, match values and policy settings.

pimc is expensive to compile: every test here that plays it uses the one
setting ``PIMC`` (few worlds, the cheap ``first`` rollout policy), so a
fresh cache pays for one pimc kernel.
"""

from __future__ import annotations

import numpy as np
import pytest

from bergen_sim.core.errors import PolicyError
from bergen_sim.engine import layout as L
from bergen_sim.engine.hand import scratch_buffers
from bergen_sim.engine.keyed_random import stream_state
from bergen_sim.engine.play_rules import hand_moves
from bergen_sim.engine.view import view_start_match
from bergen_sim.model.rules import Rules
from bergen_sim.runtime.kernel_build import _dispatcher_source, kernel_policies, policy_key, seat_arguments
from bergen_sim.runtime.registry import resolve
from bergen_sim.search import pimc
from bergen_sim.search.match_value import table_for, win_probability
from bergen_sim.search.rollout import BASE_POLICIES, play_out
from bergen_sim.services.execution.jobs import engine_for
from tests.engine.test_worlds import real_views
from tests.helpers import deal_keyed_hand

PIMC = "pimc:worlds=6:base=first"
TWO = Rules.make(players=2)


def _rollout_match(rules: Rules, seed: int, match: int, base: int) -> tuple[list[int], int]:
    """One whole match played hand by hand through start_hand/play_out with the engine's keyed deals."""
    rv = rules.to_array()
    view = np.zeros(L.V_SIZE, dtype=np.int64)
    view_start_match(view, rv)
    hands = np.zeros(L.MAX_SEATS * L.SET_WORDS, dtype=np.int64)
    deal = np.zeros(L.MAX_TILES, dtype=np.int64)
    b = scratch_buffers(view, hands, deal, np.int64(0))
    rng = np.zeros(1, dtype=np.uint64)
    hand_no = 0
    while True:
        hand_no += 1
        ended = deal_keyed_hand(rv, b, deal, rules.n_tiles, seed, match, hand_no)
        if ended or play_out(rv, b, b.hrow[L.H_LEADER], base, rng):
            return [int(x) for x in view[L.V_SCORE : L.V_SCORE + rules.sides]], hand_no


@pytest.mark.parametrize(
    "rules",
    [TWO, Rules.make(players=3, preset="classic"), Rules.make(players=4, partnerships=True)],
    ids=["2p", "3p-classic", "4p-partners"],
)
def test_rollout_plays_the_engines_game(rules):
    """Whole matches through the rollout functions end exactly as the engine's (same deals, policy first)."""
    chunk = engine_for(rules, ("first",) * rules.players).play(seed=4, first_match=0, n_matches=60)
    for i, row in enumerate(chunk.match_rows):
        scores, hands = _rollout_match(rules, 4, i, BASE_POLICIES.index("first"))
        assert scores == row[L.M_SCORE : L.M_SCORE + rules.sides].tolist()
        assert hands == row[L.M_HANDS]


def test_pimc_plays_legal_moves_reproducibly():
    """Inside the engine (which stops on any illegal choice), and identical for the same seed."""
    engine = engine_for(TWO, (PIMC, "random"))
    first = engine.play(seed=9, first_match=0, n_matches=30)
    again = engine.play(seed=9, first_match=0, n_matches=30)
    other = engine.play(seed=10, first_match=0, n_matches=30)
    assert first.totals[L.S_MATCHES] == 30 and first.totals[L.S_POLICY_CALLS] > 100
    assert np.array_equal(first.match_rows, again.match_rows)
    assert not np.array_equal(first.match_rows, other.match_rows)


#: six seats each for themselves on double-nine; a target of 3 keeps the match-value table (3^6 score
#: vectors) and the matches short
SIX = Rules.make(players=6, domino_set="double-nine", target=3)


@pytest.mark.slow  # a fresh cache compiles a six-seat kernel and builds its table: over a minute
def test_pimc_plays_six_player_double_nine_matches():
    """Worlds of five other seats (merged into groups): legal inside the engine, reproducible, sane scores."""
    engine = engine_for(SIX, (PIMC,) + ("first",) * 5)
    first = engine.play(seed=9, first_match=0, n_matches=4)
    again = engine.play(seed=9, first_match=0, n_matches=4)
    assert first.totals[L.S_MATCHES] == 4 and first.totals[L.S_POLICY_CALLS] > 10
    assert np.array_equal(first.match_rows, again.match_rows)
    scores = first.match_rows[:, L.M_SCORE : L.M_SCORE + SIX.sides]
    assert (scores.max(axis=1) >= SIX.target).all()  # every match has a winner


#: a three-word set with the spinner, partnerships and the any-double lead
FIFTEEN = Rules.make(players=4, partnerships=True, domino_set="double-fifteen", lead="any-double")


@pytest.mark.slow  # a fresh cache compiles a three-word kernel of three search players and builds its table
def test_search_players_play_three_word_set_matches():
    """pimc, reader and ismcts on double-fifteen (three-word worlds, four arms): legal inside the engine,
    reproducible, every match won at the target."""
    engine = engine_for(FIFTEEN, ("pimc:worlds=8", "reader:worlds=32", "ismcts:iterations=48", "expert"))
    first = engine.play(seed=4, first_match=0, n_matches=2)
    again = engine.play(seed=4, first_match=0, n_matches=2)
    assert first.totals[L.S_MATCHES] == 2 and first.totals[L.S_POLICY_CALLS] > 20
    assert np.array_equal(first.match_rows, again.match_rows)
    scores = first.match_rows[:, L.M_SCORE : L.M_SCORE + FIFTEEN.sides]
    assert (scores.max(axis=1) >= FIFTEEN.target).all()


def test_pimc_returns_a_legal_index_on_real_views():
    ref = resolve(PIMC)
    rules_vec, table = pimc.kernel_arrays(TWO, ref.params)
    mt = np.zeros(L.MAX_MOVES, dtype=np.int64)
    me = np.zeros(L.MAX_MOVES, dtype=np.int64)
    rng = np.zeros(1, dtype=np.uint64)
    calls = 0
    for i, (view, _, _) in enumerate(real_views(TWO, matches=6)):
        n = hand_moves(view[L.V_HAND], view, mt, me)
        if n < 2:
            continue
        rng[0] = stream_state(np.uint64(1), i, 0, 0)
        k = pimc.choose(view, mt, me, n, rng, np.int64(0), np.array(ref.params, dtype=np.int64), rules_vec, table)
        assert 0 <= k < n
        calls += 1
    assert calls > 20


def test_every_move_meets_the_same_worlds():
    """Common random numbers: a move listed twice gets identical results world by world, and a
    batch of worlds gives the same numbers whatever batch it is computed in."""
    rules_vec, table = pimc.kernel_arrays(TWO, resolve(PIMC).params)
    view = next(v for v, _, _ in real_views(TWO, matches=2) if v[L.V_PLAY_NO] >= 2)
    mt = np.zeros(L.MAX_MOVES, dtype=np.int64)
    me = np.zeros(L.MAX_MOVES, dtype=np.int64)
    n = hand_moves(view[L.V_HAND], view, mt, me)
    mt[n], me[n] = mt[0], me[0]  # the first move once more
    base = np.int64(BASE_POLICIES.index("random"))
    key = np.uint64(12345)

    def run(first, count):
        values = np.zeros((count, n + 1))
        points = np.zeros((count, n + 1))
        pimc.evaluate_worlds(
            rules_vec,
            view,
            pimc.Moves(mt, me, n + 1),
            pimc.world_batch(key, first, count, base, 1),
            table,
            values,
            points,
            np.int64(0),
            None,
        )
        return values, points

    values, points = run(0, 40)
    assert np.array_equal(values[:, 0], values[:, n]) and np.array_equal(points[:, 0], points[:, n])
    assert points.std() > 0  # the worlds really differ
    later, _ = run(25, 15)
    assert np.array_equal(later, values[25:40])


def test_match_value_table():
    table = table_for(TWO, "first")
    assert table.shape == (TWO.target**2,)
    grid = table.reshape(TWO.target, TWO.target)  # grid[b, a]: side 0 at a, side 1 at b
    assert abs(grid[0, 0] - 0.5) < 0.03  # same policy on both sides: an even match
    assert np.allclose(grid + grid.T, 1.0)  # exactly one side wins
    assert grid[0, 14] > 0.9 > 0.1 > grid[14, 0]  # 14-0 is nearly won
    assert (np.diff(grid, axis=1) > -0.05).all()  # more own points never hurt beyond sampling noise
    rv = TWO.to_array()
    view = np.zeros(L.V_SIZE, dtype=np.int64)
    view[L.V_SCORE], view[L.V_SCORE + 1] = 15, 9
    assert win_probability(table, rv, view, 0) == 1.0 and win_probability(table, rv, view, 1) == 0.0
    view[L.V_SCORE], view[L.V_SCORE + 1] = 3, 12
    assert win_probability(table, rv, view, 1) == grid[3, 12] == pytest.approx(1 - win_probability(table, rv, view, 0))


@pytest.mark.parametrize(
    "name, message",
    [
        ("pimc:worlds=0", "worlds must be a whole number in 1..100000, not '0'"),
        ("pimc:worlds=many", "worlds must be a whole number"),
        ("pimc:wrlds=3", "unknown setting 'wrlds'; pimc takes worlds="),
        ("pimc:base=pimc", "base must be one of random, first, greedy"),
        ("pimc:worlds=3:worlds=4", "setting 'worlds' given twice"),
        ("pimc:worlds", "settings are KEY=VALUE separated by ':'"),
        ("greedy:depth=2", "greedy takes no settings"),
    ],
)
def test_bad_settings_are_one_line_errors(name, message):
    with pytest.raises(PolicyError) as info:
        resolve(name)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_settings_are_parsed_and_passed_to_one_shared_kernel():
    assert resolve("pimc").params == (64, BASE_POLICIES.index("expert"), 0)
    assert resolve("pimc:base=greedy:worlds=16").params == (16, BASE_POLICIES.index("greedy"), 0)
    assert resolve("pimc:worlds=16").params == (16, BASE_POLICIES.index("expert"), 0)
    # partner: 0 is "base" (every seat as base), then the built-ins in BASE_POLICIES order
    assert resolve("pimc:partner=greedy").params == (
        64,
        BASE_POLICIES.index("expert"),
        1 + BASE_POLICIES.index("greedy"),
    )
    assert resolve("greedy").params == ()
    one, two = resolve("pimc:worlds=8:base=first"), resolve("pimc:worlds=9:base=first")
    # one kernel for every setting (and every built-in): the settings are the seat's row of seat_params
    assert _dispatcher_source(kernel_policies([one])) == _dispatcher_source(kernel_policies([two, resolve("greedy")]))
    assert "no_tiles, seat_params[seat], rules, seat_tables[seat])" in _dispatcher_source(kernel_policies([one]))
    entries = [policy_key(ref) for ref in kernel_policies([one])]
    codes, params, tables = seat_arguments(entries, [one, resolve("greedy")], TWO)
    assert codes.tolist() == [entries.index(policy_key(one)), entries.index(policy_key(resolve("greedy")))]
    assert params.tolist() == [[8, BASE_POLICIES.index("first"), 0], [0, 0, 0]]
    assert np.array_equal(tables[0], table_for(TWO, "first")) and not tables[1].any()


def test_the_partner_setting_plays_the_partners_seats_and_nobody_elses():
    """pimc:partner=P: the seats of the deciding seat's side (but its own) play P in the play-outs, the others base;
    without partnerships, or with partner=base (-1 here), every seat plays base (an empty array)."""
    expert, greedy = BASE_POLICIES.index("expert"), BASE_POLICIES.index("greedy")

    def bases(rules, seat, partner):
        return pimc.seat_bases_for(rules.to_array(), np.int64(seat), np.int64(expert), np.int64(partner)).tolist()

    four = Rules.make(players=4, partnerships=True)
    assert bases(four, 0, greedy) == [expert, expert, greedy, expert]
    assert bases(four, 3, greedy) == [expert, greedy, expert, expert]
    six = Rules.make(players=6, partnerships=True, domino_set="double-nine")
    assert bases(six, 1, greedy) == [expert, expert, expert, greedy, expert, greedy]
    assert bases(four, 0, -1) == []
    assert bases(Rules.make(players=4), 0, greedy) == []  # no partners
