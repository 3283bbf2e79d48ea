"""Running a job as chunks of matches, merged in match order.

A :class:`Job` says what to play (rules, one policy per seat, seed, which rows
to keep); :func:`run_chunk` plays one contiguous range of its matches in the
calling process.  Because the engine's randomness is keyed on (seed, match,
hand), a chunk's result depends only on its range, so chunks can be played
anywhere and in any order and still merge to the same totals.

:func:`run_job` plays a whole job: on every core by default, on a Dask
cluster when asked (:mod:`bergen_sim.services.execution.parallel`), keeping finished chunks in a
checkpoint folder when asked (:mod:`bergen_sim.services.files.checkpoint`), with a progress
bar when asked (:mod:`bergen_sim.services.execution.progress`).  None of these options changes a
single number of the result: chunks are always handed back in match order.
"""

from __future__ import annotations

import signal
import threading
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Executor, Future, wait
from dataclasses import dataclass
from typing import Any

import numpy as np

from bergen_sim._version import __version__
from bergen_sim.core.limits import MAX_CHUNK_SIZE, MAX_CHUNKS, MAX_MATCHES, MAX_WORKERS, check_chunks, check_range
from bergen_sim.engine import layout as L
from bergen_sim.model.rules import Rules
from bergen_sim.runtime.runner import Chunk, Engine
from bergen_sim.services.execution.parallel import ThreadWorkers, check_scheduler, default_workers, executor_for
from bergen_sim.services.execution.progress import match_progress
from bergen_sim.services.files.checkpoint import Checkpoint

#: largest default chunk: large enough to amortise a call, small enough for steady progress
DEFAULT_CHUNK = 20_000
#: smallest default chunk (below this, per-chunk overhead starts to show)
MIN_CHUNK = 1_000
#: a run is cut into about this many chunks when that keeps them between MIN_CHUNK and DEFAULT_CHUNK
TARGET_CHUNKS = 32
#: seconds between checks for Ctrl-C while waiting for a chunk
_POLL = 0.2
_ENGINES: dict[tuple, Engine] = {}
_ENGINES_LOCK = threading.Lock()  # threads of a run share the engines: one builds (compiles), the others wait


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

    ``workers``: at most this many threads on this machine (default:
    every core; never more than the run has chunks), or the size of the
    LocalCluster with ``scheduler="local"``; ``scheduler``: ``None``
    (this machine), ``"local"`` or a Dask address ``tcp://HOST:PORT``;
    ``checkpoint``: folder keeping finished chunks so the run can resume;
    ``progress``: draw a progress bar; ``chunk_size``: matches per chunk
    (default :func:`default_chunk_size`).
    """

    workers: int | None = None
    scheduler: str | None = None
    checkpoint: str | None = None
    progress: bool = False
    chunk_size: int | None = None

    def __post_init__(self) -> None:
        if self.workers is not None:
            check_range("workers", self.workers, 1, MAX_WORKERS)
        if self.chunk_size is not None:
            check_range("chunk_size", self.chunk_size, 1, MAX_CHUNK_SIZE)
        check_scheduler(self.scheduler)


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C during a run; its message says what was kept and how to resume."""


def engine_for(rules: Rules, policies: tuple[str, ...], kernel_policies: tuple[str, ...] = ()) -> Engine:
    """The (cached per process) engine for rules and seat policies (see ``Job.kernel_policies``)."""
    key = (rules, policies, kernel_policies)
    engine = _ENGINES.get(key)
    if engine is None:
        with _ENGINES_LOCK:
            engine = _ENGINES.get(key)
            if engine is None:
                engine = _ENGINES[key] = Engine(rules, policies, kernel_policies)
    return engine


def run_chunk(job: Job, first_match: int, n_matches: int, halt: np.ndarray | None = None) -> Chunk:
    """Play matches ``first_match .. first_match + n_matches - 1`` of a job here.

    ``halt``: the run's stop flag (:class:`bergen_sim.services.execution.parallel.ThreadWorkers`); once it is set the chunk
    raises :class:`~bergen_sim.runtime.runner.Halted` after the match it is playing.
    """
    engine = engine_for(job.rules, job.policies, job.kernel_policies)
    return engine.play(job.seed, first_match, n_matches, hand_rows=job.hand_rows, match_rows=job.match_rows, halt=halt)


