"""Analyses and reports: every analysis end to end, the paired settlement, figures, the report command.

Every run here uses the ``random`` and ``first`` policies only (their kernels
are shared with the rest of the suite) and a few hundred matches.
"""

from __future__ import annotations

import json
import re

import matplotlib.image
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from PIL import Image

from bergen_sim.cli import main
from bergen_sim.core.stats import difference, mean_interval, ratio_interval
from bergen_sim.engine import layout as L
from bergen_sim.model.rules import Rules
from bergen_sim.runtime.runner import Chunk
from bergen_sim.services.analysis import hand_stats, reporting
from bergen_sim.services.analysis.figures import Chart, finish, grouped, panels, save
from bergen_sim.services.execution.jobs import Job, RunOptions, run_job
from tests.helpers import error_lines

MATCHES = 300
ONE_WORKER = RunOptions(workers=1)
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

#: per analysis: table -> columns its report and figures read
REQUIRED = {
    "lead_advantage": {
        "summary": [
            "table",
            "policy",
            "fair_share",
            "decided_hands",
            "matches",
            "leader_win_rate_lowest",
            "leader_win_rate_lowest_lo",
            "leader_win_rate_highest_hi",
            "leader_win_rate_gain",
            "first_leader_match_win_rate_gain_hi",
        ],
        "seat_points": ["seat_from_leader", "hands", "seat_points_per_hand_lo", "side_points_per_hand_hi"],
        "by_led_double": ["led_double", "decided_hands", "leader_win_rate", "first_leader_match_win_rate_lo"],
    },
    "header_frequency": {
        "per_hand": [
            "hands",
            "plays",
            "headers_per_hand",
            "double_headers_per_hand_lo",
            "triple_header_rate_per_play_hi",
        ],
        "by_play": ["play_number", "hands_reaching", "header_rate", "double_header_rate_lo", "triple_header_rate_hi"],
        "point_sources": [
            "matches",
            "points",
            *[f"{s}_share{x}" for s in hand_stats.SOURCES for x in ("", "_lo", "_hi")],
        ],
    },
    "settlement": {
        "blocking": ["boneyard_reserve", "hands", "blocked_hands", "blocked_rate", "blocked_rate_lo"],
        "paired": [
            "blocked_hands",
            "german_vs_pips_differ_rate",
            "german_vs_american_differ_rate_lo",
            "pips_vs_american_differ_rate_hi",
            "any_differ_rate",
            "american_no_winner_rate",
        ],
        "matches": ["settlement", "matches", "hands_per_match_lo", "first_leader_match_win_rate", "blocked_share_hi"],
        "tournament": ["settlement", "policy", "opponent", "matches", "win_rate", "win_rate_lo", "win_rate_hi"],
        "policy_change": ["policy", "win_rate_german", "rank_pips", "win_rate_german_minus_pips_lo"],
    },
    "policy_table": {
        "standings": [
            "table",
            "rank",
            "policy",
            "matches",
            "win_rate",
            "win_rate_lo",
            "win_rate_hi",
            "points_per_hand_lo",
        ],
        "pairs": ["table", "policy", "opponent", "win_rate_hi"],
    },
    "going_first": {
        "per_hand": ["table", "policy", "hands", "edge_per_hand_lo", "lead_points_per_hand", "tempo_per_hand_adj_hi"],
    },
    "match_win_probability": {
        "by_score": ["table", "policy", "own_score", "other_score", "matches_reaching", "match_win_rate_lo"],
    },
    "near_target_cut": {
        "summary": ["setting", "matches", "hands_per_match", "ends_on_lead_rate", "ends_on_blocked_rate_hi"],
        "cut_effect": [
            "hands_per_match_change_adj_lo",
            "ends_on_lead_rate_change",
            "first_leader_match_win_rate_change_hi",
        ],
    },
    "starting_hands": {
        "by_feature": ["feature", "value", "seat_hands", "hand_win_rate_lo", "side_points_per_hand_hi"],
        "contrasts": ["feature", "low", "high", "hand_win_rate_difference_adj_lo"],
    },
    "variants": {
        "summary": [
            "variant",
            "matches",
            "hands_per_match",
            "hands_per_match_lo",
            "first_leader_match_win_rate_hi",
            "out_share",
            "blocked_rate",
        ],
        "seats": ["variant", "side", "match_win_rate_lo"],
        "versus_standard": ["variant", "hands_per_match_change_lo", "out_share_change", "lead_share_change_hi"],
    },
}


