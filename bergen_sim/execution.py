"""Running a job as chunks of matches, merged in match order.

A :class:`Job` says what to play (rules, one policy per seat, seed, which rows
to keep); :func:`run_chunk` plays one contiguous range of its matches in the
calling process.  Because the engine's randomness is keyed on (seed, match,
hand), a chunk's result depends only on its range, so chunks can be played
anywhere and in any order and still merge to the same totals.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from bergen_sim.engine.runner import Chunk, Engine
from bergen_sim.rules import Rules

#: default matches per chunk: large enough to amortise a call, small enough for steady progress
DEFAULT_CHUNK = 20_000

_ENGINES: dict[tuple, Engine] = {}


@dataclass(frozen=True)
class Job:
    """What to play: rules, one policy name per seat, the seed and which rows to keep."""

    rules: Rules
    policies: tuple[str, ...]
    seed: int
    match_rows: bool = False
    hand_rows: bool = False


def engine_for(rules: Rules, policies: tuple[str, ...]) -> Engine:
    """The (cached per process) engine for rules and seat policies."""
    key = (rules, policies)
    if key not in _ENGINES:
        _ENGINES[key] = Engine(rules, policies)
    return _ENGINES[key]


def run_chunk(job: Job, first_match: int, n_matches: int) -> Chunk:
    """Play matches ``first_match .. first_match + n_matches - 1`` of a job here."""
    engine = engine_for(job.rules, job.policies)
    return engine.play(job.seed, first_match, n_matches, hand_rows=job.hand_rows, match_rows=job.match_rows)


def chunk_ranges(matches: int, chunk_size: int | None = None) -> list[tuple[int, int]]:
    """Split ``range(matches)`` into (first, count) chunks.

    >>> chunk_ranges(5, 2)
    [(0, 2), (2, 2), (4, 1)]
    """
    size = max(1, chunk_size or DEFAULT_CHUNK)
    return [(first, min(size, matches - first)) for first in range(0, matches, size)]


def run_job(job: Job, matches: int, chunk_size: int | None = None) -> Iterator[Chunk]:
    """Play a job's matches chunk by chunk in this process, yielding chunks in match order."""
    for first, count in chunk_ranges(matches, chunk_size):
        yield run_chunk(job, first, count)
