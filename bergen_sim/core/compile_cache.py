"""Where compiled code and generated kernels are cached, keyed by the source compiled code runs.

Numba's disk cache checks only the source file of the function it caches: a
cached function keeps the machine code of whatever it calls as it was when it
was compiled, so editing ``policies/base.py`` would leave ``expert`` (and every
kernel built on it) silently stale.  The compiled functions of this package
are therefore cached in a folder named by a hash of the source of the
packages compiled code can call (:data:`COMPILED_PACKAGES`: the engine, the
policies and search), so any edit there starts from a clean cache, while
editing anything else (a command's help text, a report) recompiles nothing.

The folder is chosen by a Numba cache *locator* that applies only to this
package's files and the generated kernels (:func:`install_cache_locator`,
called by :mod:`bergen_sim.engine` before its first compiled function is
defined).  Nothing is written to the environment, so other Numba code in the
same process keeps Numba's own cache rules, and worker processes compute the
same folder from the same source.

``$BERGEN_SIM_CACHE_DIR`` (default ``~/.cache/bergen-sim``) holds everything;
deleting it is always safe.  ``$NUMBA_CACHE_DIR``, when set, replaces its
``numba`` subfolder as the base of the source-keyed folders.

The cache heals itself: a folder that cannot be used (a read-only home, a
file in its place, a ``$BERGEN_SIM_CACHE_DIR`` in /proc) gives way to a
private temporary one, a file where one of its subfolders belongs is
removed, and a generated file that does not check against what it must hold
is written again, each with one notice.  So no command (``--help`` least of
all) fails for want of a cache.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import stat
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bergen_sim.core.errors import BergenError, one_line


class CacheDirError(BergenError):
    """The cache folder cannot be created or written."""


_PACKAGE_DIR = Path(__file__).resolve().parents[1]  # bergen_sim/, this file being bergen_sim/core/compile_cache.py
_MARK = "bergen-sim-src-"
#: subpackages whose source compiled code may call; a compiled function elsewhere may call only into them
COMPILED_PACKAGES = ("engine", "policies", "search")


#: subfolders of the cache: a file in the place of one is a damaged entry, removed
SUBFOLDERS = ("numba", "kernels", "match_value", "locks")


def notice(text: str) -> None:
    """Say on standard error, in one line, what the cache did about a problem it healed."""
    print(one_line(f"bergen-sim: note: {text}"), file=sys.stderr, flush=True)


def _unusable(folder: Path) -> str | None:
    """Why ``folder`` cannot hold the cache (created if missing, written to once), or None if it can."""
    try:
        if folder.exists() and not folder.is_dir():
            return "it is not a folder"
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".probe.{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def _private_temporary_folder() -> Path:
    """A cache folder under the system's temporary folder that only this user can write.

    Kernels in it are imported, so a folder of that name made by another
    user (or open to others) is not used: a fresh one is made instead.
    """
    folder = Path(tempfile.gettempdir()) / f"bergen-sim-cache-{os.getuid() if hasattr(os, 'getuid') else 'user'}"
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700)
    info = folder.lstat()
    mine = not hasattr(os, "getuid") or info.st_uid == os.getuid()
    if stat.S_ISDIR(info.st_mode) and mine and not info.st_mode & 0o022:
        return folder
    return Path(tempfile.mkdtemp(prefix="bergen-sim-cache-"))


@functools.cache
def _usable_cache_dir(preferred: str, named: str) -> Path:
    """``preferred`` if it can hold the cache, else a private temporary folder (said once per process).

    ``named``: how the message names the folder (the variable that set it, or "the cache folder").
    """
    why = _unusable(Path(preferred))
    if why is None:
        return Path(preferred)
    try:
        fallback = _private_temporary_folder()
    except OSError as exc:
        raise CacheDirError(
            f"{named} {preferred} cannot be used ({why}), nor a temporary folder "
            f"({exc.strerror or exc}); point BERGEN_SIM_CACHE_DIR at a writable folder"
        ) from None
    notice(
        f"{named} {preferred} cannot be used ({why}); compiled code is kept in {fallback} instead "
        "(compiled again once the system clears it): point BERGEN_SIM_CACHE_DIR at a writable folder"
    )
    return fallback


def cache_dir() -> Path:
    """Root folder of the project's caches (generated kernels, Numba's cache, tables).

    ``$BERGEN_SIM_CACHE_DIR``, else ``~/.cache/bergen-sim``; a private
    temporary folder when that one cannot be used (one notice).
    """
    env = os.environ.get("BERGEN_SIM_CACHE_DIR")
    if env:
        return _usable_cache_dir(env, "BERGEN_SIM_CACHE_DIR")
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return _usable_cache_dir(str(Path(base) / "bergen-sim"), "the cache folder")


def subfolder(*parts: str) -> Path:
    """The cache's subfolder ``parts``, created; a file in the way (a damaged entry) is removed with a notice."""
    folder = cache_dir().joinpath(*parts)
    try:
        for level in reversed([folder, *folder.parents]):
            if level == cache_dir() or not level.is_relative_to(cache_dir()):
                continue
            if os.path.lexists(level) and not level.is_dir():
                notice(f"{level} in the cache was not a folder; replaced by an empty one")
                level.unlink()
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CacheDirError(
            f"the cache folder {folder} cannot be made ({exc.strerror or exc}); "
            "point BERGEN_SIM_CACHE_DIR at a writable folder"
        ) from None
    return folder


