"""Running a job as chunks of matches, merged in match order.

A :class:`Job` says what to play (rules, one policy per seat, seed, which rows
to keep); :func:`run_chunk` plays one contiguous range of its matches in the
calling process.  Because the engine's randomness is keyed on (seed, match,
hand), a chunk's result depends only on its range, so chunks can be played
anywhere and in any order and still merge to the same totals.

:func:`run_job` plays a whole job: on every core by default, on a Dask
cluster when asked (:mod:`bergen_sim.parallel`), keeping finished chunks in a
checkpoint folder when asked (:mod:`bergen_sim.checkpoint`), with a progress
bar when asked (:mod:`bergen_sim.progress`).  None of these options changes a
single number of the result: chunks are always handed back in match order.
"""

from __future__ import annotations

import functools
import os
import signal
import threading
from collections import deque
from concurrent.futures import Executor, Future, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np

from bergen_sim._version import __version__
from bergen_sim.checkpoint import Checkpoint
from bergen_sim.engine import layout as L
from bergen_sim.limits import MAX_CHUNK_SIZE, MAX_CHUNKS, MAX_MATCHES, MAX_WORKERS, check_chunks, check_range
from bergen_sim.runtime.runner import Chunk, Engine
from bergen_sim.errors import BergenError
from bergen_sim.parallel import (MIN_IDLE_CORES, check_scheduler, cores_idle_lately, default_workers, discard_pool,
                                 executor_for, pool_running, start_pool)
from bergen_sim.progress import match_progress
from bergen_sim.rules import Rules

#: largest default chunk: large enough to amortise a call, small enough for steady progress
DEFAULT_CHUNK = 20_000
#: smallest default chunk (below this, per-chunk overhead starts to show)
MIN_CHUNK = 1_000
#: a run is cut into about this many chunks when that keeps them between MIN_CHUNK and DEFAULT_CHUNK
TARGET_CHUNKS = 32
#: seconds between checks for Ctrl-C while waiting for a chunk
_POLL = 0.2
#: a run on several local workers starts their pool once its first chunks (played here) say that the rest
#: would take longer than this here: about what starting one costs (a forkserver imports Numba, ~0.7 s on
#: an idle 2-core machine; benchmarks/sizes.py), so shorter runs never pay for a pool they cannot use
POOL_AFTER_S = 1.0
#: ... and when a pool is already running (started by an earlier run), once the rest exceeds this
WARM_POOL_AFTER_S = 0.1
#: a run of this many matches starts its pool at once, while the kernel loads (by default only if the
#: machine is not busy):
#: even the fastest built-in policy (~400,000 matches/s on one core) takes longer than POOL_AFTER_S to play them
PRESTART_MATCHES = 500_000

_ENGINES: dict[tuple, Engine] = {}


@dataclass(frozen=True)
class Job:
    """What to play: rules, one policy name per seat, the seed and which rows to keep."""

    rules: Rules
    policies: tuple[str, ...]
    seed: int
    match_rows: bool = False
    hand_rows: bool = False
    #: more policies to compile into the same kernel, so that jobs seating the same set of
    #: policies differently (a tournament's pairs) share one compiled kernel; results do not depend on it
    kernel_policies: tuple[str, ...] = ()


@dataclass(frozen=True)
class RunOptions:
    """How to run a job.  None of these changes the results.

    ``workers``: at most this many processes on this machine (default:
    every core), used when the run is long enough to gain from them (see
    :data:`POOL_AFTER_S`), or the size of the LocalCluster with ``scheduler="local"``; ``scheduler``: ``None``
    (this machine), ``"local"`` or a Dask address ``tcp://HOST:PORT``;
    ``checkpoint``: folder keeping finished chunks so the run can resume;
    ``progress``: draw a progress bar.
    """

    workers: int | None = None
    scheduler: str | None = None
    checkpoint: str | None = None
    progress: bool = False

    def __post_init__(self) -> None:
        if self.workers is not None:
            check_range("workers", self.workers, 1, MAX_WORKERS)
        check_scheduler(self.scheduler)


