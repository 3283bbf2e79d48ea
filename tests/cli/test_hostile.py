"""Hostile input for every command: one line on stderr, exit status 2, no traceback, nothing written.

Each case is a command line a careless or hostile user could type (issue 15's
list and more).  Commands run in-process through :func:`bergen_sim.cli.main`,
the console script's entry point, so its error handling is what is tested.
Cases that must play before failing (a full device) are checked separately:
there the summary must still be printed.
"""

from __future__ import annotations

import io
import json
import os
import stat
import threading
from pathlib import Path

import pandas as pd
import pytest

from bergen_sim.cli import main
from bergen_sim.core import limits
from bergen_sim.runtime import registry
from bergen_sim.services.files.checkpoint import Checkpoint
from tests.helpers import error_lines

HUGE = str(10**30)
INT64_MAX = str(2**63 - 1)
ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def place(tmp_path):
    """A folder with a file ``afile``, a folder ``d.parquet`` and a bad analyses folder; ``{tmp}`` in argv."""
    (tmp_path / "afile").write_text("not a folder")
    (tmp_path / "d.parquet").mkdir()
    (tmp_path / "d.jsonl").mkdir()
    (tmp_path / "latin1.json").write_bytes('{"hand": "caf\xe9"}'.encode("latin-1"))
    (tmp_path / "bad.json").write_text("{not json")
    return tmp_path


