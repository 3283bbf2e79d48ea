"""Checkpoints: interrupted runs resume to identical totals; foreign or damaged ones are refused."""

from __future__ import annotations

import glob
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bergen_sim.cli import main
from bergen_sim.model.rules import Rules
from bergen_sim.services.execution.jobs import Job, RunOptions, run_job
from bergen_sim.services.files.checkpoint import CheckpointError
from bergen_sim.services.simulation import simulate
from tests.helpers import ctrl_c_as_on_a_terminal, error_lines

JOB = Job(Rules.make(players=2), ("random", "random"), seed=21, match_rows=True)
MATCHES, CHUNK = 2_000, 250
HOW = {"elapsed_s", "matches_per_s", "hands_per_s", "startup_s", "workers", "scheduler", "resumed_matches"}


def totals(chunks) -> tuple[np.ndarray, np.ndarray]:
    chunks = list(chunks)
    return sum(c.totals for c in chunks), np.concatenate([c.match_rows for c in chunks])


@pytest.fixture(scope="module")
def uninterrupted():
    return totals(run_job(JOB, MATCHES, RunOptions(workers=1, chunk_size=CHUNK)))


def stop_after(k: int, folder: Path, workers: int) -> None:
    """Play a checkpointed run and abandon it after k chunks (as a killed run would stop)."""
    run = iter(run_job(JOB, MATCHES, RunOptions(workers=workers, checkpoint=str(folder), chunk_size=CHUNK)))
    for _ in range(k):
        next(run)
    run.close()


@pytest.mark.parametrize("workers", [1, 2])
def test_resumed_run_equals_uninterrupted(tmp_path, uninterrupted, workers):
    stop_after(3, tmp_path, workers)
    saved = sorted(p.name for p in tmp_path.glob("chunk-*.npz"))
    assert 3 <= len(saved) < MATCHES // CHUNK
    resumed = run_job(JOB, MATCHES, RunOptions(workers=workers, checkpoint=str(tmp_path), chunk_size=CHUNK))
    result = totals(resumed)
    assert resumed.resumed == CHUNK * len(saved)
    assert np.array_equal(result[0], uninterrupted[0])
    assert np.array_equal(result[1], uninterrupted[1])
    again = run_job(JOB, MATCHES, RunOptions(checkpoint=str(tmp_path), chunk_size=CHUNK))
    assert again.resumed == MATCHES  # a finished checkpoint plays nothing
    assert np.array_equal(totals(again)[0], uninterrupted[0])


@pytest.mark.parametrize(
    "change, key",
    [
        ({"seed": 22}, "seed"),
        ({"policies": ("random", "first")}, "policies"),
        ({"rules": Rules.make(players=2, target=10)}, "rules.target"),
        ({"match_rows": False}, "match_rows"),
    ],
)
def test_checkpoint_of_other_arguments_is_refused(tmp_path, change, key):
    stop_after(1, tmp_path, 1)
    other = Job(**{**JOB.__dict__, **change})
    with pytest.raises(CheckpointError, match=f"made with other arguments \\({key}: "):
        run_job(other, MATCHES, RunOptions(checkpoint=str(tmp_path), chunk_size=CHUNK))
    with pytest.raises(CheckpointError, match="other arguments"):
        run_job(JOB, MATCHES + 1, RunOptions(checkpoint=str(tmp_path), chunk_size=CHUNK))


@pytest.mark.parametrize("chunk", [CHUNK + 1, 100, 2_000])
def test_a_run_resumed_with_another_chunk_size_keeps_its_chunks_and_ends_the_same(tmp_path, uninterrupted, chunk):
    stop_after(3, tmp_path, 1)
    saved = sorted(p.name for p in tmp_path.glob("chunk-*.npz"))
    run = run_job(JOB, MATCHES, RunOptions(workers=1, checkpoint=str(tmp_path), chunk_size=chunk))
    result = totals(run)
    assert run.resumed == CHUNK * len(saved)  # nothing saved was played again
    assert np.array_equal(result[0], uninterrupted[0]) and np.array_equal(result[1], uninterrupted[1])
    again = run_job(JOB, MATCHES, RunOptions(checkpoint=str(tmp_path), chunk_size=CHUNK - 1))
    assert again.resumed == MATCHES and np.array_equal(totals(again)[0], uninterrupted[0])


