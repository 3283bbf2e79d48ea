"""Splitting a run over threads and chunks never changes a number of its result.

The engine's randomness is keyed on (seed, match, hand) and chunks are merged
in match order, so totals and per-match rows must be *exactly* equal for any
number of workers and any chunk size.  (Speed is measured in benchmarks/,
never asserted here.)
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time

import numpy as np
import pytest

from bergen_sim.cli import main
from bergen_sim.core.errors import BergenError
from bergen_sim.model.rules import Rules
from bergen_sim.runtime.runner import halt_flag
from bergen_sim.services.execution import jobs as execution
from bergen_sim.services.execution.jobs import (
    Job,
    RunInterrupted,
    RunOptions,
    chunk_ranges,
    default_chunk_size,
    run_job,
)
from bergen_sim.services.execution.parallel import ThreadWorkers
from bergen_sim.services.simulation import simulate
from tests.helpers import assert_halts_soon, only_compile_notices

MATCHES = 3_000
#: summary fields that describe how the run went, not what it found
HOW = {
    "elapsed_s",
    "matches_per_s",
    "hands_per_s",
    "startup_s",
    "workers",
    "scheduler",
    "resumed_matches",
    "provenance",
}  # how and when it ran (the JSON output's provenance): never what it found


def what(summary: dict) -> dict:
    return {key: value for key, value in summary.items() if key not in HOW}


@pytest.fixture(scope="module")
def reference():
    """One worker, one chunk: the plain sequential run."""
    return simulate(matches=MATCHES, seed=11, rows=True, options=RunOptions(workers=1, chunk_size=MATCHES))


@pytest.mark.parametrize("workers, chunk_size", [(1, 97), (2, 250), (2, None), (3, 1_000)])
def test_workers_and_chunk_size_change_nothing(reference, workers, chunk_size):
    result = simulate(matches=MATCHES, seed=11, rows=True, options=RunOptions(workers=workers, chunk_size=chunk_size))
    assert what(result.summary) == what(reference.summary)
    assert result.matches.equals(reference.matches)
    assert result.summary["workers"] == workers


def test_every_worker_is_a_thread_of_this_process_from_the_first_chunk():
    """No pool to start: even a run of a few milliseconds plays on every worker asked for, here."""
    with ThreadWorkers(3) as executor:
        where = {executor.submit(lambda: (os.getpid(), threading.current_thread().name)).result() for _ in range(6)}
    assert {pid for pid, _ in where} == {os.getpid()}
    assert all(name.startswith("bergen-sim-worker") for _, name in where)
    job = Job(Rules.make(players=2), ("random", "random"), seed=5)
    run = run_job(job, 10_000, RunOptions(workers=2))
    assert sum(c.counts["matches"] for c in run) == 10_000 and run.workers == 2


def test_a_halted_chunk_stops_after_its_match_and_an_unhalted_one_is_unchanged():
    """The kernel reads the halt flag before every match (an atomic load the optimiser cannot hoist)."""
    engine = execution.engine_for(Rules.make(players=2), ("greedy", "random"))
    assert_halts_soon(
        lambda flag: engine.play(seed=5, first_match=0, n_matches=50_000_000, halt=flag), after_s=0.3
    )  # 50 million matches would take minutes
    whole = engine.play(seed=5, first_match=0, n_matches=500, halt=halt_flag())
    assert np.array_equal(whole.totals, engine.play(seed=5, first_match=0, n_matches=500).totals)


def test_ctrl_c_stops_running_chunks_after_their_match_instead_of_waiting_for_them():
    """Without a checkpoint nothing running is worth finishing: Ctrl-C halts the threads' chunks."""
    job = Job(Rules.make(players=2), ("greedy", "random"), seed=5)
    run = run_job(job, 4_000_000, RunOptions(workers=2, chunk_size=1_000_000))  # chunks of seconds each
    execution.engine_for(job.rules, job.policies)  # loaded before the clock starts
    sent: list[float] = []
    timer = threading.Timer(0.5, lambda: (sent.append(time.perf_counter()), os.kill(os.getpid(), signal.SIGINT)))
    timer.start()
    with pytest.raises(RunInterrupted, match="nothing was kept"):
        for _ in run:
            pass
    stopped = time.perf_counter()
    timer.join()
    assert run.done == 0  # no chunk was waited for: each stopped after the match it was playing
    assert stopped - sent[0] < 1.5  # a chunk of a million matches takes seconds
    assert not [t for t in threading.enumerate() if t.name.startswith("bergen-sim-worker")]