#: (argv, words the one error line must contain)
CASES = [
    # simulate: sizes and settings past their limits
    (["simulate", "--matches", "99999999999999999999999999"], ["--matches", "1..100,000,000,000"]),
    (["simulate", "--matches", "0"], ["--matches"]),
    (["simulate", "--matches", "-5"], ["--matches"]),
    (["simulate", "--matches", "9223372036854775808", "--chunk-size", "5"], ["--matches"]),
    (["simulate", "--matches", "100000000000", "--chunk-size", "1"], ["chunks", "--chunk-size 1,000,000"]),
    (["simulate", "--chunk-size", "0"], ["--chunk-size"]),
    (["simulate", "--chunk-size", "10000000"], ["--chunk-size", "1,000,000"]),
    (["simulate", "--workers", "0"], ["--workers"]),
    (["simulate", "--workers", "1000000"], ["--workers", "1,024"]),
    (["simulate", "--set", f"target={HUGE}"], ["target", "1..1,000", "31 digits"]),
    (["simulate", "--set", f"target={INT64_MAX}"], ["target", "1..1,000"]),
    (["simulate", "--set", "target=0"], ["target"]),
    (["simulate", "--set", f"blocked_points={HUGE}"], ["blocked_points", "0..1,000"]),
    (["simulate", "--set", f"out_points={INT64_MAX}"], ["out_points", "0..1,000"]),
    (["simulate", "--set", f"hand_size={HUGE}"], ["hand_size", "1..14"]),
    (["simulate", "--set", f"boneyard_reserve={HUGE}"], ["boneyard_reserve"]),
    (["simulate", "--set", "target=1" + "0" * 5000], ["target must be 1..1,000, not a number of about 5,000 digits"]),
    (["simulate", "--set", "hand_size=\u0667"], ["setting hand_size takes a whole number, not '\u0667'"]),
    (["simulate", "--matches", "\u0663"], ["'\u0663' is not a whole number"]),
    (["simulate", "--policy", "pimc:worlds=\uff17"], ["worlds must be a whole number in 1..100000, not '\uff17'"]),
    (["simulate", "--set", "x" * 1000 + "=1"], ["unknown setting '" + "x" * 36 + "..."]),
    (["trace", "-o", "no\nsuch/x.jsonl"], ["-o no\\nsuch/x.jsonl: folder"]),
    (["simulate", "--seed", str(2**64)], ["--seed", "18,446,744,073,709,551,615"]),
    (["simulate", "--seed", "-1"], ["--seed"]),
    (["simulate", "--seed", "1e3"], ["--seed", "whole number"]),
    (["simulate", "--scheduler", "nowhere"], ["scheduler", "tcp://"]),
    # simulate: output paths, all refused before anything is played
    (["simulate", "--out", ""], ["--out", "empty"]),
    (["simulate", "--out", "{tmp}/m.txt"], ["unknown file type", ".txt", ".parquet, .csv"]),
    (["simulate", "--out", "{tmp}/m.json"], ["unknown file type", ".json"]),
    (["simulate", "--out", "{tmp}/noext"], ["no file type", ".parquet"]),
    (["simulate", "--out", "{tmp}/missing/m.parquet"], ["missing", "does not exist"]),
    (["simulate", "--out", "{tmp}/afile/m.parquet"], ["afile", "is a file, not a folder"]),
    (["simulate", "--out", "/proc/m.parquet"], ["/proc", "virtual file system"]),
    (["simulate", "--out", "/proc/self/status.csv"], ["virtual file system"]),
    (["simulate", "--out", "{tmp}/d.parquet"], ["is a folder"]),
    (["simulate", "--checkpoint", ""], ["--checkpoint", "empty"]),
    (["simulate", "--checkpoint", "{tmp}/afile"], ["afile", "file"]),
    (["simulate", "--checkpoint", "{tmp}/afile/sub"], ["afile", "file"]),
    (["simulate", "--checkpoint", "/proc/ck"], ["virtual file system"]),
    (["simulate", "--policy", "random", "--policy", "first", "--policy", "greedy"], ["one per seat"]),
    # trace
    (["trace", "-o", ""], ["-o", "empty"]),
    (["trace", "-o", "{tmp}/t.txt"], ["unknown file type", ".jsonl"]),
    (["trace", "-o", "{tmp}/t.parquet"], ["unknown file type", ".jsonl"]),
    (["trace", "-o", "{tmp}/missing/t.jsonl"], ["does not exist"]),
    (["trace", "-o", "{tmp}/afile/t.jsonl"], ["is a file, not a folder"]),
    (["trace", "-o", "/proc/t.jsonl"], ["virtual file system"]),
    (["trace", "-o", "{tmp}/d.jsonl"], ["is a folder"]),
    (["trace", "-o", "{tmp}/t.jsonl", "--matches", "100000000"], ["--matches", "10,000,000"]),
    (["trace", "-o", "{tmp}/t.jsonl", "--set", f"target={HUGE}"], ["target"]),
    (["trace", "-o", "{tmp}/t.jsonl", "--seed", str(2**64)], ["--seed"]),
    # compare
    (["compare", "--policy", "random,first", "--out", "/proc/x.json"], ["virtual file system"]),
    (["compare", "--policy", "random,first", "--out", "{tmp}/missing/x.json"], ["does not exist"]),
    (["compare", "--policy", "random,first", "--out", "{tmp}/afile/x.json"], ["is a file"]),
    (["compare", "--policy", "random,first", "--out", ""], ["empty"]),
    (["compare", "--policy", "random,first", "--out", "{tmp}/x.txt"], ["unknown file type", ".csv"]),
    (["compare", "--policy", "random,first", "--deals", "100000000"], ["--deals", "10,000,000"]),
    (["compare", "--policy", "random,first", "--deals", "0"], ["--deals"]),
    (["compare", "--policy", "random,first", "--checkpoint", "/proc/ck"], ["virtual file system"]),
    (["compare", "--policy", "random,first", "--checkpoint", "{tmp}/afile"], ["file"]),
    (["compare", "--policy", "random,first", "--seed", "-1"], ["--seed"]),
    (["compare", "--policy", "random,first", "--set", f"out_points={HUGE}"], ["out_points"]),
    (["compare", "--policy", "random"], ["at least 2"]),
    # report
    (["report", "header_frequency", "--out-dir", "/proc/rep"], ["virtual file system"]),
    (["report", "header_frequency", "--out-dir", "{tmp}/afile"], ["file"]),
    (["report", "header_frequency", "--out-dir", "{tmp}/afile/rep"], ["file"]),
    (["report", "header_frequency", "--out-dir", "-"], ["standard output"]),
    (["report", "header_frequency", "--out-dir", ""], ["empty"]),
    (["report", "header_frequency", "--matches", str(10**12)], ["--matches"]),
    (["report", "header_frequency", "--seed", str(2**64)], ["--seed"]),
    (["report", "no_such_analysis", "--out-dir", "{tmp}/rep"], ["no_such_analysis"]),
    # analyze
    (["analyze", "--worlds", str(10**21)], ["--worlds", "1,000,000"]),
    (["analyze", "--batch", "0"], ["--batch"]),
    (["analyze", "--seed", str(2**64)], ["--seed"]),
    (["analyze", "--position", "{tmp}/latin1.json"], ["UTF-8"]),
    (["analyze", "--position", "{tmp}/bad.json"], ["not valid JSON"]),
    (["analyze", "--position", "{tmp}/missing.json"], ["--position"]),
    (
        [
            "analyze",
            "--set",
            f"target={HUGE}",
            "--seat",
            "0",
            "--hand",
            "2-5",
            "--ends",
            "5,5",
            "--played",
            "5-5",
            "--counts",
            "1,1",
            "--boneyard",
            "14",
            "--scores",
            "0,0",
        ],
        ["target"],
    ),
    (
        [
            "analyze",
            "--seat",
            "0",
            "--hand",
            "2-5",
            "--ends",
            "5,5",
            "--played",
            "5-5",
            "--counts",
            "1,1",
            "--boneyard",
            "14",
            "--scores",
            f"0,{HUGE}",
        ],
        ["scores"],
    ),
    # names longer than the system allows (255 bytes a name): refused before anything runs
    (["simulate", "--matches", "2", "--checkpoint", "{tmp}/" + "a" * 300], ["--checkpoint", "File name too long"]),
    (["report", "going_first", "--quick", "--out-dir", "{tmp}/" + "a" * 300], ["--out-dir", "File name too long"]),
    (["simulate", "--matches", "2", "--out", "{tmp}/" + "a" * 300 + ".csv"], ["--out", "File name too long"]),
]


