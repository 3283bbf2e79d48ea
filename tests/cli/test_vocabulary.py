"""One vocabulary: --policy (repeated or a comma list) names the players of every run, compare counts --deals,
-o/--out is a file and --out-dir a folder, --seat and --match a seat number and a match index from 0, and
the old spellings still work for this release with a one-line notice (both old and new: refused)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import bergen_sim
from bergen_sim.cli import main
from bergen_sim.core.errors import BergenError
from bergen_sim.services.analysis import reporting
from bergen_sim.services.files.record import read_games
from tests.helpers import error_lines
from tests.services.test_sweep_report import GOOD

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
NOTICE = "is deprecated and goes in the next release: use"


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
    assert (
        "compare --matches N (it counted deal sets) is deprecated and goes in the next release: use --deals N" in notice
    )


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
    with pytest.warns(DeprecationWarning, match="strategies= is deprecated and goes in the next release"):
        with pytest.raises(reporting.AnalysisError, match="unknown analysis 'nosuch'"):  # the old name was taken
            reporting.run("nosuch", strategies=["random"])
    with pytest.warns(DeprecationWarning), pytest.raises(BergenError, match="not both"):
        reporting.run("nosuch", policies=["random"], strategies=["greedy"])


def _refused(capsys, *argv: str) -> str:
    """The one error line of a refused command line (status 2)."""
    assert main(list(argv)) == 2
    lines = error_lines(capsys.readouterr().err.strip())
    assert len(lines) == 1, lines
    return lines[0]


# --- -o/--out is a file in every command -------------------------------------------------------------------


def test_simulate_writes_its_rows_with_o(capsys, tmp_path):
    assert main(["simulate", "--matches", "20", "--workers", "1", "-o", str(tmp_path / "m.csv")]) == 0
    assert len((tmp_path / "m.csv").read_text().splitlines()) == 21  # a header and one row per match


@pytest.mark.parametrize(
    "argv, words",
    [
        (["compare", "--policy", "random,first", "-o", "{tmp}/x.txt"], ["--out", "unknown file type"]),
        (["review", str(GOLDEN / "2p-standard.jsonl"), "-o", "{tmp}/r.txt"], ["--out", "use .md"]),
    ],
)
def test_compare_and_review_take_o_for_their_file(capsys, tmp_path, argv, words):
    """Refused before anything plays: the file -o names reached the command's checks as --out does."""
    line = _refused(capsys, *(word.replace("{tmp}", str(tmp_path)) for word in argv))
    assert all(word in line for word in words), line


# --- --out-dir is a folder (report, run); their old --out still works -----------------------------------------


def _report(capsys, tmp_path, *out: str) -> tuple[int, str]:
    (tmp_path / "good.py").write_text(GOOD.format(rows=1))  # an analysis that plays nothing: no compile
    status = main(["report", "good", "--analyses-dir", str(tmp_path), "--quick", "--workers", "1", *out])
    return status, capsys.readouterr().err


def test_report_writes_in_out_dir_and_its_old_out_still_works(capsys, tmp_path):
    status, err = _report(capsys, tmp_path, "--out-dir", str(tmp_path / "new"))
    assert status == 0 and (tmp_path / "new" / "good.md").is_file() and NOTICE not in err
    meta = json.loads((tmp_path / "new" / "good" / "metadata.json").read_text())
    assert meta["command"].endswith(f"--out-dir {tmp_path / 'new'}")  # the command that remakes it, new spelling
    status, err = _report(capsys, tmp_path, "--out", str(tmp_path / "old"))
    assert status == 0 and (tmp_path / "old" / "good.md").is_file()
    assert f"report --out DIR {NOTICE} --out-dir DIR" in err
    line = _refused(capsys, "report", "good", "--out", "a", "--out-dir", "b")
    assert "--out is the old spelling of --out-dir: give --out-dir alone" in line
    assert not Path("a").exists() and not Path("b").exists()


def test_run_writes_in_out_dir_and_its_old_out_still_works(capsys, tmp_path):
    path = tmp_path / "e.toml"
    path.write_text('matches = 2\n[policies]\na = "random"\n')
    assert main(["run", str(path), "--out-dir", str(tmp_path / "new"), "--workers", "1"]) == 0
    assert (tmp_path / "new" / "results.csv").is_file() and NOTICE not in capsys.readouterr().err
    assert main(["run", str(path), "--out", str(tmp_path / "old"), "--workers", "1"]) == 0
    assert (tmp_path / "old" / "results.csv").is_file()
    assert f"run --out DIR {NOTICE} --out-dir DIR" in capsys.readouterr().err
    line = _refused(capsys, "run", str(path), "--out", "a", "--out-dir", "b")
    assert "--out is the old spelling of --out-dir: give --out-dir alone" in line


