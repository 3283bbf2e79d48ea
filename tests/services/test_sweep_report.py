"""Hostile input to ``bergen-sim report``: one line on standard error, status 2, before anything runs or is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from bergen_sim.cli import main
from bergen_sim.services.analysis import reporting
from tests.helpers import error_lines

TINY = ["--quick", "--matches", "2", "--workers", "1"]


def _refused(capsys, args: list[str], *words: str) -> str:
    status = main(["report", *args, *TINY])
    out, err = capsys.readouterr()
    lines = error_lines(err.strip())
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
    line = _refused(capsys, ["going_first", "--out-dir", str(out)], own, "did not write", "--out-dir")
    assert "new or empty folder" in line
    assert _tree(out) == before  # untouched, and nothing else written


def test_a_users_folder_named_like_the_analysis_is_not_written_into(capsys, tmp_path):
    out = tmp_path / "rep"
    (out / "going_first").mkdir(parents=True)
    (out / "going_first" / "notes.txt").write_text("mine\n")
    before = _tree(out)
    _refused(capsys, ["going_first", "--out-dir", str(out)], "going_first", "did not write")
    assert _tree(out) == before


def test_a_folder_is_refused_for_a_page(capsys, tmp_path):
    out = tmp_path / "rep"
    (out / "README.md").mkdir(parents=True)
    _refused(capsys, ["going_first", "--out-dir", str(out)], "README.md", "not a regular file")
    assert [p.name for p in out.iterdir()] == ["README.md"]


def test_its_own_reports_are_rewritten(capsys, tmp_path):
    out = tmp_path / "rep"
    for _ in range(2):  # the second run writes over the first one's files
        assert main(["report", "going_first", *TINY, "--out-dir", str(out), "-q"]) == 0
        assert capsys.readouterr().err == ""
    for page in ("README.md", "going_first.md"):
        assert (out / page).read_text().splitlines()[0] == reporting.MARKER


def test_the_committed_reports_are_recognised():
    project = Path(__file__).resolve().parents[2] / "reports"
    if not (project / "README.md").exists():
        pytest.skip("no committed reports")
    reporting.check_own_files(project, list(reporting.discover()))  # raises if any is not recognised


@pytest.mark.parametrize(
    "given, words",
    [
        ("", ("--policy", "give at least one policy")),
        (" ", ("--policy", "give at least one policy")),
        ("greedy,", ("--policy", "empty name")),
        ("greedy,greedy", ("greedy is listed twice",)),
        ("greedy, greedy", ("greedy is listed twice",)),
        ("nosuch", ("unknown policy 'nosuch'", "available:")),
    ],
)
def test_policies_are_checked_before_anything_runs(capsys, tmp_path, given, words):
    out = tmp_path / "rep"
    _refused(capsys, ["going_first", "--out-dir", str(out), "--policy", given], *words)
    assert not out.exists()


def test_an_analysis_named_twice_is_refused(capsys, tmp_path):
    out = tmp_path / "rep"
    _refused(capsys, ["going_first", "going_first", "--out-dir", str(out)], "going_first is listed twice")
    assert not out.exists()


def test_the_python_face_checks_policies_too():
    with pytest.raises(reporting.AnalysisError, match="listed twice"):
        reporting.check_policies(["random", "random"])
    with pytest.raises(reporting.AnalysisError, match="at least one policy"):
        reporting.check_policies([])
    assert reporting.check_policies(None) is None
    assert reporting.check_policies(" random,expert") == ["random", "expert"]


# --- the folder a report writes: whole or not at all, never through a link; the index reads sidecars as data ---
# (a user analysis that plays no match, so these compile nothing)

GOOD = (
    'import pandas as pd\nTITLE = "Good"\nROWS = {rows}\n'
    'def run(ctx):\n    return {{"t": pd.DataFrame({{"x": [1.0] * ROWS}}), "u": pd.DataFrame({{"y": [2.0] * ROWS}})}}\n'
    "def findings(tables):\n    return [f\"{{len(tables['t'])}} rows\"]\n"
)


def _good_report(folder: Path, rows: int = 1, name: str = "good", **kwargs):
    (folder / f"{name}.py").write_text(GOOD.format(rows=rows))
    return reporting.report(
        name,
        folder / "rep",
        quick=True,
        matches=20,
        analyses_dir=folder,
        options=reporting.ReportOptions(warn=kwargs.pop("warn", lambda text: None)),
        **kwargs,
    )


def test_a_link_in_place_of_a_report_folder_is_refused_and_its_target_gets_nothing(capsys, tmp_path):
    (tmp_path / "good.py").write_text(GOOD.format(rows=1))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "rep").mkdir()
    (tmp_path / "rep" / "good").symlink_to(elsewhere)
    status = main(["report", "good", "--analyses-dir", str(tmp_path), "--out-dir", str(tmp_path / "rep"), *TINY])
    err = capsys.readouterr().err
    assert status == 2 and len(error_lines(err.strip())) == 1 and "good/ is a symbolic link" in err, err
    assert list(elsewhere.iterdir()) == []


def test_save_replaces_a_link_itself_never_writing_into_its_target(tmp_path):
    (tmp_path / "good.py").write_text(GOOD.format(rows=1))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "rep"
    out.mkdir()
    (out / "good").symlink_to(elsewhere)
    result = reporting.run("good", quick=True, matches=20, analyses_dir=tmp_path)
    reporting.save(result, out)  # the Python face skips the command's checks: the link is replaced
    assert list(elsewhere.iterdir()) == [] and not (out / "good").is_symlink()
    assert (out / "good" / "metadata.json").is_file() and (out / "good.md").is_file()


def test_a_failure_while_writing_leaves_the_previous_report_as_it_was(tmp_path, monkeypatch):
    from bergen_sim.services.files.output import OutputError

    _good_report(tmp_path, rows=2)
    out = tmp_path / "rep"
    before = _tree(out)
    written = []

    def write_one_then_fail(frame, path, meta):  # the second table hits a full disk (or a file-size limit)
        if written:
            raise OSError(27, "File too large")
        written.append(path)
        real(frame, path, meta)

    real = reporting._write_parquet
    monkeypatch.setattr(reporting, "_write_parquet", write_one_then_fail)
    with pytest.raises(OutputError, match="cannot write the report of good .File too large"):
        _good_report(tmp_path, rows=4)
    assert written and _tree(out) == before  # the page, the sidecar and both tables still say 2 rows
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "good", "good.md"]  # no staging folder left
    monkeypatch.setattr(reporting, "_write_parquet", real)
    _good_report(tmp_path, rows=4)
    table, _ = reporting.read_table(out / "good" / "tables" / "u.parquet")
    assert len(table) == 4 and "4 rows" in (out / "good.md").read_text()


def test_what_a_killed_report_left_is_cleared_by_the_next(tmp_path):
    out = tmp_path / "rep"
    dead = 2**22 + 1  # above Linux's largest process id: no process has it
    for end in (".partial", ".replaced"):
        (out / f".good.{dead}{end}" / "tables").mkdir(parents=True)
    _good_report(tmp_path)
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "good", "good.md"]


def test_a_sidecar_of_the_wrong_kind_is_left_out_of_the_index_with_one_line(tmp_path):
    import json

    _good_report(tmp_path, name="other")
    sidecar = tmp_path / "rep" / "other" / "metadata.json"
    meta = json.loads(sidecar.read_text())
    sidecar.write_text(json.dumps({**meta, "total_matches": "many", "findings": "x"}))
    said = []
    done = _good_report(tmp_path, warn=said.append)
    assert said == ["'other/metadata.json': left out of the index: findings is 'x', not a list of texts"]
    index = done.index.read_text()
    assert "(good.md)" in index and "(other.md)" not in index


def test_the_index_escapes_every_text_of_a_sidecar(tmp_path):
    import json

    _good_report(tmp_path)
    sidecar = tmp_path / "rep" / "good" / "metadata.json"
    meta = json.loads(sidecar.read_text())
    meta.update(
        title="[click](javascript:alert(1))",
        question="<script>alert(1)</script>\n\nmore",
        findings=["<img src=x onerror=alert(1)>", "- [a]: javascript:alert(2)"],
        key_findings=["`x` | y <b>"],
        command="bergen-sim report good ` <script>",
    )
    sidecar.write_text(json.dumps(meta))
    index = reporting.write_index(tmp_path / "rep").read_text()
    import re

    assert not re.search(r"(?<!\\)\]\(javascript:", index) and not re.search(r"(?<!\\)\[a(?<!\\)\]:", index)
    assert "<script>" not in index and "<img" not in index and "<b>" not in index
    assert "\\[click\\](javascript:alert(1))" in index and "&lt;script&gt;alert(1)&lt;/script&gt;" in index
    assert "- \\- \\[a\\]: javascript:alert(2)" in index
