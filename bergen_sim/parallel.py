"""Where chunks run: this process, a pool of local processes, or a Dask cluster.

Every backend is a :class:`concurrent.futures.Executor`, so the code that
schedules chunks and merges them in match order (:mod:`bergen_sim.execution`)
is the same for all of them, and their results are identical.

- One worker: chunks run in this process (no start-up cost, nothing pickled).
- Several: a :class:`~concurrent.futures.ProcessPoolExecutor` (processes: a
  worker that is stopped, by Ctrl-C or a failure, ends at once, while a
  chunk played in a thread would run to its end), reached through
  :class:`InlineUntilPool`: the pool starts in a background thread while this
  process plays the first chunks itself, so no run waits for it (starting one
  costs about 0.7 s on an idle machine: a forkserver imports Numba; the
  default run starts it only when its first chunks say the rest would take
  longer than that, see :mod:`bergen_sim.execution`).  The kernel plays
  without holding the GIL (``run_matches`` in engine/match_loop.py says why),
  so the chunks played here do not keep that thread waiting.  Workers are forked from a ``forkserver`` that has
  already imported the engine and set up Numba's compiler tables
  (:mod:`bergen_sim.runtime.preload`; ``spawn`` where there is no forkserver), never
  from this process itself, which may hold threads and locks (the progress
  bar's, Dask's, open checkpoint locks).  A worker then loads the compiled kernel from Numba's disk cache
  (about 0.05 s), which the parent fills before the first chunk is sent.  Pools
  are kept for the life of the process, so later runs (``compare`` plays one
  per seat rotation; a notebook's next cell) start at once; :func:`start_pool`
  starts one ahead of time.  Workers ignore Ctrl-C (the parent decides
  what happens to their chunks) and end with the parent however it ends
  (:mod:`bergen_sim.lifeline`).  Workers do not re-import the caller's
  script (see :func:`_without_main_module`), so a script calling
  ``simulate()`` works without an ``if __name__ == "__main__"`` guard.
- ``scheduler="local"`` starts a Dask ``LocalCluster`` (processes, one thread
  each, on 127.0.0.1); ``tcp://HOST:PORT`` uses an existing cluster, whose
  workers need the same bergen-sim version (checked) and any plug-in policy
  modules importable.  Clients and clusters, like pools, are kept until
  :func:`shutdown` (at exit at the latest).
"""

from __future__ import annotations

import atexit
import importlib.util
import logging
import multiprocessing
import multiprocessing.context as mp
import os
import signal
import sys
import threading
import time
from concurrent.futures import Executor, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from bergen_sim import lifeline
from bergen_sim._version import __version__
from bergen_sim import feedback
from bergen_sim.errors import BergenError, cut, reason_of

#: seconds to wait for a Dask scheduler before giving up
CONNECT_TIMEOUT = 15
#: seconds more for the whole handshake and the workers' version check (a service that accepts the
#: connection and then says nothing, or is not Dask at all, would otherwise keep a run waiting for ever)
ANSWER_TIMEOUT = 15
#: seconds :func:`shutdown` waits for a pool that is still starting
START_TIMEOUT = 30
#: idle cores (on average, while a run plays its first chunks) that make a worker pool worth starting soon...
MIN_IDLE_CORES = 0.5
#: ... without them a pool starts only when the rest of the run would take longer than this here
#: (benchmarks/sizes.py under a load of 8-10 on 2 cores: a warm pool still played 1.6-2x faster, but
#: starting one cost as much as it gained on a run of 3 s)
BUSY_POOL_AFTER_S = 5.0

#: modules the forkserver imports before it forks any worker: what they set up, every worker has for free
PRELOAD = ["bergen_sim.lifeline", "bergen_sim.execution", "bergen_sim.runtime.preload"]

_POOLS: dict[int, ProcessPoolExecutor] = {}
_STARTS: dict[int, "PoolStart"] = {}
_LOCK = threading.Lock()  # pools are started from background threads
_CLIENTS: dict[tuple[str, int], tuple[Any, Any]] = {}  # (scheduler, workers) -> (client, LocalCluster or None)


def default_workers() -> int:
    """The cores this process may use (every core, unless its affinity says otherwise)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def dask_installed() -> bool:
    """Whether Dask's ``distributed`` can be imported (without importing it: that is slow)."""
    return importlib.util.find_spec("distributed") is not None


