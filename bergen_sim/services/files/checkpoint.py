"""Checkpoints: finished chunks kept on disk so an interrupted run can resume.

A checkpoint is a folder holding ``manifest.json`` (the run's arguments:
rules, seat policies, seed, matches, chunk size, which rows are kept, package
version) and one ``chunk-FIRST-COUNT.npz`` per finished chunk.  Why this
shape:

- Every file is written under a temporary name and moved into place with
  ``os.replace``, so a run killed at any instant leaves either a whole chunk
  or none (a leftover temporary file is ignored and overwritten).
- Results only make sense together when they come from the same arguments,
  so a folder made by another run is refused, never mixed in; so is a chunk
  that cannot be read back whole (``.npz`` members carry a CRC).  The chunk
  size is the exception: it never changes results, so a run resumed with
  another one keeps the folder's manifest and chunks and plays the matches
  still missing in chunks of the new size.
- Because the engine's randomness is keyed on (seed, match, hand), a chunk
  read back is exactly the chunk that would be played again, so a resumed
  run ends with the totals of an uninterrupted one.
- One run per folder at a time: a run holds an exclusive ``flock`` on
  ``.lock`` while it plays (the kernel drops it when the process dies, even
  by SIGKILL, so a killed run never blocks the next one); a second run
  is refused in one line instead of mixing its chunks in.
- Each chunk carries the hash of its run's manifest (member ``run``), so a
  chunk file copied from another run's folder is refused, not summed.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import re
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from bergen_sim.core.errors import BergenError, shown
from bergen_sim.engine import layout as L
from bergen_sim.runtime.runner import Chunk
from bergen_sim.services.files.output import check_folder

#: 3: run totals hold per-match sums for the per-hand intervals (and match rows two more columns)
FORMAT = "bergen-sim-checkpoint/3"
MANIFEST = "manifest.json"
LOCK = ".lock"
#: the members of a chunk file (``first.npy``, the chunk's first match, in files written since it was added)
MEMBERS = {"totals.npy", "match_rows.npy", "hand_rows.npy", "run.npy", "first.npy"}
#: ... and of the files of format 3 written before it: still read
_MEMBERS_BEFORE_FIRST = MEMBERS - {"first.npy"}
_CHUNK_NAME = re.compile(r"chunk-(\d+)-(\d+)\.npz")
#: manifest entries a resumed run may change: how the matches are cut into chunks changes no result
FREE_KEYS = ("chunk_size",)


class CheckpointError(BergenError):
    """A checkpoint folder that belongs to another run or is damaged."""


def _atomic_write(path: Path, write) -> None:
    """Write a file under a temporary name, flush it to disk, then move it into place."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _lock(folder: Path):
    """An exclusive lock on the folder for this run, or a CheckpointError when another run holds it.

    ``flock`` rather than a lock file's mere existence: the kernel releases it
    when the holder dies, however it dies.  Where there is no ``fcntl``
    (Windows) runs are not locked.
    """
    try:
        import fcntl
    except ImportError:
        return None
    path = folder / LOCK
    try:
        handle = open(path, "a+")
    except OSError as exc:
        raise CheckpointError(f"checkpoint {folder}: cannot create {LOCK} ({exc.strerror or exc})") from None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        holder = handle.read().strip() or "unknown"
        handle.close()
        raise CheckpointError(
            f"checkpoint {folder} is in use by another run (process {holder}); "
            "wait for it to finish, or use another folder"
        ) from None
    handle.seek(0)
    handle.truncate()
    handle.write(str(os.getpid()))
    handle.flush()
    return handle


def _foreign(folder: Path) -> list[str]:
    """The names in a run's checkpoint folder that no checkpoint writes (a lock, a manifest, chunks)."""
    return sorted(
        p.name
        for p in folder.iterdir()
        if p.name != LOCK and not p.name.startswith(MANIFEST) and not p.match("chunk-*.npz")
    )


