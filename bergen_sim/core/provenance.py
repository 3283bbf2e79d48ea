"""Where a result came from: version, command line, UTC time, and the git commit of a checkout.

Every file and JSON object bergen-sim writes carries :func:`record` (JSON
under the key ``provenance``, Parquet in the file's ``bergen_sim`` metadata),
so a number found later can be traced to the code and the command that made
it.  The commit is told only when the package runs from a git checkout (an
editable install or the source tree), with whether the tree had uncommitted
changes; an installed wheel has no commit to tell and says ``null``.
:func:`check_clean` refuses, before a run, a result to be written into that
checkout while it has uncommitted changes, so a published result names the
code that made it.

This module imports nothing heavy.
"""

from __future__ import annotations

import datetime as _dt
import functools
import os
import shlex
import subprocess
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bergen_sim._version import __version__
from bergen_sim.core.errors import BergenError

_SOURCE_ROOT = Path(__file__).resolve().parents[2]  # the checkout holding bergen_sim/core/provenance.py
_command: list[str] | None = None


def set_command(words: Sequence[str]) -> None:
    """Record the command line being run (the console script calls this; else ``sys.argv`` is used)."""
    global _command
    _command = list(words)


def command_line() -> str:
    """The command line of this run, shell-quoted."""
    return shlex.join(_command if _command is not None else sys.argv)


def new_run_id() -> str:
    """A fresh identifier for one run (random: two runs never share one)."""
    return uuid.uuid4().hex[:16]


def source_root() -> Path | None:
    """The git checkout the package runs from, or None when it is installed (no ``.git`` beside it)."""
    return _SOURCE_ROOT if (_SOURCE_ROOT / ".git").exists() and (_SOURCE_ROOT / "pyproject.toml").is_file() else None


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(_SOURCE_ROOT), *args], capture_output=True, text=True, timeout=10, check=True
    ).stdout


@functools.lru_cache(maxsize=1)
def git_state() -> dict[str, Any] | None:
    """``{"commit": sha, "dirty": bool}`` when the package runs from a git checkout, else None.

    Dirty means a tracked file differs from the commit, or a Python file is new: untracked data files do not
    count, as a run's own new result file (or a study's written beside it) changes no code, while a new ``.py``
    file can (analyses, policies and commands are found by listing their folders).
    """
    if source_root() is None:
        return None
    try:
        commit = _git("rev-parse", "HEAD").strip()
        changed = _git("status", "--porcelain", "--untracked-files=no") + _git(
            "ls-files", "--others", "--exclude-standard", "--", "*.py"
        )
    except (OSError, subprocess.SubprocessError):  # no git program, or not a repository after all
        return None
    return {"commit": commit, "dirty": bool(changed.strip())}


class UncommittedChanges(BergenError):
    """A result to be written into the package's own checkout while the checkout has uncommitted changes."""


def check_clean(out: str | os.PathLike, allow_dirty: bool, what: str = "a result", flag: str = "--allow-dirty") -> None:
    """Refuse, before the run, ``what`` to be written at ``out`` inside the package's checkout while it is dirty.

    A result written there is a published one and names the commit that made
    it, which must then be the code that ran; ``allow_dirty`` (``flag`` on the
    command line) runs anyway, and a result written anywhere else is the
    user's own.  Raises :class:`UncommittedChanges`.
    """
    root = source_root()
    if root is None:
        return
    state = git_state()  # asked now, so the record written at the end tells the tree the run started from
    try:
        inside = Path(os.path.realpath(out)).is_relative_to(root.resolve())
    except (OSError, ValueError):
        inside = False
    if inside and not allow_dirty and state is not None and state["dirty"]:
        raise UncommittedChanges(
            f"{what} written in this checkout records the commit that made it, and the checkout "
            f"({state['commit'][:12]}) has uncommitted changes: commit them first, or pass {flag} to run anyway"
        )


def add_allow_dirty(parser: Any) -> None:
    """Give a script's ``argparse`` parser the ``--allow-dirty`` flag :func:`check_clean` names."""
    parser.add_argument(
        "--allow-dirty",
        action="store_true",
        help="write the result into this checkout even though it has uncommitted changes (its record says so)",
    )


def environment() -> dict[str, Any]:
    """The software and machine a result was computed with: Python and library versions, the CPU count.

    Read from the installed distributions' metadata, so nothing heavy is imported.
    """
    import platform
    from importlib import metadata

    versions: dict[str, Any] = {"python": platform.python_version()}
    for name in ("numpy", "numba", "pandas", "scipy", "pyarrow", "matplotlib"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return {"versions": versions, "platform": platform.platform(), "cpus": os.cpu_count()}


def record(run_id: str | None = None) -> dict[str, Any]:
    """The provenance of an output written now (``run_id`` when the output has one)."""
    out = {
        "version": __version__,
        "command": command_line(),
        "created_utc": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "git": git_state(),
    }
    if run_id is not None:
        out["run_id"] = run_id
    return out


def result_record() -> dict[str, Any]:
    """What a result file (or one run merged into it) carries under ``provenance``: :func:`record` and
    :func:`environment` (commit, clean tree, version, command line, UTC time, library versions, CPUs)."""
    return {**record(), **environment()}
