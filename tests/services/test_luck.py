"""The luck-adjusted estimator of ``compare --adjust luck`` (bergen_sim.services.luck).

What must hold whatever the value function: every control has expectation
zero (so the adjusted estimate is unbiased), a policy against itself comes
out even, and the cross-fitted adjustment never uses a deal set's own
outcome to adjust it.  What should hold for a useful value function: the
adjusted interval is narrower than the raw one.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time

import numpy as np
import pytest

from bergen_sim import RunOptions
from bergen_sim.cli import main
from bergen_sim.core.stats import paired_interval
from bergen_sim.engine import layout as L
from bergen_sim.model.rules import Rules
from bergen_sim.runtime.runner import halt_flag
from bergen_sim.search.luck_controls import C_TABLE, C_WIN
from bergen_sim.search.rollout import BASE_POLICIES
from bergen_sim.services.comparison import CompareError, compare
from bergen_sim.services.execution.jobs import Job
from bergen_sim.services.luck import DECISION_RUNS, cross_fitted, decider_rows, rollout_policies, traced_chunk
from tests.helpers import assert_halts_soon, deal_keyed_hand, error_lines, schema_validator

#: few play-outs keep the tests quick; unbiasedness holds for any number
FAST = dict(rollouts=2, deal_samples=4)


def _half_width(values: np.ndarray) -> float:
    low, high = paired_interval(values)["ci95"]
    return (high - low) / 2


def _self_play(matches: int, seed: int, rules: Rules | None = None, models: dict | None = None):
    """``first`` in every seat: by the symmetry of the deal and the lead, each seat wins exactly 1/n.

    (``first``, not a stronger policy: its kernel is one the default test tier compiles anyway.)
    """
    rules = rules or Rules.make(players=2)
    return traced_chunk(Job(rules, ("first",), seed, match_rows=True), 0, matches, models=models, **FAST)


def test_traced_results_are_the_engines():
    """The traced replay reads back the very matches ``simulate`` plays (winner, scores, hands)."""
    from bergen_sim.services.execution.jobs import engine_for

    rules = Rules.make(players=3)
    chunk = _self_play(30, 5, rules)
    played = engine_for(rules, ("first",) * 3).play(5, 0, 30).match_rows
    for column in (L.M_MATCH, L.M_WINNER, L.M_HANDS):
        assert np.array_equal(chunk.match_rows[:, column], played[:, column])
    assert np.array_equal(chunk.match_rows[:, L.M_SCORE : L.M_SCORE + 3], played[:, L.M_SCORE : L.M_SCORE + 3])


def test_controls_have_mean_zero():
    """Each control is a sum of terms with conditional mean zero: its mean over matches is ~0.

    (The table control moves only at deals, the play-out controls at deals and draws.)
    """
    chunk = _self_play(600, 11)
    for side in (0, 1):
        for control in range(chunk.controls.shape[2]):
            x = chunk.controls[:, side, control]
            assert x.std() > 0
            assert abs(x.mean()) < 4.5 * x.std() / np.sqrt(len(x)), (side, control, x.mean(), x.std())


def test_controls_explain_luck():
    """The play-out win control of seat 0 correlates strongly with seat 0 winning."""
    chunk = _self_play(300, 12)
    won = (chunk.match_rows[:, L.M_WINNER] == 0).astype(float)
    assert np.corrcoef(chunk.controls[:, 0, C_WIN], won)[0, 1] > 0.5
    assert np.corrcoef(chunk.controls[:, 0, C_TABLE], won)[0, 1] > 0.2


def test_self_play_adjusted_is_even_and_narrower():
    """A policy against itself: the adjusted seat-0 win rate is 1/2 within its interval, which is narrower."""
    chunk = _self_play(600, 13)
    won = (chunk.match_rows[:, L.M_WINNER] == 0).astype(float)
    z = chunk.controls.reshape(len(won), -1)
    adjusted = cross_fitted(won, z)
    result = paired_interval(adjusted, null=0.5)
    assert result["ci95"][0] < 0.5 < result["ci95"][1]
    assert _half_width(adjusted) < 0.8 * _half_width(won)


def test_cross_fitting_is_unbiased_on_synthetic_data():
    """y = 0.3 + controls @ b + noise with zero-mean controls: the adjusted mean stays 0.3 and the spread falls.

    Over many replications the adjusted means average to the true mean (no
    bias from fitting), and their spread is that of the noise alone.
    """
    rng = np.random.default_rng(1)
    means, raw_sd, adjusted_sd = [], [], []
    for _ in range(200):
        z = rng.normal(size=(200, 6))
        y = 0.3 + z @ np.array([1.0, -0.5, 0.2, 0.0, 0.0, 0.3]) + 0.3 * rng.normal(size=200)
        adjusted = cross_fitted(y, z)
        means.append(adjusted.mean())
        raw_sd.append(y.std())
        adjusted_sd.append(adjusted.std())
    means = np.array(means)
    assert abs(means.mean() - 0.3) < 4 * means.std() / np.sqrt(len(means))
    assert np.mean(adjusted_sd) < 0.4 * np.mean(raw_sd)


def test_cross_fitting_never_uses_a_deal_sets_own_outcome():
    """Changing one deal set's outcome changes only that deal set's adjusted value among its own fold."""
    rng = np.random.default_rng(2)
    z = rng.normal(size=(100, 3))
    y = z @ np.array([1.0, 2.0, 3.0]) + rng.normal(size=100)
    before = cross_fitted(y, z)
    y2 = y.copy()
    y2[4] += 10.0  # fold 0 (even deal sets)
    after = cross_fitted(y2, z)
    even = np.arange(100) % 2 == 0
    changed = np.flatnonzero(~np.isclose(before, after))
    assert 4 in changed
    assert any(not even[i] for i in changed)  # the odd fold's coefficients came from the even one
    assert not any(even[i] and i != 4 for i in changed)


def test_too_few_deal_sets_leave_the_outcomes_unadjusted():
    """Fewer than MIN_FOLD_PER_CONTROL deal sets per control in a fold: no adjustment rather than a noisy one."""
    rng = np.random.default_rng(3)
    z = rng.normal(size=(30, 6))
    y = rng.normal(size=30)
    assert np.array_equal(cross_fitted(y, z), y)


def test_rollout_policies_fall_back_to_expert():
    codes, worlds = rollout_policies(["greedy", "pimc", "random", "mypkg.mod:choose"])
    assert [BASE_POLICIES[c] for c in codes] == ["greedy", "expert", "random", "expert"]
    assert worlds.tolist() == [0, 0, 0, 0]


def test_a_policy_given_two_luck_models_is_refused():
    """``--luck-model`` twice for one policy: which one would count is not a guess the tool makes."""
    from bergen_sim.services.comparison import CompareError, parse_luck_models

    with pytest.raises(CompareError, match="'greedy' is given a model twice \\('expert' and 'random'\\)"):
        parse_luck_models(["greedy=expert", "greedy=random"])
    assert parse_luck_models(["greedy=expert", "first=random"]) == {"greedy": "expert", "first": "random"}


def test_luck_models_replace_a_policys_own():
    """``luck_models`` (compare --luck-model) names the built-in that plays a policy's seats in the play-outs."""
    codes, worlds = rollout_policies(
        ["greedy", "pimc", "expert", "mine:f"],
        {"greedy": "random", "mine:f": "greedy", "pimc": "pimc:worlds=12:base=greedy"},
    )
    assert [BASE_POLICIES[c] for c in codes] == ["random", "greedy", "expert", "greedy"]
    assert worlds.tolist() == [0, 12, 0, 0]