def default_chunk_size(matches: int) -> int:
    """Matches per chunk when none is given.

    About ``TARGET_CHUNKS`` chunks, so small runs still keep every core busy,
    within ``MIN_CHUNK .. DEFAULT_CHUNK``.  It depends on ``matches`` alone,
    so a run resumed with another number of workers finds the same chunks.

    Beyond ``DEFAULT_CHUNK * MAX_CHUNKS`` matches it grows so that a run
    never has more than ``MAX_CHUNKS`` chunks (see :mod:`bergen_sim.core.limits`).

    >>> default_chunk_size(10_000), default_chunk_size(10**7), default_chunk_size(10**11)
    (1000, 20000, 1000000)
    """
    return max(min(DEFAULT_CHUNK, max(MIN_CHUNK, -(-matches // TARGET_CHUNKS))), -(-matches // MAX_CHUNKS))


def chunk_ranges(matches: int, chunk_size: int | None = None) -> list[tuple[int, int]]:
    """Split ``range(matches)`` into (first, count) chunks.

    >>> chunk_ranges(5, 2)
    [(0, 2), (2, 2), (4, 1)]
    """
    return ranges_around(matches, max(1, chunk_size or default_chunk_size(matches)), set())


def ranges_around(matches: int, chunk_size: int, saved: set[tuple[int, int]]) -> list[tuple[int, int]]:
    """(first, count) chunks covering ``range(matches)``: the ``saved`` chunks that fit (inside the run, not
    overlapping one another), and the matches between them in chunks of ``chunk_size``.

    A run resumed with another chunk size keeps what its checkpoint holds and plays only the rest:

    >>> ranges_around(10, 4, {(0, 3), (6, 3)})
    [(0, 3), (3, 3), (6, 3), (9, 1)]
    """
    ranges, at = [], 0
    for first, count in sorted(saved) + [(matches, 0)]:
        if first < at or count < 0 or first + count > matches:
            continue  # not a chunk of this run (Checkpoint.check refuses it)
        ranges += [(start, min(chunk_size, first - start)) for start in range(at, first, chunk_size)]
        if count:
            ranges.append((first, count))
        at = first + count
    return ranges


def manifest(job: Job, matches: int, chunk_size: int) -> dict[str, Any]:
    """Everything a checkpoint's chunks depend on: a resumed run must match it exactly, but for the chunk size
    (:data:`bergen_sim.services.files.checkpoint.FREE_KEYS`: it changes no result)."""
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
        if (
            threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler
        ):
            self._previous = signal.signal(signal.SIGINT, self._handle)

    def _handle(self, signum, frame) -> None:
        self.pressed = True
        signal.signal(signal.SIGINT, signal.default_int_handler)

    def restore(self) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None


class _Window:
    """Keeps up to ``size`` chunks in flight on an executor; hands results back in submission order.

    Chunks get the executor's halt flag when it has one (threads: :class:`bergen_sim.services.execution.parallel.ThreadWorkers`),
    so :meth:`stop` can end running chunks after their current match instead of waiting for them.
    """

    def __init__(self, executor: Executor, job: Job, ranges: list[tuple[int, int]], size: int, ctrl_c: _CtrlC):
        self.executor, self.job, self.size, self.ctrl_c = executor, job, size, ctrl_c
        self.halt = getattr(executor, "halt_flag", None)
        self.todo = iter(ranges)
        self.flight: deque[Future] = deque()
        self._fill()

    def _fill(self) -> None:
        while len(self.flight) < self.size and not self.ctrl_c.pressed:
            part = next(self.todo, None)
            if part is None:
                return
            if self.halt is None:  # a Dask cluster: its chunks cannot be reached once sent
                self.flight.append(self.executor.submit(run_chunk, self.job, *part))
            else:
                self.flight.append(self.executor.submit(run_chunk, self.job, *part, halt=self.halt))

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
        """Cancel what has not started; the chunks that finished (running ones too, if ``finish``).

        Without ``finish`` (or at a second Ctrl-C while finishing) running chunks are halted: they end
        after the match they are playing, and their partial results are dropped.
        """
        for future in self.flight:
            future.cancel()
        try:
            if finish:
                wait(self.flight)
        except KeyboardInterrupt:  # a second Ctrl-C: keep what is finished now, stop waiting
            finish = False
        if not finish and isinstance(self.executor, ThreadWorkers) and self.flight:
            self.executor.halt()
            wait(self.flight)  # each ends after its current match
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
    begun the number that plays at once (never more than it has chunks to
    play; on a Dask cluster: its threads).
    """

    def __init__(self, job: Job, matches: int, options: RunOptions | None = None):
        check_range("matches", matches, 0, MAX_MATCHES)
        self.job, self.matches = job, matches
        self.options = options or RunOptions()
        self.workers = self.options.workers or default_workers()
        size = max(1, self.options.chunk_size or default_chunk_size(matches))
        check_chunks(matches, size)
        self.store = None
        saved: set[tuple[int, int]] = set()
        if self.options.checkpoint:
            self.store = Checkpoint(self.options.checkpoint, manifest(job, matches, size))
            saved = set(self.store.saved())
        self.ranges = ranges_around(matches, size, saved)
        if self.store is not None:
            self.store.check(set(self.ranges))
        self.saved = saved
        self.resumed = sum(count for _, count in saved)
        self.resumed_totals = np.zeros(L.S_SIZE, dtype=np.int64)
        self.done = 0
        #: why the checkpoint stopped being written (full disk, folder removed...); the run itself went on
        self.failure: str | None = None

    def _keep(self, chunk: Chunk) -> None:
        """Save a finished chunk in the checkpoint; if that fails, note why and play on without it."""
        if self.store is None:
            return
        try:
            self.store.save(chunk)
        except OSError as exc:
            self.failure = (
                f"checkpoint {self.store.folder}: cannot save chunks ({exc.strerror or exc}); "
                f"the run went on without it"
            )
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
            try:  # compile (or load) once here: this process's threads share it, a cluster's workers load it
                engine_for(job.rules, job.policies, job.kernel_policies)
            except KeyboardInterrupt:
                raise RunInterrupted(self._interrupted()) from None
        ctrl_c = _CtrlC()
        try:
            with (
                executor_for(max(workers, 1), self.options.scheduler) as (executor, in_flight),
                match_progress(self.matches, self.resumed, self.options.progress) as advance,
            ):
                self.workers = max(1, in_flight // 2)  # what plays: fewer for few chunks; a cluster's size
                window = _Window(executor, job, todo, in_flight, ctrl_c)
                try:
                    for first, count in self.ranges:
                        if ctrl_c.pressed:
                            raise KeyboardInterrupt
                        if store is not None and (first, count) in self.saved:
                            chunk = store.load(
                                first, count, job.match_rows, job.rules.most_hands if job.hand_rows else 0
                            )
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
                    raise RunInterrupted(self._interrupted()) from None
                finally:
                    window.stop(finish=False)  # an early end (a failure, a caller that stopped iterating)
        finally:
            ctrl_c.restore()

    def _interrupted(self) -> str:
        """The one line telling what was kept and how to resume."""
        if self.store:
            kept = sum(count for _, count in self.store.saved())
            return (
                f"interrupted: {kept:,} of {self.matches:,} matches are saved in {self.store.folder}; "
                "run the same command again to resume"
            )
        return (
            f"interrupted after {self.done:,} of {self.matches:,} matches; nothing was kept "
            "(with --checkpoint DIR an interrupted run can resume)"
        )


def run_job(job: Job, matches: int, options: RunOptions | None = None) -> JobRun:
    """Play a job's matches, yielding chunks in match order.

    By default on every core of this machine; ``options`` chooses the
    workers, a Dask scheduler, a checkpoint folder, a progress bar and the
    chunk size.  The chunks (and so every total) are the same whatever the
    options.
    """
    return JobRun(job, matches, options)
