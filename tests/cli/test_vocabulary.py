"""One vocabulary: --policy (repeated or a comma list) names the players of every run, compare counts --deals,
and the old spellings still work for this release with a one-line notice."""

from __future__ import annotations

import json

import pytest

from bergen_sim.cli import main
from bergen_sim.core.errors import BergenError
from bergen_sim.services.analysis import reporting


def _json(capsys, *argv: str) -> tuple[dict, str]:
    assert main([*argv, "--json"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    data.pop("provenance", None)
    for key in ("elapsed_s", "startup_s", "matches_per_s", "hands_per_s"):
        data.pop(key, None)
    return data, err


def _results(data: dict) -> dict:
    return {key: value for key, value in data.items() if key in ("pairs", "standings", "results", "matches")}


def test_compare_takes_policy_repeated_or_as_a_comma_list(capsys):
    listed, _ = _json(capsys, "compare", "--policy", "random,greedy", "--deals", "20", "--workers", "1")
    repeated, _ = _json(
        capsys, "compare", "--policy", "random", "--policy", "greedy", "--deals", "20", "--workers", "1"
    )
    assert _results(listed) == _results(repeated) and _results(listed)


def test_compares_old_spellings_still_work_with_a_notice(capsys):
    new, quiet = _json(capsys, "compare", "--policy", "random,greedy", "--deals", "20", "--workers", "1")
    old, notice = _json(capsys, "compare", "--policies", "random,greedy", "--matches", "20", "--workers", "1")
    assert _results(old) == _results(new)
    assert "deprecated" not in quiet
    assert "--policies A,B is deprecated and goes in the next release: use --policy A,B" in notice
    assert "compare --matches (it counted deal sets) is deprecated and goes in the next release: use --deals" in notice


def test_compare_needs_two_policies(capsys):
    assert main(["compare", "--policy", "random"]) == 2
    err = capsys.readouterr().err
    assert "a tournament needs at least 2 policies, not 1" in err
    assert err.count("\n") == 1


def test_simulate_takes_a_comma_list_of_seat_policies(capsys):
    listed, _ = _json(capsys, "simulate", "--policy", "greedy,random", "--matches", "50", "--workers", "1")
    repeated, _ = _json(
        capsys, "simulate", "--policy", "greedy", "--policy", "random", "--matches", "50", "--workers", "1"
    )
    assert listed == repeated and listed["policies"] == ["greedy", "random"]


def test_run_analysis_takes_policies_and_warns_on_its_old_name():
    assert reporting._renamed_policies(["random"], None) == ["random"]
    with pytest.warns(DeprecationWarning, match="strategies= is deprecated and goes in the next release"):
        assert reporting._renamed_policies(None, ["random"]) == ["random"]
    with pytest.warns(DeprecationWarning), pytest.raises(BergenError, match="not both"):
        reporting._renamed_policies(["random"], ["greedy"])