@pytest.mark.parametrize("model, matches", [("random", 300), ("pimc:worlds=2:base=first", 120)])
def test_controls_keep_mean_zero_under_a_wrong_model(model, matches):
    """The controls' expectation is zero whatever plays the play-outs: ``first`` played as ``random`` or as a
    small search, and the model is used (the controls differ from those of ``first``'s own play-outs on the
    same matches)."""
    own = _self_play(matches, 17)
    chunk = _self_play(matches, 17, models={"first": model})
    assert not np.allclose(own.controls, chunk.controls)
    for side in (0, 1):
        for control in range(chunk.controls.shape[2]):
            x = chunk.controls[:, side, control]
            assert abs(x.mean()) < 4.5 * x.std() / np.sqrt(len(x)), (side, control, x.mean(), x.std())


@pytest.mark.parametrize(
    "rules",
    [
        Rules.make(players=2),
        pytest.param(Rules.make(players=3), marks=pytest.mark.slow),  # each table and set compiles kernels of its own
        pytest.param(Rules.make(players=4, partnerships=True), marks=pytest.mark.slow),
        pytest.param(Rules.make(players=2, domino_set="double-nine"), marks=pytest.mark.slow),  # the spinner
    ],
)
def test_runs_of_a_deterministic_policy_make_the_move_made(rules):
    """At every decision of ``expert`` and ``greedy`` (neither draws a random number), each run of the policy on
    the view the replay rebuilds makes the move the match made, so the decision runs add nothing: the controls
    are exactly those without them.  ``expert`` reads most of the view (the ends, the hand counts, the voids,
    what is on the table), so a view that differed from the one the engine showed it would show up here."""
    job = Job(rules, tuple(("expert", "greedy")[seat % 2] for seat in range(rules.players)), 5, match_rows=True)
    with_runs = traced_chunk(job, 0, 30, decision_runs=8, **FAST)
    without = traced_chunk(job, 0, 30, decision_runs=0, **FAST)
    assert np.array_equal(with_runs.controls, without.controls)


