"""Hostile input to ``bergen-sim report``: one line on standard error, status 2, before anything runs or is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from bergen_sim import reporting
from bergen_sim.cli import main

TINY = ["--quick", "--matches", "2", "--workers", "1"]


def _refused(capsys, args: list[str], *words: str) -> str:
    status = main(["report", *args, *TINY])
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert status == 2, err
    assert len(lines) == 1, err  # no "going_first: running" before the refusal
    assert "running" not in err and "Traceback" not in err
    for word in words:
        assert word in lines[0], err
    return lines[0]


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("own", ["README.md", "going_first.md"])
def test_a_users_file_is_not_written_over(capsys, tmp_path, own):
    out = tmp_path / "userrep"
    out.mkdir()
    (out / own).write_text("my own readme\n")
    before = _tree(out)
    line = _refused(capsys, ["going_first", "--out", str(out)], own, "did not write", "--out")
    assert "new or empty folder" in line
    assert _tree(out) == before  # untouched, and nothing else written


def test_a_users_folder_named_like_the_analysis_is_not_written_into(capsys, tmp_path):
    out = tmp_path / "rep"
    (out / "going_first").mkdir(parents=True)
    (out / "going_first" / "notes.txt").write_text("mine\n")
    before = _tree(out)
    _refused(capsys, ["going_first", "--out", str(out)], "going_first", "did not write")
    assert _tree(out) == before


def test_a_folder_is_refused_for_a_page(capsys, tmp_path):
    out = tmp_path / "rep"
    (out / "README.md").mkdir(parents=True)
    _refused(capsys, ["going_first", "--out", str(out)], "README.md", "not a regular file")
    assert [p.name for p in out.iterdir()] == ["README.md"]


def test_its_own_reports_are_rewritten(capsys, tmp_path):
    out = tmp_path / "rep"
    for _ in range(2):  # the second run writes over the first one's files
        assert main(["report", "going_first", *TINY, "--out", str(out), "-q"]) == 0
        assert capsys.readouterr().err == ""
    for page in ("README.md", "going_first.md"):
        assert (out / page).read_text().splitlines()[0] == reporting.MARKER


def test_the_committed_reports_are_recognised():
    project = Path(__file__).resolve().parent.parent / "reports"
    if not (project / "README.md").exists():
        pytest.skip("no committed reports")
    reporting.check_own_files(project, list(reporting.discover()))  # raises if any is not recognised


@pytest.mark.parametrize("given, words", [
    ("", ("--strategies", "give at least one strategy")),
    (" ", ("--strategies", "give at least one strategy")),
    ("greedy,", ("--strategies", "empty name")),
    ("greedy,greedy", ("greedy is listed twice",)),
    ("greedy, greedy", ("greedy is listed twice",)),
    ("nosuch", ("unknown policy 'nosuch'", "available:")),
])
def test_strategies_are_checked_before_anything_runs(capsys, tmp_path, given, words):
    out = tmp_path / "rep"
    _refused(capsys, ["going_first", "--out", str(out), "--strategies", given], *words)
    assert not out.exists()


def test_an_analysis_named_twice_is_refused(capsys, tmp_path):
    out = tmp_path / "rep"
    _refused(capsys, ["going_first", "going_first", "--out", str(out)], "going_first is listed twice")
    assert not out.exists()


def test_the_python_face_checks_strategies_too():
    with pytest.raises(reporting.AnalysisError, match="listed twice"):
        reporting.check_strategies(["random", "random"])
    with pytest.raises(reporting.AnalysisError, match="at least one strategy"):
        reporting.check_strategies([])
    assert reporting.check_strategies(None) is None
    assert reporting.check_strategies(" random,expert") == ["random", "expert"]
