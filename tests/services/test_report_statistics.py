"""Reports whose numbers a careful reader can trust: paired runs, provenance, key findings, units, new analyses.

Small runs with the quick policies (``random`` and ``expert``, one shared
kernel); the search player's analysis is the one slow test.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from bergen_sim.cli import main
from bergen_sim.engine import layout as L
from bergen_sim.model.rules import Rules
from bergen_sim.policies import expert
from bergen_sim.services.analysis import hand_stats, reporting
from bergen_sim.services.analysis.reporting import PerMatch, _add, display_frame
from bergen_sim.services.execution.jobs import Job, RunOptions, engine_for, run_job

ONE_WORKER = RunOptions(workers=1)


def test_keyed_deals_rebuild_every_deal_the_engine_played():
    rules = Rules.make(players=2)
    seed = 9
    trace = engine_for(rules, ("random", "random")).trace_rows(seed, 0, 120)
    deals = trace[trace[:, L.T_TYPE] == L.Event.DEAL]
    keys = deals[:, [L.T_MATCH, L.T_HAND]]
    attempts = np.array([int(((keys[:k] == keys[k]).all(axis=1)).sum()) for k in range(len(keys))])
    assert attempts.max() >= 1, "some hand was redealt in these matches (the attempt matters)"
    rebuilt = hand_stats.keyed_deals(seed, keys[:, 0], keys[:, 1], attempts)
    assert (rebuilt == deals[:, L.T_DEAL : L.T_DEAL + L.N_TILES]).all()
    chunk = next(iter(run_job(Job(rules, ("random", "random"), seed, hand_rows=True), 120, ONE_WORKER)))
    hands = chunk.hands
    last = {tuple(k): a for k, a in zip(keys.tolist(), attempts.tolist())}  # the attempt that was played
    assert [last[(m, h)] for m, h in zip(hands["match"].tolist(), hands["hand"].tolist())] == hands["redeals"].tolist()


def test_per_match_values_are_kept_in_match_order():
    total = _add(_add(None, PerMatch([1, 2])), PerMatch([3]))
    assert total.values.tolist() == [1, 2, 3]


def test_differences_of_rates_print_in_percentage_points_with_their_simultaneous_interval():
    frame = pd.DataFrame(
        {
            "win_rate_gain": [0.01],
            "win_rate_gain_lo": [0.0],
            "win_rate_gain_hi": [0.02],
            "win_rate_gain_adj_lo": [-0.005],
            "win_rate_gain_adj_hi": [0.025],
            "win_rate_gain_family": [4],
        }
    )
    shown = display_frame(frame)
    assert list(shown.columns) == ["win rate gain [95% CI]", "win rate gain [simultaneous 95% CI]"]
    assert shown.iloc[0, 0] == "+1.0 pp [+0.0, +2.0]" and shown.iloc[0, 1] == "[-0.5, +2.5]"


def test_a_policy_playing_another_weight_set_is_recorded_with_those_weights():
    from bergen_sim.services.analysis.reporting import policy_parameters

    recorded = policy_parameters(["expert", "expert:lead=highest", "expert:weights=spinner", "greedy"])
    assert recorded == {
        "expert": dict(zip(expert.FEATURES, expert.WEIGHTS.tolist())),
        "expert:weights=spinner": dict(zip(expert.FEATURES, expert.SPINNER_WEIGHTS.tolist())),
    }


@pytest.fixture(scope="module")
def policy_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("reports")
    status = main(["report", "policy_table", "--quick", "--matches", "100", "--workers", "1", "--out-dir", str(out)])
    assert status == 0
    return out


def test_report_metadata_carries_provenance_weights_and_true_totals(policy_report):
    meta = json.loads((policy_report / "policy_table" / "metadata.json").read_text())
    assert meta["total_hands"] == sum(r["hands"] for r in meta["runs"]) > meta["total_matches"]
    versions = meta["environment"]["versions"]
    assert all(versions[k] for k in ("python", "numpy", "numba", "pandas"))
    assert meta["workers"] == 1
    assert meta["policy_parameters"]["expert"] == dict(zip(expert.FEATURES, expert.WEIGHTS.tolist()))
    git = meta["provenance"]["git"]
    assert git is None or (len(git["commit"]) == 40 and isinstance(git["dirty"], bool))


def test_pages_and_index_open_with_key_findings(policy_report):
    page = (policy_report / "policy_table.md").read_text()
    assert page.index("## Key findings") < page.index("## Findings") < page.index("## Method")
    assert "**Multiple comparisons:**" in page and "**Provenance:**" in page
    index = (policy_report / "README.md").read_text()
    assert index.index("## Key findings") < index.index("## [")
    assert "±" not in page  # no half-width labels: intervals are written out


def test_the_tiny_header_frequency_report_runs(tmp_path):
    """A sample too small for the by-play figure once crashed the figure; now the panel says why it is empty."""
    status = main(
        ["report", "header_frequency", "--quick", "--matches", "40", "--workers", "1", "--out-dir", str(tmp_path)]
    )
    assert status == 0
    assert (tmp_path / "header_frequency" / "figures" / "headers_by_play.png").exists()


def test_lead_rule_difference_is_the_paired_difference_of_the_two_rates():
    result = reporting.run("lead_advantage", matches=400, seed=2, quick=True, policies=["random"], options=ONE_WORKER)
    summary = result.tables["summary"]
    row = summary[summary["table"] == "2 players"].iloc[0]
    assert row["leader_win_rate_gain"] == pytest.approx(row["leader_win_rate_lowest"] - row["leader_win_rate_highest"])
    assert row["leader_win_rate_gain_lo"] < row["leader_win_rate_gain"] < row["leader_win_rate_gain_hi"]
    assert int(row["leader_win_rate_gain_family"]) == 4 * len(summary)  # two gains, two rates against fair
    assert row["leader_win_rate_gain_adj_lo"] <= row["leader_win_rate_gain_lo"]


@pytest.mark.slow
def test_skill_against_luck_runs_with_the_search_player(tmp_path):
    result = reporting.run("skill_vs_luck", matches=40, seed=1, quick=True, options=ONE_WORKER)
    frame = result.tables["by_target"]
    targets = frame.groupby("pairing")["target"].apply(sorted).to_dict()
    assert targets == {"expert vs greedy": [5, 10, 15, 21, 31], "pimc vs expert": [5, 31]}  # --quick: two for pimc
    assert (frame["matches"] >= 40).all() and result.meta["key_findings"]
    assert int(frame["win_rate_advantage_family"].iloc[0]) == len(frame)


def test_reports_of_a_single_match_still_write(tmp_path):
    """One match per configuration: rates without intervals are said to have none, nothing crashes."""
    status = main(
        [
            "report",
            "lead_advantage",
            "starting_hands",
            "going_first",
            "--quick",
            "--matches",
            "1",
            "--workers",
            "1",
            "--out-dir",
            str(tmp_path),
        ]
    )
    assert status == 0
    assert "no interval: too small a sample" in (tmp_path / "going_first.md").read_text()
