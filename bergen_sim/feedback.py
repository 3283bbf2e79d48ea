"""What bergen-sim says besides its results: notices on stderr, as much as the user asked for.

Results go to stdout; everything said about the work (a first-run compile,
a report's progress, what a command wrote) goes to stderr, so that pipes and
``--json`` carry only results.  Three levels, set by ``--quiet`` /
``--verbose`` on every command (:func:`set_level`):

- ``QUIET``: nothing but results and errors (no progress bar either);
- ``NORMAL`` (default): progress lines; notices about waiting (a compile)
  only on a terminal, where a person is waiting;
- ``VERBOSE``: also the notices off a terminal, and details (caches, kernels).

This module imports nothing heavy: the command line sets the level before
anything is loaded.
"""

from __future__ import annotations

import sys

from bergen_sim.errors import escaped

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
    print(escaped(text), file=sys.stderr, flush=True)


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


#: what a first compile costs, said to whoever waits for it (a cold compile measured 10-40 s)
COMPILE_NOTE = "first run only, about 20 s"


def compiling(what: str) -> None:
    """Say that ``what`` (e.g. "the match loop for greedy, expert") is being compiled: a cache miss."""
    waiting(f"compiling {what} ({COMPILE_NOTE})")
