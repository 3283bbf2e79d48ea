"""Output files and folders: checked before a run starts, written without destroying what a path points to.

Every command that writes (``simulate --out``, ``trace -o``, ``compare --out``,
``report --out-dir``, ``--checkpoint``) goes through this module, so that:

- a bad path is refused in one line *before* the first match is played (an
  empty name, a wrong extension, a missing folder, a path under a file, a
  virtual file system such as /proc, a folder without write permission), and
  the hours of a finished run are never lost to a typo;
- a regular file is written to a temporary file beside it and renamed over it
  only when complete, so a failed run never leaves half a file; a symbolic
  link keeps being a link (its target is written); a character device or a
  FIFO (``/dev/null``, a named pipe) is written to directly and never
  replaced by a rename; a block device is refused; ``/dev/stdout`` and
  ``/proc/self/fd/N`` write to the open descriptor;
- ``-`` means standard output for formats that allow it;
- a write failure (full disk, file size limit, permissions, a folder removed)
  becomes an :class:`OutputError` with one line, and the temporary file is
  removed.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import shutil
import stat
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from bergen_sim.core.errors import BergenError
from bergen_sim.core.i18n import tr

#: the name that means standard output
STDOUT = "-"
#: virtual file systems: nothing is created or replaced there
_VIRTUAL = ("/proc", "/sys")
_FD_LINK = re.compile(r"/(?:proc/(?:self|\d+)|dev)/fd/(\d+)")


class OutputError(BergenError):
    """An output path that cannot be written, or a write that failed (one line).

    ``result``, when set, is what the run produced before the write failed
    (a command prints it before the error, so a finished run is never lost).
    """

    result: object = None


def raise_failures(failures: Sequence[str], result: object) -> None:
    """If writing failed after a run finished, raise one OutputError carrying the run's ``result``."""
    if failures:
        error = OutputError("; ".join(dict.fromkeys(failures)))
        error.result = result
        raise error


@dataclass(frozen=True)
class OutputFile:
    """A checked output file: how it will be written.

    ``how`` is ``"replace"`` (a regular file, new or existing: written beside
    and renamed over ``path``), ``"direct"`` (a character device or FIFO,
    opened and written in place), ``"fd"`` (an open descriptor of this
    process, e.g. /dev/stdout) or ``"stdout"`` (the name ``-``).
    """

    option: str
    given: str
    path: Path | None
    suffix: str
    how: str
    fd: int | None = None

    @property
    def to_stdout(self) -> bool:
        return self.how == "stdout" or (self.how == "fd" and self.fd == 1)

    def fail(self, why: object) -> OutputError:
        return refused(self.option, self.given, why)


def refused(option: str, given: str | os.PathLike, why: object) -> OutputError:
    """The error refusing ``option``'s path ``given``: the option and the path as typed, then why."""
    return OutputError(f"{option} {given}: {why}")