def check_scheduler(scheduler: str | None) -> None:
    """Refuse a ``--scheduler`` value that is neither ``local`` nor a Dask address, or without Dask installed.

    Dask is an optional extra (``bergen-sim[dask]``): most runs use this machine's cores only.
    """
    if scheduler is not None and scheduler != "local" and "://" not in scheduler:
        raise BergenError(
            f"scheduler must be 'local' or a Dask scheduler address like tcp://HOST:PORT, not {scheduler!r}"
        )
    if scheduler is not None and not dask_installed():
        raise BergenError("--scheduler needs Dask, an optional extra: pip install 'bergen-sim[dask]' "
                          "(in a checkout: pip install -e '.[dask]')")


class InlineExecutor(Executor):
    """Runs each call as it is submitted, in this process."""

    def submit(self, fn: Callable, /, *args: Any, **kwargs: Any) -> Future:
        future: Future = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as exc:  # delivered by .result(), as other executors do
            future.set_exception(exc)
        return future


@contextmanager
def _without_main_module() -> Iterator[None]:
    """Start processes that will not re-run the caller's script.

    ``spawn`` and ``forkserver`` children import the parent's ``__main__`` so
    that functions defined there can be unpickled.  Our workers only run
    :func:`bergen_sim.execution.run_chunk`, so they never need it, and
    importing it would run again, in every worker, a script that calls
    ``simulate()`` at top level (and fail there).
    """
    main = sys.modules["__main__"]
    saved = {key: main.__dict__[key] for key in ("__file__", "__spec__") if key in main.__dict__}
    main.__dict__.pop("__file__", None)
    main.__spec__ = None
    try:
        yield
    finally:
        main.__dict__.pop("__spec__", None)
        main.__dict__.update(saved)


@contextmanager
def _ignoring_sigint() -> Iterator[None]:
    """Start processes that ignore Ctrl-C from their first instant.

    An ignored signal stays ignored across ``exec``, so processes that Dask
    starts meanwhile never see the terminal's Ctrl-C (which reaches the whole
    process group) and never print a traceback for it; the parent alone
    decides how to stop.  A Ctrl-C pressed during these seconds is lost.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


class _SpawnWorker(mp.SpawnProcess):
    def start(self) -> None:
        with _without_main_module():
            super().start()


class _SpawnContext(mp.SpawnContext):
    Process = _SpawnWorker


if hasattr(mp, "ForkServerContext"):  # not on Windows

    class _ForkServerWorker(mp.ForkServerProcess):
        def start(self) -> None:
            with _without_main_module():
                super().start()

    class _ForkServerContext(mp.ForkServerContext):
        Process = _ForkServerWorker


def _worker_context() -> mp.BaseContext:
    """Forkserver (with the engine preloaded) where the platform has one, else spawn."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = _ForkServerContext()
        context.set_forkserver_preload(PRELOAD)
        return context
    return _SpawnContext()