@pytest.mark.parametrize("argv, words", CASES, ids=[" ".join(a)[:60] for a, _ in CASES])
def test_hostile_input_gets_one_line_and_status_2(capsys, place, argv, words):
    argv = [a.replace("{tmp}", str(place)) for a in argv]
    before = sorted(p.name for p in place.iterdir())
    status, out, err = run(capsys, *argv)
    assert status == 2, err
    assert out == ""
    lines = error_lines(err.strip())
    assert len(lines) == 1, err
    assert lines[0].startswith("bergen-sim: error:") and "Traceback" not in err
    for word in words:
        assert word in lines[0], lines[0]
    assert sorted(p.name for p in place.iterdir()) == before  # nothing created


def test_limits_are_exact_in_int64():
    """The documented worst case fits int64: squared hands per match summed over the most matches."""
    most_hands = 4 * (limits.MAX_TARGET - 1) + 1
    assert limits.MAX_MATCHES * most_hands**2 < 2**63
    assert limits.MAX_MATCHES == limits.MAX_CHUNKS * limits.MAX_CHUNK_SIZE


# --- writes that fail after the run: the summary is still printed ----------------------------------


def test_full_device_keeps_the_summary_and_the_device(capsys):
    before = os.stat("/dev/full")
    status, out, err = run(capsys, "simulate", "--matches", "300", "--workers", "1", "--out", "/dev/full")
    assert status == 2
    assert "300 matches" in out  # the summary table of the finished run
    assert error_lines(err.strip()) == ["bergen-sim: error: --out /dev/full: write failed (No space left on device)"]
    after = os.stat("/dev/full")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize(
    "args", [["policies"], ["review", "GAME", "--worlds", "20", "--json"], ["review", "GAME", "--worlds", "20"]]
)
def test_standard_output_on_a_full_device_is_one_line(tmp_path, args):
    """`bergen-sim ... > /dev/full`: one line, exit 2, and no second error from Python's flush at exit."""
    import subprocess
    import sys

    game = tmp_path / "game.txt"
    game.write_text(
        "bergen-record 1\nrules players=2 hand_size=4 target=3\nhand 1\n"  # no decision to judge:
        "deal 1-1 1-3 3-4 3-5 | 1-2 2-4 5-6 6-6\n0: lead 1-1\n"
    )  # nothing compiles in the child
    args = [str(game) if a == "GAME" else a for a in args]
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-c", "import sys; from bergen_sim.cli import main; sys.exit(main())", *args],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=300,
        )
    assert done.returncode == 2, done.stderr
    assert error_lines(done.stderr.strip()) == [
        "bergen-sim: error: standard output cannot be written (No space left on device); nothing more was printed"
    ]


def test_full_device_for_a_trace(capsys):
    status, out, err = run(capsys, "trace", "--matches", "50", "-o", "/dev/full")
    assert status == 2 and len(error_lines(err.strip())) == 1 and "No space left" in err
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_json_summary_survives_a_failed_out(capsys):
    status, out, err = run(capsys, "simulate", "--matches", "200", "--workers", "1", "--json", "--out", "/dev/full")
    assert status == 2 and json.loads(out)["matches"] == 200 and len(error_lines(err.strip())) == 1


