"""Every command's JSON holds to its schema (bergen_sim/schemas): each estimate one object with its interval, its
sample size and their units, never the shapes the outputs used to write."""

from __future__ import annotations

import json

import pytest

from bergen_sim.cli import main
from tests.helpers import schema_validator

#: a position of tests/cli/test_analyze_repeated_options.py: four moves, decided in a few hundred worlds
POSITION = ["--hand", "5-6,1-6,0-5,3-4", "--ends", "6,5d", "--played", "2-2,2-5,2-6,5-5", "--counts", "4,6"]
POSITION += ["--boneyard", "14", "--scores", "12,13"]


def _json(capsys, *argv: str) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_simulate_json_holds_to_its_schema(capsys):
    data = _json(capsys, "simulate", "--policy", "greedy,random", "--matches", "20", "--seed", "3", "--workers", "1")
    schema_validator("simulate").validate(data)
    wins = data["match_win_rate"][0]
    assert (wins["n"], wins["n_unit"], wins["unit"]) == (20, "matches", "share of matches won")
    assert wins["value"] == data["match_wins"][0] / 20 and wins["low"] <= wins["value"] <= wins["high"]


def test_compare_json_and_its_json_file_hold_to_their_schema(capsys, tmp_path):
    out = tmp_path / "duel.json"
    argv = ("compare", "--policy", "greedy,random", "--deals", "10", "--workers", "1", "--out", str(out))
    data = _json(capsys, *argv)
    schema_validator("compare").validate(data)
    written = json.loads(out.read_text(), parse_constant=lambda token: pytest.fail(f"{token} is not JSON"))
    schema_validator("compare").validate(written)
    assert written["pairs"] == data["pairs"] and written["standings"] == data["standings"]
    win = data["pairs"][0]["win_rate"]
    assert (win["n"], win["n_unit"]) == (10, "deal sets") and data["standings"][0]["rank"] == 1


def test_analyze_json_holds_to_its_schema(capsys):
    data = _json(capsys, "analyze", *POSITION, "--worlds", "200", "--base", "first")
    schema_validator("analyze").validate(data)
    best = data["moves"][0]
    assert best["win"]["n"] == data["worlds"] and best["win"]["n_unit"] == "worlds"
    assert best["win_behind_best"]["value"] == 0.0