def process_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes, started once and reused by later runs."""
    with _LOCK:
        pool = _POOLS.get(workers)
        if pool is None:
            lifeline.mark_parent()  # the forkserver and workers end when this process does (however it ends)
            pool = ProcessPoolExecutor(workers, mp_context=_worker_context(), initializer=lifeline.worker_start,
                                       initargs=(os.getpid(),))
            _POOLS[workers] = pool
    return pool


class PoolStart:
    """A pool of ``workers`` processes being started in a background thread (see :func:`start_pool`)."""

    def __init__(self, workers: int):
        self.workers = workers
        self.done = threading.Event()
        #: why the pool could not start (runs then play in this process)
        self.error: BaseException | None = None
        threading.Thread(target=self._start, daemon=True, name="bergen-sim-pool-start").start()

    def _start(self) -> None:
        pool = None
        try:
            pool = process_pool(self.workers)
            # one call per worker makes the pool start them all (a forkserver pool starts workers on demand)
            wait([pool.submit(os.getpid) for _ in range(self.workers)])
        except BaseException as exc:  # noqa: BLE001 - any failure: the runs that wait for it play here instead
            self.error = exc
            if _STARTS.get(self.workers) is self:  # not when the run discarded it meanwhile (Ctrl-C)
                feedback.detail(f"a pool of {self.workers} worker processes could not start ({exc}); "
                                "playing in this process")
        finally:
            with _LOCK:  # discarded while it started (before the pool existed): it must not live on
                orphan = _STARTS.get(self.workers) is not self and pool is not None \
                    and _POOLS.get(self.workers) is pool
                if orphan:
                    del _POOLS[self.workers]
            if orphan:
                _stop(pool, terminate=True)
            self.done.set()

    def ready(self) -> ProcessPoolExecutor | None:
        """The pool once every worker runs (None before that, or if it could not start or was discarded)."""
        if not self.done.is_set() or self.error is not None:
            return None
        return _POOLS.get(self.workers)


def start_pool(workers: int, wait: bool = False) -> PoolStart:
    """Start a pool of ``workers`` processes in the background, once per process (later calls share it).

    ``wait``: return only when every worker runs (a notebook may warm the
    pool before timing a run; it raises what stopped the pool from starting).
    """
    with _LOCK:
        start = _STARTS.get(workers)
        if start is None or (start.done.is_set() and start.ready() is None):  # never started, failed or discarded
            start = _STARTS[workers] = PoolStart(workers)
    if wait:
        start.done.wait()
        if start.error is not None:
            raise start.error
    return start


def pool_running(workers: int) -> bool:
    """Whether a pool of ``workers`` processes is running or starting in this process."""
    start = _STARTS.get(workers)
    return start is not None and (not start.done.is_set() or start.ready() is not None)


def _cpu_ticks() -> tuple[int, int] | None:
    """(idle, total) clock ticks of all this machine's CPUs since boot (Linux's /proc/stat; None elsewhere)."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            fields = stat.readline().split()
        ticks = [int(x) for x in fields[1:9]]  # user nice system idle iowait irq softirq steal
    except (OSError, ValueError):
        return None
    return (ticks[3] + ticks[4], sum(ticks)) if fields[0] == "cpu" and len(ticks) == 8 else None


class IdleCores:
    """How many of this machine's cores stood idle since the last reading.

    Why: on a machine that other programs keep busy a worker pool finds no
    free core, gains nothing and costs its start-up (about a second of CPU),
    so a run starts one only when cores are idle while it plays.
    """

    #: fewer ticks than this (all CPUs together, about 0.1 s on 2 cores) are too few to tell
    MIN_TICKS = 20

    def __init__(self) -> None:
        self._last = _cpu_ticks()
        #: whether this machine says how idle its CPUs are (Linux's /proc/stat)
        self.measurable = self._last is not None

    def read(self) -> float | None:
        """Idle cores on average since the last reading; None while too little time has passed to tell."""
        now = _cpu_ticks()
        if now is None or self._last is None:
            return float(os.cpu_count() or 1)  # no /proc/stat: assume every core is free, as before
        idle, total = now[0] - self._last[0], now[1] - self._last[1]
        if total < self.MIN_TICKS:
            return None
        self._last = now
        return (os.cpu_count() or 1) * idle / total


#: the machine's idle cores since this module was imported; the command line imports it first thing, so
#: for a command the first reading spans its start-up (imports, options): a fresh view of the machine,
#: where the load average describes the last minute
_SINCE_IMPORT = IdleCores()


def cores_idle_lately() -> float | None:
    """Idle cores on average since the previous call (the first: since this module was imported).

    None when too little time has passed to tell, or where the machine does
    not say (no ``/proc/stat``): the caller then falls back on the load average.
    """
    return _SINCE_IMPORT.read() if _SINCE_IMPORT.measurable else None


