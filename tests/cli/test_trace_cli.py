"""The ``bergen-sim`` command line: ``simulate`` and ``trace`` end to end, and usage errors.

Commands run in-process through :func:`bergen_sim.cli.main` (the console
script's entry point, which turns user errors into one line and status 2);
one test runs the installed console script itself.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from bergen_sim.cli import main
from bergen_sim.core.errors import PolicyError
from bergen_sim.model.rules import Rules
from bergen_sim.services.files.trace import read_jsonl
from tests.helpers import error_lines, only_compile_notices, summary_counts, trace_summary

simulate_module = importlib.import_module("bergen_sim.services.simulation")  # the package's `simulate` is the function

SUMMARY_FIELDS = [
    "matches",
    "hands",
    "redeals",
    "plays",
    "draws",
    "passes",
    "double_headers",
    "triple_headers",
    "blocked_hands",
    "out_hands",
    "points_by_source",
    "match_wins",
    "decided_hands",
    "leader_side_hand_wins",
    "elapsed_s",
    "matches_per_s",
    "rules",
    "seed",
]

#: the fields of each event type, in the order bergen-trace/2 writes them
EVENT_FIELDS = {
    "match": ["type", "format", "match", "rules", "policies", "seed"],
    "deal": ["type", "hand", "hands", "boneyard"],
    "redeal": ["type", "hand"],
    "lead": ["type", "seat", "tile", "points", "score"],
    "draw": ["type", "seat", "tile"],
    "play": ["type", "seat", "tile", "end", "points", "score"],
    "pass": ["type", "seat"],
    "out": ["type", "seat", "points", "score"],
    "blocked": ["type", "winner", "points", "score"],
    "match_end": ["type", "winner", "score"],
}


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of ``bergen-sim ARGV``."""
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def simulate_json(capsys, *argv: str) -> dict:
    status, out, err = run(capsys, "simulate", "--json", "--workers", "1", *argv)
    assert status == 0, err
    return json.loads(out)


def test_simulate_json_has_every_field(capsys):
    summary = simulate_json(capsys, "--players", "3", "--matches", "400", "--seed", "12")
    for field in SUMMARY_FIELDS:
        assert field in summary, field
    assert summary["matches"] == 400 and summary["seed"] == 12
    assert summary["rules"] == Rules.make(players=3).to_dict()
    assert sorted(summary["points_by_source"]) == ["blocked", "header", "lead", "out"]
    assert len(summary["match_wins"]) == 3 and sum(summary["match_wins"]) == 400
    assert summary["decided_hands"] <= summary["out_hands"] + summary["blocked_hands"] <= summary["hands"]
    assert summary["leader_side_hand_wins"] <= summary["decided_hands"]
    assert summary["hands"] >= 400 and summary["plays"] > 0 and summary["double_headers"] > 0
    assert summary["elapsed_s"] > 0 and summary["matches_per_s"] > 0


def test_simulate_table(capsys):
    status, out, err = run(capsys, "simulate", "--matches", "50", "--workers", "1", "--preset", "classic")
    assert status == 0 and only_compile_notices(err)
    assert "50 matches" in out and "double-headers per hand" in out


def test_options_reach_the_rules(capsys):
    summary = simulate_json(
        capsys,
        "--players",
        "4",
        "--partnerships",
        "--preset",
        "classic",
        "--set",
        "target=9",
        "--set",
        "settlement=american",
        "--policy",
        "first",
        "--matches",
        "30",
    )
    assert (
        summary["rules"]
        == Rules.make(players=4, partnerships=True, preset="classic", target=9, settlement="american").to_dict()
    )
    assert summary["policies"] == ["first"] * 4 and len(summary["match_wins"]) == 2


@pytest.mark.parametrize(
    "argv, names",
    [
        (["simulate", "--bogus"], ["--bogus"]),
        (["simulate", "--policy", "nope", "--matches", "5"], ["nope", "random", "first"]),
        (["simulate", "--policy", "random", "--policy", "first", "--players", "3"], ["policy", "3"]),
        (["simulate", "--preset", "modern"], ["modern", "classic", "standard"]),
        (["simulate", "--set", "spinner=sometimes"], ["spinner", "on/off"]),
        (["simulate", "--set", "domino_set=double-ten"], ["domino_set", "double-nine", "double-twelve"]),
        (["simulate", "--set", "target=abc"], ["target", "abc"]),
        (["simulate", "--set", "target"], ["KEY=VALUE"]),
        (["simulate", "--set", "lead=middle"], ["lead", "lowest-double"]),
        (["simulate", "--set", "reduced_headers=maybe"], ["reduced_headers", "on/off"]),
        (["simulate", "--set", "hand_size=20"], ["hand_size", "1..14"]),
        (["simulate", "--set", "boneyard_reserve=-1"], ["boneyard_reserve", "0 or more"]),
        (["simulate", "--players", "3", "--partnerships"], ["partnerships", "4, 6 or 8 players"]),
        (["simulate", "--players", "9"], ["--players", "9"]),
        (
            ["simulate", "--players", "6"],
            ["6 players x 5 tiles + reserve 2", "domino_set=double-nine", "hand_size <= 4"],
        ),
        (["trace", "-o", "{tmp}/t.jsonl", "--players", "8", "--partnerships"], ["domino_set=double-nine"]),
        (["simulate", "--matches", "0"], ["--matches", "0"]),
        (["simulate", "--seed", "x"], ["--seed", "x"]),
        (["trace"], ["-o"]),
        (["trace", "-o", "{tmp}/t.jsonl", "--set", "settlement=french"], ["settlement", "german"]),
        (["simulate-all"], ["simulate-all"]),
    ],
)
def test_usage_errors_print_one_line_and_exit_2(capsys, tmp_path, argv, names):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    status, out, err = run(capsys, *argv)
    assert status == 2
    assert out == ""
    lines = error_lines(err.strip())
    assert len(lines) == 1, err
    assert lines[0].startswith("bergen-sim: error:")
    for name in names:
        assert name in lines[0]
    assert list(tmp_path.iterdir()) == []