def test_an_experiment_files_old_out_key_still_works(capsys, tmp_path):
    old = tmp_path / "old.toml"
    old.write_text(f'out = "{tmp_path / "o"}"\nmatches = 2\n[policies]\na = "random"\n')
    assert main(["run", str(old), "--workers", "1", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["files"] and (tmp_path / "o" / "results.csv").is_file()
    assert f"old.toml: out = {NOTICE} out_dir =" in err
    both = tmp_path / "both.toml"
    both.write_text('out = "a"\nout_dir = "b"\nmatches = 2\n[policies]\na = "random"\n')
    assert "out is the old name of out_dir: give out_dir alone" in _refused(capsys, "run", str(both))


def test_a_compare_experiment_is_sized_in_deals_and_its_old_matches_still_works(capsys, tmp_path):
    duel = '[policies]\nduel = ["first", "random"]\n'
    new = tmp_path / "new.toml"
    new.write_text(f'kind = "compare"\ndeals = 6\nout_dir = "{tmp_path / "n"}"\n{duel}')
    assert main(["run", str(new), "--workers", "1", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["results"][0]["win_rate"]["n"] == 6 and NOTICE not in err
    old = tmp_path / "old.toml"
    old.write_text(f'kind = "compare"\nmatches = 6\nout_dir = "{tmp_path / "o"}"\n{duel}')
    assert main(["run", str(old), "--workers", "1", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["results"][0]["win_rate"]["n"] == 6
    assert f"old.toml: matches = in a compare (it counted deal sets) {NOTICE} deals =" in err
    both = tmp_path / "both.toml"
    both.write_text(f'kind = "compare"\nmatches = 6\ndeals = 6\n{duel}')
    assert "matches is the old name of a compare's deals: give deals alone" in _refused(capsys, "run", str(both))
    simulate = tmp_path / "simulate.toml"
    simulate.write_text('deals = 6\n[policies]\na = "random"\n')
    assert "deals = sizes a compare; a simulate cell plays matches = N matches" in _refused(
        capsys, "run", str(simulate)
    )


def test_report_python_face_takes_out_dir_and_warns_on_out(tmp_path):
    (tmp_path / "good.py").write_text(GOOD.format(rows=1))
    with pytest.warns(DeprecationWarning, match="out= is deprecated and goes in the next release: use out_dir="):
        done = bergen_sim.report("good", out=tmp_path / "r", analyses_dir=tmp_path, quick=True)
    assert done.index == tmp_path / "r" / "README.md"
    with pytest.warns(DeprecationWarning), pytest.raises(BergenError, match="give out_dir= .* not both"):
        bergen_sim.report("good", tmp_path / "r", out=tmp_path / "s", analyses_dir=tmp_path)


def test_report_says_how_it_talks_to_you_in_report_options_and_the_old_keywords_still_work(tmp_path):
    """log, warn, tracebacks and allow_dirty are fields of ReportOptions (report() keeps to ten parameters); the
    keywords of the last release still work for this release with a DeprecationWarning, never beside them."""
    (tmp_path / "good.py").write_text(GOOD.format(rows=1))
    (tmp_path / "bad.py").write_text(
        "TITLE = 'Bad'\ndef run(ctx):\n    raise ValueError('broken on purpose')\ndef findings(t):\n    return []\n"
    )
    said, told = [], []
    options = bergen_sim.ReportOptions(workers=1, log=said.append, warn=told.append)
    done = bergen_sim.report(["good", "bad"], tmp_path / "r", analyses_dir=tmp_path, quick=True, options=options)
    assert list(done.failed) == ["bad"] and [line.split(":")[0] for line in said] == ["good", "good", "bad"]
    assert told and told[0].startswith("bad: failed:") and "broken on purpose" in told[0]
    old = []
    with pytest.warns(DeprecationWarning, match=r"report\(warn=\) is deprecated .*: use options=ReportOptions"):
        done = bergen_sim.report(["bad"], tmp_path / "s", analyses_dir=tmp_path, quick=True, warn=old.append)
    assert list(done.failed) == ["bad"] and old and old[0].startswith("bad: failed:")
    with pytest.warns(DeprecationWarning), pytest.raises(BergenError, match="ReportOptions.* or the old keywords"):
        bergen_sim.report("good", tmp_path / "t", analyses_dir=tmp_path, options=options, log=print)


def test_a_renamed_report_still_runs_by_its_old_name_and_replaces_its_old_folder(capsys, tmp_path, monkeypatch):
    """As strategy_table became policy_table: the old name runs the new analysis with a notice, and the old
    report in the folder is removed, so the index lists one report."""
    old_code, new_code = tmp_path / "old", tmp_path / "new"
    old_code.mkdir(), new_code.mkdir()
    (old_code / "old_good.py").write_text(GOOD.format(rows=1))
    (new_code / "good.py").write_text(GOOD.format(rows=1))
    argv = ["--quick", "--workers", "1", "--out-dir", str(tmp_path / "rep")]
    assert main(["report", "old_good", "--analyses-dir", str(old_code), *argv]) == 0
    assert (tmp_path / "rep" / "old_good.md").is_file()
    monkeypatch.setitem(reporting.RENAMED_ANALYSES, "old_good", "good")
    capsys.readouterr()
    assert main(["report", "old_good", "--analyses-dir", str(new_code), *argv]) == 0
    assert f"report old_good {NOTICE} report good" in capsys.readouterr().err
    assert sorted(path.name for path in (tmp_path / "rep").iterdir()) == ["README.md", "good", "good.md"]
    index = (tmp_path / "rep" / "README.md").read_text()
    assert "(good.md)" in index and "old_good" not in index
    with pytest.warns(DeprecationWarning, match="analysis old_good is deprecated .*: use good"):
        assert reporting.run("old_good", quick=True, analyses_dir=new_code).name == "good"


def test_the_index_reads_a_report_written_with_strategies(tmp_path):
    """A report folder from before the rename (metadata.json says "strategies") stays in the index."""
    (tmp_path / "good.py").write_text(GOOD.format(rows=1))
    bergen_sim.report("good", tmp_path / "rep", analyses_dir=tmp_path, quick=True)
    sidecar = tmp_path / "rep" / "good" / "metadata.json"
    meta = json.loads(sidecar.read_text())
    meta["strategies"] = meta.pop("policies")
    sidecar.write_text(json.dumps(meta))
    reporting.write_index(tmp_path / "rep", warn=pytest.fail)
    assert "(good.md)" in (tmp_path / "rep" / "README.md").read_text()


# --- --policy names the search player of analyze and review; their old --player still works ---------------


class Stop(BergenError):
    """Raised by the stand-in search: the command's arguments reached it."""


@pytest.fixture
def search_stub(monkeypatch):
    """analyze and review stopped at their search, which says the policy it was given (nothing compiles)."""

    def stub(*args, **kwargs):
        raise Stop(f"searched with {kwargs['policy']}")

    import bergen_sim.cli.analyze as analyze_cli
    import bergen_sim.services.game_review as game_review

    monkeypatch.setattr(analyze_cli, "analyze", stub)
    monkeypatch.setattr(game_review, "review", stub)


ANALYZE = ["analyze", "--hand", "5-6,1-6,0-5,3-4", "--ends", "6,5d", "--played", "2-2,2-5,2-6,5-5"]
ANALYZE += ["--counts", "4,6", "--boneyard", "14", "--scores", "12,13"]
REVIEW = ["review", str(GOLDEN / "2p-standard.jsonl")]


@pytest.mark.parametrize("command", [ANALYZE, REVIEW], ids=["analyze", "review"])
def test_the_search_player_is_given_with_policy(capsys, search_stub, command):
    assert _refused(capsys, *command, "--policy", "pimc").endswith("searched with pimc")
    assert _refused(capsys, *command).endswith("searched with ismcts")  # the default
    assert main([*command, "--player", "reader"]) == 2
    err = capsys.readouterr().err
    assert err.endswith("searched with reader\n")
    assert f"{command[0]} --player {NOTICE} --policy" in err
    line = _refused(capsys, *command, "--player", "reader", "--policy", "pimc")
    assert "--player is the old spelling of --policy: give --policy alone" in line
    assert "searched" not in line
    shown = main_help(capsys, command[0]).split()
    assert "--player" not in shown and "--policy" in shown  # the old spelling is hidden


def main_help(capsys, command: str) -> str:
    assert main([command, "--help"]) == 0
    return capsys.readouterr().out


def test_analyze_and_review_take_policy_in_python_and_warn_on_player():
    games = read_games(GOLDEN / "2p-standard.jsonl", matches=[0])
    position = bergen_sim.Position.from_mapping(
        {
            "hand": "5-6,1-6,0-5,3-4",
            "ends": "6,5d",
            "played": "2-2,2-5,2-6,5-5",
            "counts": "4,6",
            "boneyard": 14,
            "scores": "0,0",
        }
    )
    for call in (lambda **k: bergen_sim.review(games, **k), lambda **k: bergen_sim.analyze(position, None, **k)):
        with pytest.raises(BergenError, match="policy must be one of reader, pimc, ismcts"):
            call(policy="expert")
        with pytest.warns(DeprecationWarning, match="player= is deprecated and goes in the next release: use policy="):
            with pytest.raises(BergenError, match="policy must be one of"):  # the old keyword's value is checked
                call(player="expert")
        with pytest.warns(DeprecationWarning), pytest.raises(BergenError, match="give policy= .* not both"):
            call(policy="reader", player="pimc")


# --- --seat and --match: a seat number and a match index from 0, in every command that takes them ----------


@pytest.mark.parametrize("command", ["play", "analyze", "review"])
def test_seat_and_match_are_said_the_same_way(capsys, command):
    text = " ".join(main_help(capsys, command).split())
    assert "a seat number from 0" in text and "a match index from 0" in text