def damage_truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def damage_flip_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 3] ^= 0xFF  # inside the stored match rows: the member CRC no longer matches
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", [damage_truncate, damage_flip_byte])
def test_damaged_chunk_is_refused(tmp_path, damage):
    stop_after(2, tmp_path, 1)
    victim = sorted(tmp_path.glob("chunk-*.npz"))[1]
    damage(victim)
    with pytest.raises(CheckpointError, match=f"chunk {re.escape(str(victim))} is damaged .*delete that file"):
        list(run_job(JOB, MATCHES, RunOptions(checkpoint=str(tmp_path), chunk_size=CHUNK)))


def _replace_member(path: Path, name: str, shape: tuple[int, ...], data_bytes: int, method: int) -> None:
    """Rewrite one member of a chunk file: an int64 .npy header claiming ``shape``, then ``data_bytes`` zeros."""
    import io
    import zipfile

    with zipfile.ZipFile(path) as archive:
        members = {n: archive.read(n) for n in archive.namelist()}
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<i8", "fortran_order": False, "shape": shape})
    with zipfile.ZipFile(path, "w", method) as archive:
        for other, data in members.items():
            if other != name:
                archive.writestr(other, data)
        with archive.open(name, "w", force_zip64=True) as member:
            member.write(header.getvalue())
            zeros = bytes(1 << 20)
            for start in range(0, data_bytes, len(zeros)):
                member.write(zeros[: min(len(zeros), data_bytes - start)])


@pytest.mark.parametrize(
    "claimed_rows, stored_rows, method, words",
    [
        (400_000, 400_000, "deflated", "match_rows.npy holds 64,000,128 bytes, more than a chunk of this run could"),
        (3_000_000, 10, "stored", "match_rows.npy's header says (3000000, 20), its data is 1,600 bytes"),
    ],
)
def test_a_chunk_that_would_expand_beyond_its_run_is_refused_before_it_takes_the_memory(
    tmp_path, claimed_rows, stored_rows, method, words
):
    import tracemalloc
    import zipfile

    from bergen_sim.engine import layout as L
    from bergen_sim.services.execution.jobs import manifest
    from bergen_sim.services.files.checkpoint import Checkpoint

    stop_after(1, tmp_path, 1)
    victim = sorted(tmp_path.glob("chunk-*.npz"))[0]
    _replace_member(
        victim,
        "match_rows.npy",
        (claimed_rows, L.M_WIDTH),
        stored_rows * L.M_WIDTH * 8,
        zipfile.ZIP_DEFLATED if method == "deflated" else zipfile.ZIP_STORED,
    )
    assert victim.stat().st_size < 400_000  # a small file ...
    store = Checkpoint(tmp_path, manifest(JOB, MATCHES, CHUNK))
    tracemalloc.start()
    try:
        with pytest.raises(CheckpointError, match=re.escape(words)):
            store.load(0, CHUNK, JOB.match_rows)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        store.close()
    assert peak < 2_000_000  # ... that is refused having read no more than a chunk of 250 matches holds (40 kB)


def test_a_chunk_copied_over_another_is_refused_in_a_summary_run(tmp_path):
    """Without match rows only the chunk's own record of its first match tells two chunks of one size apart."""
    job = Job(Rules.make(players=2), ("random", "random"), seed=21, match_rows=False)
    run = iter(run_job(job, 40, RunOptions(workers=1, checkpoint=str(tmp_path), chunk_size=10)))
    for _ in range(2):
        next(run)
    run.close()
    first, second = sorted(tmp_path.glob("chunk-*.npz"))[:2]
    second.write_bytes(first.read_bytes())
    with pytest.raises(
        CheckpointError,
        match=f"chunk {re.escape(str(second))} is damaged \\(it holds the chunk from match 0\\); delete that file",
    ):
        list(run_job(job, 40, RunOptions(workers=1, checkpoint=str(tmp_path), chunk_size=10)))


def test_chunks_written_before_they_kept_their_first_match_still_resume(tmp_path, uninterrupted):
    stop_after(2, tmp_path, 1)
    for path in tmp_path.glob("chunk-*.npz"):
        with np.load(path) as data:
            kept = {key: data[key] for key in data.files if key != "first"}
        np.savez(path, **kept)
    resumed = totals(run_job(JOB, MATCHES, RunOptions(workers=1, checkpoint=str(tmp_path), chunk_size=CHUNK)))
    assert np.array_equal(resumed[0], uninterrupted[0]) and np.array_equal(resumed[1], uninterrupted[1])


