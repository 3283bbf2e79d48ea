"""One service API: every public entry point takes the rules as a Rules and how to run as a RunOptions."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import bergen_sim
from bergen_sim.cli import cli
from bergen_sim.core.errors import BergenError, RuleError
from bergen_sim.model.rules import Rules
from bergen_sim.services.comparison import compare
from bergen_sim.services.execution.jobs import RunOptions


def test_simulate_takes_the_rules_as_one_object_and_defaults_to_the_standard_game():
    three = bergen_sim.simulate(Rules.make(players=3, settlement="pips"), "first", 40, 2, options=RunOptions(workers=1))
    assert three.summary["rules"] == Rules.make(players=3, settlement="pips").to_dict()
    plain = bergen_sim.simulate(policies="first", matches=40, seed=2, options=RunOptions(workers=1))
    assert plain.summary["rules"] == Rules.make().to_dict()


def test_compare_takes_rules_deals_and_options():
    result = compare(Rules.make(players=2), ["first", "random"], deals=20, seed=1, options=RunOptions(workers=1))
    assert result.meta["rules"] == Rules.make(players=2).to_dict() and result.meta["workers"] == 1
    assert result.meta["deal_sets"] == 20 and result.meta["matches"] == 40


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: bergen_sim.simulate({"players": 2}), "rules must be a bergen_sim.Rules"),
        (lambda: bergen_sim.simulate(options="fast"), "options must be a bergen_sim.RunOptions"),
        (lambda: compare(3, ["first", "random"]), "rules must be a bergen_sim.Rules (Rules.make(...)), not the int 3"),
        (lambda: RunOptions(chunk_size=0), "chunk_size must be"),
    ],
)
def test_rules_and_options_of_another_kind_are_refused_in_one_line(call, message):
    with pytest.raises(BergenError) as caught:
        call()
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_the_rule_and_run_keywords_of_the_last_release_still_work_with_a_warning():
    with pytest.deprecated_call(match=r"simulate\(players=\) is deprecated .* use rules=Rules.make"):
        old = bergen_sim.simulate(players=3, matches=40, seed=3, options=RunOptions(workers=1))
    with pytest.deprecated_call(match=r"simulate\(workers=, chunk_size=\) is deprecated .* use options=RunOptions"):
        bergen_sim.simulate(matches=40, workers=1, chunk_size=20)
    new = bergen_sim.simulate(Rules.make(players=3), matches=40, seed=3, options=RunOptions(workers=1))
    assert old.summary["match_wins"] == new.summary["match_wins"]
    with pytest.deprecated_call(match=r"compare\(chunk_size=\) is deprecated .* use options=RunOptions"):
        compare(policies="first,random", deals=5, chunk_size=5)
    with pytest.deprecated_call(match="matches= is deprecated .* use deals="):
        assert compare(policies="first,random", matches=5).meta["deal_sets"] == 5
    with pytest.deprecated_call(match=r"run_analysis\(chunk_size=\)"):
        bergen_sim.run_analysis("match_win_probability", matches=50, quick=True, chunk_size=25)
    with pytest.deprecated_call(), pytest.raises(BergenError, match="not both"):
        bergen_sim.simulate(Rules.make(), players=3)
    with pytest.deprecated_call(), pytest.raises(BergenError, match="players must be a whole number"):
        compare(players="3", deals=5)
    with pytest.deprecated_call(), pytest.raises(RuleError, match="players must be 2..8"):
        bergen_sim.simulate(players=9)


@pytest.mark.parametrize("function", [bergen_sim.simulate, compare])
def test_a_keyword_neither_current_nor_deprecated_is_refused_as_python_refuses_it(function):
    """The deprecated keywords arrive as ``**deprecated``: any other name is the TypeError Python raises."""
    with pytest.raises(TypeError) as caught:
        function(matchs=5)
    assert str(caught.value) == f"{function.__name__}() got an unexpected keyword argument 'matchs'"


def test_report_takes_the_shared_run_options():
    """``report`` wires --workers/--scheduler/--chunk-size with the same decorator as simulate and compare."""
    helps = {name: CliRunner().invoke(cli, [name, "--help"]).output for name in ("simulate", "compare", "report")}
    for option in ("--workers", "--scheduler", "--chunk-size"):
        assert all(option in text for text in helps.values()), option
    assert "--checkpoint" in helps["simulate"] and "--checkpoint" not in helps["report"]