@pytest.fixture(scope="module")
def results() -> dict[str, reporting.AnalysisResult]:
    """Every shipped analysis, run once at a small size."""
    return {name: reporting.run(name, matches=MATCHES, seed=5, quick=True, options=ONE_WORKER) for name in REQUIRED}


def test_every_shipped_analysis_is_discovered():
    assert set(REQUIRED) <= set(reporting.discover())


@pytest.mark.parametrize("name", sorted(REQUIRED))
def test_analysis_runs_end_to_end_with_the_columns_its_report_needs(results, name):
    result = results[name]
    for table, columns in REQUIRED[name].items():
        frame = result.tables[table]
        assert len(frame) > 0, f"{name}.{table} is empty"
        missing = [c for c in columns if c not in frame.columns]
        assert not missing, f"{name}.{table} lacks {missing}"
    for column in (c for frame in result.tables.values() for c in frame.columns if c.endswith("_lo")):
        adjusted = column.endswith("_adj_lo")
        base = column[:-7] if adjusted else column[:-3]
        high = f"{base}_adj_hi" if adjusted else f"{base}_hi"
        frame = next(f for f in result.tables.values() if column in f.columns)
        finite = frame[[base, column, high]].dropna()
        assert (finite[column] <= finite[base] + 1e-12).all() and (finite[base] <= finite[high] + 1e-12).all(), (
            f"{name}: {base} outside its interval"
        )
        if adjusted:  # a simultaneous interval is never narrower than the 95% one
            plain = frame[[f"{base}_lo", column]].dropna()
            assert (plain[column] <= plain[f"{base}_lo"] + 1e-12).all()
    assert result.findings and all(isinstance(t, str) and t for t in result.findings)
    charts = result.figures()
    assert charts, f"{name} draws no figure"
    for chart in charts:
        assert chart.figure.axes and chart.figure._suptitle.get_text() and chart.caption
        plt.close(chart.figure)
    assert result.meta["total_matches"] >= MATCHES and result.meta["runs"]
    assert result.meta["total_hands"] >= result.meta["total_matches"]  # every match has a hand
    assert result.meta["key_findings"] and all(isinstance(t, str) and t for t in result.meta["key_findings"])


def test_findings_are_written_from_the_numbers(results):
    summary = results["lead_advantage"].tables["summary"]
    row = summary[(summary["table"] == "2 players") & (summary["policy"] == "random")].iloc[0]
    text = next(t for t in results["lead_advantage"].findings if t.startswith("**2 players** (random play)"))
    found = re.search(r"wins ([\d.]+)% \(95% CI ([\d.]+)–([\d.]+)%, n = ([\d,]+) decided hands\)", text)
    value, lo, hi = (float(found.group(k)) / 100 for k in (1, 2, 3))
    decimals = len(found.group(1).partition(".")[2])  # the digits the interval supports
    rounding = 0.5 * 10.0**-decimals / 100 + 1e-12
    assert abs(value - row["leader_win_rate_lowest"]) <= rounding
    assert (
        abs(lo - row["leader_win_rate_lowest_lo"]) <= rounding
        and abs(hi - row["leader_win_rate_lowest_hi"]) <= rounding
    )
    assert int(found.group(4).replace(",", "")) == row["decided_hands"]
    direction = (
        "above"
        if row["leader_win_rate_advantage_adj_lo"] > 0
        else "below"
        if row["leader_win_rate_advantage_adj_hi"] < 0
        else "not distinguishable from"
    )  # simultaneous
    assert f"{direction} the fair share of 50%" in text


def test_lead_advantage_counts_agree_with_the_engine_totals(results):
    """Leader hand wins summed over led doubles equal the kernel's own counters."""
    leader = results["lead_advantage"].tables["leader"]
    doubles = results["lead_advantage"].tables["by_led_double"]
    rules = Rules.make(players=3)
    totals = sum(chunk.totals for chunk in run_job(Job(rules, ("random",) * 3, 5), MATCHES, ONE_WORKER))
    row = leader[
        (leader["table"] == "3 players") & (leader["policy"] == "random") & (leader["lead"] == "lowest-double")
    ].iloc[0]
    assert row["leader_wins"] == totals[L.S_LEADER_SIDE_WINS]
    assert row["decided_hands"] == totals[L.S_DECIDED_HANDS]
    part = doubles[
        (doubles["table"] == "3 players") & (doubles["policy"] == "random") & (doubles["lead"] == "lowest-double")
    ]
    assert part["hands"].sum() == totals[L.S_HANDS]


