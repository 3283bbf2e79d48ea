"""Hostile-input sweep of ``compare --checkpoint`` and ``run``: one line on stderr, exit status 2, nothing damaged."""

from __future__ import annotations

import json

import pytest

from bergen_sim.cli import main
from bergen_sim.core import limits
from bergen_sim.services.experiment import ExperimentError, parse
from bergen_sim.services.files.checkpoint import CheckpointError, check_own_folder
from tests.helpers import error_lines

COMPARE = ["compare", "--policy", "greedy,random", "--deals", "2", "--workers", "1"]


def _refused(capsys, args, *words):
    assert main(args) == 2
    err = capsys.readouterr().err
    lines = error_lines(err.strip())
    assert len(lines) == 1, err
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def _ok(capsys, args) -> str:
    status = main(args)
    captured = capsys.readouterr()
    assert status in (0, None), captured.err
    return captured.out


# 1. compare --checkpoint checks its folder


def test_compare_checkpoint_refuses_a_folder_of_other_files(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    user = tmp_path / "userdir"
    user.mkdir()
    (user / "notes.txt").write_text("mine\n")
    _refused(
        capsys,
        COMPARE + ["--checkpoint", "userdir"],
        "holds other files",
        "notes.txt",
        "is not a checkpoint",
        "new or empty folder",
    )
    assert sorted(p.name for p in user.iterdir()) == ["notes.txt"]
    assert (user / "notes.txt").read_text() == "mine\n"


def test_compare_checkpoint_refuses_a_simulate_checkpoint(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _ok(capsys, ["simulate", "--matches", "3", "--workers", "1", "--checkpoint", "sim"])
    before = sorted(p.name for p in (tmp_path / "sim").iterdir())
    _refused(capsys, COMPARE + ["--checkpoint", "sim"], "sim", "single run", "not of a compare")
    assert sorted(p.name for p in (tmp_path / "sim").iterdir()) == before


def test_simulate_checkpoint_refuses_a_compare_checkpoint(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _ok(capsys, COMPARE + ["--checkpoint", "cmp", "--json"])
    before = sorted(p.name for p in (tmp_path / "cmp").iterdir())
    _refused(capsys, ["simulate", "--matches", "3", "--workers", "1", "--checkpoint", "cmp"], "holds other files")
    assert sorted(p.name for p in (tmp_path / "cmp").iterdir()) == before


def test_compare_checkpoint_it_wrote_resumes_to_the_same_result(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    args = COMPARE[:-4] + ["--matches", "20", "--workers", "1", "--checkpoint", "cmp", "--json"]
    first = json.loads(_ok(capsys, args))
    # an interrupted run: one rotation's chunks are lost (its folder remains with the manifest only)
    rotation = sorted((tmp_path / "cmp").iterdir())[0]
    for chunk in rotation.glob("chunk-*.npz"):
        chunk.unlink()
    second = json.loads(_ok(capsys, args))
    third = json.loads(_ok(capsys, args))
    assert first["resumed_matches"] == 0 and 0 < second["resumed_matches"] < third["resumed_matches"]
    for key in ("pairs", "standings"):
        assert first[key] == second[key] == third[key]


def test_check_own_folder_is_the_one_check(tmp_path):
    check_own_folder(tmp_path / "missing", rotations=True)
    check_own_folder(tmp_path, rotations=True)  # empty
    (tmp_path / "notes.txt").write_text("x")
    for rotations in (False, True):
        with pytest.raises(CheckpointError, match="holds other files"):
            check_own_folder(tmp_path, rotations=rotations)


# 2. run --out-dir '' (and blank)


EXPERIMENT = 'matches = 2\nsizes = [2]\nseeds = [0]\n[policies]\na = "random"\n'


@pytest.mark.parametrize("out", ["", "   "])
def test_run_refuses_an_empty_out(tmp_path, capsys, monkeypatch, out):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "exp.toml").write_text(EXPERIMENT)
    line = _refused(capsys, ["run", "exp.toml", "--out-dir", out], "out_dir must be a folder name")
    assert line.endswith(f"exp.toml: out_dir must be a folder name, not {out!r}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exp.toml"]
    # the same message as out_dir = "" in the file
    (tmp_path / "exp.toml").write_text(f"out_dir = {out!r}\n" + EXPERIMENT)
    assert _refused(capsys, ["run", "exp.toml"], "out_dir must be a folder name") == line


# 3. the grid: limited in cells, no repeated values


def _grid(rule_sets: int, sizes: list, policy_sets: int, seeds: list) -> str:
    rules = "".join(f"[rules.r{i}]\n" for i in range(rule_sets))
    policies = "[policies]\n" + "".join(f'p{i} = "random"\n' for i in range(policy_sets))
    return f"matches = 2\nsizes = {json.dumps(sizes)}\nseeds = {seeds}\n{rules}{policies}"


def test_run_refuses_a_huge_grid_before_expanding_it(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    sizes = [2, 3, 4, 5, 6, 7, 8, "4 partnerships"]
    (tmp_path / "huge.toml").write_text(_grid(50, sizes, 50, list(range(2000))))
    _refused(
        capsys,
        ["run", "huge.toml"],
        "40,000,000 cells",
        "50 rule sets",
        "8 sizes",
        "50 policy sets",
        "2,000 seeds",
        f"at most {limits.MAX_CELLS:,}",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["huge.toml"]


def test_the_cell_limit_is_inclusive():
    seeds = list(range(limits.MAX_CELLS // 10))
    import tomllib

    assert len(parse(tomllib.loads(_grid(1, [2], 10, seeds))).cells) == limits.MAX_CELLS
    with pytest.raises(ExperimentError, match=f"{limits.MAX_CELLS + 10:,} cells"):
        parse(tomllib.loads(_grid(1, [2], 10, seeds + [limits.MAX_CELLS])))


@pytest.mark.parametrize(
    "line, words",
    [
        ("seeds = [0, 0]", ("seeds: 0 is listed twice", "give each value once")),
        ("seeds = [3, 1, 3]", ("seeds: 3 is listed twice",)),
        ("sizes = [2, 2]", ("sizes: 2 is listed twice",)),
        ('sizes = [2, "2"]', ("sizes: '2' is listed twice (as 2)",)),
        ('sizes = ["4 partnerships", "4 partnerships"]', ("sizes: '4 partnerships' is listed twice",)),
    ],
)
def test_run_refuses_a_repeated_grid_value(tmp_path, capsys, monkeypatch, line, words):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dup.toml").write_text(f'matches = 2\n{line}\n[policies]\na = "random"\n')
    _refused(capsys, ["run", "dup.toml"], "dup.toml", *words)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dup.toml"]