class InlineUntilPool(Executor):
    """Runs calls in this process until a pool of ``workers`` processes is ready, then on the pool.

    Why: a run that waited for a pool to start (about a second) would be
    slower than one core for every size up to a few seconds of work.  Here no
    call waits: this process plays while the pool starts on the other cores.

    ``pool_after``: use the pool (starting it if it is not running yet) once
    the calls made here so far say that the remaining ones (``calls`` in all)
    would take longer than this many seconds in this process; 0: at once.
    ``when_idle``: start a pool that is not running yet that soon only while
    at least :data:`MIN_IDLE_CORES` of the machine's cores are idle
    (:class:`IdleCores`), else only for a rest of :data:`BUSY_POOL_AFTER_S`.  A
    call made here blocks the caller (as :class:`InlineExecutor`).
    ``warm_up``: a call each worker of a pool that is not running yet makes
    before the first real one goes to it (loading the kernel), while this
    process keeps playing.
    ``workers_used`` is what played: 1 until a call went to the pool, then ``workers``.
    """

    def __init__(self, workers: int, calls: int, pool_after: float = 0.0, warm_up: Callable | None = None,
                 when_idle: bool = False):
        self.workers, self.calls_left, self.pool_after, self.when_idle = workers, calls, pool_after, when_idle
        running = _STARTS.get(workers)
        # a pool that already ran before this executor has played (and loaded its kernels) before: no warm-up
        self.warm_up = warm_up if running is None or running.ready() is None else None
        self._warming: list[Future] | None = None
        self.start = start_pool(workers) if pool_after <= 0 else None
        self.workers_used = 1
        self._inline = InlineExecutor()
        self._inline_calls, self._inline_seconds = 0, 0.0
        self._idle = IdleCores()

    def submit(self, fn: Callable, /, *args: Any, **kwargs: Any) -> Future:
        self.calls_left -= 1
        pool = self._warm_pool()
        if pool is not None:
            self.workers_used = self.workers
            return pool.submit(fn, *args, **kwargs)
        began = time.perf_counter()
        future = self._inline.submit(fn, *args, **kwargs)
        self._inline_calls += 1
        self._inline_seconds += time.perf_counter() - began
        left = self._inline_seconds / self._inline_calls * self.calls_left
        if self.start is None and self.calls_left > 0 and left > self.pool_after and left > self._busy_after():
            self.start = start_pool(self.workers)
        return future

    def _warm_pool(self) -> ProcessPoolExecutor | None:
        """The pool once its workers run and have made ``warm_up`` once each (loaded the kernel), else None."""
        pool = self.start.ready() if self.start is not None else None
        if pool is None or self.warm_up is None:
            return pool
        if self._warming is None:
            self._warming = [pool.submit(self.warm_up) for _ in range(self.workers)]
        return pool if all(future.done() for future in self._warming) else None

    def _busy_after(self) -> float:
        """0, or (``when_idle`` and no core stood idle lately) :data:`BUSY_POOL_AFTER_S` seconds.

        A running pool is always worth using.  On a busy machine a new pool's
        workers share the cores with everyone else's: they still get this run
        more CPU time, but their start-up is slow and competes with it, so
        only a long rest is worth it.
        """
        if not self.when_idle or pool_running(self.workers):
            return 0.0
        idle = self._idle.read()
        return 0.0 if idle is not None and idle >= MIN_IDLE_CORES else BUSY_POOL_AFTER_S


def discard_pool(workers: int, terminate: bool = False) -> None:
    """Stop a pool after an interruption or a failure (a later run starts a fresh one).

    ``terminate``: end its workers now, abandoning the chunks they play
    (Ctrl-C without a checkpoint: nothing would keep them).
    """
    with _LOCK:
        pool = _POOLS.pop(workers, None)
        _STARTS.pop(workers, None)
    if pool is not None:
        _stop(pool, terminate)


def _stop(pool: ProcessPoolExecutor, terminate: bool) -> None:
    """Shut ``pool`` down without waiting; ``terminate``: end its workers now, busy or not.

    Order matters: ``shutdown`` takes the lock under which ``submit`` starts a
    worker, so once it returns no worker can still be starting, and every one
    is in the table read here (read before ``shutdown`` empties the attribute).
    A worker started just after a terminate pass (a pool still coming up in
    :class:`PoolStart`'s thread) was missed before, and at exit Python's join
    of the pool's manager thread waited for it for ever.
    """
    processes = getattr(pool, "_processes", None) or {}  # private: no public way before Python 3.14
    pool.shutdown(wait=False, cancel_futures=True)
    if terminate:
        for process in list(processes.values()):
            process.terminate()


def _worker_version() -> str:
    return __version__


def _start_local_cluster(workers: int) -> tuple[Any, Any]:
    from dask.distributed import Client, LocalCluster  # imported only when asked for: it is slow to import

    lifeline.mark_parent()  # its processes, when they import bergen-sim, end when this process does
    with _without_main_module(), _ignoring_sigint():  # ":0": HTTP server on a free loopback port, not 8787
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                               dashboard_address=":0", silence_logs=logging.ERROR)
    return Client(cluster), cluster


