"""``compare`` tournaments: seat rotations, duplicate deals, paired intervals, outputs and errors.

Only two kernels are compiled here: {first, random} and {random, alias of
random} (the alias is the built-in random policy under its module:function
name, i.e. two copies of the same policy).
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bergen_sim import RunOptions
from bergen_sim.cli import main
from bergen_sim.core.errors import BergenError, PolicyError
from bergen_sim.engine import layout as L
from bergen_sim.model.rules import Rules
from bergen_sim.services.comparison import (
    FIELD,
    CompareError,
    PairOutcomes,
    compare,
    paired_interval,
    results_frame,
    rotation_jobs,
    rotation_patterns,
)
from bergen_sim.services.execution.jobs import engine_for
from bergen_sim.services.simulation import simulate

ALIAS = "bergen_sim.policies.random_move:choose"  # the built-in `random` under another name
SHAPES = [dict(players=2), dict(players=3), dict(players=4, partnerships=True), dict(players=4)]


# --- seat rotations -----------------------------------------------------------


@pytest.mark.parametrize("shape", SHAPES, ids=["2p", "3p", "4p-partners", "4p"])
def test_rotations_give_each_policy_every_seat_equally_often(shape):
    rules = Rules.make(**shape)
    patterns = np.array(rotation_patterns(rules))
    assert len(set(map(tuple, patterns))) == len(patterns)
    per_seat = patterns.sum(axis=0)  # rotations in which policy b holds each seat
    assert (per_seat * 2 == len(patterns)).all()
    assert ((patterns == 0).any(axis=1) & (patterns == 1).any(axis=1)).all()  # both policies at every table
    if rules.partnerships:  # partners share a policy, the sides swap
        assert (patterns[:, 0] == patterns[:, 2]).all() and (patterns[:, 1] == patterns[:, 3]).all()
        assert len(patterns) == 2


def _deals(job, matches: int) -> dict[tuple[int, int], list[tuple[int, ...]]]:
    """Every deal (redeals included, in order) of each (match, hand) a job plays."""
    rows = engine_for(job.rules, job.policies).trace_rows(job.seed, 0, matches)
    deals = defaultdict(list)
    for row in rows[rows[:, L.T_TYPE] == L.EV_DEAL]:
        deals[int(row[L.T_MATCH]), int(row[L.T_HAND])].append(tuple(row[L.T_DEAL : L.T_DEAL + L.N_TILES]))
    return deals


@pytest.mark.parametrize("shape", [dict(players=2), dict(players=3)], ids=["2p", "3p"])
def test_duplicate_deals_replay_the_same_deals_in_every_rotation(shape):
    rules = Rules.make(**shape)
    jobs = rotation_jobs(rules, "first", "random", seed=11)
    deals = [_deals(job, 30) for job in jobs]
    assert len({job.policies for job in jobs}) == len(jobs)  # the seats really differ
    for other in deals[1:]:
        common = deals[0].keys() & other.keys()
        assert {(m, 1) for m in range(30)} <= common  # every match's first hand, and more
        assert len(common) > 30
        assert all(deals[0][key] == other[key] for key in common)


def test_independent_deals_differ_between_rotations():
    rules = Rules.make(players=2)
    first, second = (_deals(job, 30) for job in rotation_jobs(rules, "first", "random", seed=11, independent=True))
    assert all(first[m, 1] != second[m, 1] for m in range(30))


# --- the paired statistics ----------------------------------------------------


def test_paired_interval_covers_the_truth_95_percent_of_the_time():
    rng = np.random.default_rng(5)
    experiments, n = 400, 200
    # per-deal-set win shares of a 2-rotation pair: 0, 1/2 or 1 with a true mean of 0.55
    shares = rng.choice([0.0, 0.5, 1.0], p=[0.2, 0.5, 0.3], size=(experiments, n))
    covered = [lo <= 0.55 <= hi for lo, hi in (paired_interval(s)["ci95"] for s in shares)]
    assert 0.92 <= np.mean(covered) <= 0.98


def test_identical_outcome_streams_come_out_even_within_their_interval():
    rng = np.random.default_rng(8)
    # two policies of equal strength: each deal set's points per hand drawn from the same distribution
    deal_luck = rng.normal(3.0, 0.8, size=2_000)
    a = deal_luck + rng.normal(0, 0.3, size=2_000)
    b = deal_luck + rng.normal(0, 0.3, size=2_000)
    margin = paired_interval(a - b)
    assert margin["ci95"][0] < 0 < margin["ci95"][1] and margin["p_value"] > 0.05
    # the pairing removes the shared deal luck: the paired interval is much narrower than the unpaired one
    unpaired_half = 1.96 * np.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    assert margin["ci95"][1] - margin["mean"] < unpaired_half / 2


def test_paired_interval_detects_a_real_difference_and_handles_degenerate_samples():
    rng = np.random.default_rng(2)
    better = paired_interval(rng.choice([0.0, 0.5, 1.0], p=[0.2, 0.4, 0.4], size=500), null=0.5)
    assert better["ci95"][0] > 0.5 and better["p_value"] < 0.001
    one = paired_interval(np.array([1.0]), null=0.5)
    assert one["n"] == 1 and np.isnan(one["ci95"]).all() and np.isnan(one["p_value"])
    flat = paired_interval(np.full(10, 0.5), null=0.5)
    assert flat["ci95"] == [0.5, 0.5] and flat["p_value"] == 1.0


def test_the_field_is_the_per_deal_set_mean_over_opponents():
    rng = np.random.default_rng(3)
    share = {pair: rng.choice([0.0, 0.5, 1.0], size=300) for pair in [("x", "y"), ("x", "z"), ("y", "z")]}
    outcomes = [PairOutcomes(a, b, 600, s, rng.normal(3, 1, 300), rng.normal(3, 1, 300)) for (a, b), s in share.items()]
    frame = results_frame(["x", "y", "z"], outcomes)
    field = frame[frame["opponent"] == FIELD].set_index("policy")
    expected_y = ((1 - share["x", "y"]) + share["y", "z"]) / 2
    assert field.loc["y", "win_rate"] == pytest.approx(expected_y.mean())
    assert field.loc["y", "win_rate_hi"] == pytest.approx(paired_interval(expected_y)["ci95"][1])
    assert field.loc["y", "matches"] == 1200
    assert sorted(field["rank"]) == [1, 2, 3]
    assert field["win_rate"].idxmax() == field["rank"].idxmin()
    yx = frame[(frame["policy"] == "y") & (frame["opponent"] == "x")].iloc[0]
    xy = frame[(frame["policy"] == "x") & (frame["opponent"] == "y")].iloc[0]
    assert yx["win_rate"] == pytest.approx(1 - xy["win_rate"])
    assert yx["points_margin"] == pytest.approx(-xy["points_margin"])


# --- the real engine ----------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("shape", SHAPES[:3], ids=["2p", "3p", "4p-partners"])
def test_two_copies_of_one_policy_come_out_exactly_even_on_duplicate_deals(shape):
    # same deals and (seat-keyed) same random streams: the rotations replay the same matches,
    # so any slip in which seat or side is credited to which policy would show
    result = compare(Rules.make(**shape), ["random", ALIAS], deals=300, seed=4)
    for _, row in result.results.iterrows():
        assert (row["win_rate_lo"], row["win_rate"], row["win_rate_hi"]) == (0.5, 0.5, 0.5)
        assert row["points_margin"] == 0.0 and not row["win_significant"]


def test_two_copies_of_one_policy_come_out_even_within_the_interval_on_independent_deals():
    row = compare(policies=["random", ALIAS], deals=2_000, seed=4, independent=True).pairs.iloc[0]
    assert row["win_rate_lo"] < 0.5 < row["win_rate_hi"]
    assert row["points_margin_lo"] < 0 < row["points_margin_hi"]
    assert row["win_rate_hi"] - row["win_rate_lo"] > 0.01  # a real interval, not a degenerate one


def test_pair_results_match_a_recount_from_simulate():
    result = compare(policies=["first", "random"], deals=400, seed=9)
    row = result.pairs.iloc[0]
    ab = simulate(policies=["first", "random"], matches=400, seed=9, rows=True).matches
    ba = simulate(policies=["random", "first"], matches=400, seed=9, rows=True).matches
    share = ((ab["winner"] == 0).to_numpy(dtype=float) + (ba["winner"] == 1).to_numpy(dtype=float)) / 2
    points = (ab["score_0"] + ba["score_1"]) / (ab["hands"] + ba["hands"])
    assert (row["deal_sets"], row["matches"], result.meta["matches"]) == (400, 800, 800)
    assert row["win_rate"] == pytest.approx(share.mean())
    assert row["points_per_hand"] == pytest.approx(points.mean())
    assert row["win_rate_hi"] == pytest.approx(paired_interval(share)["ci95"][1])
    standings = result.standings
    assert standings.loc[standings["policy"] == "first", "win_rate"].item() == pytest.approx(share.mean())
    assert result.meta["rotations"] == ["ab", "ba"] and result.meta["design"] == "duplicate"


def test_results_do_not_depend_on_workers_chunks_or_a_resumed_checkpoint(tmp_path):
    args = dict(rules=Rules.make(players=3), policies=["first", "random"], deals=600, seed=6)
    plain = compare(**args, options=RunOptions(workers=1))
    split = compare(**args, options=RunOptions(workers=2, checkpoint=str(tmp_path), chunk_size=150))
    resumed = compare(**args, options=RunOptions(workers=2, checkpoint=str(tmp_path), chunk_size=150))
    assert resumed.meta["resumed_matches"] == resumed.meta["matches"] == 3600
    assert len(list(tmp_path.iterdir())) == 6  # one checkpoint folder per seat rotation
    pd.testing.assert_frame_equal(plain.results, split.results)
    pd.testing.assert_frame_equal(plain.results, resumed.results)


# --- outputs and errors -------------------------------------------------------


@pytest.fixture(scope="module")
def small_result():
    return compare(rules=Rules.make(players=3), policies=["random", "first"], deals=60, seed=1)


def test_result_writes_csv_parquet_and_json(small_result, tmp_path):
    for suffix in (".csv", ".parquet", ".json"):
        small_result.write(tmp_path / f"r{suffix}")
    csv = pd.read_csv(tmp_path / "r.csv")
    parquet = pd.read_parquet(tmp_path / "r.parquet")
    assert len(csv) == len(parquet) == len(small_result.results) == 4
    assert csv["win_rate"].tolist() == pytest.approx(parquet["win_rate"].tolist())
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["rotations"] == ["abb", "bab", "bba", "baa", "aba", "aab"]
    assert [r["policy"] for r in doc["pairs"]] == ["random"] and len(doc["standings"]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv", "r.json", "r.parquet"]  # no partial files


def test_cli_json_and_out(tmp_path, capsys):
    out = tmp_path / "pairs.parquet"
    assert (
        main(["compare", "--policy", "first,random", "--deals", "50", "--seed", "2", "--json", "--out", str(out)]) == 0
    )
    doc = json.loads(capsys.readouterr().out)
    assert doc["pairs"][0]["matches"] == 100 and doc["standings"][0]["rank"] == 1
    assert pd.read_parquet(out)["opponent"].tolist().count(FIELD) == 2


def test_cli_table_of_one_deal_set_says_there_is_no_interval(capsys):
    """One deal set has no spread: the table says so instead of printing "± nan%" and "p=nan"."""
    assert main(["compare", "--policy", "first,random", "--deals", "1"]) == 0
    text = capsys.readouterr().out
    assert "(no interval)" in text and "no test" in text and "nan" not in text


def test_cli_table(capsys):
    assert main(["compare", "--policy", "first,random", "--deals", "50", "--players", "4", "--partnerships"]) == 0
    text = capsys.readouterr().out
    assert "standings" in text and "abab baba" in text and "random" in text


@pytest.mark.parametrize(
    "args, words",
    [
        (["--policy", "random"], "at least 2 policies"),
        (["--policy", "random,first,random"], "random listed more than once"),
        (["--policy", "random,nosuch"], "unknown policy 'nosuch'"),
        (["--policy", "random,,first"], "empty name"),
        (["--policy", "random,first", "--deals", "0"], "0 is not in 1..10,000,000"),
        (["--policy", "random,first", "--out", "r.xlsx"], ".csv, .parquet, .json"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, words, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["compare", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("bergen-sim: error:") and words in err
    assert list(tmp_path.iterdir()) == []


def test_api_errors_are_bergen_errors():
    with pytest.raises(CompareError):
        compare(policies=["random"], deals=10)
    with pytest.raises(PolicyError):
        compare(policies=["random", "nosuch"], deals=10)
    with pytest.raises(BergenError, match="unknown file type"):
        compare(policies=["random", "first"], deals=5).write("x.txt")


def test_a_rotation_checkpoint_folder_name_fits_a_file_name_however_long_the_policy_names():
    """Before, a long policy name (``pimc:worlds=000...1``) failed with "File name too long" after compiling."""
    from types import SimpleNamespace

    from bergen_sim.services.comparison import _checkpoint_folder

    short = SimpleNamespace(policies=("greedy", "pimc:worlds=8"))
    assert _checkpoint_folder("ck", short) == str(Path("ck") / "greedy+pimc_worlds_8")  # as before
    names = [("pimc:worlds=" + "0" * 300 + "1", "random"), ("pimc:worlds=" + "0" * 301 + "1", "random")]
    folders = [Path(_checkpoint_folder("ck", SimpleNamespace(policies=p))).name for p in names]
    assert all(len(folder) <= 255 for folder in folders) and folders[0] != folders[1]
