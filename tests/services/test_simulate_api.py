"""The Python API: ``bergen_sim.simulate`` for notebook users."""

from __future__ import annotations

import importlib

import pandas as pd
import pytest

import bergen_sim
from bergen_sim import RunOptions
from bergen_sim.core.errors import BergenError, PolicyError, RuleError
from bergen_sim.model.rules import Rules

simulate_module = importlib.import_module("bergen_sim.services.simulation")  # the package's `simulate` is the function

#: fields that say how long a run took or how it was carried out, not what it found
RUN_FIELDS = {"elapsed_s", "matches_per_s", "hands_per_s", "startup_s", "workers", "scheduler", "resumed_matches"}


def results(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k not in RUN_FIELDS}


def test_simulate_returns_summary_and_rows():
    result = bergen_sim.simulate(
        rules=Rules.make(players=3), matches=300, seed=21, rows=True, options=RunOptions(workers=1)
    )
    summary, frame = result.summary, result.matches
    assert isinstance(result, bergen_sim.SimulationResult)
    assert summary["matches"] == 300 and summary["seed"] == 21 and summary["policies"] == ["random"] * 3
    assert summary["rules"] == Rules.make(players=3).to_dict()
    assert isinstance(frame, pd.DataFrame) and len(frame) == 300
    assert frame["match"].tolist() == list(range(300))
    assert frame["hands"].sum() == summary["hands"]
    assert frame["redeals"].sum() == summary["redeals"]
    assert frame["plays"].sum() == summary["plays"]
    assert frame["draws"].sum() == summary["draws"]
    assert frame["blocked_hands"].sum() == summary["blocked_hands"]
    assert frame["double_headers"].sum() == summary["double_headers"]
    assert frame["triple_headers"].sum() == summary["triple_headers"]
    assert [int((frame["winner"] == side).sum()) for side in range(3)] == summary["match_wins"]
    scores = frame[["score_0", "score_1", "score_2"]].to_numpy()
    assert (scores[range(300), frame["winner"]] >= 10).all()
    # every point is accounted for by its source
    assert scores.sum() == sum(summary["points_by_source"].values())
    # the summary's intervals carry their sample sizes: the matches, the independent units, even of a rate per hand
    assert summary["hands_per_match"]["n"] == 300 and summary["hands_per_match"]["n_unit"] == "matches"
    assert summary["leader_side_hand_win_rate"]["n"] == 300
    rate = summary["double_headers_per_hand"]
    assert rate["low"] < summary["double_headers"] / summary["hands"] < rate["high"]
    assert rate["unit"] == "double-headers per hand"


def test_per_hand_rates_take_the_match_as_their_unit():
    """Hands are clustered in matches: the summary's per-hand intervals are the ratio intervals over the
    match rows (not hands treated as independent), and a count per hand never gets a negative bound."""
    from bergen_sim.core import stats

    result = bergen_sim.simulate(
        rules=Rules.make(players=2), matches=400, seed=5, rows=True, options=RunOptions(workers=1)
    )
    summary, frame = result.summary, result.matches
    for name, column in (("double_headers_per_hand", "double_headers"), ("triple_headers_per_hand", "triple_headers")):
        want = stats.clustered_ratio(stats.cluster_sums(frame[column], frame["hands"]))
        estimate = summary[name]
        assert estimate["n"] == 400 and estimate["n_unit"] == "matches"
        assert estimate["value"] == pytest.approx(want[0])
        assert [estimate["low"], estimate["high"]] == pytest.approx([max(want[1], 0), want[2]])
    want = stats.clustered_ratio(stats.cluster_sums(frame["leader_side_wins"], frame["decided_hands"]))
    leader = summary["leader_side_hand_win_rate"]
    assert [leader["low"], leader["high"]] == pytest.approx(list(want[1:]))
    assert frame["decided_hands"].sum() == summary["decided_hands"]
    few = bergen_sim.simulate(
        rules=Rules.make(players=8, preset="standard", domino_set="double-nine"),
        matches=3,
        seed=1,
        options=RunOptions(workers=1),
    ).summary
    for name in ("double_headers_per_hand", "triple_headers_per_hand", "leader_side_hand_win_rate"):
        assert few[name]["low"] >= 0.0
    assert few["leader_side_hand_win_rate"]["high"] <= 1.0


def test_rows_only_when_asked():
    assert bergen_sim.simulate(matches=20, seed=1, options=RunOptions(workers=1)).matches is None


