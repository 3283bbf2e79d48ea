"""Faults that need a real process: signals, orphans, file size limits, kill and resume under a lock.

- A local run starts no helper process (its workers are threads), and it
  ends within 5 seconds of SIGKILL, SIGTERM or SIGINT, even with chunks of
  a million matches running (issue 15; Ctrl-C halts them after their match).
- A full disk (here RLIMIT_FSIZE, as ``ulimit -f`` sets it) ends a run with one
  line and status 2, leaves no partial file and still prints the summary.
- A run killed mid-way holds no stale lock; its checkpoint refuses a second
  run while it plays, and resuming it gives the totals of an uninterrupted run.

Linux only (they read /proc); slow because every process imports the engine.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bergen_sim.cli import main
from tests.helpers import ctrl_c_as_on_a_terminal, error_lines

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")]

ENTRY = [sys.executable, "-c", "import sys; from bergen_sim.cli import main; sys.exit(main())"]
#: the issue's bound on how long a helper may outlive the main process
GRACE_S = 5.0


def _stat(pid: int) -> tuple[int, str] | None:
    """(parent pid, state) of a process, None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return int(fields[1]), fields[0]


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (children, grandchildren...)."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (info := _stat(int(entry))):
            parents[int(entry)] = info[0]
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pid: int) -> bool:
    info = _stat(pid)
    return info is not None and info[1] != "Z"


def start(*argv: str, **kwargs) -> subprocess.Popen:
    """The CLI in a new process, with Ctrl-C handled as on a terminal (a background shell would ignore it)."""

    def reset() -> None:
        ctrl_c_as_on_a_terminal()
        if "limit" in kwargs:
            resource.setrlimit(resource.RLIMIT_FSIZE, (kwargs["limit"], kwargs["limit"]))

    return subprocess.Popen(
        [*ENTRY, *argv],
        preexec_fn=reset,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=kwargs.get("cwd"),
    )


def wait_for(condition, timeout: float = 300.0, every: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(every)
    return False


def threads(pid: int) -> int:
    """How many threads process ``pid`` runs (0 once it is gone)."""
    try:
        return len(os.listdir(f"/proc/{pid}/task"))
    except OSError:
        return 0


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT], ids=["KILL", "TERM", "INT"])
def test_a_run_starts_no_helper_and_ends_soon_after_a_signal(signum):
    main_process = start("simulate", "--matches", "100000000", "--workers", "2", "--chunk-size", "1000000")
    try:
        # playing once both worker threads run beside the main thread
        assert wait_for(lambda: threads(main_process.pid) >= 3), "the worker threads never started"
        time.sleep(0.5)
        assert descendants(main_process.pid) == set()  # nothing that could outlive it
        os.kill(main_process.pid, signum)
        sent = time.monotonic()
        assert wait_for(lambda: not alive(main_process.pid), timeout=GRACE_S + 30), "still alive"
        gone_after = time.monotonic() - sent
        print(f"{signal.Signals(signum).name}: the run ended {gone_after:.2f} s after the signal")
        assert gone_after < GRACE_S  # a chunk of a million matches plays for seconds: it was halted
        main_process.wait(timeout=10)
        if signum == signal.SIGINT:
            err = main_process.stderr.read()
            assert main_process.returncode == 130 and "interrupted" in err and "Traceback" not in err
    finally:
        for pid in [main_process.pid, *descendants(main_process.pid)]:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_file_size_limit_keeps_the_summary_and_leaves_no_file(tmp_path):
    path = tmp_path / "rows.csv"
    run = start("simulate", "--matches", "20000", "--workers", "1", "--out", str(path), "--json", limit=100_000)
    out, err = run.communicate(timeout=600)
    assert run.returncode == 2
    assert error_lines(err.strip()) == [
        f"bergen-sim: error: --out {path}: write failed (File too large); nothing was written"
    ]
    assert json.loads(out)["matches"] == 20000
    assert list(tmp_path.iterdir()) == []


def test_killed_run_leaves_no_lock_and_resumes_to_identical_totals(tmp_path, capsys):
    folder = tmp_path / "ck"
    argv = ["simulate", "--matches", "300000", "--chunk-size", "10000", "--workers", "1", "--seed", "11", "--json"]
    first = start(*argv, "--checkpoint", str(folder))
    try:
        assert wait_for(lambda: len(list(folder.glob("chunk-*.npz"))) >= 2), "no chunk was saved"
        # while it plays, a second run on the folder is refused in one line
        status = main([*argv, "--checkpoint", str(folder)])
        err = capsys.readouterr().err
        assert status == 2 and "is in use by another run" in err and len(error_lines(err.strip())) == 1
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=30)
    finally:
        if first.poll() is None:
            first.kill()
    kept = len(list(folder.glob("chunk-*.npz")))
    assert 2 <= kept < 30, "the run finished before it was killed; nothing was tested"
    # the dead run's lock is gone with it: the same command resumes
    assert main([*argv, "--checkpoint", str(folder)]) == 0
    resumed = json.loads(capsys.readouterr().out)
    assert main(argv) == 0
    whole = json.loads(capsys.readouterr().out)
    assert resumed["resumed_matches"] == kept * 10000
    for key in ("matches", "hands", "plays", "draws", "passes", "points_by_source", "match_wins", "double_headers"):
        assert resumed[key] == whole[key], key