def options_for(options: RunOptions | None = None, *, workers: int | None = None, scheduler: str | None = None,
                checkpoint: str | None = None, progress: bool = False) -> RunOptions:
    """How a service function runs: a :class:`RunOptions`, or the keywords that make one (not both)."""
    if options is None:
        return RunOptions(workers=workers, scheduler=scheduler, checkpoint=checkpoint, progress=progress)
    if not isinstance(options, RunOptions):
        raise BergenError(f"options must be a bergen_sim.execution.RunOptions, not {type(options).__name__}")
    if (workers, scheduler, checkpoint, progress) != (None, None, None, False):
        raise BergenError("give either options=RunOptions(...) or workers/scheduler/checkpoint/progress, not both")
    return options


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C during a run; its message says what was kept and how to resume."""


def engine_for(rules: Rules, policies: tuple[str, ...], kernel_policies: tuple[str, ...] = ()) -> Engine:
    """The (cached per process) engine for rules and seat policies (see ``Job.kernel_policies``)."""
    key = (rules, policies, kernel_policies)
    if key not in _ENGINES:
        _ENGINES[key] = Engine(rules, policies, kernel_policies)
    return _ENGINES[key]


def _spare_core() -> bool:
    """Whether this machine has a core to spare for a pool started with the run (a busy machine's pool starts
    only once idle cores are seen while the run plays, see :class:`bergen_sim.parallel.IdleCores`).

    Read from the idle time since the last look (for a command: its own
    start-up); the load average, a mean over the last minute, only where that
    cannot be read.  Why: a benchmark or a script that ran just before leaves
    a load average above 1 on an idle 2-core machine for a minute, and the
    long run that follows then played its first second on one core
    (benchmarks/sizes.py).
    """
    idle = cores_idle_lately()
    if idle is not None:
        return idle >= MIN_IDLE_CORES
    try:
        return os.getloadavg()[0] <= default_workers() - 1
    except OSError:  # no load average here
        return True


def run_chunk(job: Job, first_match: int, n_matches: int) -> Chunk:
    """Play matches ``first_match .. first_match + n_matches - 1`` of a job here."""
    engine = engine_for(job.rules, job.policies, job.kernel_policies)
    return engine.play(job.seed, first_match, n_matches, hand_rows=job.hand_rows, match_rows=job.match_rows)


def default_chunk_size(matches: int) -> int:
    """Matches per chunk when none is given.

    About ``TARGET_CHUNKS`` chunks, so small runs still keep every core busy,
    within ``MIN_CHUNK .. DEFAULT_CHUNK``.  It depends on ``matches`` alone,
    so a run resumed with another number of workers finds the same chunks.

    Beyond ``DEFAULT_CHUNK * MAX_CHUNKS`` matches it grows so that a run
    never has more than ``MAX_CHUNKS`` chunks (see :mod:`bergen_sim.limits`).

    >>> default_chunk_size(10_000), default_chunk_size(10**7), default_chunk_size(10**11)
    (1000, 20000, 1000000)
    """
    return max(min(DEFAULT_CHUNK, max(MIN_CHUNK, -(-matches // TARGET_CHUNKS))), -(-matches // MAX_CHUNKS))


def chunk_ranges(matches: int, chunk_size: int | None = None) -> list[tuple[int, int]]:
    """Split ``range(matches)`` into (first, count) chunks.

    >>> chunk_ranges(5, 2)
    [(0, 2), (2, 2), (4, 1)]
    """
    size = max(1, chunk_size or default_chunk_size(matches))
    return [(first, min(size, matches - first)) for first in range(0, matches, size)]


def manifest(job: Job, matches: int, chunk_size: int) -> dict[str, Any]:
    """Everything a checkpoint's chunks depend on: a resumed run must match it exactly."""
    return {
        "rules": job.rules.to_dict(),
        "policies": list(job.policies),
        "seed": job.seed,
        "matches": matches,
        "chunk_size": chunk_size,
        "match_rows": job.match_rows,
        "hand_rows": job.hand_rows,
        "version": __version__,
    }


