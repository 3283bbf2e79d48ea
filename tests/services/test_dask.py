"""Dask backends give exactly the local result: an existing cluster (tcp://) and ``--scheduler local``.

The cluster runs on loopback only (127.0.0.1), two worker processes with one
thread each, and is shut down at the end of the module.
"""

from __future__ import annotations

import json
import logging
import threading

import pytest

from bergen_sim import RunOptions
from bergen_sim.cli import main
from bergen_sim.core.errors import BergenError
from bergen_sim.services.execution import parallel
from bergen_sim.services.simulation import simulate

# Dask is an optional extra: skipped where it is not installed (the README's light test run); .ci/run
# installs the test-full extra and checks Dask imports before it runs these tests (`-m extras`)
distributed = pytest.importorskip("distributed")

ARGS = dict(matches=4_000, seed=17)
CHUNK = 500
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
def local():
    return simulate(rows=True, **ARGS, options=RunOptions(workers=1, chunk_size=CHUNK))


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=":0",
        silence_logs=logging.ERROR,
    ) as cluster:
        yield cluster
        parallel.shutdown()  # the clients connected to it


@pytest.mark.slow
def test_existing_cluster_gives_the_local_result(cluster, local):
    result = simulate(rows=True, **ARGS, options=RunOptions(scheduler=cluster.scheduler_address, chunk_size=CHUNK))
    assert what(result.summary) == what(local.summary)
    assert result.matches.equals(local.matches)
    assert result.summary["scheduler"] == cluster.scheduler_address


@pytest.mark.slow
def test_cli_scheduler_local_gives_the_local_result(capsys, local):
    args = [
        "simulate",
        "--matches",
        str(ARGS["matches"]),
        "--seed",
        str(ARGS["seed"]),
        "--chunk-size",
        "1000",
        "--scheduler",
        "local",
        "--workers",
        "2",
        "--json",
    ]
    try:
        assert main(args) == 0
        summary = json.loads(capsys.readouterr().out)
        assert what(summary) == what(local.summary)
        again = simulate(
            **ARGS, options=RunOptions(workers=2, scheduler="local", chunk_size=CHUNK)
        )  # a later run reuses the same cluster
        assert what(again.summary) == what(local.summary)
        assert [key for key in parallel._CLIENTS if key[0] == "local"] == [("local", 2)]
    finally:
        parallel.shutdown()
    assert not parallel._CLIENTS


def test_unreachable_scheduler_is_a_one_line_error(monkeypatch):
    monkeypatch.setattr("bergen_sim.services.execution.parallel.CONNECT_TIMEOUT", 1)
    with pytest.raises(BergenError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        simulate(matches=10, options=RunOptions(scheduler="tcp://127.0.0.1:9"))


@pytest.fixture
def not_dask():
    """A TCP service on 127.0.0.1 that is not Dask: it sends an HTTP error and closes, or accepts and says nothing."""
    import socket

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    held = []

    def serve(mode: str) -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:  # closed at the end of the test
                return
            if mode == "http":
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
                conn.close()
            else:
                held.append(conn)

    def start(mode: str) -> str:
        threading.Thread(target=serve, args=(mode,), daemon=True).start()
        return f"tcp://127.0.0.1:{listener.getsockname()[1]}"

    yield start
    listener.close()
    for conn in held:
        conn.close()


@pytest.mark.parametrize(
    "mode, says",
    [
        ("http", "cannot reach the Dask scheduler at tcp://127.0.0.1:"),  # was a traceback: bytes read as exabytes
        ("silent", "within 2 s: is a Dask scheduler listening there?"),  # before, a run waited for ever
    ],
)
def test_a_service_that_is_not_dask_is_a_one_line_error(monkeypatch, not_dask, mode, says):
    monkeypatch.setattr("bergen_sim.services.execution.parallel.CONNECT_TIMEOUT", 1)
    monkeypatch.setattr("bergen_sim.services.execution.parallel.ANSWER_TIMEOUT", 1)
    with pytest.raises(BergenError) as caught:
        simulate(matches=10, options=RunOptions(scheduler=not_dask(mode)))
    assert says in str(caught.value) and "\n" not in str(caught.value)
