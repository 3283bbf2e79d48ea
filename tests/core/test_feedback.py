"""What commands say besides results: --quiet/--verbose, the first-compile notice, --json, piped tables, provenance."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap

import click
import pandas as pd
import pyarrow.parquet as pq
import pytest

from bergen_sim.cli import cli, main
from bergen_sim.core import feedback, provenance
from bergen_sim.core.compile_cache import in_disk_cache
from bergen_sim.runtime import runner


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_every_command_has_quiet_and_verbose():
    ctx = click.Context(cli)
    names = cli.list_commands(ctx)
    assert {"simulate", "compare", "analyze", "policies", "report", "trace"} <= set(names)
    for name in names:
        flags = {opt for param in cli.get_command(ctx, name).params for opt in param.opts}
        assert {"--quiet", "-q", "--verbose", "-v"} <= flags, name


def test_a_command_is_loaded_from_its_own_file_as_the_scan_of_all_finds_it():
    """Running a command reads only its NAME.py (start-up time): the same module the scan of every file finds."""
    from bergen_sim import cli as package

    for name, (module, _) in package._command_modules().items():
        assert package._module_named_for(name) == module
    for not_a_command in ("options", "output", "bounds", "__init__", "../cli/simulate", "nosuch"):
        assert package._module_named_for(not_a_command) is None


def test_help_and_import_stay_light():
    """``bergen-sim --help`` and ``import bergen_sim`` load no engine, Numba, pandas, matplotlib or Dask."""
    code = (
        "import sys, bergen_sim; from bergen_sim.cli import main; status = main(['--help']); "
        "heavy = ('numba', 'numpy', 'pandas', 'matplotlib', 'pyarrow', 'dask', 'distributed', 'bergen_sim.engine'); "
        "print(status, [m for m in heavy if m in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Commands:" in done.stdout and "simulate" in done.stdout
    assert done.stdout.splitlines()[-1] == "0 []"


@pytest.mark.parametrize(
    "argv, not_loaded",
    [
        (["policies"], ("numba", "numpy", "pandas", "matplotlib", "pyarrow", "scipy", "dask", "bergen_sim.engine")),
        # a summary run needs Numba (which itself imports SciPy's BLAS), never the table and plotting libraries
        (
            ["simulate", "--matches", "300", "--workers", "1", "--json"],
            ("pandas", "matplotlib", "pyarrow", "dask", "distributed", "rich.progress"),
        ),
    ],
)
def test_commands_import_only_what_they_use(argv, not_loaded):
    """Start-up time: ``policies`` reads the built-ins from their source; a summary run writes no table."""
    code = (
        f"import sys; from bergen_sim.cli import main; status = main({argv!r}); "
        f"print(status, [m for m in {not_loaded!r} if m in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "0 []"


def test_quiet_and_verbose_together_is_a_usage_error(capsys):
    status, _, err = run(capsys, "policies", "--quiet", "--verbose")
    assert status == 2 and "cannot be used together" in err


def test_verbose_says_which_kernel_and_quiet_says_nothing(capsys):
    # rules no other test plays, so this process makes a new engine (engines are cached per rules and policies)
    status, out, err = run(capsys, "simulate", "--matches", "20", "--workers", "1", "--set", "target=13", "--verbose")
    assert status == 0 and "kernel " in err and "for policies random" in err
    status, out, err = run(capsys, "simulate", "--matches", "20", "--workers", "1", "--quiet")
    assert status == 0 and err == "" and "20 matches" in out
    assert feedback.level() == feedback.NORMAL  # --quiet lasted for that command only


def test_a_compile_is_said_on_a_terminal_and_off_it_and_logged(capsys, monkeypatch, caplog):
    """A cache miss says it is compiling, naming the policies in seat order, whether stderr is a terminal or a
    pipe (a script waits as long as a person), and logs it; --quiet silences it."""
    monkeypatch.setattr(runner, "in_disk_cache", lambda function, args=None: False)
    monkeypatch.setattr(feedback, "_last_compile", lambda kind: None)  # no compile timed on this machine yet
    timed = []
    monkeypatch.setattr(feedback, "compiled", lambda kind, seconds: timed.append(kind))
    notice = "compiling the match loop for random, first (first run only, under a minute)\n"
    with caplog.at_level("INFO", logger="bergen_sim"):
        runner.Engine(runner.Rules.make(players=2), ["random", "first"])
    assert capsys.readouterr().err == notice  # stderr is not a terminal under pytest
    assert [r.getMessage() for r in caplog.records] == [notice.strip()]
    assert timed == ["match loop"]  # the compile's time is kept for the next notice
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    runner.Engine(runner.Rules.make(players=2), ["random", "first"])
    assert capsys.readouterr().err == notice
    # a kernel with a search player is timed apart: its first compile is longer
    assert runner.compile_kind([runner.resolve("random"), runner.resolve("first")]) == "match loop"
    assert runner.compile_kind([runner.resolve("first"), runner.resolve("ismcts:race=1")]) == "search match loop"
    assert feedback.compile_note("search match loop") == "first run only, a minute or two with a search player"
    feedback.set_level(feedback.QUIET)
    try:
        runner.Engine(runner.Rules.make(players=2), ["random", "first"])
        assert capsys.readouterr().err == ""
    finally:
        feedback.set_level(feedback.NORMAL)


def test_in_disk_cache_reads_numbas_cache_index(tmp_path):
    """A fresh cached function is not compiled; after its first call it is (what a second process would load)."""
    path = tmp_path / "fresh_kernel.py"
    path.write_text(
        textwrap.dedent("""
        from numba import njit

        @njit(cache=True)
        def run_matches(x):
            return x + 1
    """)
    )
    spec = importlib.util.spec_from_file_location("fresh_kernel_for_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert in_disk_cache(module.run_matches) is False
    assert module.run_matches(1) == 2
    assert in_disk_cache(module.run_matches) is True
    assert in_disk_cache(print) is None  # not a cached compiled function: no claim either way


def test_piped_tables_are_not_cut(capsys):
    status, out, _ = run(capsys, "simulate", "--matches", "30", "--workers", "1", "--policy", "first")
    assert status == 0
    rows = [line for line in out.splitlines() if line.startswith("│")]
    assert max(len(line) for line in out.splitlines()) > 80  # the speed row alone is wider than 80 columns
    assert any("matches/s" in line and "worker(s)" in line for line in rows)  # ... and it is on one line


def test_policies_json(capsys):
    status, out, _ = run(capsys, "policies", "--json")
    data = json.loads(out)
    assert status == 0
    names = [p["name"] for p in data["policies"]]
    assert {"random", "first", "greedy", "expert"} <= set(names)
    assert all(p["kind"] in ("built-in", "plug-in") for p in data["policies"])
    assert data["provenance"]["command"] == "bergen-sim policies --json"


def test_report_json(capsys, tmp_path):
    status, out, _ = run(capsys, "report", "--list", "--json")
    assert status == 0 and "lead_advantage" in [a["name"] for a in json.loads(out)["analyses"]]
    status, out, err = run(
        capsys,
        "report",
        "header_frequency",
        "--quick",
        "--matches",
        "60",
        "--workers",
        "1",
        "--out",
        str(tmp_path / "r"),
        "--json",
        "--quiet",
    )
    assert status == 0 and err == ""
    data = json.loads(out)
    [report] = data["reports"]
    assert report["analysis"] == "header_frequency" and report["findings"]
    assert all(pd.read_parquet(path).shape[0] > 0 for path in report["tables"].values())
    meta = json.loads(pq.read_schema(next(iter(report["tables"].values()))).metadata[b"bergen_sim"])
    assert meta["provenance"]["version"] == provenance.record()["version"]
    sidecar = json.loads((tmp_path / "r" / "header_frequency" / "metadata.json").read_text())
    assert sidecar["provenance"]["command"].startswith("bergen-sim report header_frequency")


def test_json_and_parquet_carry_provenance_and_rows_a_run_id(capsys, tmp_path):
    path = tmp_path / "m.parquet"
    status, out, _ = run(capsys, "simulate", "--matches", "40", "--workers", "1", "--json", "--out", str(path))
    assert status == 0
    record = json.loads(out)["provenance"]
    assert record["command"] == f"bergen-sim simulate --matches 40 --workers 1 --json --out {path}"
    assert record["created_utc"].endswith("+00:00") and record["version"]
    meta = json.loads(pq.read_schema(path).metadata[b"bergen_sim"])
    assert meta["provenance"]["run_id"] == record["run_id"]
    frame = pd.read_parquet(path)
    assert set(frame["run_id"]) == {record["run_id"]} and len(frame) == 40
    status, out, _ = run(capsys, "simulate", "--matches", "40", "--workers", "1", "--json")
    assert json.loads(out)["provenance"]["run_id"] != record["run_id"]  # each run its own


def test_git_commit_is_told_from_a_checkout():
    state = provenance.git_state()
    if state is None:
        pytest.skip("not running from a git checkout (an installed package has no commit to tell)")
    head = subprocess.run(
        ["git", "-C", str(provenance._SOURCE_ROOT), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    assert state["commit"] == head and isinstance(state["dirty"], bool)


def test_compare_files_carry_provenance(capsys, tmp_path):
    for suffix in (".json", ".parquet"):
        path = tmp_path / f"c{suffix}"
        status, _, err = run(
            capsys,
            "compare",
            "--policy",
            "first,random",
            "--deals",
            "30",
            "--workers",
            "1",
            "--out",
            str(path),
            "--quiet",
        )
        assert status == 0, err
        meta = (
            json.loads(path.read_text())
            if suffix == ".json"
            else json.loads(pq.read_schema(path).metadata[b"bergen_sim"])
        )
        assert meta["provenance"]["command"].startswith("bergen-sim compare")


def test_the_position_analyzer_says_when_it_compiles(capsys, monkeypatch):
    analyze_module = importlib.import_module("bergen_sim.search.position")
    monkeypatch.setattr(analyze_module, "in_disk_cache", lambda function, args=None: False)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    monkeypatch.setattr(feedback, "_last_compile", lambda kind: None)  # no compile timed on this machine yet
    timed = []
    monkeypatch.setattr(feedback, "compiled", lambda kind, seconds: timed.append(kind))
    position = analyze_module.Position.from_mapping(
        {
            "seat": 0,
            "hand": "3-5,1-3,5-6,0-0",
            "ends": "3,5",
            "played": "4-4,3-4,4-5",
            "counts": "4,5",
            "boneyard": 16,
            "scores": "14,12",
        }
    )
    analyze_module.analyze(position, runner.Rules.make(players=2), base="first", worlds=50, batch=50)
    assert capsys.readouterr().err == (
        "compiling the position analyzer's rollouts (first run only, a minute or two with a search player)\n"
    )
    assert timed == ["rollouts"]


def test_the_compile_notice_gives_this_machines_last_compile_time(tmp_path, monkeypatch):
    """Once a compile was timed here, the notice gives that time; a load, junk or an unwritable record never do."""
    monkeypatch.setenv("BERGEN_SIM_CACHE_DIR", str(tmp_path))
    record = tmp_path / "compile_seconds_match_loop.txt"
    assert feedback.compile_note("match loop") == feedback.COMPILE_NOTE  # none timed yet
    feedback.compiled("match loop", 0.2)  # a load from the cache, not a compile: not kept
    assert feedback.compile_note("match loop") == feedback.COMPILE_NOTE
    feedback.compiled("match loop", 37.6)
    assert feedback.compile_note("match loop") == "first run only, about 38 s on this machine last time"
    assert feedback.compile_note("rollouts") == feedback.SEARCH_COMPILE_NOTE  # each kind is timed on its own
    assert feedback.compile_note("search match loop") == feedback.SEARCH_COMPILE_NOTE
    for junk in (b"nan\n", b"-5", b"\xff\xfe", b"9" * 40, b""):
        record.write_bytes(junk)
        assert feedback.compile_note("match loop") == feedback.COMPILE_NOTE, junk
    record.unlink()
    record.mkdir()  # a folder where the record goes: unreadable, and cannot be replaced
    assert feedback.compile_note("match loop") == feedback.COMPILE_NOTE
    feedback.compiled("match loop", 12.0)  # the figure is lost, nothing is raised
    with pytest.raises(ValueError, match="compile kind"):
        feedback.compile_note("everything")


def test_a_kernel_compiled_while_waiting_for_the_build_lock_is_loaded_not_compiled_again(monkeypatch):
    """A cache miss takes the machine-wide build lock, then looks again: another process (a pool worker
    starting at the same time) may have compiled the kernel meanwhile, and then it is only loaded."""
    answers = iter([False, True])  # a miss before the lock, found once the lock is held
    monkeypatch.setattr(runner, "in_disk_cache", lambda function, args=None: next(answers))
    locks, loads = [], []
    real_builder = runner.one_builder
    monkeypatch.setattr(runner, "one_builder", lambda name: locks.append(name) or real_builder(name))
    monkeypatch.setattr(runner, "_load_cached", lambda load: loads.append(load) or load())
    runner.Engine(runner.Rules.make(players=2), ["random", "first"])
    assert len(locks) == 1 and locks[0].endswith("words=1") and len(loads) == 1