def test_same_arguments_give_the_same_tables(results):
    again = reporting.run("header_frequency", matches=MATCHES, seed=5, quick=True, options=ONE_WORKER)
    for name, frame in results["header_frequency"].tables.items():
        pd.testing.assert_frame_equal(frame, again.tables[name])


# --- per-hand quantities ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs", [dict(players=2), dict(players=4, partnerships=True), dict(players=3, preset="classic")]
)
def test_points_by_source_and_side_points_add_up_to_the_engine_totals(kwargs):
    rules = Rules.make(**kwargs)
    job = Job(rules, ("random",) * rules.players, 11, match_rows=True, hand_rows=True)
    for chunk in run_job(job, 400, ONE_WORKER):
        rows = chunk.hand_rows
        sources = hand_stats.points_by_source(rows, rules).sum(axis=0)
        assert (
            sources.tolist()
            == chunk.totals[[L.S_POINTS_LEAD, L.S_POINTS_HEADER, L.S_POINTS_OUT, L.S_POINTS_BLOCKED]].tolist()
        )
        final = hand_stats.match_sums(hand_stats.side_points(rows, rules), rows[:, L.H_MATCH])
        assert (final == chunk.match_rows[:, L.M_SCORE : L.M_SCORE + rules.sides]).all()


@pytest.mark.parametrize("settlement", L.SETTLEMENT_NAMES)
def test_settling_three_ways_reproduces_the_engines_verdict(settlement):
    rules = Rules.make(players=3, settlement=settlement)
    chunk = next(iter(run_job(Job(rules, ("random",) * 3, 2, hand_rows=True), 400, ONE_WORKER)))
    blocked = chunk.hand_rows[chunk.hand_rows[:, L.H_END] == L.HAND_BLOCKED]
    assert len(blocked) > 20
    verdicts = hand_stats.settle_all_ways(blocked, rules)
    assert (verdicts[:, L.SETTLEMENT_NAMES.index(settlement)] == blocked[:, L.H_WINNER]).all()


def _holdings(tiles: list[str]) -> tuple[int, int, int]:
    """(doubles, pips, non-double pips) of a list of tiles, counted by hand."""
    halves = [tuple(int(x) for x in t.split("-")) for t in tiles]
    return (sum(a == b for a, b in halves), sum(a + b for a, b in halves), sum(a + b for a, b in halves if a != b))


#: blocked end states (tiles left per side) and their winners (german, pips, american) read off RULES.md
END_STATES = [
    # fewest doubles (German; American: no double beats a double) against fewest pips
    ([["3-3", "0-4"], ["1-5", "2-4"]], (1, 0, 1)),
    # tie on doubles and pips: nobody under German or pips; American compares non-double pips
    ([["2-2", "1-3"], ["0-0", "3-5"]], (-1, -1, 0)),
    # every side holds a double: German counts doubles, American falls back to non-double pips
    ([["0-0", "1-1", "0-2"], ["3-3", "0-4"]], (1, 0, 0)),
    # two sides tie for best without doubles: nobody wins German or American although side 2 is worse
    # there; pips: side 2 has fewest
    ([["4-6"], ["3-6", "0-1"], ["0-0", "1-2"]], (-1, 2, -1)),
    # the one side without a double and with fewest pips wins everywhere
    ([["0-0", "1-1", "0-2"], ["2-2", "0-5"], ["0-1"]], (2, 2, 2)),
]


def _blocked_rows(states: list[list[list[str]]], players: int) -> np.ndarray:
    rows = np.zeros((len(states), L.H_WIDTH), dtype=np.int64)
    for i, sides in enumerate(states):
        rows[i, L.H_MATCH] = i
        rows[i, L.H_END] = L.HAND_BLOCKED
        for side, tiles in enumerate(sides):
            d, p, q = _holdings(tiles)
            rows[i, L.H_SIDE_DOUBLES + side], rows[i, L.H_SIDE_PIPS + side], rows[i, L.H_SIDE_PLAIN_PIPS + side] = (
                d,
                p,
                q,
            )
    return rows


