"""Splitting a run over processes and chunks never changes a number of its result.

The engine's randomness is keyed on (seed, match, hand) and chunks are merged
in match order, so totals and per-match rows must be *exactly* equal for any
number of workers and any chunk size.  (Speed is measured in benchmarks/,
never asserted here.)
"""

from __future__ import annotations

import functools
import json
import os
import threading
import time

import numpy as np
import pytest

from bergen_sim import execution, parallel
from bergen_sim.cli import main
from bergen_sim.errors import BergenError
from bergen_sim.execution import Job, RunOptions, chunk_ranges, default_chunk_size, run_job
from bergen_sim.parallel import InlineUntilPool, discard_pool, pool_running, start_pool
from bergen_sim.rules import Rules
from bergen_sim.simulate import simulate

MATCHES = 3_000
#: summary fields that describe how the run went, not what it found
HOW = {"elapsed_s", "matches_per_s", "hands_per_s", "startup_s", "workers", "scheduler", "resumed_matches",
       "provenance"}  # how and when it ran (the JSON output's provenance): never what it found


def what(summary: dict) -> dict:
    return {key: value for key, value in summary.items() if key not in HOW}


@pytest.fixture(scope="module")
def reference():
    """One worker, one chunk: the plain sequential run."""
    return simulate(matches=MATCHES, seed=11, rows=True, workers=1, chunk_size=MATCHES)


@pytest.mark.parametrize("workers, chunk_size", [(1, 97), (2, 250), (2, None), (3, 1_000)])
def test_workers_and_chunk_size_change_nothing(reference, workers, chunk_size, monkeypatch):
    monkeypatch.setattr(execution, "WARM_POOL_AFTER_S", 0.0)  # a short run too: a running pool takes every chunk
    start_pool(workers, wait=True)
    result = simulate(matches=MATCHES, seed=11, rows=True, workers=workers, chunk_size=chunk_size)
    assert what(result.summary) == what(reference.summary)
    assert result.matches.equals(reference.matches)
    assert result.summary["workers"] == workers


def test_calls_play_here_until_the_pool_runs_then_on_the_pool():
    discard_pool(3)
    executor = InlineUntilPool(3, calls=4, pool_after=0)  # asked for workers: the pool starts at once
    first = executor.submit(os.getpid)  # a forkserver pool takes far longer than this to start
    assert first.result() == os.getpid() and executor.workers_used == 1
    executor.start.done.wait()
    later = [executor.submit(os.getpid) for _ in range(3)]
    assert os.getpid() not in {f.result() for f in later} and executor.workers_used == 3


def test_workers_warm_up_while_calls_play_here():
    discard_pool(3)
    executor = InlineUntilPool(3, calls=5, pool_after=0, warm_up=functools.partial(time.sleep, 0.5))
    executor.start.done.wait()
    assert executor.submit(os.getpid).result() == os.getpid()  # the workers are warming up: played here
    assert len(executor._warming) == 3
    for future in executor._warming:
        future.result()
    assert executor.submit(os.getpid).result() != os.getpid()
    discard_pool(3)