def _is_rotation(path: Path) -> bool:
    """Whether ``path`` may be a rotation's checkpoint in a compare folder: a folder named after its seat
    policies, ``A+B...`` (``bergen_sim.services.comparison._checkpoint_folder``), holding only what a checkpoint writes."""
    return "+" in path.name and path.is_dir() and not path.is_symlink() and not _foreign(path)


def check_own_folder(folder: str | os.PathLike, rotations: bool = False) -> None:
    """Refuse a checkpoint folder that holds files no checkpoint wrote (CheckpointError, one line).

    A new checkpoint gets a folder of its own: chunk files and a lock are never
    written among a user's files.  A missing or empty folder passes; so does a
    run's checkpoint (it has ``manifest.json``, checked when opened).
    ``rotations``: the folder of ``compare --checkpoint``, which holds one run
    checkpoint per seat rotation in subfolders and nothing else (a run's own
    checkpoint is refused there, never mixed with rotations).
    """
    folder = Path(folder)
    if not folder.is_dir():
        return
    if rotations:
        if (folder / MANIFEST).exists():
            raise CheckpointError(
                f"checkpoint {folder} is the checkpoint of a single run ({MANIFEST}), not of a "
                "compare; give a new or empty folder"
            )
        theirs = sorted(p.name for p in folder.iterdir() if not _is_rotation(p))
    elif (folder / MANIFEST).exists():
        return
    else:
        theirs = _foreign(folder)
    if theirs:
        raise CheckpointError(
            f"checkpoint {folder} holds other files ({shown(theirs[0], 40)}"
            f"{f' and {len(theirs) - 1:,} more' if len(theirs) > 1 else ''}) and is not a "
            "checkpoint; give a new or empty folder"
        )


