"""`bergen-sim report --analyses-dir`: a user analysis whose figures(), SHOW or findings() misbehave, or whose
run() raises a BaseException, is one failure line naming its file; the others still run and nothing partial is
left of it.  These analyses play no match, so the tests are fast."""

from __future__ import annotations

from pathlib import Path

import pytest

from bergen_sim.cli import main
from bergen_sim.services.analysis import reporting
from tests.helpers import error_lines

HEAD = 'import pandas as pd\nTITLE = "T"\n'
RUN = 'def run(ctx):\n    return {"t": pd.DataFrame({"x": [1.0]})}\n'
FINDINGS = 'def findings(tables):\n    return ["f"]\n'

BROKEN = {
    # before: AttributeError traceback from figures.save, status 1, a partial folder
    "badfig": (
        HEAD + RUN + FINDINGS + 'def figures(tables):\n    return [1, "x"]\n',
        "figures() must return a list of Chart",
    ),
    "strfig": (
        HEAD + RUN + FINDINGS + 'def figures(tables):\n    return "xy"\n',
        "figures() must return a list of Chart (bergen_sim.services.analysis.figures.Chart",
    ),
    "figexit": (
        HEAD + RUN + FINDINGS + 'def figures(tables):\n    raise GeneratorExit("fg")\n',
        "figures() raised GeneratorExit: fg",
    ),
    # before: KeyError traceback in markdown_page
    "badshow": (
        HEAD + 'SHOW = {"missing_table": "x", "t": "cap"}\n' + RUN + FINDINGS,
        "SHOW names table 'missing_table', which run() did not return; its tables: t",
    ),
    "showquery": (HEAD + 'SHOW = {"t": ("cap", "x >>>> 1")}\n' + RUN + FINDINGS, "the selection of SHOW['t'] raised"),
    "showtype": (HEAD + 'SHOW = {"t": 5}\n' + RUN + FINDINGS, "SHOW must be a dict of table name -> caption"),
    # before: GeneratorExit traceback
    "genexit": (HEAD + 'def run(ctx):\n    raise GeneratorExit("ge")\n' + FINDINGS, "run() raised GeneratorExit: ge"),
    # before: accepted, one bullet per character
    "strfindings": (
        HEAD + RUN + 'def findings(tables):\n    return "abc"\n',
        "findings() must return a list of sentences (str), not str",
    ),
    "intfindings": (
        HEAD + RUN + 'def findings(tables):\n    return ["ok", 3]\n',
        "findings() must return a list of sentences (str), not a list holding int",
    ),
    "strkey": (
        HEAD + RUN + FINDINGS + 'def key_findings(tables):\n    return "abc"\n',
        "key_findings() must return a list of sentences (str), not str",
    ),
}
GOOD = HEAD + 'SHOW = {"t": ("cap", "x > 0")}\n' + RUN + FINDINGS


def _report(capsys, folder: Path, *names: str) -> tuple[int, str]:
    status = main(
        [
            "report",
            *names,
            "--analyses-dir",
            str(folder),
            "--out-dir",
            str(folder / "rep"),
            "--quick",
            "--matches",
            "20",
            "--workers",
            "1",
        ]
    )
    return status, capsys.readouterr().err


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_misbehaving_analysis_is_one_line_and_leaves_nothing(capsys, tmp_path, name):
    body, words = BROKEN[name]
    (tmp_path / f"{name}.py").write_text(body)
    status, err = _report(capsys, tmp_path, name)
    assert status == 2 and "Traceback" not in err
    failed = [line for line in error_lines(err) if line.startswith(f"{name}: failed:")]
    assert len(failed) == 1 and f"{name}.py" in failed[0] and words in failed[0], err
    assert not (tmp_path / "rep" / name).exists() and not (tmp_path / "rep" / f"{name}.md").exists()


def test_the_other_analyses_still_run(capsys, tmp_path):
    for name, (body, _) in BROKEN.items():
        (tmp_path / f"{name}.py").write_text(body)
    (tmp_path / "good.py").write_text(GOOD)
    status, err = _report(capsys, tmp_path, *sorted(BROKEN), "good")
    assert status == 2 and "Traceback" not in err
    assert (tmp_path / "rep" / "good.md").exists() and (tmp_path / "rep" / "README.md").exists()
    assert sorted(p.name for p in (tmp_path / "rep").iterdir()) == ["README.md", "good", "good.md"]
    assert error_lines(err.strip())[-1].startswith(f"bergen-sim: error: {len(BROKEN)} of {len(BROKEN) + 1} analyses")


def test_keyboard_interrupt_in_an_analysis_still_stops_the_command(tmp_path):
    (tmp_path / "stop.py").write_text(HEAD + "def run(ctx):\n    raise KeyboardInterrupt\n" + FINDINGS)
    with pytest.raises(KeyboardInterrupt):
        reporting.report(
            "stop",
            tmp_path / "rep",
            quick=True,
            matches=20,
            analyses_dir=tmp_path,
            options=reporting.ReportOptions(warn=lambda t: None),
        )


def test_a_full_scale_report_into_a_dirty_checkout_is_refused_before_anything_runs(monkeypatch, tmp_path, capsys):
    from bergen_sim.core import provenance

    monkeypatch.setattr(provenance, "git_state", lambda: {"commit": "0123456789abcdef", "dirty": True})
    monkeypatch.setattr(provenance, "source_root", lambda: tmp_path)
    inside = tmp_path / "reports"
    with pytest.raises(
        provenance.UncommittedChanges, match="uncommitted changes: commit them first, or pass --allow-dirty"
    ):
        reporting.check_clean_for_full_scale(None, False, False, inside)
    reporting.check_clean_for_full_scale(None, False, True, inside)  # allowed
    reporting.check_clean_for_full_scale(None, True, False, inside)  # a quick report is no headline
    reporting.check_clean_for_full_scale(200_000, False, False, inside)  # nor a smaller one
    reporting.check_clean_for_full_scale(None, False, False, tmp_path.parent / "elsewhere")  # the user's own folder
    monkeypatch.setattr(reporting, "run", lambda *a, **k: pytest.fail("played before refusing"))
    assert main(["report", "going_first", "--out-dir", str(inside)]) == 2
    assert "uncommitted changes" in capsys.readouterr().err
    monkeypatch.setattr(provenance, "git_state", lambda: {"commit": "0123456789abcdef", "dirty": False})
    reporting.check_clean_for_full_scale(None, False, False, inside)
