"""Experiment files: a declared batch is checked up front, played cell by cell, resumed, and tabled."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

import bergen_sim
from bergen_sim import Rules, RunOptions
from bergen_sim.cli import main
from bergen_sim.services import experiment
from tests.helpers import schema_validator

ROOT = Path(__file__).resolve().parents[2]

SIMULATE = """
kind = "simulate"
matches = 60
sizes = [2, 3]
seeds = [4]
chunk_size = 25

[rules.standard]
[rules.short]
target = 8

[policies]
first = ["first"]
random = "random"
"""


def _flat(row: dict) -> dict:
    """A JSON results row with each estimate object written as the table's ``x``, ``x_lo``, ``x_hi`` columns."""
    flat = {}
    for key, value in row.items():
        if isinstance(value, dict):
            flat.update({key: value["value"], f"{key}_lo": value["low"], f"{key}_hi": value["high"]})
        else:
            flat[key] = value
    return flat


def write(tmp_path: Path, text: str, name: str = "exp.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_a_batch_is_played_tabled_and_matches_direct_runs(capsys, tmp_path):
    out = tmp_path / "out"
    status, stdout, err = run(
        capsys, "run", str(write(tmp_path, SIMULATE)), "--out-dir", str(out), "--workers", "1", "--json"
    )
    assert status == 0, err
    data = json.loads(stdout)
    assert data["cells"] == 8 and data["played"] == 8 and data["reused"] == 0  # 2 rule sets x 2 sizes x 2 sets x 1 seed
    table = pd.read_parquet(out / "results.parquet")
    assert len(table) == 2 * (2 + 3) * 2  # one row per side: 2 sides at size 2, 3 at size 3
    schema_validator("run").validate(data)
    flat = pd.DataFrame([_flat(row) for row in data["results"]])  # each estimate object as x, x_lo, x_hi
    pd.testing.assert_frame_equal(table, flat[table.columns])
    assert (
        data["results"][0]["match_win_rate"]["n"] == 60 and data["results"][0]["hands_per_match"]["n_unit"] == "matches"
    )
    assert len(pd.read_csv(out / "results.csv")) == len(table)
    cell = table[(table["rule_set"] == "short") & (table["size"] == "3") & (table["policy_set"] == "random")]
    direct = bergen_sim.simulate(
        rules=Rules.make(players=3, target=8), policies="random", matches=60, seed=4, options=RunOptions(workers=1)
    )
    assert cell["match_wins"].tolist() == direct.summary["match_wins"]
    assert cell["hands_per_match"].iloc[0] == pytest.approx(direct.summary["hands_per_match"]["value"])
    meta = json.loads(pq.read_schema(out / "results.parquet").metadata[b"bergen_sim"])
    assert meta["cells"] == 8 and meta["provenance"]["command"].startswith("bergen-sim run")
    assert not (out / "checkpoints").exists()


def test_finished_cells_are_not_played_again(capsys, tmp_path):
    path, out = write(tmp_path, SIMULATE), tmp_path / "out"
    assert run(capsys, "run", str(path), "--out-dir", str(out), "--workers", "1", "--quiet")[0] == 0
    first = pd.read_csv(out / "results.csv")
    status, stdout, err = run(capsys, "run", str(path), "--out-dir", str(out), "--workers", "1")
    assert status == 0 and "8 cells (0 played, 8 reused)" in stdout and "playing" not in err
    pd.testing.assert_frame_equal(pd.read_csv(out / "results.csv"), first)
    # an interrupted batch lost one cell: only that one is played
    next((out / "cells").glob("short_3p_first_*.json")).unlink()
    status, stdout, _ = run(capsys, "run", str(path), "--out-dir", str(out), "--workers", "1", "--json")
    assert json.loads(stdout)["played"] == 1
    again = pd.read_csv(out / "results.csv")
    pd.testing.assert_frame_equal(again.drop(columns="run_id"), first.drop(columns="run_id"))  # same numbers
    assert (again["run_id"] != first["run_id"]).sum() == 3  # the 3 sides of the one cell played again
    # a changed description (more matches) is a different cell: played anew, never mixed with the old one
    write(tmp_path, SIMULATE.replace("matches = 60", "matches = 70"))
    status, stdout, _ = run(capsys, "run", str(path), "--out-dir", str(out), "--workers", "1", "--json")
    assert json.loads(stdout)["played"] == 8 and set(pd.read_csv(out / "results.csv")["matches"]) == {70}


def test_an_interrupted_cell_resumes_after_the_chunk_size_changed(capsys, tmp_path):
    """chunk_size never changes results, so changing it in the file must not block the cell's checkpoint."""
    path, out = write(tmp_path, SIMULATE), tmp_path / "out"
    assert run(capsys, "run", str(path), "--out-dir", str(out), "--workers", "1", "--quiet")[0] == 0
    first = pd.read_csv(out / "results.csv")
    # the state a batch killed inside one cell leaves: its cell file missing, its checkpoint holding some chunks
    batch = experiment.load(path, out)
    cell = next(c for c in batch.cells if (c.rule_set, c.size, c.policy_set) == ("short", "3", "first"))
    checkpoint = out / "checkpoints" / cell.key(batch)
    experiment._simulate_rows(
        batch, cell, RunOptions(workers=1, checkpoint=str(checkpoint), chunk_size=batch.chunk_size)
    )
    chunks = sorted(checkpoint.glob("chunk-*.npz"))
    assert len(chunks) == 3  # 60 matches in chunks of 25
    chunks[-1].unlink()
    batch.cell_file(cell).unlink()
    write(tmp_path, SIMULATE.replace("chunk_size = 25", "chunk_size = 7"))
    status, stdout, err = run(capsys, "run", str(path), "--out-dir", str(out), "--workers", "1", "--json")
    assert status == 0 and json.loads(stdout)["played"] == 1, err
    again = pd.read_csv(out / "results.csv")
    pd.testing.assert_frame_equal(again.drop(columns="run_id"), first.drop(columns="run_id"))
    assert not checkpoint.exists()


def test_a_compare_batch_and_kept_rows(capsys, tmp_path):
    text = 'kind = "compare"\ndeals = 12\n[policies]\nduel = ["first", "random"]\n'
    status, stdout, err = run(
        capsys, "run", str(write(tmp_path, text)), "--out-dir", str(tmp_path / "c"), "--workers", "1", "--json"
    )
    assert status == 0, err
    schema_validator("run").validate(json.loads(stdout))
    rows = json.loads(stdout)["results"]
    direct = bergen_sim.compare(policies=["first", "random"], deals=12, options=RunOptions(workers=1)).standings
    assert [r["policy"] for r in rows] == direct["policy"].tolist()
    assert [r["win_rate"]["value"] for r in rows] == pytest.approx(direct["win_rate"].tolist())
    assert [r["win_rate"]["high"] for r in rows] == pytest.approx(direct["win_rate_hi"].tolist())
    assert {(r["win_rate"]["n"], r["points_margin"]["n_unit"]) for r in rows} == {(12, "deal sets")}
    text = 'matches = 30\nrows = true\n[policies]\nduel = ["first", "random"]\n'
    status, stdout, err = run(
        capsys,
        "run",
        str(write(tmp_path, text, "rows.toml")),
        "--out-dir",
        str(tmp_path / "r"),
        "--workers",
        "1",
        "--json",
    )
    assert status == 0, err
    [rows_file] = (tmp_path / "r" / "rows").glob("*.parquet")
    frame = pd.read_parquet(rows_file)
    assert len(frame) == 30 and set(frame["run_id"]) == {json.loads(stdout)["results"][0]["run_id"]}


@pytest.mark.parametrize(
    "text, message",
    [
        ('colour = "red"\n[policies]\na = "first"\n', "unknown key 'colour'"),
        ('kind = "tournament"\n[policies]\na = "first"\n', "kind must be 'simulate' or 'compare'"),
        ('sizes = [9]\n[policies]\na = "first"\n', "sizes: 9 is not a table size"),
        ('matches = 0\n[policies]\na = "first"\n', "matches must be at least 1"),
        ('matches = "many"\n[policies]\na = "first"\n', "matches must be a whole number"),
        ('seeds = []\n[policies]\na = "first"\n', "seeds must be a list"),
        ('sizes = [3]\n[policies]\nduel = ["first", "random"]\n', "policies.duel has 2 names"),
        ('[policies]\na = ["nosuch"]\n', "policies.a: unknown policy 'nosuch'"),
        ('[rules.odd]\ntarget = "high"\n[policies]\na = "first"\n', "rules.odd: setting target takes a whole number"),
        ('[rules.odd]\ncolour = 1\n[policies]\na = "first"\n', "rules.odd: unknown setting 'colour'"),
        ('kind = "compare"\n[policies]\na = "first"\n', "a compare needs at least 2 policies"),
        (
            'kind = "compare"\n[policies]\na = ["greedy", "random"]\nb = ["greedy", "greedy"]\n',
            "policies.b: greedy listed more than once",
        ),  # refused before cell a plays
        ('rows = true\nkind = "compare"\n[policies]\na = ["first", "random"]\n', "a compare has none"),
        ("matches = [\n", "not valid TOML"),
        ("matches = 5\n", "[policies] must name at least one set"),
    ],
)
def test_a_bad_file_is_refused_in_one_line_before_anything_is_played(capsys, tmp_path, text, message):
    status, out, err = run(capsys, "run", str(write(tmp_path, text)), "--out-dir", str(tmp_path / "o"))
    assert status == 2 and message in err and err.count("\n") == 1, err
    assert not (tmp_path / "o").exists()


def test_a_long_set_name_still_makes_file_names_that_fit(capsys, tmp_path):
    """A 300-character policy set's name: its cell's files carry a cut of it and its digest (255 bytes at most)."""
    name = "x" * 300
    status, out, err = run(
        capsys,
        "run",
        str(write(tmp_path, f'matches = 2\n[policies]\n{name} = "first"\n')),
        "--out-dir",
        str(tmp_path / "o"),
    )
    assert status == 0, err
    assert all(len(p.name) < 255 for p in (tmp_path / "o" / "cells").iterdir())


def test_an_out_folder_that_cannot_be_written_is_refused_before_the_first_cell(capsys, tmp_path, monkeypatch):
    """The file's own `out_dir` is checked like --out-dir: a file there would have cost the first cell after playing it."""
    monkeypatch.chdir(tmp_path)  # the file's out_dir is relative to the current directory
    (tmp_path / "taken").write_text("not a folder")
    text = 'out_dir = "taken"\nmatches = 5\n[policies]\na = "first"\n'
    status, _, err = run(capsys, "run", str(write(tmp_path, text)))
    assert status == 2 and err.count("\n") == 1 and ": out_dir = taken: is a file, not a folder" in err, err
    status, _, err = run(
        capsys,
        "run",
        str(write(tmp_path, 'matches = 5\n[policies]\na = "first"\n')),
        "--out-dir",
        str(tmp_path / "taken" / "under"),
    )
    assert status == 2 and err.count("\n") == 1 and "taken, which is a file" in err, err


def test_a_missing_file_is_one_line(capsys, tmp_path):
    status, _, err = run(capsys, "run", str(tmp_path / "none.toml"))
    assert status == 2 and "no such file" in err


def test_the_python_face_returns_the_table(tmp_path):
    plan = experiment.parse({"matches": 30, "policies": {"duel": ["first", "random"]}}, "inline")
    plan.out = tmp_path / "py"
    done = experiment.run(plan, workers=1)
    assert repr(done) == "ExperimentResult(1 cells: 1 played, 0 reused; 2 rows)"
    assert "<table" in done._repr_html_() and done.table["matches"].tolist() == [30, 30]


def test_the_example_experiment_file_is_valid():
    plan = experiment.load(ROOT / "examples" / "experiment.toml")
    assert plan.kind == "simulate" and len(plan.cells) == 8 and plan.out == Path("experiment-out")
    assert {cell.rule_set for cell in plan.cells} == {"standard", "no-reserve"}


def test_table_sizes_are_the_rule_books_player_counts():
    from bergen_sim.model.rules import PARTNERSHIP_PLAYERS, PLAYER_COUNTS
    from bergen_sim.services.experiment import SIZES

    assert set(SIZES.values()) == {(n, False) for n in PLAYER_COUNTS} | {(n, True) for n in PARTNERSHIP_PLAYERS}


# --- files from strangers: read as data, nothing run ------------------------------------------------------------

EVIL = """
open({marker!r}, "w").write("imported")
from numba import njit


@njit
def choose(view, move_tiles, move_ends, n_moves, rng):
    return 0
"""


def test_a_module_named_in_the_file_is_not_imported_without_allow_plugins(capsys, tmp_path, monkeypatch):
    """`evilmod:choose` beside the file (and in the current folder) is refused unread; the option is named."""
    monkeypatch.chdir(tmp_path)
    marker = tmp_path / "marker"
    (tmp_path / "evilmod.py").write_text(EVIL.format(marker=str(marker)))
    path = write(tmp_path, 'matches = 5\n[policies]\nevil = ["evilmod:choose"]\n')
    status, out, err = run(capsys, "run", str(path), "--out-dir", str(tmp_path / "o"))
    assert status == 2 and err.count("\n") == 1 and "--allow-plugins" in err and "evilmod:choose" in err, err
    assert not marker.exists() and "evilmod" not in __import__("sys").modules
    # the user allows it on the command line: then (and only then) the module is imported
    experiment.load(path, tmp_path / "o", allow_plugins=True)
    assert marker.read_text() == "imported"
    monkeypatch.delitem(__import__("sys").modules, "evilmod")


@pytest.mark.parametrize(
    "text", ['[policies]\nz = ["this:x"]\n', 'kind = "compare"\n[policies]\nz = ["greedy", "this:x"]\n']
)
def test_a_standard_module_named_in_the_file_prints_nothing(capsys, tmp_path, text):
    """`this:x` would print the Zen of Python on import: refused before any import, one line only."""
    status, out, err = run(capsys, "run", str(write(tmp_path, text)), "--out-dir", str(tmp_path / "o"))
    assert status == 2 and out == "" and err.count("\n") == 1 and "Zen" not in err and "--allow-plugins" in err


@pytest.mark.parametrize(
    "text, message",
    [
        ("x = " + "[" * 3000 + "]" * 3000 + "\n", "nested too deeply"),
        ("matches = " + "9" * 5000 + "\n", "more than 4,300 digits"),
        ('sizes = [[2]]\n[policies]\na = "first"\n', "sizes: [2] is not a table size"),
        ('sizes = [{a = 1}]\n[policies]\na = "first"\n', "is not a table size"),
        ('kind = ["simulate"]\n[policies]\na = "first"\n', "kind must be"),
        ('[rules.odd]\ntarget = "10"\n[policies]\na = "first"\n', "setting target takes a whole number, not '10'"),
        ('[rules.odd]\ntarget = true\n[policies]\na = "first"\n', "setting target takes a whole number, not True"),
        ('matches = 1000000\nchunk_size = 1\n[policies]\na = "first"\n', "chunk_size = 1 cuts"),
        ("", 'e.g. a line random = ["random"] under [policies]'),
    ],
)
def test_hostile_toml_is_one_line(capsys, tmp_path, text, message):
    status, out, err = run(capsys, "run", str(write(tmp_path, text)), "--out-dir", str(tmp_path / "o"))
    assert status == 2 and message in err and err.count("\n") == 1, err
    assert "--chunk-size" not in err


def test_the_suggested_policies_line_is_accepted(tmp_path):
    """What the empty file's message suggests is itself a valid experiment."""
    assert experiment.parse({"policies": {"random": ["random"]}}).cells[0].policies == ("random",)


def test_a_byte_order_mark_is_read(tmp_path):
    path = tmp_path / "bom.toml"
    path.write_bytes(b'\xef\xbb\xbfmatches = 7\n[policies]\na = "first"\n')
    assert experiment.load(path, tmp_path / "o").matches == 7


def test_a_folder_given_as_the_file_is_one_line(capsys, tmp_path):
    status, _, err = run(capsys, "run", str(tmp_path), "--out-dir", str(tmp_path / "o"))
    assert status == 2 and err.count("\n") == 1, err


# --- reused cells are checked against themselves ----------------------------------------------------------------


def fake_play(experiment_, cell, options):
    """Rows as a played simulate cell has them, without compiling anything (and no file failed)."""
    return [{**cell.label(), "side": side, "matches": experiment_.matches, "match_wins": 1} for side in range(2)], ""


@pytest.fixture()
def plan(tmp_path, monkeypatch):
    monkeypatch.setattr(experiment, "_simulate_rows", fake_play)
    made = experiment.parse({"matches": 3, "seeds": [0, 1], "policies": {"a": "first"}}, "inline")
    made.out = tmp_path / "out"
    experiment.run(made)
    return made


@pytest.mark.parametrize(
    "damage, why",
    [
        (lambda d: {**d, "rows": []}, "holds no rows"),
        (lambda d: {**d, "rows": d["rows"][:1]}, "do not match"),
        (lambda d: {**d, "rows": [{**d["rows"][0], "match_wins": 9}, d["rows"][1]]}, "do not match"),
        (lambda d: {**d, "row_count": "2"}, "do not match"),
        (lambda d: {**d, "rows": "x"}, "holds no rows"),
        (lambda d: {**d, "rows": [1, 2]}, "holds no rows"),
        (lambda d: [d], "not a cell file"),
        (lambda d: "[" * 100_000, "nested too deeply"),
        (lambda d: "", "not a cell file"),
        (lambda d: "\x00" * 64, "not a cell file"),
        (lambda d: '{"rows": ' + "9" * 5000 + "}", "not a cell file"),
    ],
)
def test_a_damaged_cell_file_is_played_again_with_a_notice(plan, damage, why):
    first = plan.cell_file(plan.cells[0])
    changed = damage(json.loads(first.read_text()))
    first.write_text(changed if isinstance(changed, str) else json.dumps(changed))
    notices = []
    done = experiment.run(plan, log=notices.append)
    assert len(done.played) == 1 and len(done.reused) == 1 and len(done.table) == 4
    [notice] = [n for n in notices if "damaged" in n]
    assert why in notice and str(first) in notice
    assert experiment.saved_rows(plan, plan.cells[0])[0] is not None  # saved whole again


def test_a_folder_in_place_of_a_cell_file_is_refused_before_any_cell_plays(plan):
    second = plan.cell_file(plan.cells[1])
    second.unlink()
    second.mkdir()
    plan.cell_file(plan.cells[0]).unlink()
    with pytest.raises(experiment.ExperimentError, match="cannot be read"):
        experiment.run(plan)
    assert not plan.cell_file(plan.cells[0]).exists()  # checked before the first cell played


def test_a_batch_that_cannot_save_still_prints_what_it_played(capsys, tmp_path, monkeypatch):
    """A full disk (or a file size limit) on the first cell's save: its rows are printed, then one line, status 2."""
    monkeypatch.setattr(experiment, "_simulate_rows", fake_play)
    real_write = Path.write_text

    def full_disk(self, *args, **kwargs):
        if self.name.endswith(".partial"):
            raise OSError(28, "No space left on device")
        return real_write(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", full_disk)
    path = write(tmp_path, 'matches = 3\nseeds = [0, 1]\n[policies]\na = "first"\n')
    status, out, err = run(capsys, "run", str(path), "--out-dir", str(tmp_path / "o"), "--json")
    assert status == 2 and "No space left on device" in err and err.strip().count("\n") <= 2, err
    data = json.loads(out)
    assert data["played"] == 1 and len(data["results"]) == 2  # the played cell's rows; the second was not played


def test_names_from_the_file_are_printed_escaped(capsys, tmp_path, monkeypatch):
    """A set name holding a terminal's escape sequences is shown escaped in notices and the table."""
    monkeypatch.setattr(experiment, "_simulate_rows", fake_play)
    text = 'matches = 3\n[policies]\n"p\\u001b[2J\\u001b]0;pwned\\u0007" = "first"\n'
    status, out, err = run(capsys, "run", str(write(tmp_path, text)), "--out-dir", str(tmp_path / "o\nx"))
    assert status == 0, err
    assert "\x1b" not in out + err and "\x07" not in out + err and "\\x1b[2J" in err and "o\\nx" in out + err


def test_a_cell_whose_checkpoint_cannot_be_written_is_shown_not_saved(capsys, tmp_path, monkeypatch):
    """simulate and compare raise a write failure after the run with its result: the rows are printed, the
    cell is not saved as done (its files are incomplete), and the batch ends there with one line."""
    from bergen_sim.services.files.output import OutputError

    failure = OutputError("checkpoint x: cannot save chunks (File too large); the run went on without it")
    failure.result = "the played result"
    assert experiment._finished(lambda: (_ for _ in ()).throw(failure)) == ("the played result", str(failure))
    assert experiment._finished(lambda: 5) == (5, "")

    def played_but_not_saved(experiment_, cell, options):
        return fake_play(experiment_, cell, options)[0], str(failure)

    monkeypatch.setattr(experiment, "_simulate_rows", played_but_not_saved)
    path = write(tmp_path, 'matches = 3\nseeds = [0, 1]\n[policies]\na = "first"\n')
    status, out, err = run(capsys, "run", str(path), "--out-dir", str(tmp_path / "o"), "--json")
    assert status == 2 and "File too large" in err and json.loads(out)["played"] == 1
    assert not list((tmp_path / "o" / "cells").glob("*.json"))


def test_the_shipped_example_is_reachable_without_the_source_tree(tmp_path, capsys):
    """`run --show-example` prints the example file the package ships; `run --example` plays it."""
    from bergen_sim.cli import main

    shipped = Path(__file__).resolve().parents[2] / "examples" / "experiment.toml"
    assert main(["run", "--show-example"]) == 0
    assert capsys.readouterr().out == shipped.read_text()
    assert main(["run", "--example", "--out-dir", str(tmp_path / "ex"), "--workers", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cells"] == 8
    assert main(["run"]) == 2 and "--example" in capsys.readouterr().err
    assert main(["run", str(shipped), "--example"]) == 2
