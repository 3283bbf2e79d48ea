"""Where compiled code and generated kernels are cached, keyed by the package's source.

Numba's disk cache checks only the source file of the function it caches: a
cached function keeps the machine code of whatever it calls as it was when it
was compiled, so editing ``policies/base.py`` would leave ``expert`` (and every
kernel built on it) silently stale.  Pointing Numba's cache at a folder named
by a hash of every source file of this package makes any edit start from a
clean cache instead.  This runs when :mod:`bergen_sim.engine` is imported
(every module with compiled code imports it first), before any
``@njit(cache=True)`` function is defined, and is inherited by worker
processes through ``NUMBA_CACHE_DIR``.

``$BERGEN_SIM_CACHE_DIR`` (default ``~/.cache/bergen-sim``) holds everything;
deleting it is always safe.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

_PACKAGE_DIR = Path(__file__).resolve().parent
_MARK = "bergen-sim-src-"


def cache_dir() -> Path:
    """Root folder of the project's caches (generated kernels, Numba's cache, tables)."""
    env = os.environ.get("BERGEN_SIM_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "bergen-sim"


def source_digest() -> str:
    """Hash of every Python source file of the package (names and contents)."""
    digest = hashlib.sha256()
    for path in sorted(_PACKAGE_DIR.rglob("*.py")):
        digest.update(str(path.relative_to(_PACKAGE_DIR)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def in_disk_cache(function: Any) -> bool | None:
    """Whether Numba's disk cache holds compiled code of an ``@njit(cache=True)`` function (None: cannot tell).

    Used to say "compiling" only when a wait is coming.  The cache folder and
    generated kernels are keyed by every source they depend on, so an index
    with any entry means the next call loads rather than compiles.  This reads
    Numba's cache index through its internal ``_cache`` attributes, which is
    why any surprise answers "cannot tell".
    """
    try:
        return bool(function._cache._cache_file._load_index())
    except Exception:  # not a cached dispatcher, or a Numba whose cache internals differ: no claim either way
        return None


def use_source_keyed_numba_cache() -> None:
    """Point Numba's disk cache at a folder keyed by the package source (see module note)."""
    from numba.core import config

    current = os.environ.get("NUMBA_CACHE_DIR", "")
    if _MARK in os.path.basename(current):
        config.CACHE_DIR = current  # a worker process inherits its parent's folder
        return
    base = current or str(cache_dir() / "numba")
    folder = os.path.join(base, _MARK + source_digest()[:16])
    os.environ["NUMBA_CACHE_DIR"] = folder
    config.CACHE_DIR = folder