def test_a_chunk_plays_without_the_gil_and_concurrent_chunks_stay_exact():
    """The kernel releases the GIL: the pool-start thread runs while this process plays its first chunks.

    With the GIL held for a whole chunk, a pool starting beside an inline run waited for every chunk
    (benchmarks/results.md, "Run size against wall time", old tree).  Chunks own their buffers, so two threads playing
    at once give exactly what one thread playing them in turn gives.
    """
    engine = execution.engine_for(Rules.make(players=2), ("greedy", "random"))
    assert engine._kernel.run_matches.targetoptions.get("nogil") is True
    alone = [engine.play(seed=5, first_match=first, n_matches=2_000) for first in (0, 2_000)]
    together: dict[int, object] = {}
    threads = [threading.Thread(target=lambda f=first: together.__setitem__(f, engine.play(seed=5, first_match=f,
                                                                                             n_matches=2_000)))
               for first in (0, 2_000)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for chunk, first in zip(alone, (0, 2_000)):
        assert np.array_equal(chunk.totals, together[first].totals)
        assert np.array_equal(chunk.match_rows, together[first].match_rows)


def test_the_default_starts_a_pool_only_when_the_rest_would_take_longer_than_starting_it(monkeypatch):
    monkeypatch.setattr(parallel.IdleCores, "read", lambda self: 2.0)  # an idle machine
    discard_pool(5)
    quick = InlineUntilPool(5, calls=20, pool_after=10.0, when_idle=True)
    assert [quick.submit(time.sleep, 0.001).result() for _ in range(20)] == [None] * 20
    assert quick.start is None and not pool_running(5) and quick.workers_used == 1
    slow = InlineUntilPool(5, calls=100, pool_after=1.0, when_idle=True)
    slow.submit(time.sleep, 0.05)  # 99 more such calls: about 5 s here, worth a pool
    assert slow.start is not None and pool_running(5)
    discard_pool(5)


def test_on_a_busy_machine_only_a_long_rest_starts_a_pool(monkeypatch):
    monkeypatch.setattr(parallel.IdleCores, "read", lambda self: 0.2)
    discard_pool(5)
    busy = InlineUntilPool(5, calls=60, pool_after=1.0, when_idle=True)
    busy.submit(time.sleep, 0.05)  # 59 more: about 3 s, not enough on a busy machine (the bar is 5 s)
    assert busy.start is None and not pool_running(5)
    long = InlineUntilPool(5, calls=200, pool_after=1.0, when_idle=True)
    long.submit(time.sleep, 0.05)  # 199 more: about 10 s, worth a pool even there
    assert long.start is not None
    discard_pool(5)
    asked = InlineUntilPool(5, calls=100, pool_after=1.0)  # --workers N: obeyed whatever the load
    asked.submit(time.sleep, 0.05)
    assert asked.start is not None
    discard_pool(5)


def test_idle_cores_are_read_from_the_machine():
    meter = parallel.IdleCores()
    time.sleep(0.3)  # long enough to tell, on any number of cores
    idle = meter.read()
    assert idle is not None and 0.0 <= idle <= (os.cpu_count() or 1)


def test_a_pool_with_the_run_rests_on_idle_time_just_seen_not_the_load_average(monkeypatch):
    """The load average lags by a minute: an idle machine right after a busy one still starts the pool at once."""
    ticks = iter([(0, 0), (150, 200), (160, 400)])  # (idle, total) ticks, all CPUs: 1.5 cores idle, then 0.1
    monkeypatch.setattr(parallel, "_cpu_ticks", lambda: next(ticks))
    monkeypatch.setattr(parallel, "_SINCE_IMPORT", parallel.IdleCores())
    monkeypatch.setattr(os, "getloadavg", lambda: (3.0, 3.0, 3.0))  # the minute before was busy
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert execution._spare_core()  # 1.5 idle cores since the first look
    assert not execution._spare_core()  # then 0.1: the machine got busy
    monkeypatch.setattr(parallel, "_cpu_ticks", lambda: None)  # no /proc/stat: the load average decides
    monkeypatch.setattr(parallel, "_SINCE_IMPORT", parallel.IdleCores())
    assert not execution._spare_core()
    monkeypatch.setattr(os, "getloadavg", lambda: (0.2, 0.2, 0.2))
    assert execution._spare_core() == (execution.default_workers() > 1)


def test_hand_rows_and_totals_merge_in_match_order():
    job = Job(Rules.make(players=2), ("random", "random"), seed=5, match_rows=True, hand_rows=True)
    one = list(run_job(job, 1_500, 1_500, RunOptions(workers=1)))
    many = list(run_job(job, 1_500, 200, RunOptions(workers=2)))
    assert [c.first_match for c in many] == list(range(0, 1_500, 200))
    assert np.array_equal(sum(c.totals for c in many), one[0].totals)
    assert np.array_equal(np.concatenate([c.match_rows for c in many]), one[0].match_rows)
    assert np.array_equal(np.concatenate([c.hand_rows for c in many]), one[0].hand_rows)


def test_default_chunks_depend_on_matches_only():
    assert chunk_ranges(5, 2) == [(0, 2), (2, 2), (4, 1)]
    assert default_chunk_size(100) == 1_000  # one chunk: small runs stay in-process
    assert default_chunk_size(64_000) == 2_000
    assert default_chunk_size(10**8) == 20_000
    assert chunk_ranges(64_000) == [(first, 2_000) for first in range(0, 64_000, 2_000)]
    ranges = chunk_ranges(64_001)
    assert sum(count for _, count in ranges) == 64_001 and len(ranges) == 32


def test_cli_workers_give_identical_json(capsys, monkeypatch):
    monkeypatch.setattr(execution, "WARM_POOL_AFTER_S", 0.0)
    start_pool(2, wait=True)
    runs = []
    for workers in ("1", "2"):
        args = ["simulate", "--matches", "2000", "--seed", "4", "--workers", workers, "--chunk-size", "300", "--json"]
        assert main(args) == 0
        out, err = capsys.readouterr()
        assert err == ""  # no progress bar when not on a terminal / with --json
        runs.append(json.loads(out))
    assert what(runs[0]) == what(runs[1])
    assert [run["workers"] for run in runs] == [1, 2]


@pytest.mark.parametrize("args, expected", [
    (["--workers", "0"], "--workers"),
    (["--scheduler", "somewhere"], "scheduler must be 'local' or a Dask scheduler address"),
    (["--chunk-size", "0"], "--chunk-size"),
])
def test_bad_run_options_are_one_line_errors(capsys, args, expected):
    assert main(["simulate", "--matches", "10", *args]) == 2
    err = capsys.readouterr().err
    assert expected in err and err.count("\n") == 1


def test_bad_options_from_python():
    with pytest.raises(BergenError, match="workers must be 1..1,024"):
        RunOptions(workers=0)
    with pytest.raises(BergenError, match="tcp://HOST:PORT"):
        simulate(matches=10, scheduler="nowhere")


def test_a_short_run_plays_here_and_a_long_one_starts_the_pool_with_the_run(monkeypatch):
    monkeypatch.setattr(execution, "_spare_core", lambda: True)
    job = Job(Rules.make(players=2), ("random", "random"), seed=5)
    discard_pool(2)
    short = run_job(job, 10_000, None, RunOptions(workers=2))
    assert not short.prestarted and sum(c.counts["matches"] for c in short) == 10_000
    assert short.workers == 1 and not pool_running(2)  # 10 chunks of ~3 ms: not worth a pool
    assert run_job(job, execution.PRESTART_MATCHES, None, RunOptions(workers=2)).prestarted
    assert pool_running(2)  # started with the run (not played here: the size is what matters)
    monkeypatch.setattr(execution, "_spare_core", lambda: False)  # a busy machine
    assert not run_job(job, execution.PRESTART_MATCHES, None, RunOptions()).prestarted  # the default waits
    assert run_job(job, execution.PRESTART_MATCHES, None, RunOptions(workers=2)).prestarted  # asked: obeyed


class _Worker:
    def __init__(self) -> None:
        self.terminated = False

    def terminate(self) -> None:
        self.terminated = True


class _PoolStartingAWorker:
    """A pool whose ``shutdown`` first lets a ``submit`` in another thread finish starting a worker.

    That is what ProcessPoolExecutor does: ``submit`` starts workers under the
    lock ``shutdown`` takes, and ``shutdown`` then empties ``_processes``.
    """

    def __init__(self) -> None:
        self.early, self.late = _Worker(), _Worker()
        self._processes = {1: self.early}

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        self._processes[2] = self.late  # the in-flight submit's worker, started before the lock was ours
        self._processes = None


def test_a_terminated_pool_ends_a_worker_that_was_starting_meanwhile(monkeypatch):
    # CI once hung 35 s after Ctrl-C: a worker started just after the terminate pass, and Python's
    # exit joined the pool's manager thread, which waited for that worker for ever
    pool = _PoolStartingAWorker()
    monkeypatch.setitem(parallel._POOLS, 97, pool)
    discard_pool(97, terminate=True)
    assert pool.early.terminated and pool.late.terminated
    assert 97 not in parallel._POOLS


def test_a_pool_discarded_before_it_existed_does_not_live_on(monkeypatch):
    # Ctrl-C while a run's pool is still being set up in the background: the pool that appears
    # afterwards belongs to no run and must end at once, not at exit (where Python would wait for it)
    from concurrent.futures import Future

    class FreshPool(_PoolStartingAWorker):
        def submit(self, fn, *args):
            done = Future()
            done.set_result(0)
            return done

    discarded, pool = parallel.threading.Event(), FreshPool()

    def process_pool(workers):
        discarded.wait(10)
        with parallel._LOCK:
            parallel._POOLS[workers] = pool
        return pool

    monkeypatch.setattr(parallel, "process_pool", process_pool)
    start = start_pool(98)
    discard_pool(98, terminate=True)
    discarded.set()
    assert start.done.wait(10)
    assert pool.early.terminated and 98 not in parallel._POOLS and 98 not in parallel._STARTS
