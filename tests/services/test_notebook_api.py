"""The notebook API: top-level names, argument checks, short reprs and HTML cards, and the example notebook."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

import bergen_sim
from bergen_sim import Rules, RunOptions
from bergen_sim.core.errors import RuleError
from bergen_sim.services.arguments import ArgumentError

ROOT = Path(__file__).resolve().parents[2]
SMALL = dict(matches=40, seed=3, options=RunOptions(workers=1))


def test_top_level_names_are_the_functions():
    importlib.import_module("bergen_sim.services.simulation")  # importing the submodule must not hide the function
    importlib.import_module("bergen_sim.services.position")
    from bergen_sim.services.analysis.reporting import report, run
    from bergen_sim.services.comparison import compare
    from bergen_sim.services.position import analyze
    from bergen_sim.services.simulation import simulate

    assert bergen_sim.simulate is simulate and bergen_sim.compare is compare and bergen_sim.analyze is analyze
    assert bergen_sim.run_analysis is run and bergen_sim.report is report
    assert bergen_sim.analysis.run is run
    assert set(bergen_sim.__all__) <= set(dir(bergen_sim))
    for name in bergen_sim.__all__:
        assert getattr(bergen_sim, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'nosuch'"):
        bergen_sim.nosuch  # noqa: B018


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(matches="100"), "matches must be a whole number"),
        (dict(seed=None), "seed must be a whole number"),
        (dict(policies=7), "policies must be a policy name or a list of them, not the int 7"),
        (dict(policies=["greedy", 1]), "policies must be policy names (strings), not the int 1"),
        (dict(rules={"players": 3}), "rules must be a bergen_sim.Rules (Rules.make(...)), not the dict"),
        (dict(options={"workers": 2}), "options must be a bergen_sim.RunOptions, not the dict"),
        (dict(out=3), "out must be a string"),
        (
            dict(seed=[10**5000]),
            "seed must be a whole number (an int), not the list <holding a number too long to write out>",
        ),
    ],
)
def test_wrong_types_get_one_clear_sentence(kwargs, message):
    with pytest.raises(ArgumentError) as caught:
        bergen_sim.simulate(**{**SMALL, **kwargs})
    assert message in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(players="2"), "players must be 2..8, not '2'"),
        (dict(players=2.0), "players must be a whole number, not 2.0"),
        (dict(partnerships="yes"), "partnerships must be true or false, not 'yes'"),
        (dict(players="2" * 100_000), "players must be 2..8, not '" + "2" * 36 + "..."),
    ],
)
def test_rules_of_the_wrong_type_get_one_clear_sentence(kwargs, message):
    with pytest.raises(RuleError) as caught:
        Rules.make(**kwargs)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_a_policy_string_is_one_policy_for_all_seats_or_names_separated_by_commas():
    assert (
        bergen_sim.simulate(rules=Rules.make(players=3), policies="first", **SMALL).summary["policies"] == ["first"] * 3
    )
    assert bergen_sim.simulate(policies="first,random", **SMALL).summary["policies"] == ["first", "random"]
    both = bergen_sim.compare(policies="first, random", deals=10, options=RunOptions(workers=1))
    assert both.meta["policies"] == ["first", "random"]


def test_results_have_short_reprs_and_html_cards(tmp_path):
    run = bergen_sim.simulate(policies=["first", "random"], rows=True, **SMALL)
    duel = bergen_sim.compare(policies=["first", "random"], deals=10, options=RunOptions(workers=1))
    position = bergen_sim.Position.from_mapping(
        {
            "seat": 0,
            "hand": "3-5,1-3,5-6,0-0",
            "ends": "3,5",
            "played": "4-4,3-4,4-5",
            "counts": "4,5",
            "boneyard": 16,
            "scores": "14,12",
        }
    )
    ranked = bergen_sim.analyze(position, bergen_sim.Rules.make(players=2), base="first", worlds=200, batch=200)
    done = bergen_sim.report("header_frequency", tmp_path / "r", quick=True, matches=60)
    analysis_result = done.results[0]
    for result, start in (
        (run, "SimulationResult(40 matches, 2 players, policies first, random"),
        (duel, "TournamentResult(policies first, random"),
        (ranked, "Analysis(seat 0, "),
        (analysis_result, "AnalysisResult('header_frequency'"),
        (done, "Reports(1 written"),
    ):
        text = repr(result)
        assert text.startswith(start) and "\n" not in text and len(text) < 200, text
        card = result._repr_html_()
        assert card.startswith("<div>") and card.endswith("</div>")
    assert "<table" in duel._repr_html_() and "<table" in ranked._repr_html_()
    assert analysis_result.findings[0] in analysis_result._repr_html_().replace("&#x27;", "'")
    assert done.index == tmp_path / "r" / "README.md" and done.pages[0].is_file()


def test_report_refuses_an_unknown_analysis_before_running_any(tmp_path):
    with pytest.raises(bergen_sim.analysis.AnalysisError, match="unknown analysis 'nosuch'"):
        bergen_sim.report(["header_frequency", "nosuch"], tmp_path / "r", quick=True, matches=60)
    assert not (tmp_path / "r").exists()


@pytest.mark.slow  # a notebook kernel process and its own compiles: about 35 s of a cold default run
def test_the_example_notebook_runs(tmp_path):
    """examples/notebook.py simulates, compares and plots, as a plain script run top to bottom."""
    env = {**os.environ, "MPLBACKEND": "Agg"}
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "notebook.py")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    assert "SimulationResult(2,000 matches" in done.stdout and "TournamentResult(policies greedy, random" in done.stdout
    assert (tmp_path / "greedy_vs_random.png").stat().st_size > 10_000