def test_console_script_exits_with_status_2(tmp_path):
    """The installed entry point turns main()'s return value into the process's exit status."""
    script = Path(sys.executable).with_name("bergen-sim")
    if not script.exists():
        pytest.skip("the console script is not installed next to this interpreter")
    bad = subprocess.run(
        [str(script), "simulate", "--set", "target=abc"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert bad.returncode == 2 and bad.stdout == ""
    assert error_lines(bad.stderr.strip()) == ["bergen-sim: error: setting target takes a whole number, not 'abc'"]


# --- --out Parquet ---------------------------------------------------------------------------------


def test_out_writes_one_row_per_match(capsys, tmp_path):
    path = tmp_path / "matches.parquet"
    summary = simulate_json(capsys, "--matches", "250", "--seed", "4", "--chunk-size", "60", "--out", str(path))
    frame = pd.read_parquet(path)
    assert len(frame) == 250 and frame["match"].tolist() == list(range(250))
    for column in ["winner", "score_0", "score_1", "hands", "first_leader", "double_headers", "triple_headers"]:
        assert column in frame.columns
    assert frame["hands"].sum() == summary["hands"]
    assert frame["double_headers"].sum() == summary["double_headers"]
    assert frame["triple_headers"].sum() == summary["triple_headers"]
    assert frame["winner"].value_counts().sort_index().tolist() == summary["match_wins"]
    winners = frame[["score_0", "score_1"]].to_numpy()[range(250), frame["winner"]]
    assert (winners >= 15).all() and set(frame["first_leader"]) <= {0, 1}
    meta = json.loads(pq.read_schema(path).metadata[b"bergen_sim"])
    assert meta["seed"] == 4 and meta["rules"] == summary["rules"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["matches.parquet"]


def test_out_never_leaves_a_half_written_file(capsys, tmp_path, monkeypatch):
    path = tmp_path / "matches.parquet"
    path.write_bytes(b"an older file")
    calls = []
    real = simulate_module.match_frame

    def failing_match_frame(rows, sides):
        calls.append(len(rows))
        if len(calls) % 2 == 0:  # each run's first row group is already in the temporary file
            raise PolicyError("policy 'x' at seat 0 raised RuntimeError: boom (match 60)")
        return real(rows, sides)

    monkeypatch.setattr(simulate_module, "match_frame", failing_match_frame)
    status, out, err = run(
        capsys, "simulate", "--matches", "200", "--chunk-size", "60", "--workers", "1", "--out", str(path)
    )
    assert status == 2 and "boom" in err and len(calls) == 2
    assert path.read_bytes() == b"an older file"  # the old file is untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["matches.parquet"]  # no partial file left
    path.unlink()
    status, _, _ = run(
        capsys, "simulate", "--matches", "200", "--chunk-size", "60", "--workers", "1", "--out", str(path)
    )
    assert status == 2 and list(tmp_path.iterdir()) == []


# --- trace -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["--players", "3", "--seed", "5"],
        ["--players", "4", "--partnerships", "--preset", "classic", "--seed", "6", "--policy", "first"],
        ["--players", "2", "--set", "hand_size=2", "--set", "boneyard_reserve=0", "--seed", "7"],
    ],
)
def test_trace_is_valid_and_adds_up_to_simulate(capsys, tmp_path, args):
    path = tmp_path / "t.jsonl"
    status, out, err = run(capsys, "trace", "--matches", "40", "-o", str(path), *args)
    assert status == 0, err
    events = read_jsonl(path)
    for line in path.read_text().splitlines():
        event = json.loads(line)
        assert list(event) == EVENT_FIELDS[event["type"]]
    heads = [e for e in events if e["type"] == "match"]
    assert [h["match"] for h in heads] == list(range(40))
    assert all(h["format"] == "bergen-trace/2" for h in heads)
    rules = Rules.from_trace(heads[0]["rules"])
    summary = simulate_json(capsys, "--matches", "40", *args)
    assert heads[0]["rules"] == summary["rules"] and heads[0]["policies"] == summary["policies"]
    assert trace_summary(events, rules) == summary_counts(summary)


def test_trace_of_a_failed_run_leaves_no_file(capsys, tmp_path):
    status, _, err = run(capsys, "trace", "--policy", "nope", "-o", str(tmp_path / "t.jsonl"))
    assert status == 2 and "nope" in err
    assert list(tmp_path.iterdir()) == []


def test_quiet_trace_to_standard_output_prints_only_the_events(capfd):
    from bergen_sim.cli import main

    assert main(["trace", "-o", "-", "-q", "--matches", "1"]) == 0
    captured = capfd.readouterr()
    assert captured.err == "" and captured.out.startswith("{")
    assert main(["trace", "-o", "-", "--matches", "1"]) == 0
    assert "wrote" in capfd.readouterr().err
