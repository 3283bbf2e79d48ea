"""Where a result came from: version, command line, UTC time, and the git commit of a checkout.

Every file and JSON object bergen-sim writes carries :func:`record` (JSON
under the key ``provenance``, Parquet in the file's ``bergen_sim`` metadata),
so a number found later can be traced to the code and the command that made
it.  The commit is told only when the package runs from a git checkout (an
editable install or the source tree), with whether the tree had uncommitted
changes; an installed wheel has no commit to tell and says ``null``.

This module imports nothing heavy.
"""

from __future__ import annotations

import datetime as _dt
import functools
import shlex
import subprocess
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bergen_sim._version import __version__

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


@functools.lru_cache(maxsize=1)
def git_state() -> dict[str, Any] | None:
    """``{"commit": sha, "dirty": bool}`` when the package runs from a git checkout, else None."""
    if source_root() is None:
        return None
    try:
        commit = subprocess.run(
            ["git", "-C", str(_SOURCE_ROOT), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
        status = subprocess.run(
            ["git", "-C", str(_SOURCE_ROOT), "status", "--porcelain"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):  # no git program, or not a repository after all
        return None
    return {"commit": commit, "dirty": bool(status.strip())}


def environment() -> dict[str, Any]:
    """The software and machine a result was computed with: Python and library versions, the CPU count.

    Read from the installed distributions' metadata, so nothing heavy is imported.
    """
    import os
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