def test_damaged_manifest_and_stray_files_are_refused(tmp_path):
    stop_after(1, tmp_path, 1)
    (tmp_path / "chunk-000000000007-5.npz").write_bytes(b"")
    with pytest.raises(CheckpointError, match="is not a chunk of this run"):
        run_job(JOB, MATCHES, RunOptions(checkpoint=str(tmp_path), chunk_size=CHUNK))
    (tmp_path / "manifest.json").write_text('{"format": "bergen-sim-check')
    with pytest.raises(CheckpointError, match="damaged: cannot read manifest.json"):
        run_job(JOB, MATCHES, RunOptions(checkpoint=str(tmp_path), chunk_size=CHUNK))


def test_cli_refuses_other_arguments_in_one_line(tmp_path, capsys):
    args = ["simulate", "--matches", "1000", "--checkpoint", str(tmp_path), "--json"]
    assert main([*args, "--seed", "1"]) == 0
    capsys.readouterr()
    assert main([*args, "--seed", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "other arguments (seed: 1 there, 2 here)" in err
    assert main([*args, "--seed", "1", "--set", "target=10"]) == 2  # only the setting that differs, not all rules
    err = capsys.readouterr().err
    assert (
        err.count("\n") == 1
        and "other arguments (rules.target: 15 there, 10 here)" in err
        and len(err) < 150 + len(str(tmp_path))
    )


def test_resumed_parquet_equals_uninterrupted(tmp_path):
    folder = tmp_path / "ckpt"
    stop_after(3, folder, 2)
    out = tmp_path / "rows.parquet"
    kwargs = dict(matches=MATCHES, seed=JOB.seed)
    resumed = simulate(out=str(out), **kwargs, options=RunOptions(checkpoint=str(folder), chunk_size=CHUNK))
    plain = simulate(rows=True, **kwargs, options=RunOptions(workers=1, chunk_size=CHUNK))
    assert resumed.summary["resumed_matches"] >= 3 * CHUNK
    assert {k: v for k, v in resumed.summary.items() if k not in HOW} == {
        k: v for k, v in plain.summary.items() if k not in HOW
    }
    written = pd.read_parquet(out)
    assert set(written["run_id"]) == {resumed.run_id}
    assert written.drop(columns="run_id").equals(plain.matches)


@pytest.mark.slow
def test_ctrl_c_keeps_chunks_says_how_to_resume_and_resume_matches(tmp_path):
    """A real interruption: SIGINT to a CLI run in a subprocess, then the same run again."""
    folder = tmp_path / "ckpt"
    cli = "import sys; from bergen_sim.cli import main; sys.exit(main())"
    args = [
        sys.executable,
        "-c",
        cli,
        "simulate",
        "--matches",
        "200000",
        "--chunk-size",
        "1000",
        "--seed",
        "9",
        "--workers",
        "2",
        "--checkpoint",
        str(folder),
        "--json",
    ]
    process = subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=ctrl_c_as_on_a_terminal
    )
    deadline = time.monotonic() + 120
    while len(glob.glob(str(folder / "chunk-*.npz"))) < 2 and process.poll() is None:
        assert time.monotonic() < deadline, "no chunk was saved"
        time.sleep(0.005)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    saved = len(list(folder.glob("chunk-*.npz")))
    assert process.returncode == 130, err
    assert out == "" and "Traceback" not in err
    last = error_lines(err.strip())
    assert len(last) == 1 and "saved in" in last[0] and "run the same command again to resume" in last[0]
    assert 2 <= saved < 200

    resumed = simulate(
        matches=200_000, seed=9, options=RunOptions(checkpoint=str(folder), chunk_size=1_000)
    )  # the same arguments
    assert resumed.summary["resumed_matches"] == saved * 1_000
    fresh = simulate(matches=200_000, seed=9, options=RunOptions(chunk_size=20_000))
    assert {k: v for k, v in resumed.summary.items() if k not in HOW} == {
        k: v for k, v in fresh.summary.items() if k not in HOW
    }


@pytest.mark.parametrize(
    "text, why",
    [
        ("[" * 100_000, "nested too deep"),
        ('{"format": ' + "9" * 5000 + "}", "cannot read manifest.json"),
        ("", "cannot read manifest.json"),
        ("[1]", "is not a bergen-sim checkpoint"),
    ],
)
def test_a_damaged_manifest_is_one_line(tmp_path, text, why):
    """Read as data and refused in one line naming the folder (a manifest nested too deep raised RecursionError)."""
    from bergen_sim.services.files.checkpoint import MANIFEST, Checkpoint

    (tmp_path / MANIFEST).write_text(text)
    with pytest.raises(CheckpointError, match=why) as refused:
        Checkpoint(tmp_path, {"seed": 1, "matches": 10})
    assert "\n" not in str(refused.value) and str(tmp_path) in str(refused.value)
