"""What a hostile-input sweep of the CLI found: repeated options, JSON that other readers refuse, intervals that
say more than the data, the bare command's help."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from bergen_sim.cli import main
from bergen_sim.core import stats
from bergen_sim.services.files.output import strict_json
from tests.helpers import error_lines


@pytest.mark.parametrize(
    "args, named",
    [
        (["simulate", "--matches", "2", "--matches", "3"], "--matches"),
        (["compare", "--policy", "greedy,random", "--deals", "2", "--deals", "3"], "--deals"),
        (["trace", "--matches", "1", "-o", "a.jsonl", "--out=b.jsonl"], "-o/--out"),
        (["simulate", "--partnerships", "--players", "4", "--partnerships"], "--partnerships"),
    ],
)
def test_an_option_that_takes_one_value_given_twice_is_refused(tmp_path, monkeypatch, capsys, args, named):
    """Click keeps the last of a repeated option without a word: the run would do half of what it was told."""
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(error_lines(err)) == 1 and f"{named} is given twice; give it once" in err
    assert not list(tmp_path.iterdir())  # refused before anything was written


def test_options_that_repeat_by_design_still_repeat(capsys):
    assert (
        main(
            [
                "simulate",
                "--matches",
                "2",
                "--workers",
                "1",
                "--policy",
                "greedy",
                "--policy",
                "random",
                "--set",
                "target=5",
                "--set",
                "hand_size=6",
                "--json",
                "-q",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["matches"] == 2


def test_the_bare_command_prints_its_help_as_written(capsys):
    status = main([])
    err = capsys.readouterr().err
    assert status == 2 and err.startswith("Usage: bergen-sim") and "\\n" not in err and "Commands:" in err


def test_json_output_is_standard_json_without_nan(capsys):
    assert main(["simulate", "--matches", "1", "--workers", "1", "--json", "-q"]) == 0
    text = capsys.readouterr().out
    json.loads(text, parse_constant=lambda token: pytest.fail(f"{token} is not JSON"))
    assert strict_json({"x": [math.nan, math.inf, 1.0]}) == '{"x": [null, null, 1.0]}'


def test_one_observation_has_no_interval_and_a_win_rate_interval_stays_within_0_and_1():
    assert all(math.isnan(x) for x in stats.mean_interval(3.0, 9.0, 1)[1:])  # was [3, 3]: a point from one match
    few = stats.paired_interval(np.array([1.0, 1.0, 0.0]), null=0.5, low=0.0, high=1.0)
    assert few["ci95"] == [0.0, 1.0]  # the t interval of 3 deal sets reaches below 0 and above 1
    assert stats.paired_interval(np.array([1.0, 1.0, 0.0]), null=0.5)["ci95"][0] < 0  # unbounded: as before


def test_compare_shows_a_clipped_interval_as_its_bounds(capsys):
    assert main(["compare", "--policy", "greedy,random", "--deals", "3", "--workers", "1", "--json", "-q"]) == 0
    rows = json.loads(capsys.readouterr().out)
    for row in rows["pairs"]:
        win = row["win_rate"]
        assert 0.0 <= win["low"] <= win["value"] <= win["high"] <= 1.0
        assert row["points_per_hand"]["low"] >= 0.0


def test_a_luck_adjustment_too_small_to_fit_says_so(capsys):
    assert (
        main(
            [
                "compare",
                "--policy",
                "greedy,random",
                "--deals",
                "3",
                "--workers",
                "1",
                "--adjust",
                "luck",
                "--luck-playouts",
                "2",
                "--json",
            ]
        )
        == 0
    )
    assert "3 deal sets are too few to fit the adjustment (it needs 120)" in capsys.readouterr().err


def test_an_output_name_ending_with_a_slash_is_a_folder_not_a_file(tmp_path, capsys):
    """Path('x.csv/') is Path('x.csv'): the run wrote a file where a folder was named."""
    assert main(["simulate", "--matches", "2", "--workers", "1", "--out", str(tmp_path / "x.csv") + "/"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(error_lines(err)) == 1 and "ends with a slash, which names a folder" in err
    assert not (tmp_path / "x.csv").exists()


def test_a_plug_in_whose_lead_choice_returns_nothing_is_told_the_contract(capsys):
    """Numba's message for it was a typing error about getitem, deep in the generated kernel."""
    assert (
        main(
            [
                "simulate",
                "--matches",
                "2",
                "--workers",
                "1",
                "--set",
                "lead=any-double",
                "--policy",
                "tests.plugins_bad_lead:choose",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err.strip()
    assert len(error_lines(err)) == 1
    assert "policy 'tests.plugins_bad_lead:choose' (its choose_lead) returns nothing" in err


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:99999", "tcp://127.0.0.1:0", "tcp://127.0.0.1:port"])
def test_an_impossible_scheduler_port_is_refused_at_once(address):
    """Dask waited its connect timeout (15 s) before saying 'Timed out' (checked before whether Dask is installed)."""
    from bergen_sim.core.errors import BergenError
    from bergen_sim.services.execution.parallel import check_scheduler

    with pytest.raises(BergenError, match="the port must be a number 1..65535"):
        check_scheduler(address)