def test_a_random_policy_s_decision_terms_have_mean_zero_and_explain_its_luck():
    """``random``'s moves are luck of its own: with decision runs its side's controls gain terms (the
    difference from the controls without them, every other term being the same), each with mean zero over
    matches, and they move with the result: a lucky pick wins more often."""
    job = Job(Rules.make(players=2), ("random", "greedy"), 19, match_rows=True)
    with_runs = traced_chunk(job, 0, 400, decision_runs=8, **FAST)
    without = traced_chunk(job, 0, 400, decision_runs=0, **FAST)
    terms = with_runs.controls - without.controls
    assert np.array_equal(with_runs.match_rows, without.match_rows)
    for side in (0, 1):
        for control in range(terms.shape[2]):
            x = terms[:, side, control]
            assert x.std() > 0
            assert abs(x.mean()) < 4.5 * x.std() / np.sqrt(len(x)), (side, control, x.mean(), x.std())
    won = (with_runs.match_rows[:, L.M_WINNER] == 0).astype(float)
    assert np.corrcoef(terms[:, 0, C_WIN], won)[0, 1] > 0.1


@pytest.mark.slow  # compiles a match kernel of its own
def test_pimc_s_decision_terms_have_mean_zero():
    """The same check for a search's dice: ``pimc`` (few worlds, so its runs disagree often) against ``greedy``:
    its side's decision terms are not all zero and have mean zero over matches, each control."""
    job = Job(Rules.make(players=2), ("pimc:worlds=3", "greedy"), 23, match_rows=True)
    with_runs = traced_chunk(job, 0, 300, decision_runs=4, **FAST)
    without = traced_chunk(job, 0, 300, decision_runs=0, **FAST)
    terms = with_runs.controls - without.controls
    assert np.count_nonzero(terms[:, 0, C_WIN]) > 100
    for control in range(terms.shape[2]):
        x = terms[:, 0, control]
        assert abs(x.mean()) < 4.5 * x.std() / np.sqrt(len(x)), (control, x.mean(), x.std())