def check_cache_dir() -> Path:
    """:func:`cache_dir` (a temporary folder in its place if it cannot be used) with its subfolders.

    Called when the engine is first imported, before Numba places its cache:
    Numba gives up on a folder it cannot use without a word and compiles anew
    in every run. One line (:class:`CacheDirError`) only if not even a
    temporary folder can be written.
    """
    folder = cache_dir()
    why = _unusable(folder)
    if why is not None:
        raise CacheDirError(
            f"neither the cache folder nor a temporary one can be used for compiled code "
            f"({folder}: {why}); point BERGEN_SIM_CACHE_DIR at a writable folder"
        )
    for name in SUBFOLDERS:  # Numba's own cache gives up silently (and compiles every run) on a file there
        subfolder(name)
    return folder


@functools.cache
def source_digest() -> str:
    """Hash of every Python source file of the compiled packages (names and contents).

    Computed once per process: the source does not change under a running program.
    """
    digest = hashlib.sha256()
    for package in COMPILED_PACKAGES:
        for path in sorted((_PACKAGE_DIR / package).rglob("*.py")):
            digest.update(str(path.relative_to(_PACKAGE_DIR)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def in_disk_cache(function: Any, args: tuple | None = None) -> bool | None:
    """Whether Numba's disk cache holds compiled code of an ``@njit(cache=True)`` function (None: cannot tell).

    Used to say "compiling" only when a wait is coming, and to load a kernel
    the light way (runtime/runner.py) only when no compile follows.  The cache
    folder and generated kernels are keyed by every source they depend on, so
    an index entry means a call loads rather than compiles, provided it is
    the entry for that call: a kernel compiled for one-word tile sets says
    nothing about three-word sets.  With ``args`` (the arguments of the call
    about to be made) the answer is Numba's own lookup: the index key of
    their types on this machine's code generator.  This reads Numba's cache
    through its internal ``_cache`` attributes, which is why any surprise
    answers "cannot tell".
    """
    try:
        cache = function._cache
        index = cache._cache_file._load_index()
        if args is None:
            return bool(index)
        import numba

        signature = tuple(numba.typeof(a) for a in args)
        return cache._index_key(signature, function.targetctx.codegen()) in index
    except Exception:  # not a cached dispatcher, or a Numba whose cache internals differ: no claim either way
        return None


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all (this process's temporary file beside it, then a rename).

    Every file of the cache is written this way (kernels, their constant
    arrays, match-win tables, compile times): processes sharing the folder
    never read half a file, and two writing at once leave one whole file.
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


#: what ends a checked cache file: its contents' hash, so a file cut short, emptied or zero-filled is known
_CHECK = b"\nbergen-sim-sha256:"
_CHECK_SIZE = len(_CHECK) + 64


def write_checked(path: Path, data: bytes) -> None:
    """Write ``data`` atomically, followed by its hash, for :func:`read_checked`."""
    write_atomically(path, data + _CHECK + hashlib.sha256(data).hexdigest().encode())


def read_checked(path: Path, quiet: bool = False) -> bytes | None:
    """The data :func:`write_checked` wrote to ``path``; None when it is absent, and when it is damaged
    (then with a notice unless ``quiet``: the caller builds it again)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raw, why = b"", f"cannot be read ({exc.strerror or exc})"
    else:
        why = "is damaged (cut short, emptied or overwritten)"
    data, check = raw[:-_CHECK_SIZE], raw[-_CHECK_SIZE:]
    if len(raw) < _CHECK_SIZE or check != _CHECK + hashlib.sha256(data).hexdigest().encode():
        if not quiet:
            notice(f"{path} in the cache {why}; building it again")
        return None
    return data


@contextlib.contextmanager
def one_builder(name: str) -> Iterator[None]:
    """Hold the machine-wide build lock ``name`` (a file under the cache folder) for the block.

    Why: processes that start cold together (a pool's or Dask's workers on one
    machine, parallel test workers) would each compile the same kernel or
    simulate the same match-win table, a minute of work done twice.  Under
    this lock the first builds while the others wait; each re-checks the
    cache once it holds the lock and then loads what the first one wrote.
    ``flock``, not a lock file's mere existence: the kernel releases it
    however the holder dies.  Where there is no ``fcntl`` (Windows) or the
    lock file cannot be made, there is no lock: each process builds its own,
    as before (the files themselves are always written atomically).
    """
    handle = None
    try:
        import fcntl

        folder = subfolder("locks")
        handle = open(folder / f"{hashlib.sha256(name.encode()).hexdigest()[:24]}.lock", "a")
    except (ImportError, OSError, CacheDirError):
        pass
    # the block runs outside the except clause: an error it raises keeps its own context (the Numba error a
    # failed compile's message is made from), not the ImportError or OSError handled here
    if handle is None:
        yield
        return
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX)
        except OSError:  # a file system without locks
            pass
        yield  # closing the file releases the lock


def numba_cache_folder() -> str:
    """The source-keyed folder that holds this package's compiled functions."""
    base = os.environ.get("NUMBA_CACHE_DIR") or str(cache_dir() / "numba")
    return os.path.join(base, _MARK + source_digest()[:16])


def _is_ours(py_file: str) -> bool:
    """Whether a compiled function's file belongs to this package or is a generated kernel."""
    path = Path(py_file).resolve()
    return path.is_relative_to(_PACKAGE_DIR) or path.is_relative_to((cache_dir() / "kernels").resolve())


@functools.cache
def install_cache_locator() -> None:
    """Make Numba cache this package's compiled functions in :func:`numba_cache_folder` (see module note).

    Must run before the first ``@njit(cache=True)`` function of the package is
    defined; idempotent.
    """
    from numba.core import caching

    writable: set[str] = set()

    class SourceKeyedLocator(caching.UserProvidedCacheLocator):
        """Numba's user-directory locator, pointed at the source-keyed folder, for our files only."""

        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = os.path.join(numba_cache_folder(), self.get_suitable_cache_subpath(py_file))

        def ensure_cache_path(self):
            # Numba checks the folder by writing a file into it, for each of the ninety-odd functions a command's
            # imports define: once per folder and process is enough
            if self._cache_path not in writable:
                super().ensure_cache_path()
                writable.add(self._cache_path)

        @classmethod
        def from_function(cls, py_func, py_file):
            if not _is_ours(py_file):
                return None
            return super(caching.UserProvidedCacheLocator, cls).from_function(py_func, py_file)

    caching.CacheImpl._locator_classes.insert(0, SourceKeyedLocator)