def _why(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def _own_fd(given: str) -> int | None:
    """N when ``given`` leads (through symbolic links) to /proc/self/fd/N, /proc/<this pid>/fd/N or /dev/fd/N."""
    path = os.path.abspath(given)
    for _ in range(40):  # the kernel's own limit of links followed
        found = _FD_LINK.fullmatch(path)
        if found and (path.startswith(("/dev/", "/proc/self/")) or path.startswith(f"/proc/{os.getpid()}/")):
            return int(found[1])
        try:
            link = os.readlink(path)
        except OSError:
            return None
        path = os.path.normpath(os.path.join(os.path.dirname(path), link))
    return None


def _is_virtual(path: Path) -> bool:
    return any(str(path) == root or str(path).startswith(root + "/") for root in _VIRTUAL)


def _check_folder_writable(folder: Path, option: str, given: str) -> None:
    """The folder a new file or subfolder goes into: exists, is a folder, is writable, is not virtual."""
    try:
        info = folder.stat()
    except FileNotFoundError:
        raise refused(option, given, tr("folder {folder} does not exist").format(folder=folder)) from None
    except NotADirectoryError:
        raise refused(option, given, tr("{file} is a file, not a folder").format(file=_file_above(folder))) from None
    except OSError as exc:
        raise refused(
            option, given, tr("cannot reach folder {folder} ({why})").format(folder=folder, why=_why(exc))
        ) from None
    if not stat.S_ISDIR(info.st_mode):
        raise refused(option, given, tr("{folder} is a file, not a folder").format(folder=folder))
    if _is_virtual(folder):
        raise refused(
            option, given, tr("{folder} is in a virtual file system; write somewhere else").format(folder=folder)
        )
    if not os.access(folder, os.W_OK | os.X_OK):
        raise refused(option, given, tr("no permission to write in folder {folder}").format(folder=folder))


def _file_above(path: Path) -> Path:
    """The first component of ``path`` that is a file (for 'under a file' messages)."""
    for parent in reversed([path, *path.parents]):
        if parent.exists() and not parent.is_dir():
            return parent
    return path


def merge_target(given: str | os.PathLike, option: str, key: str, kind: type) -> dict | None:
    """The JSON file a run merges its figures into, checked and read before the run.

    A run that merges (the measuring tools keep rows of earlier runs) would
    otherwise find, only at its last write, a path it cannot write or a file
    that is not its own, and lose what it measured.  Returns the file's
    object (a dict whose ``key`` is a ``kind``), or None when there is no file
    yet.  Raises :class:`OutputError`.
    """
    check_file(given, option, (".json",))
    path = Path(given)
    if not path.exists():
        return None
    try:
        saved = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise refused(
            option,
            given,
            tr("cannot read it as JSON ({why}); give a file this tool wrote, or a new one").format(why=exc),
        ) from None
    if not isinstance(saved, dict) or not isinstance(saved.get(key), kind):
        raise refused(
            option, given, tr("holds no {key} of this tool; give a file it wrote, or a new one").format(key=repr(key))
        )
    return saved


def check_file(
    given: str | os.PathLike, option: str = "--out", formats: Sequence[str] = (), stdout: bool = False
) -> OutputFile:
    """Check an output file path before anything runs; how it will be written.

    ``formats``: the extensions allowed (lower case, with the dot); ``stdout``:
    whether ``-`` (standard output) is allowed.  Raises :class:`OutputError`.
    """
    given = os.fspath(given)
    allowed = ", ".join(formats)
    hint = f" ({allowed})" if allowed else ""
    if not given.strip():
        raise OutputError(
            (
                tr("{option} is empty: give a file name (or - for standard output)")
                if stdout
                else tr("{option} is empty: give a file name")
            ).format(option=option)
        )
    if given == STDOUT:
        if not stdout:
            raise refused(
                option, given, tr("this output cannot go to standard output; give a file name{hint}").format(hint=hint)
            )
        return OutputFile(option, given, None, "", "stdout")
    if given.endswith(("/", os.sep)):  # Path() drops the slash: x.csv/ would be written as the file x.csv
        raise refused(
            option, given, tr("ends with a slash, which names a folder; give a file name{hint}").format(hint=hint)
        )
    suffix = Path(given).suffix.lower()
    if formats and suffix and suffix not in formats:
        raise refused(
            option, given, tr("unknown file type {suffix}; use {allowed}").format(suffix=repr(suffix), allowed=allowed)
        )
    fd = _own_fd(given)
    if fd is not None:  # /dev/stdout and the like: no extension needed, text formats by default
        try:
            os.fstat(fd)
        except OSError:
            raise refused(option, given, tr("descriptor {fd} is not open").format(fd=fd)) from None
        return OutputFile(option, given, None, suffix, "fd", fd)
    try:
        info = os.stat(given)  # follows links: what the path points to
    except FileNotFoundError:
        info = None
    except NotADirectoryError:
        raise refused(
            option, given, tr("{file} is a file, not a folder").format(file=_file_above(Path(given).absolute()))
        ) from None
    except OSError as exc:
        raise refused(option, given, tr("cannot reach it ({why})").format(why=_why(exc))) from None
    target = Path(os.path.realpath(given))  # a link's target is what gets written
    if info is not None:
        if stat.S_ISDIR(info.st_mode):
            raise refused(option, given, tr("is a folder; give a file name{hint}").format(hint=hint))
        if stat.S_ISBLK(info.st_mode):
            raise refused(option, given, tr("is a block device (a disk); refusing to write to it"))
        if stat.S_ISCHR(info.st_mode) or stat.S_ISFIFO(info.st_mode):  # /dev/null, a pipe: the first format
            return OutputFile(option, given, Path(given), suffix or (formats[0] if formats else ""), "direct")
        if not stat.S_ISREG(info.st_mode):
            raise refused(option, given, tr("is neither a file, a device nor a pipe"))
        if _is_virtual(target):
            raise refused(option, given, tr("is in a virtual file system; write somewhere else"))
        if not os.access(target, os.W_OK):
            raise refused(option, given, tr("no permission to write it"))
    if formats and not suffix:
        raise refused(option, given, tr("no file type; end the name with {allowed}").format(allowed=allowed))
    _check_folder_writable(target.parent, option, given)
    return OutputFile(option, given, target, suffix, "replace")


def check_folder(given: str | os.PathLike, option: str) -> Path:
    """Check an output folder (``--checkpoint``, ``report --out-dir``) before anything runs.

    It may exist (then it must be a writable folder) or not (then its nearest
    existing parent must be a writable folder, outside /proc and /sys).
    """
    given = os.fspath(given)
    if not given.strip():
        raise OutputError(tr("{option} is empty: give a folder name").format(option=option))
    path = Path(os.path.realpath(given))
    if _is_virtual(path):
        raise refused(option, given, tr("is in a virtual file system; write somewhere else"))
    existing = path
    try:
        while not existing.exists() and existing != existing.parent:
            if existing.is_symlink():  # a dangling link: realpath already followed what it could
                break
            existing = existing.parent
    except OSError as exc:  # a name longer than the system allows, a path too long to look up
        raise refused(option, given, tr("cannot reach it ({why})").format(why=_why(exc))) from None
    try:
        info = existing.stat()
    except OSError as exc:
        if isinstance(exc, NotADirectoryError):
            raise refused(
                option, given, tr("{file} is a file, not a folder").format(file=_file_above(existing))
            ) from None
        raise refused(
            option, given, tr("cannot reach {existing} ({why})").format(existing=existing, why=_why(exc))
        ) from None
    if not stat.S_ISDIR(info.st_mode):
        what = tr("is a file, not a folder") if existing == path else tr("is under {existing}, which is a file")
        raise refused(option, given, what.format(existing=existing))
    if not os.access(existing, os.W_OK | os.X_OK):
        raise refused(option, given, tr("no permission to write in {existing}").format(existing=existing))
    return path


def _sync(handle: IO) -> None:
    handle.flush()
    with contextlib.suppress(OSError):  # pipes and some devices cannot be synced; a real failure shows on close
        os.fsync(handle.fileno())


@contextlib.contextmanager
def open_output(target: OutputFile, binary: bool = False) -> Iterator[IO]:
    """A file object for ``target``; on success the output is complete in place, on failure nothing is left.

    Any OSError while writing becomes an :class:`OutputError` naming the path
    and the reason (e.g. "No space left on device", "File too large").  The
    body's own exceptions pass through after the temporary file is removed.
    """
    mode = "wb" if binary else "w"
    if target.how in ("stdout", "fd"):
        fd = 1 if target.fd is None else target.fd
        if fd == 1:
            sys.stdout.flush()
        handle = os.fdopen(os.dup(fd), mode)
        try:
            yield handle
            handle.flush()
        except OSError as exc:
            raise target.fail(tr("write failed ({why})").format(why=_why(exc))) from None
        finally:
            with contextlib.suppress(OSError):
                handle.close()
        return
    path = target.path
    if path is None:
        raise target.fail("has no path to write")
    if target.how == "direct":
        try:
            handle = open(path, mode)
        except OSError as exc:
            raise target.fail(tr("cannot open it ({why})").format(why=_why(exc))) from None
        try:
            with handle:
                yield handle
                _sync(handle)
        except OSError as exc:
            raise target.fail(tr("write failed ({why})").format(why=_why(exc))) from None
        return
    tmp = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        with open(tmp, mode) as handle:
            yield handle
            _sync(handle)
        if path.exists():
            shutil.copymode(path, tmp)  # the replaced file keeps its permissions
        os.replace(tmp, path)
    except OSError as exc:
        raise target.fail(tr("write failed ({why}); nothing was written").format(why=_why(exc))) from None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()


def write_bytes(target: OutputFile, data: bytes) -> None:
    """Write all of ``data`` to ``target`` (see :func:`open_output`)."""
    with open_output(target, binary=True) as handle:
        handle.write(data)


def write_file(path: Path, text: str, option: str = "--out") -> None:
    """Write ``text`` (UTF-8) to the regular file ``path`` in an already checked folder, whole or not at all."""
    write_bytes(OutputFile(option, os.fspath(path), path, path.suffix, "replace"), text.encode())


def strict_json(data: object, **options) -> str:
    """``data`` as standard JSON: a NaN or infinite float (an interval of one sample, a rate of nothing) is
    ``null``, as JSON has no NaN (Python writes a bare ``NaN`` token, which other JSON readers refuse).

    >>> strict_json({"ci95": [float("nan"), 1.5]})
    '{"ci95": [null, 1.5]}'
    """

    def finite(value):
        if isinstance(value, float):
            return value if math.isfinite(value) else None
        if isinstance(value, dict):
            return {key: finite(v) for key, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [finite(v) for v in value]
        return value

    return json.dumps(finite(data), allow_nan=False, **options)


def write_result(
    given: str | os.PathLike, result: dict, option: str = "--out", indent: int = 1, default: Callable | None = None
) -> dict:
    """Write a measuring tool's ``result`` as JSON to ``given``, with its ``provenance``, whole or not at all.

    ``provenance`` is :func:`~bergen_sim.core.provenance.result_record` (commit,
    clean tree, version, command line, UTC time, library versions, CPUs), so
    the file says which code made it; the file is written beside and renamed
    over ``given`` (see :func:`open_output`), so an interrupted write leaves
    an earlier result whole.  Check ``given`` before the run (:func:`check_file`
    or :func:`merge_target`, and :func:`~bergen_sim.core.provenance.check_clean`).
    ``default`` converts what JSON cannot hold (as in :func:`json.dumps`).
    Returns ``result`` with its ``provenance``.  Raises :class:`OutputError`.
    """
    from bergen_sim.core.provenance import result_record

    result = {**result, "provenance": result_record()}
    write_bytes(
        check_file(given, option, (".json",)), (strict_json(result, indent=indent, default=default) + "\n").encode()
    )
    return result


def publish_record(record: dict, command: str, out: str | None) -> None:
    """A measuring tool's result: ``record`` with the ``command`` that made it, as indented JSON on standard
    output and, with its provenance (:func:`write_result`), in ``out`` (checked before the run, e.g. by
    :func:`merge_target`), so a docs figure always names how to make it again."""
    record = {**record, "command": command}
    if out:
        record = write_result(out, record, indent=2)
    print(json.dumps(record, indent=2))


def is_text(name: str) -> bool:
    """Whether a name (a path, an argument) is valid Unicode text.

    Bytes that are not UTF-8 reach Python as lone surrogates, which cannot be
    written into a UTF-8 file: a report that quotes such a name in its pages
    could not be saved.
    """
    try:
        name.encode()
    except UnicodeEncodeError:
        return False
    return True