def test_decider_rows_run_only_what_the_match_ran():
    """A built-in by its plain name and ``pimc`` on the adjustment's table are run again; ``pimc`` with another
    base (another table), a built-in with settings, the other searches and plug-ins are not."""
    from bergen_sim.search.luck_controls import D_CODE, D_PARTNER, D_WORLDS

    rows = decider_rows(
        [
            "random",
            "pimc:worlds=5:partner=greedy",
            "pimc:base=greedy",
            "expert:lead=highest",
            "reader",
            "mypkg.mod:choose",
        ]
    )
    assert rows[0, D_CODE] == BASE_POLICIES.index("random") and rows[0, D_WORLDS] == 0
    assert rows[1, D_CODE] == BASE_POLICIES.index("expert") and rows[1, D_WORLDS] == 5
    assert rows[1, D_PARTNER] == 1 + BASE_POLICIES.index("greedy")
    assert (rows[2:, D_CODE] == -1).all()


@pytest.mark.parametrize("search_worlds", [[0, 0], [3, 0], [0, 2]])
def test_the_play_outs_play_a_search_seat_as_pimc_does(search_worlds):
    """The luck's play-out (``_play_out``) against a replay of the same hand in Python: at each turn of a
    seat with search worlds, the move ``pimc.choose`` makes on the play-out's view; elsewhere the built-in's.
    With no search seat it is the rollouts' own play-out."""
    from bergen_sim.engine.hand import HAND_OVER, MATCH_OVER, advance, play, scratch_buffers
    from bergen_sim.engine.view import view_start_match
    from bergen_sim.search import pimc
    from bergen_sim.search.luck_controls import _play_out
    from bergen_sim.search.match_value import table_for
    from bergen_sim.search.rollout import base_move, play_out_by_seat, turn_view

    rules = Rules.make(players=2)
    rv, table = rules.to_array(), table_for(rules, "expert")
    bases = np.array([BASE_POLICIES.index("first"), BASE_POLICIES.index("greedy")], dtype=np.int64)
    worlds = np.array(search_worlds, dtype=np.int64)

    def dealt(seed):
        view = np.zeros(L.V_SIZE, dtype=np.int64)
        view_start_match(view, rv)
        hands = np.zeros(L.MAX_SEATS * L.SET_WORDS, dtype=np.int64)
        deal = np.zeros(L.MAX_TILES, dtype=np.int64)
        b = scratch_buffers(view, hands, deal, np.int64(0))
        assert deal_keyed_hand(rv, b, deal, rules.n_tiles, seed, 0, 1) == 0
        return b, view

    searched = 0
    for seed in range(6):
        b, view = dealt(seed)
        rng = np.full(1, seed, dtype=np.uint64)
        _play_out(rv, b, b.hrow[L.H_LEADER], bases, worlds, table, rng)
        replay, replay_view = dealt(seed)
        replay_rng = np.full(1, seed, dtype=np.uint64)
        seat, pos = replay.hrow[L.H_LEADER], replay.turn[L.TURN_BONE_START]
        if not worlds.any():
            play_out_by_seat(rv, replay, seat, bases[0], bases, replay_rng)
        while worlds.any():
            n, seat, pos = advance(rv, replay, seat, pos)
            if n in (HAND_OVER, MATCH_OVER):
                break
            if n > 1 and worlds[seat]:
                k = pimc.choose(
                    turn_view(replay, seat),
                    replay.move_tiles,
                    replay.move_ends,
                    n,
                    replay_rng,
                    replay.no_tiles,
                    pimc.settings_row(worlds[seat], bases[seat], np.int64(0)),
                    rv,
                    table,
                )
                searched += 1
            else:
                k = base_move(replay, seat, n, bases[seat], replay_rng)
            if play(rv, replay, seat, replay.move_tiles[k], replay.move_ends[k]):
                break
        assert np.array_equal(view[: L.V_LOG], replay_view[: L.V_LOG]), seed
        assert np.array_equal(b.hands, replay.hands) and rng[0] == replay_rng[0], seed
    assert searched > 0 or not worlds.any()


