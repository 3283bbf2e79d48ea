"""Where chunks run: threads of this process, or a Dask cluster.

Every backend is a :class:`concurrent.futures.Executor`, so the code that
schedules chunks and merges them in match order (:mod:`bergen_sim.services.execution.jobs`)
is the same for all of them, and their results are identical.

- This machine: :class:`ThreadWorkers`, ``workers`` threads of this process.
  The compiled kernel plays without holding the GIL (``run_matches`` in
  engine/match_loop.py), so the threads play on every core at once.  Why
  threads and not processes: a thread starts in microseconds and shares the
  kernel this process compiled or loaded, while a pool of processes cost
  about 0.7 s of a core before its first chunk (a forkserver imported Numba,
  each worker loaded the kernel), so runs of a few seconds either played on
  one core or paid that start for every command (``benchmarks/sizes.py``
  measured both trees: its ``old`` rows).  What processes gave for free, a
  worker that stops at once, threads get from the kernel: each chunk is
  handed the executor's halt flag, which the kernel reads before every
  match, so a stopped run's chunks return after the match they are playing
  (:meth:`ThreadWorkers.halt`).  No helper process, so nothing can outlive
  this one.
- ``scheduler="local"`` starts a Dask ``LocalCluster`` (processes, one thread
  each, on 127.0.0.1); ``tcp://HOST:PORT`` uses an existing cluster, whose
  workers need the same bergen-sim version (checked) and any plug-in policy
  modules importable.  Clients and clusters are kept until :func:`shutdown`
  (at exit at the latest).  Their processes end with this one however it
  ends (:mod:`bergen_sim.services.execution.lifeline`).
"""

from __future__ import annotations

import atexit
import importlib.util
import logging
import os
import signal
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import Executor, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

from bergen_sim._version import __version__
from bergen_sim.core.errors import BergenError, cut, reason_of
from bergen_sim.services.execution import lifeline

#: seconds to wait for a Dask scheduler before giving up
CONNECT_TIMEOUT = 15
#: seconds more for the whole handshake and the workers' version check (a service that accepts the
#: connection and then says nothing, or is not Dask at all, would otherwise keep a run waiting for ever)
ANSWER_TIMEOUT = 15
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
    if scheduler is not None and scheduler != "local":
        from urllib.parse import urlsplit

        try:  # an impossible port is refused now, not after Dask's connect timeout
            port = urlsplit(scheduler).port
        except ValueError:
            port = 0
        if port == 0:
            raise BergenError(f"scheduler {scheduler!r}: the port must be a number 1..65535, as in tcp://HOST:8786")
    if scheduler is not None and not dask_installed():
        raise BergenError(
            "--scheduler needs Dask, an optional extra: pip install 'bergen-sim[dask]' "
            "(in a checkout: pip install -e '.[dask]')"
        )


class ThreadWorkers(ThreadPoolExecutor):
    """``workers`` threads that play chunks, with one halt flag for all of them (see the module note).

    A chunk function that takes a ``halt`` keyword (:func:`bergen_sim.services.execution.jobs.run_chunk`) is handed
    :attr:`halt_flag`; :meth:`halt` sets it, so every chunk running returns after the match it is playing.
    """

    def __init__(self, workers: int):
        from bergen_sim.runtime.runner import halt_flag  # here: only a run that plays needs the engine's modules

        super().__init__(workers, thread_name_prefix="bergen-sim-worker")
        #: the kernel's stop flag (``RunBuffers.halt``) shared by every chunk of this executor
        self.halt_flag = halt_flag()

    def halt(self) -> None:
        """Ask every running chunk to stop after its match (those not started yet should be cancelled)."""
        self.halt_flag[0] = 1


@contextmanager
def _without_main_module() -> Iterator[None]:
    """Start processes that will not re-run the caller's script.

    ``spawn`` and ``forkserver`` children import the parent's ``__main__`` so
    that functions defined there can be unpickled.  Our workers only run
    :func:`bergen_sim.services.execution.jobs.run_chunk`, so they never need it, and
    importing it would run again, in every worker, a script that calls
    ``simulate()`` at top level (and fail there).
    """
    main = sys.modules["__main__"]
    saved: dict[str, Any] = {key: main.__dict__[key] for key in ("__file__", "__spec__") if key in main.__dict__}
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


def _worker_version() -> str:
    return __version__


def _start_local_cluster(workers: int) -> tuple[Any, Any]:
    from dask.distributed import Client, LocalCluster  # imported only when asked for: it is slow to import

    lifeline.mark_parent()  # its processes, when they import bergen-sim, end when this process does
    with _without_main_module(), _ignoring_sigint():  # ":0": HTTP server on a free loopback port, not 8787
        cluster = LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        )
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
        raise BergenError(
            f"no answer from a Dask scheduler at {scheduler} within "
            f"{CONNECT_TIMEOUT + ANSWER_TIMEOUT} s: is a Dask scheduler listening there?"
        )
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
        raise BergenError(
            f"cannot reach the Dask scheduler at {scheduler}: it does not speak Dask's protocol ({type(exc).__name__})"
        ) from None
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
        raise BergenError(
            f"Dask worker {address} has bergen-sim {version}, this is {__version__}: "
            "install the same version on every worker"
        )
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
    """Stop every Dask client and LocalCluster this process started."""
    for entry in _CLIENTS.values():
        _close(entry)
    _CLIENTS.clear()


atexit.register(shutdown)


@contextmanager
def executor_for(workers: int, scheduler: str | None) -> Iterator[tuple[Executor, int]]:
    """An executor for chunks and how many chunks to keep in flight on it.

    In-flight chunks are bounded (two per worker: one running, one queued) so
    memory stays flat however many chunks a run has.  On this machine the
    threads end with the block: chunks not started are cancelled; running
    ones finish when the block ends normally, and are halted after their
    current match when it ends by an exception (Ctrl-C, a failure, a caller
    that stopped iterating), whose results nobody will read.
    """
    check_scheduler(scheduler)
    if scheduler is not None:
        client = dask_client(scheduler, workers)
        yield client.get_executor(pure=False), 2 * max(sum(client.nthreads().values()), 1)
        return
    executor = ThreadWorkers(workers)
    try:
        yield executor, 2 * workers
    except BaseException:
        executor.halt()
        raise
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