class Checkpoint:
    """The finished chunks of one run, in a folder.

    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> store = Checkpoint(folder, {"seed": 1, "matches": 10})
    >>> store.saved()
    {}
    >>> store.close()  # a run holds the folder until it ends
    >>> Checkpoint(folder, {"seed": 2, "matches": 10})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    bergen_sim.services.files.checkpoint.CheckpointError: checkpoint ... was made with other arguments (seed: 1 there, 2 here); ...
    """

    def __init__(self, folder: str | os.PathLike, manifest: Mapping[str, Any]):
        self.folder = Path(folder)
        self.manifest = {"format": FORMAT, **json.loads(json.dumps(dict(manifest)))}
        if self.folder.exists() and not self.folder.is_dir():
            raise CheckpointError(f"checkpoint {self.folder} is a file, not a folder")
        check_folder(self.folder, "--checkpoint")
        check_own_folder(self.folder)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CheckpointError(f"checkpoint {self.folder}: cannot create it ({exc.strerror or exc})") from None
        self._lock = _lock(self.folder)
        path = self.folder / MANIFEST
        if path.exists():
            self.manifest = self._check_manifest(path)  # the folder's, whose chunk size may differ from this run's
        elif any(self.folder.glob("chunk-*.npz")):
            raise CheckpointError(f"checkpoint {self.folder} is damaged: chunk files without {MANIFEST}")
        else:
            _atomic_write(path, lambda h: h.write(json.dumps(self.manifest, indent=1).encode()))
        #: hash of the folder's manifest, stored in every chunk: a chunk of another run is refused
        self.run_id = hashlib.sha256(json.dumps(self.manifest, sort_keys=True).encode()).hexdigest()[:32]

    def _check_manifest(self, path: Path) -> dict[str, Any]:
        """The folder's manifest, if it is this run's (all but :data:`FREE_KEYS` equal); else CheckpointError."""
        try:
            found = json.loads(path.read_text())
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:  # also nesting too deep to read
            why = "nested too deep" if isinstance(exc, RecursionError) else shown(str(exc), 80)
            raise CheckpointError(f"checkpoint {self.folder} is damaged: cannot read {MANIFEST} ({why})") from None
        if (
            isinstance(found, dict)
            and str(found.get("format", "")).startswith("bergen-sim-checkpoint/")
            and found["format"] != FORMAT
        ):
            raise CheckpointError(
                f"checkpoint {self.folder} was made by another bergen-sim version (format "
                f"{found['format']}, this one reads {FORMAT}); delete it to start over"
            )
        if not isinstance(found, dict) or found.get("format") != FORMAT:
            raise CheckpointError(f"{self.folder} is not a bergen-sim checkpoint ({MANIFEST} has no format {FORMAT})")
        for key in sorted(set(found) | set(self.manifest)):
            there, here = found.get(key), self.manifest.get(key)
            if there != here and key not in FREE_KEYS:
                if isinstance(there, dict) and isinstance(here, dict):  # the rules: name the settings that differ
                    key, there, here = _first_difference(key, there, here)
                raise CheckpointError(
                    f"checkpoint {self.folder} was made with other arguments ({key}: {shown(there, 60)} there, "
                    f"{shown(here, 60)} here); use another folder, or delete this one to start over"
                )
        return found

    def saved(self) -> dict[tuple[int, int], Path]:
        """The finished chunks in the folder, as (first match, count) -> file."""
        found = {}
        for path in self.folder.glob("chunk-*.npz"):
            match = _CHUNK_NAME.fullmatch(path.name)
            if match:
                found[(int(match[1]), int(match[2]))] = path
        return dict(sorted(found.items()))

    def check(self, expected: set[tuple[int, int]]) -> None:
        """Refuse chunk files that are not chunks of this run, or whose archive is truncated.

        Member contents are verified (CRC) when a chunk is loaded.
        """
        for key, path in self.saved().items():
            if key not in expected:
                raise CheckpointError(
                    f"checkpoint {self.folder} is damaged: {path.name} is not a chunk of this run; "
                    "delete the folder to start over"
                )
            try:
                with zipfile.ZipFile(path) as archive:
                    names = set(archive.namelist())
            except (OSError, zipfile.BadZipFile) as exc:
                raise self._damaged(path, exc) from None
            if names not in (MEMBERS, _MEMBERS_BEFORE_FIRST):
                raise self._damaged(path, f"members {sorted(names)}")

    def _damaged(self, path: Path, why: Any) -> CheckpointError:
        return CheckpointError(
            f"checkpoint chunk {path} is damaged ({why}); delete that file to play its matches again"
        )

    def path_of(self, first: int, count: int) -> Path:
        """The file of chunk (first, count)."""
        return self.folder / f"chunk-{first:012d}-{count}.npz"

    def save(self, chunk: Chunk) -> None:
        """Keep a finished chunk (atomically)."""
        count = int(chunk.totals[L.S_MATCHES])
        _atomic_write(
            self.path_of(chunk.first_match, count),
            lambda h: np.savez(
                h,
                totals=chunk.totals,
                match_rows=chunk.match_rows,
                hand_rows=chunk.hand_rows,
                run=np.array(self.run_id),
                first=np.array(chunk.first_match, dtype=np.int64),
            ),
        )

    def close(self) -> None:
        """Let another run use the folder."""
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def load(self, first: int, count: int, match_rows: bool, hands_per_match: int = 0) -> Chunk:
        """A saved chunk, verified whole and consistent with its name and the run's row options.

        ``hands_per_match``: the hand rows a match can have at most (``Rules.most_hands`` when the run keeps
        hand rows, else 0).  No member is read beyond what a chunk of ``count`` matches could hold, so a
        damaged or crafted file is refused before it takes more memory than that.
        """
        path = self.path_of(first, count)
        most = {
            "totals.npy": L.S_SIZE,
            "match_rows.npy": count * L.M_WIDTH if match_rows else 0,
            "hand_rows.npy": count * hands_per_match * L.H_WIDTH,
            "first.npy": 1,
        }
        try:
            data = _read_members(path, {name: 8 * items for name, items in most.items()} | {"run.npy": _RUN_BYTES})
            chunk = Chunk(first, data["totals"], data["match_rows"], data["hand_rows"])
            run = str(data["run"])
            # the chunk's own first match (a chunk without one is taken at its name's word): a chunk copied over
            # another of the same size is otherwise indistinguishable in a summary run
            saved_first = int(data["first"]) if "first" in data else first
        except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile, EOFError) as exc:
            raise self._damaged(path, exc) from None
        if run != self.run_id:
            raise CheckpointError(
                f"checkpoint chunk {path} belongs to another run (a copied file?); "
                "delete that file to play its matches again"
            )
        problem = _inconsistency(chunk, count, match_rows) or (
            f"it holds the chunk from match {saved_first}" if saved_first != first else None
        )
        if problem:
            raise self._damaged(path, problem)
        return chunk