def test_compare_reports_adjusted_figures_beside_raw():
    result = compare(policies=["first", "random"], deals=40, seed=3, adjust="luck", options=RunOptions(workers=1))
    row = result.pairs.iloc[0]
    raw = compare(policies=["first", "random"], deals=40, seed=3, options=RunOptions(workers=1)).pairs.iloc[0]
    for name in ("win_rate", "points_per_hand", "opponent_points_per_hand", "points_margin"):
        assert row[name] == pytest.approx(raw[name])  # the raw figures are the same matches'
        for suffix in ("", "_lo", "_hi"):
            assert np.isfinite(row[f"adjusted_{name}{suffix}"])
    assert {"adjusted_win_p_value", "adjusted_win_significant", "adjusted_points_p_value"} <= set(row.index)
    assert result.meta["adjust"] == "luck"
    # 40 deal sets are too few to fit the 6 controls' coefficients: the adjusted figures are the raw ones
    assert row["adjusted_win_rate"] == pytest.approx(row["win_rate"])
    field = result.standings
    assert np.isfinite(field["adjusted_win_rate"]).all()
    # the two policies' adjusted win rates are complements, per pair and against the field
    assert field["adjusted_win_rate"].sum() == pytest.approx(1.0)


def test_compare_refuses_bad_adjustments():
    with pytest.raises(CompareError, match="unknown adjustment"):
        compare(policies=["first", "random"], deals=5, adjust="skill")
    with pytest.raises(CompareError, match="checkpoint"):
        compare(policies=["first", "random"], deals=5, adjust="luck", options=RunOptions(checkpoint="somewhere"))
    with pytest.raises(CompareError, match="give them with --adjust luck"):
        compare(policies=["first", "random"], deals=5, luck_models={"first": "greedy"})
    with pytest.raises(CompareError, match="not one of the compared policies"):
        compare(policies=["first", "random"], deals=5, adjust="luck", luck_models={"greedy": "expert"})
    with pytest.raises(CompareError, match=r"the play-outs can play random, first, .* or pimc\[:worlds=N\]"):
        compare(policies=["first", "random"], deals=5, adjust="luck", luck_models={"first": "ismcts"})
    with pytest.raises(CompareError, match="luck model first=pimc:worlds=0: .*worlds must be a whole number"):
        compare(policies=["first", "random"], deals=5, adjust="luck", luck_models={"first": "pimc:worlds=0"})
    with pytest.raises(CompareError, match="takes worlds and base, not partner"):
        compare(policies=["first", "random"], deals=5, adjust="luck", luck_models={"first": "pimc:partner=greedy"})
    with pytest.raises(CompareError, match="give a mapping"):
        compare(policies=["first", "random"], deals=5, adjust="luck", luck_models=["first=greedy"])


