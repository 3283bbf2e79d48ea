"""One service API: every public entry point takes a Rules and a RunOptions, or the keywords that make them."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import bergen_sim
from bergen_sim.cli import cli
from bergen_sim.core.errors import BergenError, RuleError
from bergen_sim.model.rules import Rules, rules_for
from bergen_sim.services.comparison import compare
from bergen_sim.services.execution.jobs import RunOptions, options_for


def test_rules_object_and_keywords_give_the_same_run():
    by_object = bergen_sim.simulate(
        rules=Rules.make(players=3, settlement="pips"),
        policies=["first"],
        matches=40,
        seed=2,
        options=RunOptions(workers=1),
    )
    by_keywords = bergen_sim.simulate(
        players=3, settings={"settlement": "pips"}, policies=["first"], matches=40, seed=2, workers=1
    )
    for key in ("hands", "plays", "match_wins", "points_by_source", "rules"):
        assert by_object.summary[key] == by_keywords.summary[key]


def test_compare_takes_rules_and_options():
    result = compare(
        rules=Rules.make(players=2), policies=["first", "random"], matches=20, seed=1, options=RunOptions(workers=1)
    )
    assert result.meta["rules"] == Rules.make(players=2).to_dict() and result.meta["workers"] == 1


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: rules_for(Rules.make(), players=3), "not both"),
        (lambda: rules_for({"players": 2}), "must be a bergen_sim.Rules"),
        (lambda: options_for(RunOptions(), workers=2), "not both"),
        (lambda: options_for("fast"), "must be a bergen_sim.services.execution.jobs.RunOptions"),
    ],
)
def test_mixing_the_two_forms_is_refused(call, message):
    with pytest.raises(BergenError, match=message):
        call()


def test_rule_errors_are_rule_errors():
    with pytest.raises(RuleError):
        rules_for(players=9)


def test_report_takes_the_shared_run_options():
    """``report`` wires --workers/--scheduler/--chunk-size with the same decorator as simulate and compare."""
    helps = {name: CliRunner().invoke(cli, [name, "--help"]).output for name in ("simulate", "compare", "report")}
    for option in ("--workers", "--scheduler", "--chunk-size"):
        assert all(option in text for text in helps.values()), option
    assert "--checkpoint" in helps["simulate"] and "--checkpoint" not in helps["report"]