def test_compare_tables_survive_a_failed_out(capsys):
    status, out, err = run(
        capsys, "compare", "--policy", "random,first", "--deals", "40", "--workers", "1", "--out", "/dev/full"
    )
    assert status == 2 and "40 deal sets" in out and len(error_lines(err.strip())) == 1


# --- what a path points to is written, never replaced -----------------------------------------------


def test_symlink_target_is_written_and_link_kept(capsys, tmp_path):
    target = tmp_path / "real.parquet"
    link = tmp_path / "link.parquet"
    link.symlink_to(target)
    status, _, err = run(capsys, "simulate", "--matches", "30", "--workers", "1", "--out", str(link))
    assert status == 0, err
    assert link.is_symlink() and len(pd.read_parquet(target)) == 30
    trace_target, trace_link = tmp_path / "t.jsonl", tmp_path / "l.jsonl"
    trace_link.symlink_to(trace_target)
    assert run(capsys, "trace", "-o", str(trace_link))[0] == 0
    assert trace_link.is_symlink() and trace_target.read_text().startswith('{"type":"match"')


def test_dev_null_stays_a_device(capsys):
    for argv in (
        ["simulate", "--matches", "20", "--workers", "1", "--out", "/dev/null"],
        ["trace", "-o", "/dev/null"],
        ["compare", "--policy", "random,first", "--deals", "10", "--workers", "1", "--out", "/dev/null"],
    ):
        assert run(capsys, *argv)[0] == 0
        assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_fifo_is_written_in_place(capsys, tmp_path):
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    status, _, err = run(capsys, "trace", "--matches", "2", "-o", str(fifo))
    reader.join(timeout=60)
    assert status == 0, err
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert received and received[0].count('"type":"match"') == 2


def test_dash_means_standard_output(capfd):
    """``-`` writes to descriptor 1 itself (capfd sees it; the summary moves to stderr)."""
    status = main(["trace", "--matches", "2", "-o", "-"])
    out, err = capfd.readouterr()
    assert status == 0 and out.count('"type":"match"') == 2 and "standard output" in err
    status = main(["simulate", "--matches", "25", "--workers", "1", "--out", "-"])
    out, err = capfd.readouterr()
    assert status == 0 and out.splitlines()[0].startswith("match,winner") and len(out.splitlines()) == 26
    assert "25 matches" in err


def test_csv_extension_writes_csv(capsys, tmp_path):
    path = tmp_path / "m.csv"
    assert run(capsys, "simulate", "--matches", "40", "--workers", "1", "--out", str(path))[0] == 0
    assert len(pd.read_csv(path)) == 40


def test_a_failed_write_leaves_an_existing_file_alone(capsys, tmp_path, monkeypatch):
    """A write that fails midway (here: the disk 'fills' on the second row group) keeps the old file whole."""
    from bergen_sim.services.files import match_table

    path = tmp_path / "m.parquet"
    path.write_bytes(b"precious")
    calls = {"n": 0}
    original = match_table.FrameSink.write

    def failing(self, frame):
        calls["n"] += 1
        if calls["n"] == 2:
            self._handle.write = lambda data: (_ for _ in ()).throw(OSError(28, "No space left on device"))
        return original(self, frame)

    monkeypatch.setattr(match_table.FrameSink, "write", failing)
    status, out, err = run(
        capsys, "simulate", "--matches", "3000", "--chunk-size", "1000", "--workers", "1", "--out", str(path)
    )
    assert status == 2 and "No space left" in err and "3,000 matches" in out
    assert path.read_bytes() == b"precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.parquet"]  # no partial file


# --- checkpoints: lock, foreign chunks, a folder removed mid-run ------------------------------------


def test_second_run_on_a_locked_checkpoint_is_refused(capsys, tmp_path):
    holder = Checkpoint(tmp_path / "ck", {"anything": 1})
    try:
        status, out, err = run(
            capsys, "simulate", "--matches", "100", "--workers", "1", "--checkpoint", str(tmp_path / "ck")
        )
    finally:
        holder.close()
    assert status == 2 and error_lines(err.strip()) == [
        f"bergen-sim: error: checkpoint {tmp_path / 'ck'} is in use by another run (process {os.getpid()}); "
        "wait for it to finish, or use another folder"
    ]