def test_cli_adjust_luck_json(capsys):
    args = ["compare", "--policy", "first,random", "--deals", "20", "--seed", "2", "--adjust", "luck", "--workers", "1"]
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["adjust"] == "luck"
    schema_validator("compare").validate(data)
    pair = data["pairs"][0]
    assert {"adjusted_win_rate", "adjusted_points_per_hand", "adjusted_points_margin"} <= set(pair)
    assert pair["adjusted_win_rate"]["n"] == 20 and pair["adjusted_win_rate"]["unit"] == "share of matches won"
    assert main(args) == 0
    assert "luck-adjusted" in capsys.readouterr().out
    assert main(["compare", "--policy", "first,random", "--adjust", "skill"]) == 2
    err = capsys.readouterr().err
    assert "skill" in err and len(error_lines(err.strip())) == 1
    # a luck model and the play-outs per position: recorded in the JSON, and the same raw figures (the same
    # matches)
    assert data["luck_playouts"] == 32 and data["luck_decision_runs"] == DECISION_RUNS
    assert main([*args, "--json", "--luck-model", "random=greedy", "--luck-playouts", "3"]) == 0
    modelled = json.loads(capsys.readouterr().out)
    assert modelled["luck_models"] == {"random": "greedy"} and modelled["luck_playouts"] == 3
    assert modelled["pairs"][0]["win_rate"] == pair["win_rate"]
    for bad, says in (
        (["--luck-model", "random"], "give NAME=MODEL"),
        (["--luck-model", "greedy=expert"], "not one of the compared policies"),
        (["--luck-model", "random=ismcts"], "the play-outs can play"),
        (["--luck-model", "random=pimc:partner=greedy"], "takes worlds and base, not partner"),
        (["--luck-playouts", "0"], "luck_playouts (--luck-playouts) must be 1..10,000, not 0"),
        (["--luck-playouts", "10001"], "must be 1..10,000"),
        (["--luck-playouts", "x"], "'x' is not a valid integer"),
    ):
        assert main([*args, *bad]) == 2
        err = capsys.readouterr().err
        assert says in err and len(error_lines(err.strip())) == 1, err
    for without_luck in (["--luck-model", "random=greedy"], ["--luck-playouts", "4"]):
        assert main(["compare", "--policy", "first,random", "--deals", "20", *without_luck]) == 2
        assert "give them with --adjust luck" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize(
    "rules, share",
    [
        (Rules.make(players=3), 1 / 3),
        (Rules.make(players=4, partnerships=True), 1 / 2),
        (Rules.make(players=6, domino_set="double-nine"), 1 / 6),
        (Rules.make(players=3, domino_set="double-twelve", lead="any-double"), 1 / 3),
    ],
    ids=["3p", "4p-partners", "6p-double-nine", "3p-double-twelve-any-double"],
)
def test_self_play_more_players_partnerships_and_larger_sets(rules, share):
    """The same symmetry check at 3 and 6 players (seat 0 wins 1/n), in partnerships (side 0 wins 1/2)
    and on a three-word set with the spinner and the any-double lead."""
    chunk = _self_play(500, 21, rules)
    won = (chunk.match_rows[:, L.M_WINNER] == 0).astype(float)
    adjusted = cross_fitted(won, chunk.controls.reshape(len(won), -1))
    result = paired_interval(adjusted, null=share)
    assert result["ci95"][0] < share < result["ci95"][1], (rules, result)
    assert _half_width(adjusted) < _half_width(won)


@pytest.mark.slow  # compiles a kernel of its own (two lead settings): about 45 s of a cold default run
def test_controls_have_mean_zero_when_the_leader_chooses_its_double():
    """Under any-double the double led is a decision: with seat 0 leading its highest double and seat 1
    its lowest, each side's deal and draw controls still average to zero over matches."""
    rules = Rules.make(players=2, lead="any-double")
    chunk = traced_chunk(Job(rules, ("expert:lead=highest", "expert:lead=lowest"), 31, match_rows=True), 0, 600, **FAST)
    for side in (0, 1):
        for control in range(chunk.controls.shape[2]):
            x = chunk.controls[:, side, control]
            assert abs(x.mean()) < 4.5 * x.std() / np.sqrt(len(x)), (side, control, x.mean(), x.std())


def test_more_play_outs_change_the_controls_not_the_matches():
    """``luck_playouts`` reaches the play-outs: other adjusted figures on the very same raw ones."""
    args = dict(policies=["first", "random"], deals=130, seed=6, adjust="luck", options=RunOptions(workers=1))
    few = compare(**args, luck_playouts=1).results
    more = compare(**args, luck_playouts=6).results
    assert few["win_rate"].tolist() == more["win_rate"].tolist()
    assert few["adjusted_win_rate"].tolist() != more["adjusted_win_rate"].tolist()
    with pytest.raises(CompareError, match="give them with --adjust luck"):
        compare(policies=["first", "random"], deals=5, luck_playouts=4)


def test_workers_and_chunks_do_not_change_adjusted_figures():
    """The traced chunks merge in match order: processes and chunk sizes never change a number."""
    args = dict(policies=["first", "random"], deals=30, seed=4, adjust="luck")
    one = compare(**args, options=RunOptions(workers=1)).results.drop(columns="rank").select_dtypes("number")
    two = (
        compare(**args, options=RunOptions(workers=2, chunk_size=7))
        .results.drop(columns="rank")
        .select_dtypes("number")
    )
    assert np.allclose(one.to_numpy(), two.to_numpy(), equal_nan=True)


