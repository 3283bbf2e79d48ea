"""What bergen-sim says besides its results: notices on stderr, as much as the user asked for.

Results go to stdout; everything said about the work (a first-run compile,
a report's progress, what a command wrote) goes to stderr, so that pipes and
``--json`` carry only results.  Three levels, set by ``--quiet`` /
``--verbose`` on every command (:func:`set_level`):

- ``QUIET``: nothing but results and errors (no progress bar either);
- ``NORMAL`` (default): progress lines and a line for every compile (a wait
  of seconds to minutes), on a terminal or off it: a script, a pipe or a
  notebook waits as long as a person does; other notices about waiting only
  on a terminal;
- ``VERBOSE``: also the notices off a terminal, and details (caches, kernels).

This module imports nothing heavy: the command line sets the level before
anything is loaded.
"""

from __future__ import annotations

import logging
import sys

from bergen_sim.core.errors import one_line

#: the logger every notice is also given to, at INFO (a notebook or an application that configures logging sees
#: the compiles there too)
LOG = logging.getLogger("bergen_sim")

QUIET, NORMAL, VERBOSE = 0, 1, 2
_level = NORMAL


def set_level(level: int) -> None:
    """Say as much as ``level`` allows from now on (``QUIET``, ``NORMAL`` or ``VERBOSE``)."""
    global _level
    if level not in (QUIET, NORMAL, VERBOSE):
        raise ValueError(f"feedback level must be QUIET, NORMAL or VERBOSE, not {level!r}")
    _level = level


def level() -> int:
    """The current level."""
    return _level


def _say(text: str) -> None:
    print(one_line(text), file=sys.stderr, flush=True)


def info(text: str) -> None:
    """A progress line (a report's steps, what a command wrote): shown unless ``--quiet``."""
    if _level >= NORMAL:
        _say(text)


def waiting(text: str) -> None:
    """A notice that explains a wait: on a terminal, or anywhere with ``--verbose``."""
    if _level >= VERBOSE or (_level >= NORMAL and sys.stderr.isatty()):
        _say(text)


def detail(text: str) -> None:
    """Detail for whoever asked with ``--verbose`` (which caches, which kernel)."""
    if _level >= VERBOSE:
        _say(text)


def progress_bar_allowed() -> bool:
    """Whether a progress bar may be drawn (never with ``--quiet``; the caller checks for a terminal)."""
    return _level >= NORMAL


#: what a first compile costs, said before this machine has timed one: the match loop of every built-in heuristic,
#: 47-50 s on a shared 2-core machine (benchmarks/results.md, "A new user's first runs")
COMPILE_NOTE = "first run only, under a minute"
#: the same for anything that plays search rollouts (a kernel with ``pimc``, ``reader`` or ``ismcts``, the
#: analyzer): its first compile also compiles the searches, the rollouts and every base policy
#: (benchmarks/results.md, "Cold compile of the search players"; tests/docs/test_benchmark_tools.py checks the note)
SEARCH_COMPILE_NOTE = "first run only, a minute or two with a search player"
#: what can be compiled, each timed on its own (a match loop with a search player, and the analyzer's rollouts,
#: take longer than a match loop of heuristics), with what is said before one was timed
COMPILE_KINDS = ("match loop", "search match loop", "rollouts")
_FIRST_NOTES = {"match loop": COMPILE_NOTE, "search match loop": SEARCH_COMPILE_NOTE, "rollouts": SEARCH_COMPILE_NOTE}


def compiling(what: str, kind: str = "match loop") -> None:
    """Say that ``what`` (e.g. "the match loop for greedy, expert") is being compiled: a cache miss.

    A compile is the one wait long enough to look like a hang, so it is said
    wherever the output goes (unless ``--quiet``), and logged.
    """
    text = f"compiling {what} ({compile_note(kind)})"
    LOG.info(text)
    info(text)


def compile_note(kind: str) -> str:
    """How long the wait will be: the last compile of this ``kind`` on this machine, else what a first compile of
    that kind takes (:data:`COMPILE_NOTE`, :data:`SEARCH_COMPILE_NOTE`).

    Why: cold compiles take 10 s on one machine and 40 s on another, and the
    machine the user waits on has the only figure that is right for them.
    A match loop with a search player is timed apart from one of
    heuristics (its first compile also compiles the searches); within each
    kind every kernel shares one figure (the first kernel of search players
    compiles longer than the next, with other settings): it is "about", not
    a promise.
    """
    seconds = _last_compile(kind)
    if seconds is None:
        return _FIRST_NOTES[kind]
    return f"first run only, about {seconds:.0f} s on this machine last time"


def compiled(kind: str, seconds: float) -> None:
    """Remember that a compile of ``kind`` took ``seconds`` here, for the next :func:`compiling` notice.

    Under a second it was a load from the cache, not a compile, and is not
    kept.  A cache folder that cannot be written only loses the figure.
    """
    if not seconds >= 1:
        return
    from bergen_sim.core.compile_cache import write_atomically

    path = _record_path(kind)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, f"{seconds:.1f}\n".encode())
    except OSError:
        pass


def _last_compile(kind: str) -> float | None:
    """The seconds :func:`compiled` kept for ``kind``, or None (none kept, or not a plausible number)."""
    path = _record_path(kind)
    try:
        with open(path, "rb") as handle:
            seconds = float(handle.read(32))
    except (OSError, ValueError):
        return None
    return seconds if 1 <= seconds < 100_000 else None


def _record_path(kind: str):
    """The file :func:`compiled` keeps ``kind``'s compile time in, in the cache folder."""
    from bergen_sim.core.compile_cache import cache_dir

    if kind not in COMPILE_KINDS:
        raise ValueError(f"compile kind must be one of {', '.join(COMPILE_KINDS)}, not {kind!r}")
    return cache_dir() / f"compile_seconds_{kind.replace(' ', '_')}.txt"