@pytest.mark.parametrize("sides,expected", END_STATES)
def test_paired_settlement_agrees_with_settling_by_hand(sides, expected):
    rules = Rules.make(players=len(sides))
    rows = _blocked_rows([sides], rules.players)
    assert tuple(hand_stats.settle_all_ways(rows, rules)[0]) == expected


def test_settlement_analysis_counts_disagreements_as_settled_by_hand():
    """The analysis's own per-chunk reduction on hand-built blocked hands of two players."""
    module = reporting.load("settlement")
    states = [s for s, _ in END_STATES if len(s) == 2]
    expected = np.array([w for s, w in END_STATES if len(s) == 2])
    rules = Rules.make(players=2)
    match_rows = np.zeros((len(states), L.M_WIDTH), dtype=np.int64)
    sums = module.collect(Chunk(0, np.zeros(L.S_SIZE, np.int64), match_rows, _blocked_rows(states, 2)), rules)
    counts = sums["verdicts"]["sx"].tolist()  # per pair, any pair, then nobody wins per settlement
    pairs = len(module.PAIRS)
    assert counts[pairs + 1 :] == (expected < 0).sum(axis=0).tolist()
    assert counts[:pairs] == [int((expected[:, a] != expected[:, b]).sum()) for a, b in module.PAIRS]
    assert counts[pairs] == int((expected.min(axis=1) != expected.max(axis=1)).sum())
    assert int(sums["verdicts"]["sy"]) == len(states)  # the blocked hands, one per match here


# --- intervals ------------------------------------------------------------------------------------------


def test_ratio_interval_with_a_constant_denominator_is_the_mean_interval():
    rng = np.random.default_rng(1)
    x = rng.poisson(3.0, size=500).astype(float)
    y = np.full(500, 4.0)
    ratio = ratio_interval(x.sum(), y.sum(), (x * x).sum(), (y * y).sum(), (x * y).sum(), 500)
    mean, lo, hi = mean_interval(x.sum(), (x * x).sum(), 500)
    assert np.allclose(ratio, (mean / 4, lo / 4, hi / 4))


def test_difference_of_normal_intervals_adds_their_variances():
    d, lo, hi = difference(1.0, 0.7, 1.3, 0.5, 0.1, 0.9)
    assert np.isclose(d, 0.5) and np.isclose(hi - d, 0.5) and np.isclose(d - lo, 0.5)


# --- figures and reports --------------------------------------------------------------------------------


def test_a_figure_is_saved_as_a_valid_png_and_svg(tmp_path):
    frame = pd.DataFrame(
        {
            "table": ["a", "a", "b", "b"],
            "group": ["x", "y", "x", "y"],
            "win_rate": [0.4, 0.6, 0.5, 0.55],
            "win_rate_lo": [0.35, 0.55, 0.45, 0.5],
            "win_rate_hi": [0.45, 0.65, 0.55, 0.6],
        }
    )
    fig, axes = panels(1)
    grouped(axes[0], frame, "table", "group", "win_rate")
    png, svg = save(Chart("demo", finish(fig, "demo", legend_from=axes[0]), "demo"), tmp_path)
    assert png.read_bytes()[:8] == PNG_SIGNATURE
    with Image.open(png) as image:
        image.verify()
    assert matplotlib.image.imread(png).shape[0] > 100
    assert "<svg" in svg.read_text()[:2000]


@pytest.mark.slow
def test_report_command_writes_the_index_pages_tables_and_figures(tmp_path, capsys):
    out = tmp_path / "reports"
    status = main(
        [
            "report",
            "header_frequency",
            "variants",
            "--quick",
            "--matches",
            "200",
            "--seed",
            "3",
            "--workers",
            "1",
            "--out-dir",
            str(out),
        ]
    )
    assert status == 0
    index = (out / "README.md").read_text()
    for name in ("header_frequency", "variants"):
        page = (out / f"{name}.md").read_text()
        assert f"]({name}.md)" in index
        assert "## Findings" in page and "## Method" in page and "95%" in page
        assert f"`bergen-sim report {name} --quick --matches 200 --seed 3 --out-dir {out}`" in page
        for image in re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", page):
            assert (out / image).read_bytes()[:8] == PNG_SIGNATURE
            assert (out / image).with_suffix(".svg").exists()
        frame, meta = reporting.read_table(next((out / name / "tables").glob("*.parquet")))
        assert len(frame) and meta["seed"] == 3 and meta["matches_per_configuration"] == 200
        assert meta["version"] and meta["runs"][0]["rules"]["players"] in (2, 3, 4)
        sidecar = json.loads((out / name / "metadata.json").read_text())
        assert sidecar["findings"] and sidecar["total_matches"] == sum(r["matches"] for r in sidecar["runs"])