def _connect(scheduler: str) -> Any:
    """A client of the cluster at ``scheduler`` whose workers run this bergen-sim version, or a BergenError.

    Tried in a thread with an overall deadline: Dask's own timeout covers
    opening the connection, not a peer that accepts it and never answers.
    """
    outcome: dict[str, Any] = {}

    def attempt() -> None:
        try:
            outcome["client"] = _connect_now(scheduler)
        except BaseException as exc:  # noqa: BLE001 - handed to the calling thread below
            outcome["error"] = exc

    thread = threading.Thread(target=attempt, name="bergen-sim Dask connect", daemon=True)
    thread.start()
    thread.join(CONNECT_TIMEOUT + ANSWER_TIMEOUT)
    if thread.is_alive():
        raise BergenError(f"no answer from a Dask scheduler at {scheduler} within "
                          f"{CONNECT_TIMEOUT + ANSWER_TIMEOUT} s: is a Dask scheduler listening there?")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["client"]


def _connect_now(scheduler: str) -> Any:
    from dask.distributed import Client

    try:
        client = Client(scheduler, timeout=CONNECT_TIMEOUT)
    except (OSError, ValueError, TypeError) as exc:
        raise BergenError(f"cannot reach the Dask scheduler at {scheduler}: {cut(reason_of(exc), 160)}") from None
    except Exception as exc:  # noqa: BLE001 - e.g. a service that is not Dask sends bytes read as a huge length
        raise BergenError(f"cannot reach the Dask scheduler at {scheduler}: it does not speak Dask's protocol "
                          f"({type(exc).__name__})") from None
    try:
        versions = client.run(_worker_version)
    except Exception as exc:  # a worker that cannot import bergen_sim
        client.close()
        raise BergenError(f"Dask workers at {scheduler} cannot run bergen-sim: {exc}") from None
    wrong = {address: v for address, v in versions.items() if v != __version__}
    if not versions or wrong:
        client.close()
        if not versions:
            raise BergenError(f"the Dask cluster at {scheduler} has no workers")
        address, version = next(iter(wrong.items()))
        raise BergenError(f"Dask worker {address} has bergen-sim {version}, this is {__version__}: "
                          "install the same version on every worker")
    return client


def dask_client(scheduler: str, workers: int) -> Any:
    """A Dask client on a LocalCluster of ``workers`` processes, or connected to ``scheduler``.

    Kept for the life of the process (a ``compare`` runs one job per seat
    rotation; a cluster per job would spend seconds starting each), until
    :func:`shutdown`, which also runs at exit.
    """
    key = (scheduler, workers if scheduler == "local" else 0)
    if key in _CLIENTS and _CLIENTS[key][0].status != "running":
        _close(_CLIENTS.pop(key))
    if key not in _CLIENTS:
        _CLIENTS[key] = _start_local_cluster(workers) if scheduler == "local" else (_connect(scheduler), None)
    return _CLIENTS[key][0]


def _close(entry: tuple[Any, Any]) -> None:
    client, cluster = entry
    client.close()
    if cluster is not None:
        cluster.close()


def shutdown() -> None:
    """Stop every worker pool, Dask client and LocalCluster this process started."""
    with _LOCK:
        starting = [start for start in _STARTS.values() if not start.done.is_set()]
    for start in starting:  # a worker abandoned while it starts would print a traceback: let it come up first
        start.done.wait(timeout=START_TIMEOUT)
    with _LOCK:
        pools = list(_POOLS.values())
        _POOLS.clear()
        _STARTS.clear()
    for pool in pools:
        # a worker still busy at exit (a kernel's warm-up load, an abandoned chunk: its run is over or was
        # interrupted) ends now instead of holding this process up; idle workers simply exit
        _stop(pool, terminate=True)
    for entry in _CLIENTS.values():
        _close(entry)
    _CLIENTS.clear()


atexit.register(shutdown)


@contextmanager
def executor_for(workers: int, scheduler: str | None, calls: int = 0, pool_after: float = 0.0,
                 warm_up: Callable | None = None, when_idle: bool = False) -> Iterator[tuple[Executor, int]]:
    """An executor for chunks and how many chunks to keep in flight on it.

    In-flight chunks are bounded (two per worker: one running, one queued) so
    memory stays flat however many chunks a run has.  Several local workers
    get an :class:`InlineUntilPool` for ``calls`` calls (``pool_after``: when
    to start the pool; ``warm_up``: what each worker does first; ``when_idle``:
    only while cores are idle).
    """
    check_scheduler(scheduler)
    if scheduler is not None:
        client = dask_client(scheduler, workers)
        yield client.get_executor(pure=False), 2 * max(sum(client.nthreads().values()), 1)
    elif workers == 1:
        yield InlineExecutor(), 1
    else:
        yield InlineUntilPool(workers, calls, pool_after, warm_up, when_idle), 2 * workers