def test_chunk_copied_from_another_run_is_refused(capsys, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    argv = ["simulate", "--matches", "200", "--chunk-size", "100", "--workers", "1", "--json"]
    assert run(capsys, *argv, "--seed", "4", "--checkpoint", str(a))[0] == 0
    assert run(capsys, *argv, "--seed", "5", "--checkpoint", str(b))[0] == 0
    name = "chunk-000000000100-100.npz"
    (b / name).write_bytes((a / name).read_bytes())  # seed 4's second chunk into seed 5's folder
    status, out, err = run(capsys, *argv, "--seed", "5", "--checkpoint", str(b))
    assert status == 2 and len(error_lines(err.strip())) == 1
    assert "belongs to another run" in err and name in err


def test_checkpoint_folder_removed_mid_run_keeps_the_summary(capsys, tmp_path, monkeypatch):
    import shutil

    folder = tmp_path / "ck"
    original = Checkpoint.save
    saved = {"n": 0}

    def save_then_vanish(self, chunk):
        saved["n"] += 1
        if saved["n"] == 2:
            shutil.rmtree(self.folder)
        return original(self, chunk)

    monkeypatch.setattr(Checkpoint, "save", save_then_vanish)
    status, out, err = run(
        capsys,
        "simulate",
        "--matches",
        "3000",
        "--chunk-size",
        "1000",
        "--workers",
        "1",
        "--json",
        "--checkpoint",
        str(folder),
    )
    assert status == 2
    assert json.loads(out)["matches"] == 3000  # every match was played and summarised
    lines = error_lines(err.strip())
    assert len(lines) == 1 and "cannot save chunks" in lines[0] and "went on without it" in lines[0]


# --- plug-ins ----------------------------------------------------------------------------------------


def test_shadowed_plugin_is_announced(capsys, monkeypatch):
    monkeypatch.setattr(registry, "_entry_points", lambda: {"greedy": "mypkg.fast:choose"})
    monkeypatch.setattr(registry, "_CHECKED", set())
    status, out, err = run(capsys, "policies")
    assert status == 0
    assert any("hidden by the built-in 'greedy'" in line and "mypkg.fast:choose" in line for line in out.splitlines())
    registry.resolve("greedy")
    assert "the installed plug-in of that name is hidden" in capsys.readouterr().err


def _write_analysis(folder: Path, name: str, body: str) -> None:
    (folder / f"{name}.py").write_text(body)


GOOD_ANALYSIS = (
    'import pandas as pd\nTITLE = "Good"\n\ndef run(ctx):\n    return {"t": pd.DataFrame({"a": [1]})}\n\n'
    'def findings(tables):\n    return ["it works"]\n'
)
BROKEN_ANALYSES = {
    "syntax": ("def run(:\n", "SyntaxError"),
    "imports": ("import no_such_module_at_all\n", "ModuleNotFoundError"),
    "raises": (
        'TITLE = "R"\ndef run(ctx):\n    raise ValueError("boom")\ndef findings(t):\n    return []\n',
        "run() raised ValueError: boom",
    ),
    "wrongtype": ('TITLE = "W"\ndef run(ctx):\n    return 42\ndef findings(t):\n    return []\n', "must return a dict"),
    "badfindings": (
        'import pandas as pd\nTITLE = "F"\ndef run(ctx):\n    return {"t": pd.DataFrame()}\n'
        "def findings(t):\n    return 7\n",
        "findings() must return a list",
    ),
    "missing": ('TITLE = "M"\n', "must define run, findings"),
    # before, sys.exit() in an analysis ended `report` (even `report all`) with status 0 and no word
    "exits": ("import sys\nsys.exit(0)\n", "cannot be loaded: SystemExit: 0"),
    "exitsinrun": (
        'TITLE = "E"\ndef run(ctx):\n    raise SystemExit(3)\ndef findings(t):\n    return []\n',
        "run() raised SystemExit: 3",
    ),
}


@pytest.mark.parametrize("name", sorted(BROKEN_ANALYSES))
def test_broken_analysis_is_one_line_naming_the_file(capsys, tmp_path, name):
    body, words = BROKEN_ANALYSES[name]
    _write_analysis(tmp_path, name, body)
    status, out, err = run(capsys, "report", name, "--analyses-dir", str(tmp_path), "--out-dir", str(tmp_path / "rep"))
    assert status == 2 and "Traceback" not in err
    failed = [line for line in error_lines(err) if line.startswith(f"{name}: failed:")]
    assert len(failed) == 1 and f"{name}.py" in failed[0] and words in failed[0]
    assert error_lines(err.strip())[-1].startswith("bergen-sim: error: 1 of 1 analyses failed")


def test_report_all_goes_on_past_broken_analyses(capsys, tmp_path):
    for name, (body, _) in BROKEN_ANALYSES.items():
        _write_analysis(tmp_path, name, body)
    _write_analysis(tmp_path, "good", GOOD_ANALYSIS)
    names = sorted(BROKEN_ANALYSES) + ["good"]
    status, out, err = run(
        capsys, "report", *names, "--analyses-dir", str(tmp_path), "--out-dir", str(tmp_path / "rep")
    )
    assert status == 2
    assert (tmp_path / "rep" / "good.md").exists() and (tmp_path / "rep" / "README.md").exists()
    last = error_lines(err.strip())[-1]
    assert last.startswith(f"bergen-sim: error: {len(BROKEN_ANALYSES)} of {len(names)} analyses failed")
    assert all(name in last for name in BROKEN_ANALYSES)


@pytest.mark.parametrize("option", ["--out-dir", "--analyses-dir"])
def test_report_refuses_a_folder_name_that_is_not_utf8(capsys, tmp_path, option):
    """A report quotes these names in its pages; before, the write failed half-way (a traceback, an empty page)."""
    bad = str(tmp_path / os.fsdecode(b"rep\xff"))
    if option == "--analyses-dir":
        os.mkdir(bad)
    folders = {"--out-dir": str(tmp_path / "rep"), option: bad}
    status, out, err = run(
        capsys,
        "report",
        "going_first",
        "--matches",
        "10",
        "--workers",
        "1",
        *(word for pair in folders.items() for word in pair),
    )
    lines = error_lines(err.strip())
    assert status == 2 and len(lines) == 1 and lines[0].startswith(f"bergen-sim: error: {option} '")
    assert lines[0].endswith(
        ": the folder name is not UTF-8 text, and a report quotes it in its pages; use another name"
    )
    assert os.listdir(tmp_path) == ([] if option == "--out-dir" else [os.path.basename(bad)])


def test_an_analysis_file_named_in_other_bytes_is_named_as_failed(capsys, tmp_path):
    name = os.fsdecode(b"g\xff")
    _write_analysis(tmp_path, name, GOOD_ANALYSIS)
    status, out, err = run(capsys, "report", name, "--analyses-dir", str(tmp_path), "--out-dir", str(tmp_path / "rep"))
    assert status == 2 and "its file name is not UTF-8 text; rename it" in err and "Traceback" not in err


def test_report_verbose_shows_the_traceback(capsys, tmp_path):
    _write_analysis(tmp_path, "raises", BROKEN_ANALYSES["raises"][0])
    status, out, err = run(
        capsys, "report", "raises", "--analyses-dir", str(tmp_path), "--out-dir", str(tmp_path / "rep"), "--verbose"
    )
    assert status == 2 and "Traceback" in err and 'raise ValueError("boom")' in err


# --- plug-ins that write into their arrays or return the wrong type (each compiles its own kernel) -----


@pytest.fixture
def from_root(monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.syspath_prepend(str(ROOT))


def _summary(capsys, *policies: str) -> dict:
    argv = ["simulate", "--matches", "300", "--workers", "1", "--seed", "3", "--json"]
    for policy in policies:
        argv += ["--policy", policy]
    status, out, err = run(capsys, *argv)
    assert status == 0, err
    summary = json.loads(out)
    return {key: summary[key] for key in ("hands", "plays", "draws", "points_by_source", "match_wins")}


@pytest.mark.slow
def test_policy_writing_its_move_list_cannot_change_the_game(capsys, from_root):
    """It scribbles a tile nobody holds over every move, then picks move 0: the game is first's."""
    assert _summary(capsys, "tests.plugins_bad:writes_moves", "greedy") == _summary(capsys, "first", "greedy")


@pytest.mark.slow
def test_policy_writing_its_view_cannot_change_the_game(capsys, from_root):
    """It overwrites the whole view with -1: the engine and the other seat's policy play on unharmed."""
    assert _summary(capsys, "tests.plugins_bad:writes_view", "expert") == _summary(capsys, "first", "expert")


@pytest.mark.slow
def test_policy_returning_a_float_is_told_an_integer_is_required(capsys, from_root):
    status, out, err = run(
        capsys, "simulate", "--matches", "10", "--workers", "1", "--policy", "tests.plugins_bad:returns_float"
    )
    assert status == 2 and len(error_lines(err.strip())) == 1
    assert "returns float64" in err and "integer index" in err


@pytest.mark.slow
def test_policy_returning_an_unsigned_integer_is_told_an_int64_is_required(capsys, from_root):
    status, out, err = run(
        capsys,
        "simulate",
        "--matches",
        "10",
        "--workers",
        "1",
        "--policy",
        "tests.plugins_bad:returns_unsigned",
        "--policy",
        "random",
    )
    assert status == 2 and len(error_lines(err.strip())) == 1
    assert "unsigned uint64" in err and "np.int64(k)" in err


def test_a_setting_given_twice_is_refused(capsys):
    status, out, err = run(
        capsys, "simulate", "--matches", "2", "--workers", "1", "--set", "target=5", "--set", "target=7"
    )
    assert status == 2 and err.count("\n") == 1
    assert "target is given twice" in err and out == ""


def test_players_in_other_scripts_digits_are_refused(capsys):
    status, out, err = run(capsys, "simulate", "--matches", "2", "--workers", "1", "--players", "\uff12")
    assert status == 2 and "not a whole number (2..8)" in err and out == ""


def test_a_new_checkpoint_is_not_made_among_other_files(capsys, tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    status, out, err = run(capsys, "simulate", "--matches", "20", "--workers", "1", "--checkpoint", str(tmp_path))
    assert status == 2 and "holds other files ('notes.txt')" in err and "new or empty folder" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]  # no lock, manifest or chunk left
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run(capsys, "simulate", "--matches", "20", "--workers", "1", "--checkpoint", str(empty))[0] == 0


@pytest.mark.parametrize(
    "text, message",
    [
        ("seeds = [0, -1]", "seed must be 0..18,446,744,073,709,551,615, not -1"),
        ("matches = 100000000000000000000", "matches must be 1..100,000,000,000"),
        ("chunk_size = 10000000", "chunk_size must be 1..1,000,000"),
    ],
)
def test_an_experiment_is_checked_whole_before_a_cell_plays(capsys, tmp_path, text, message):
    path = tmp_path / "e.toml"
    path.write_text(f'{text}\n[policies]\na = "random"\n')
    status, out, err = run(capsys, "run", str(path), "--out-dir", str(tmp_path / "out"))
    assert status == 2 and message in err and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


# --- the output module's checks that the command lines above cannot reach as root ---------------------


def test_block_device_is_refused():
    from bergen_sim.services.files.output import OutputError, check_file

    devices = (
        [
            Path("/dev") / name
            for name in sorted(os.listdir("/dev"))
            if stat.S_ISBLK(os.stat(Path("/dev") / name).st_mode)
        ]
        if Path("/dev").is_dir()
        else []
    )
    if not devices:
        pytest.skip("no block device visible")
    with pytest.raises(OutputError, match="block device"):
        check_file(devices[0], "--out", (".parquet",))


def test_folder_without_write_permission_is_refused(tmp_path, monkeypatch):
    """Root may write anywhere, so the permission answer is faked; the message is what is checked."""
    from bergen_sim.services.files import output

    real_access = os.access
    monkeypatch.setattr(
        output.os, "access", lambda path, mode: False if Path(path) == tmp_path else real_access(path, mode)
    )
    with pytest.raises(output.OutputError, match="no permission to write in folder"):
        output.check_file(tmp_path / "m.parquet", "--out", (".parquet",))
    with pytest.raises(output.OutputError, match="no permission to write in"):
        output.check_folder(tmp_path / "ck", "--checkpoint")


def test_dev_stdout_writes_to_the_open_descriptor():
    from bergen_sim.services.files.output import check_file

    target = check_file("/dev/stdout", "-o", (".jsonl",), stdout=True)
    assert target.how == "fd" and target.fd == 1 and target.to_stdout


def test_existing_file_keeps_its_permissions(capsys, tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("old")
    path.chmod(0o640)
    assert run(capsys, "simulate", "--matches", "20", "--workers", "1", "--out", str(path))[0] == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o640 and len(pd.read_csv(path)) == 20


@pytest.mark.parametrize("code, shown", [("", "sys.exit(None)"), ('"bye"', "sys.exit('bye')")])
def test_a_plugin_that_exits_while_imported_is_one_line(capsys, tmp_path, monkeypatch, code, shown):
    """sys.exit() in a plug-in module used to end the run with status 0 and no word (or its text alone)."""
    name = f"exits_on_import_{abs(hash(code))}"
    (tmp_path / f"{name}.py").write_text(f"import sys\nsys.exit({code})\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    status, out, err = run(capsys, "simulate", "--policy", f"{name}:choose", "--matches", "5", "--workers", "1")
    assert status == 2 and out == "" and err.count("\n") == 1
    assert f"importing '{name}' called {shown}; a policy module must not exit" in err


# --- the same plug-ins stepped by a Game (``play``, ``review``, the gym env): no kernel, the same messages --


@pytest.mark.parametrize(
    "function, says",
    [
        ("raises", "at seat 1 raised ValueError: this plug-in always fails (hand 1)"),
        ("always_raises", "raised ValueError: this plug-in never chooses (hand 1)"),
        (
            "wrong_arguments",
            "raised TypeError: too many arguments: expected 2, got 5 (hand 1; a policy is called as "
            "choose(view, move_tiles, move_ends, n_moves, rng))",
        ),
        ("returns_float", "returns float, but a policy must return the integer index of its chosen move"),
        ("illegal", "returned move 3, but only moves 0..2 are legal"),
    ],
)
def test_a_broken_plugin_stepped_by_a_game_is_one_line(from_root, function, says):
    """Before, a raise or a wrong signature was a traceback and a float was silently cut to an integer."""
    from bergen_sim.core.errors import PolicyError
    from bergen_sim.services.game import Game

    name = f"tests.plugins_bad:{function}"
    game = Game(seed=1, policies=["first", name])
    with pytest.raises(PolicyError) as caught:
        while not game.is_over:
            game.play(game.policy_move("first" if game.to_move == 0 else name))
    message = str(caught.value)
    assert says in message and "\n" not in message and message.startswith(f"policy {name!r}")


def test_play_against_a_raising_plugin_ends_in_one_line_and_keeps_the_match(capsys, from_root, tmp_path, monkeypatch):
    out = tmp_path / "m.jsonl"
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 60))
    status, _, err = run(
        capsys, "play", "--seed", "1", "--seat", "1", "--opponent", "tests.plugins_bad:raises", "-o", str(out)
    )
    assert status == 2 and error_lines(err.strip()) == [
        "bergen-sim: error: policy 'tests.plugins_bad:raises' at seat 0 raised ValueError: this plug-in always "
        "fails (hand 1)"
    ]
    assert json.loads(out.read_text().splitlines()[0])["type"] == "match"


def test_a_file_to_merge_into_is_read_and_checked_before_the_run(tmp_path):
    """The measuring tools merge their rows into a JSON file: a file that is not theirs is refused up front."""
    from bergen_sim.services.files.output import OutputError, merge_target

    assert merge_target(tmp_path / "new.json", "--out", "rows", list) is None
    (tmp_path / "ours.json").write_text('{"rows": [{"a": 1}]}')
    assert merge_target(tmp_path / "ours.json", "--out", "rows", list) == {"rows": [{"a": 1}]}
    (tmp_path / "list.json").write_text("[1, 2]")
    (tmp_path / "broken.json").write_text("{")
    for name, says in (
        ("list.json", "holds no 'rows' of this tool"),
        ("broken.json", "cannot read it as JSON"),
        ("rows.csv", "unknown file type"),
    ):
        with pytest.raises(OutputError, match=says):
            merge_target(tmp_path / name, "--out", "rows", list)
    with pytest.raises(OutputError, match=r"is a folder; give a file name$"):  # no empty "()" of formats
        from bergen_sim.services.files.output import check_file

        check_file(tmp_path, "--listing")


def test_a_measuring_tools_run_size_seed_and_workers_are_checked_together():
    limits.check_run(10, 100, 0, None)
    for args, says in (
        ((0, 100, 0, None), "--matches must be 1..100"),
        ((10, 100, -1, None), "seed"),
        ((10, 100, 0, 0), "--workers"),
    ):
        with pytest.raises(limits.LimitError, match=says):
            limits.check_run(*args)