def test_an_analysis_added_as_a_file_runs_without_touching_the_package(tmp_path):
    """The example module of analyses/README.md, dropped into a folder of its own."""
    readme = (reporting.PROJECT_ANALYSES / "README.md").read_text()
    code = re.search(r"```python\n(.*?)```", readme, re.S).group(1)
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "first_leader.py").write_text(code)
    out = tmp_path / "out"
    assert (
        main(
            [
                "report",
                "first_leader",
                "--quick",
                "--matches",
                "100",
                "--workers",
                "1",
                "--analyses-dir",
                str(folder),
                "--out-dir",
                str(out),
            ]
        )
        == 0
    )
    page = (out / "first_leader.md").read_text()
    assert "the first leader wins" in page and "n = 100 matches" in page


def test_unknown_analysis_is_one_line_naming_the_choices(capsys):
    assert main(["report", "no_such_question", "--quick"]) == 2
    err = error_lines(capsys.readouterr().err.strip())
    assert len(err) == 1 and "no_such_question" in err[0] and "lead_advantage" in err[0]


@pytest.mark.slow
def test_larger_games_runs_every_set_and_table_with_intervals():
    """The larger-games analysis plays every set (one- and three-word kernels), pairs the spinner, ranks, leads."""
    result = reporting.run("larger_games", matches=120, seed=3, quick=True, options=ONE_WORKER)
    games = result.tables["games"]
    assert set(games["set"]) == {"double-six", "double-nine", "double-twelve", "double-fifteen", "double-eighteen"}
    assert set(games["players"]) == {4, 6, 7, 8}
    assert (games["headers_per_hand_lo"] <= games["headers_per_hand"]).all()
    effects = result.tables["spinner_effect"]
    assert {"headers_per_hand_change_adj_lo", "blocked_rate_change_hi", "hands_per_match_change"} <= set(effects)
    # --quick ranks only its own policies (random, expert) of the ranked three, on each of the four tables
    assert len(result.tables["lead_choice"]) == 2 * 2 and len(result.tables["ranking"]) == 4 * 2
    assert result.meta["key_findings"] and result.figures()


def test_settlement_shedding_keeps_every_settlements_win_rate():
    """The shedders-against-baselines table of a full-size report (pandas' ``columns=`` once dropped all but two)."""
    import importlib

    settlement = importlib.import_module("analyses.settlement")
    rows = [
        {
            "settlement": s,
            "policy": shedder,
            "opponent": baseline,
            "matches": 100,
            "win_rate": 0.5 + k / 100,
            "win_rate_lo": 0.45,
            "win_rate_hi": 0.6,
        }
        for k, s in enumerate(settlement.SETTLEMENTS)
        for shedder in settlement.SHEDDERS
        for baseline in settlement.BASELINES
    ]
    frame = settlement._shedding(pd.DataFrame(rows))
    assert len(frame) == len(settlement.SHEDDERS) * len(settlement.BASELINES)
    for s in settlement.SETTLEMENTS:
        assert f"win_rate_{s}" in frame and f"matches_{s}" in frame
    assert frame["win_rate_german_minus_pips"].iloc[0] == pytest.approx(
        frame["win_rate_german"].iloc[0] - frame["win_rate_pips"].iloc[0]
    )


def test_analyses_in_the_current_folder_run_only_when_named(tmp_path, monkeypatch):
    """A downloaded report folder's ./analyses/*.py is not found (nor run) unless --analyses-dir names it."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "analyses").mkdir()
    marker = tmp_path / "marker"
    (tmp_path / "analyses" / "planted.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    assert "planted" not in reporting.discover()
    with pytest.raises(reporting.AnalysisError, match="unknown analysis 'planted'"):
        reporting.load("planted")
    assert not marker.exists()
    assert reporting.discover("analyses")["planted"] == (tmp_path / "analyses" / "planted.py").resolve()