def test_same_seed_same_result_however_the_run_is_split():
    kwargs = dict(rules=Rules.make(players=4, partnerships=True, preset="classic", target=12), matches=700, seed=5)
    one = bergen_sim.simulate(**kwargs, rows=True, options=RunOptions(workers=1))
    again = bergen_sim.simulate(**kwargs, rows=True, options=RunOptions(workers=1, chunk_size=97))
    assert results(one.summary) == results(again.summary)
    pd.testing.assert_frame_equal(one.matches, again.matches)
    other = bergen_sim.simulate(**{**kwargs, "seed": 6}, options=RunOptions(workers=1))
    assert results(other.summary) != results(one.summary)


def test_policies_per_seat_and_settings():
    result = bergen_sim.simulate(
        rules=Rules.make(players=2, hand_size=4, out_points=3),
        policies=["first"],
        matches=50,
        seed=2,
        options=RunOptions(workers=1),
    )
    assert result.summary["policies"] == ["first", "first"]
    assert result.summary["rules"]["hand_size"] == 4 and result.summary["rules"]["out_points"] == 3
    assert result.summary["points_by_source"]["out"] == 3 * result.summary["out_hands"]


@pytest.mark.parametrize(
    "kwargs, error, text",
    [
        (dict(matches=0), BergenError, "matches"),
        (dict(policies=["nope"]), PolicyError, "nope"),
        (dict(policies=["random", "first", "random"]), PolicyError, "one per seat"),
        (dict(rules=lambda: Rules.make(players=3, partnerships=True)), RuleError, "partnerships"),
        (dict(rules=lambda: Rules.make(preset="modern")), RuleError, "preset"),
        (dict(rules=lambda: Rules.make(jokers=True)), RuleError, "jokers"),
        (dict(rules=lambda: Rules.make(target="15")), RuleError, "target"),
        (dict(rules=lambda: Rules.make(boneyard_reserve=3, hand_size=13)), RuleError, "boneyard_reserve"),
    ],
)
def test_bad_arguments_raise_one_line_errors(kwargs, error, text):
    with pytest.raises(error) as info:
        made = {key: value() if callable(value) else value for key, value in kwargs.items()}  # bad rules fail here
        bergen_sim.simulate(**{"matches": 10, **made}, options=RunOptions(workers=1))
    assert text in str(info.value) and "\n" not in str(info.value)


def test_out_writes_the_rows_it_returns(tmp_path):
    path = tmp_path / "m.parquet"
    result = bergen_sim.simulate(
        matches=120, seed=8, rows=True, out=str(path), options=RunOptions(workers=1, chunk_size=50)
    )
    written = pd.read_parquet(path)
    assert set(written["run_id"]) == {result.run_id}  # the file's rows name the run that wrote them
    pd.testing.assert_frame_equal(written.drop(columns="run_id"), result.matches)


def test_a_run_failing_midway_leaves_no_parquet_file(tmp_path, monkeypatch):
    real = simulate_module.match_frame
    calls = []

    def failing(rows, sides):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt  # as if the user pressed Ctrl-C while the third row group was made
        return real(rows, sides)

    monkeypatch.setattr(simulate_module, "match_frame", failing)
    with pytest.raises(KeyboardInterrupt):
        bergen_sim.simulate(
            matches=200, seed=8, out=str(tmp_path / "m.parquet"), options=RunOptions(workers=1, chunk_size=50)
        )
    assert list(tmp_path.iterdir()) == []


def test_a_job_compiles_only_the_kernel_it_names(monkeypatch):
    """A job with ``kernel_policies`` plays on that one kernel: no second kernel for its seats alone.

    A run used to compile (about 20 s cold) a kernel of just its seat policies before playing on the
    shared one, so every seating of a report or tournament paid a compile of its own.
    """
    from bergen_sim.services.execution import jobs as execution
    from bergen_sim.services.execution.jobs import Job, RunOptions, run_job

    built = []
    real = execution.engine_for

    def spy(rules, policies, kernel_policies=()):
        built.append(tuple(sorted(set(policies) | set(kernel_policies))))
        return real(rules, policies, kernel_policies)

    monkeypatch.setattr(execution, "engine_for", spy)
    job = Job(Rules.make(players=2), ("random", "random"), seed=3, kernel_policies=("first", "random"))
    chunks = list(run_job(job, 40, options=RunOptions(workers=1)))
    assert sum(int(c.counts["matches"]) for c in chunks) == 40
    assert set(built) == {("first", "random")}