#: bytes of a chunk's ``run`` member (the run id: 32 characters of 4 bytes in NumPy's text arrays)
_RUN_BYTES = 32 * 4
#: bytes an ``.npy`` member may spend on its header (NumPy pads it to a multiple of 64; a few hundred in practice)
_NPY_HEADER_MOST = 4096


def _read_members(path: Path, most: Mapping[str, int]) -> dict[str, np.ndarray]:
    """The ``.npy`` members of the archive ``path`` as arrays, reading no member beyond ``most[name]`` bytes of
    data (ValueError when one would hold more, or its header does not match its data).

    ``np.load`` would allocate whatever shape a member's header claims, and a compressed member may expand to
    any size: here the archive's member is decompressed at most to the bound, then its header is checked
    against the bytes actually there before any array is made.
    """
    arrays = {}
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            if info.filename not in most:
                raise ValueError(f"member {shown(info.filename)}")
            limit = most[info.filename] + _NPY_HEADER_MOST
            if info.file_size > limit:
                raise ValueError(
                    f"{info.filename} holds {info.file_size:,} bytes, more than a chunk of this run could ({limit:,})"
                )
            with archive.open(info) as member:
                raw = member.read(limit + 1)  # the decompressor stops here, whatever the member claims
            if len(raw) > limit:
                raise ValueError(f"{info.filename} expands beyond the {limit:,} bytes a chunk of this run could hold")
            arrays[info.filename[: -len(".npy")]] = _npy_array(raw, info.filename)
    return arrays


def _npy_array(raw: bytes, name: str) -> np.ndarray:
    """The array an ``.npy`` file's bytes hold, made only after its header is checked against its data."""
    stream = io.BytesIO(raw)
    version = np.lib.format.read_magic(stream)
    read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
    shape, fortran_order, dtype = read_header(stream, max_header_size=_NPY_HEADER_MOST)
    if dtype.hasobject:
        raise ValueError(f"{name} holds Python objects")
    items = math.prod(shape)
    if items * dtype.itemsize != len(raw) - stream.tell():
        raise ValueError(f"{name}'s header says {shape}, its data is {len(raw) - stream.tell():,} bytes")
    flat = np.frombuffer(raw, dtype=dtype, count=items, offset=stream.tell())
    return flat.reshape(shape, order="F" if fortran_order else "C").copy()


def _inconsistency(chunk: Chunk, count: int, match_rows: bool) -> str | None:
    """What makes a loaded chunk unlike the one its name promises, if anything."""
    if chunk.totals.shape != (L.S_SIZE,):
        return f"totals of shape {chunk.totals.shape}"
    if int(chunk.totals[L.S_MATCHES]) != count:
        return f"{int(chunk.totals[L.S_MATCHES])} matches instead of {count}"
    rows = chunk.match_rows
    want = (count if match_rows else 0, L.M_WIDTH)
    if rows.shape != want:
        return f"match rows of shape {rows.shape} instead of {want}"
    if match_rows and count and int(rows[0, L.M_MATCH]) != chunk.first_match:
        return f"match rows start at match {int(rows[0, L.M_MATCH])}"
    if chunk.hand_rows.ndim != 2 or chunk.hand_rows.shape[1] != L.H_WIDTH:
        return f"hand rows of shape {chunk.hand_rows.shape}"
    return None


def _first_difference(key: str, there: dict, here: dict) -> tuple[str, object, object]:
    """The first entry in which two manifest tables (the rules) differ, as (``key.entry``, there, here)."""
    entry = next(k for k in sorted(set(there) | set(here), key=str) if there.get(k) != here.get(k))
    return f"{key}.{entry}", there.get(entry), here.get(entry)