def test_a_chunk_plays_without_the_gil_and_concurrent_chunks_stay_exact():
    """The kernel releases the GIL, so a run's threads play at once; chunks own their buffers, so two threads
    playing at once give exactly what one thread playing them in turn gives."""
    engine = execution.engine_for(Rules.make(players=2), ("greedy", "random"))
    assert engine._kernel.run_matches.targetoptions.get("nogil") is True
    alone = [engine.play(seed=5, first_match=first, n_matches=2_000) for first in (0, 2_000)]
    together: dict[int, object] = {}
    threads = [
        threading.Thread(
            target=lambda f=first: together.__setitem__(f, engine.play(seed=5, first_match=f, n_matches=2_000))
        )
        for first in (0, 2_000)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for chunk, first in zip(alone, (0, 2_000)):
        assert np.array_equal(chunk.totals, together[first].totals)
        assert np.array_equal(chunk.match_rows, together[first].match_rows)


def test_hand_rows_and_totals_merge_in_match_order():
    job = Job(Rules.make(players=2), ("random", "random"), seed=5, match_rows=True, hand_rows=True)
    one = list(run_job(job, 1_500, RunOptions(workers=1, chunk_size=1_500)))
    many = list(run_job(job, 1_500, RunOptions(workers=2, chunk_size=200)))
    assert [c.first_match for c in many] == list(range(0, 1_500, 200))
    assert np.array_equal(sum(c.totals for c in many), one[0].totals)
    assert np.array_equal(np.concatenate([c.match_rows for c in many]), one[0].match_rows)
    assert np.array_equal(np.concatenate([c.hand_rows for c in many]), one[0].hand_rows)


def test_default_chunks_depend_on_matches_only():
    assert chunk_ranges(5, 2) == [(0, 2), (2, 2), (4, 1)]
    assert default_chunk_size(100) == 1_000  # one chunk
    assert default_chunk_size(64_000) == 2_000
    assert default_chunk_size(10**8) == 20_000
    assert chunk_ranges(64_000) == [(first, 2_000) for first in range(0, 64_000, 2_000)]
    ranges = chunk_ranges(64_001)
    assert sum(count for _, count in ranges) == 64_001 and len(ranges) == 32


def test_cli_workers_give_identical_json(capsys):
    runs = []
    for workers in ("1", "2"):
        args = ["simulate", "--matches", "2000", "--seed", "4", "--workers", workers, "--chunk-size", "300", "--json"]
        assert main(args) == 0
        out, err = capsys.readouterr()
        assert only_compile_notices(err)  # no progress bar when not on a terminal / with --json
        runs.append(json.loads(out))
    assert what(runs[0]) == what(runs[1])
    assert [run["workers"] for run in runs] == [1, 2]


@pytest.mark.parametrize(
    "args, expected",
    [
        (["--workers", "0"], "--workers"),
        (["--scheduler", "somewhere"], "scheduler must be 'local' or a Dask scheduler address"),
        (["--chunk-size", "0"], "--chunk-size"),
    ],
)
def test_bad_run_options_are_one_line_errors(capsys, args, expected):
    assert main(["simulate", "--matches", "10", *args]) == 2
    err = capsys.readouterr().err
    assert expected in err and err.count("\n") == 1


def test_bad_options_from_python():
    with pytest.raises(BergenError, match="workers must be 1..1,024"):
        RunOptions(workers=0)
    with pytest.raises(BergenError, match="tcp://HOST:PORT"):
        simulate(matches=10, options=RunOptions(scheduler="nowhere"))