class _CtrlC:
    """Turns the first Ctrl-C into a flag checked between chunks (a second one interrupts at once).

    Why: a KeyboardInterrupt can land anywhere, also in the caller's loop body
    while it writes a row group; a flag lets the run stop between chunks, keep
    what is finished and say how to resume.  Only the main thread can own
    signal handlers, and a process whose caller chose to ignore Ctrl-C (or
    to handle it itself) is left alone.
    """

    def __init__(self) -> None:
        self.pressed = False
        self._previous = None
        if (threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
            self._previous = signal.signal(signal.SIGINT, self._handle)

    def _handle(self, signum, frame) -> None:
        self.pressed = True
        signal.signal(signal.SIGINT, signal.default_int_handler)

    def restore(self) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None


class _Window:
    """Keeps up to ``size`` chunks in flight on an executor; hands results back in submission order."""

    def __init__(self, executor: Executor, job: Job, ranges: list[tuple[int, int]], size: int, ctrl_c: _CtrlC):
        self.executor, self.job, self.size, self.ctrl_c = executor, job, size, ctrl_c
        self.todo = iter(ranges)
        self.flight: deque[Future] = deque()
        self._fill()

    def _fill(self) -> None:
        while len(self.flight) < self.size and not self.ctrl_c.pressed:
            part = next(self.todo, None)
            if part is None:
                return
            self.flight.append(self.executor.submit(run_chunk, self.job, *part))

    def next(self) -> Chunk:
        """The next chunk in order (KeyboardInterrupt once Ctrl-C was pressed)."""
        if self.ctrl_c.pressed or not self.flight:
            raise KeyboardInterrupt
        head = self.flight[0]
        while not wait([head], timeout=_POLL).done:
            if self.ctrl_c.pressed:
                raise KeyboardInterrupt
        self.flight.popleft()
        chunk = head.result()
        self._fill()
        return chunk

    def stop(self, finish: bool = True) -> list[Chunk]:
        """Cancel what has not started; the chunks that finished (running ones too, if ``finish``)."""
        for future in self.flight:
            future.cancel()
        try:
            if finish:
                wait(self.flight)
        except KeyboardInterrupt:  # a second Ctrl-C: keep what is finished now, stop waiting
            pass
        finished = [f.result() for f in self.flight if f.done() and not f.cancelled() and f.exception() is None]
        self.flight.clear()
        return finished


class JobRun:
    """A job's chunks in match order, played as :class:`RunOptions` say (what :func:`run_job` returns).

    Iterate over it once.  Arguments are checked (and a checkpoint opened) when
    it is made, so a bad option or a checkpoint of another run fails before
    anything is played.  ``resumed`` is the number of matches read back from
    the checkpoint rather than played, ``resumed_totals`` their totals;
    ``workers`` is the number of workers asked for, and once the run has
    ended the number that played at once (1 when every chunk played in this
    process; on a Dask cluster: its threads).
    """

    def __init__(self, job: Job, matches: int, chunk_size: int | None = None, options: RunOptions | None = None):
        check_range("matches", matches, 0, MAX_MATCHES)
        if chunk_size is not None:
            check_range("chunk size", chunk_size, 1, MAX_CHUNK_SIZE)
        self.job, self.matches = job, matches
        self.options = options or RunOptions()
        self.workers = self.options.workers or default_workers()
        size = max(1, chunk_size or default_chunk_size(matches))
        check_chunks(matches, size)
        self.ranges = chunk_ranges(matches, size)
        self.store = None
        saved: set[tuple[int, int]] = set()
        if self.options.checkpoint:
            self.store = Checkpoint(self.options.checkpoint, manifest(job, matches, size))
            self.store.check(set(self.ranges))
            saved = set(self.store.saved())
        self.saved = saved
        self.resumed = sum(count for _, count in saved)
        self.resumed_totals = np.zeros(L.S_SIZE, dtype=np.int64)
        self.done = 0
        #: why the checkpoint stopped being written (full disk, folder removed...); the run itself went on
        self.failure: str | None = None
        chunks_to_play = len(self.ranges) - len(saved)
        #: whether the worker pool was started with the run (a long one), before the kernel loaded
        self.prestarted = (self.options.scheduler is None and min(self.workers, chunks_to_play) > 1
                           and matches - self.resumed >= PRESTART_MATCHES
                           and (self.options.workers is not None or _spare_core()))
        if self.prestarted:
            start_pool(min(self.workers, chunks_to_play))

    def _keep(self, chunk: Chunk) -> None:
        """Save a finished chunk in the checkpoint; if that fails, note why and play on without it."""
        if self.store is None:
            return
        try:
            self.store.save(chunk)
        except OSError as exc:
            self.failure = (f"checkpoint {self.store.folder}: cannot save chunks ({exc.strerror or exc}); "
                            f"the run went on without it")
            self.store.close()
            self.store = None

    def __iter__(self) -> Iterator[Chunk]:
        return self._chunks()

    def _chunks(self) -> Iterator[Chunk]:
        job, store = self.job, self.store
        try:
            yield from self._play(job, store)
        finally:
            if self.store is not None:
                self.store.close()

    def _play(self, job: Job, store: Checkpoint | None) -> Iterator[Chunk]:
        todo = [part for part in self.ranges if part not in self.saved]
        workers = min(self.workers, len(todo)) if self.options.scheduler is None else self.workers
        if todo:
            try:  # compile once here; workers then load it from the disk cache
                engine_for(job.rules, job.policies, job.kernel_policies)
            except KeyboardInterrupt:  # Ctrl-C while it compiles: a pool started with the run ends with it
                if self.prestarted:
                    discard_pool(workers, terminate=True)
                raise RunInterrupted(self._interrupted()) from None
        # several workers play only a run long enough to gain from them (see POOL_AFTER_S)
        pool_after = 0.0 if self.prestarted else WARM_POOL_AFTER_S if pool_running(workers) else POOL_AFTER_S
        ctrl_c = _CtrlC()
        try:
            warm_up = functools.partial(run_chunk, job, 0, 0)  # a worker loads the kernel while this process plays
            # the default also waits for an idle core: on a busy machine a pool only costs; --workers N is obeyed
            with executor_for(max(workers, 1), self.options.scheduler, len(todo), pool_after, warm_up,
                              when_idle=self.options.workers is None) as (executor, in_flight), \
                    match_progress(self.matches, self.resumed, self.options.progress) as advance:
                self.workers = max(1, in_flight // 2)  # what plays: fewer for few chunks; a cluster's size
                window = _Window(executor, job, todo, in_flight, ctrl_c)
                try:
                    for first, count in self.ranges:
                        if ctrl_c.pressed:
                            raise KeyboardInterrupt
                        if (first, count) in self.saved:
                            chunk = store.load(first, count, job.match_rows)
                            self.resumed_totals += chunk.totals
                        else:
                            chunk = window.next()
                            self._keep(chunk)
                            advance(count)
                        self.done += count
                        yield chunk
                except KeyboardInterrupt:
                    # with a checkpoint, running chunks are worth finishing (they are saved); without, stop now
                    for chunk in window.stop(finish=store is not None):
                        self._keep(chunk)
                    if store is None and self.options.scheduler is None:
                        discard_pool(workers, terminate=True)
                    raise RunInterrupted(self._interrupted()) from None
                except BrokenProcessPool:
                    discard_pool(workers)
                    raise
                finally:
                    window.stop()
                    self.workers = getattr(executor, "workers_used", self.workers)  # local: did a pool play?
        finally:
            ctrl_c.restore()

    def _interrupted(self) -> str:
        """The one line telling what was kept and how to resume."""
        if self.store:
            kept = sum(count for _, count in self.store.saved())
            return (f"interrupted: {kept:,} of {self.matches:,} matches are saved in {self.store.folder}; "
                    "run the same command again to resume")
        return (f"interrupted after {self.done:,} of {self.matches:,} matches; nothing was kept "
                "(with --checkpoint DIR an interrupted run can resume)")


def run_job(job: Job, matches: int, chunk_size: int | None = None, options: RunOptions | None = None) -> JobRun:
    """Play a job's matches, yielding chunks in match order.

    By default on every core of this machine; ``options`` chooses the
    workers, a Dask scheduler, a checkpoint folder and a progress bar.  The
    chunks (and so every total) are the same whatever the options and the
    chunk size.
    """
    return JobRun(job, matches, chunk_size, options)