def test_the_deal_s_control_does_not_depend_on_which_double_the_leader_chose():
    """Under any-double the double led is the leader's decision, not luck: a hand cut right after its lead,
    replayed once with the double actually led and once with another double of the leader's hand, gives
    the same controls (the deal is valued the same way as its sampled alternatives)."""
    from bergen_sim.search.luck_controls import CONTROLS, Replay, luck_controls
    from bergen_sim.search.match_value import table_for
    from bergen_sim.services.execution.jobs import engine_for

    rules = Rules.make(players=2, lead="any-double")
    trace = engine_for(rules, ("first", "first")).trace_rows(3, 0, 40)  # any policy will do
    table = table_for(Rules.make(players=2), "expert")  # any value table will do; this one the suite has built
    checked = 0
    for at in np.flatnonzero(trace[:, L.T_TYPE] == L.EV_LEAD):
        lead = trace[at]
        deal = trace[at - 1, L.T_DEAL : L.T_DEAL + rules.n_tiles]
        seat, size = int(lead[L.T_SEAT]), rules.hand_size
        doubles = [int(t) for t in deal[seat * size : (seat + 1) * size] if L.TILE_LO[t] == L.TILE_HI[t]]
        if len(doubles) < 2 or lead[L.T_HAND] != 1:
            continue
        start = trace[at - 2 : at + 1].copy()  # match start, deal, lead
        end = trace[at].copy()
        end[L.T_TYPE] = L.EV_MATCH_END
        controls = []
        for tile in (int(lead[L.T_TILE]), next(d for d in doubles if d != lead[L.T_TILE])):
            rows = np.vstack([start, end])
            rows[2, L.T_TILE] = tile
            out = np.zeros((1, L.MAX_SEATS, CONTROLS))
            replay = Replay(
                rules.to_array(),
                table,
                np.uint64(9),
                np.int64(4),
                np.int64(2),
                *rollout_policies(["expert", "expert"]),
                decider_rows(["expert", "expert"]),
                np.int64(DECISION_RUNS),
                np.int64(0),
            )
            read = luck_controls(replay, rows, out, np.zeros((1, L.M_WIDTH), np.int64), halt_flag())
            assert read == 1
            controls.append(out)
        assert np.array_equal(controls[0], controls[1])
        checked += 1
    assert checked >= 3


def test_a_halted_traced_chunk_stops_after_its_match_and_an_unhalted_one_is_unchanged():
    """Play and replay both read the run's halt flag before every match, as the match loop does."""
    job = Job(Rules.make(players=2), ("expert", "greedy"), 3, match_rows=True)
    slow = {"deal_samples": 128, "rollouts": 512}  # a few hundred ms per match: 500 matches take minutes
    free = traced_chunk(job, 0, 6, **FAST)  # compiled or loaded before the clock starts
    assert_halts_soon(lambda flag: traced_chunk(job, 0, 500, halt=flag, **slow), after_s=1.0)
    flagged = traced_chunk(job, 0, 6, halt=halt_flag(), **FAST)
    assert np.array_equal(free.controls, flagged.controls) and np.array_equal(free.match_rows, flagged.match_rows)


def test_ctrl_c_stops_a_luck_adjusted_comparison_without_waiting_for_its_chunks(monkeypatch):
    """Nothing of a traced run is kept, so Ctrl-C halts the running chunks after their match."""
    import bergen_sim.services.luck as luck

    compare(
        policies=("expert", "greedy"), deals=2, seed=3, adjust="luck", options=RunOptions(workers=1)
    )  # kernels loaded first
    monkeypatch.setattr(luck, "ROLLOUTS", 512)  # chunks of minutes each
    monkeypatch.setattr(luck, "DEAL_SAMPLES", 128)
    sent: list[float] = []
    timer = threading.Timer(1.0, lambda: (sent.append(time.perf_counter()), os.kill(os.getpid(), signal.SIGINT)))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        compare(
            policies=("expert", "greedy"),
            deals=1_000,
            seed=3,
            adjust="luck",
            options=RunOptions(workers=2, chunk_size=500),
        )
    stopped = time.perf_counter()
    timer.join()
    assert stopped - sent[0] < 5
    assert not [t for t in threading.enumerate() if t.name.startswith("bergen-sim-worker")]
