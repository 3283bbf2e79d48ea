"""docs/safety.md quotes limits and timeouts: each quoted figure is the constant the code uses."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bergen_sim.core import limits
from bergen_sim.core.errors import printable
from bergen_sim.services.execution import parallel

DOC = (Path(__file__).resolve().parents[2] / "docs" / "safety.md").read_text()


def _written(value: int) -> str:
    """A limit as the table writes it: 10^11, 2^64-1, or the number with thousands commas."""
    for base in (10, 2):
        exponent = len(str(value)) - 1 if base == 10 else value.bit_length()
        if value == base**exponent and exponent > 3:
            return f"{base}^{exponent}"
        if base == 2 and value == base**exponent - 1 and exponent > 3:
            return f"{base}^{exponent}-1"
    return f"{value:,}"


@pytest.mark.parametrize(
    "row, low, high",
    [
        ("`target`", 1, limits.MAX_TARGET),
        ("`out_points`, `blocked_points`", 0, limits.MAX_POINTS),
        ("`--matches` (simulate, report)", 1, limits.MAX_MATCHES),
        ("`compare --deals` (deal sets per pair)", 1, limits.MAX_DEAL_SETS),
        ("`trace --matches`", 1, limits.MAX_TRACE_MATCHES),
        ("`--chunk-size`", 1, limits.MAX_CHUNK_SIZE),
        ("`--workers`", 1, limits.MAX_WORKERS),
        ("`analyze --worlds`, `review --worlds`", limits.MIN_WORLDS, limits.MAX_WORLDS),
        ("`analyze --batch`, `review --batch`", 1, limits.MAX_WORLDS),
        ("`run`: cells of an experiment's grid", 1, limits.MAX_CELLS),
        ("`--seed`", 0, limits.MAX_SEED),
    ],
)
def test_the_limits_table_is_the_code(row, low, high):
    line = next(text for text in DOC.splitlines() if text.startswith(f"| {row} |"))
    assert f"| {low}..{_written(high)}" in line, line


def test_the_chunk_count_and_the_dask_deadlines_are_the_code():
    assert f"at most {_written(limits.MAX_CHUNKS)} chunks per run" in DOC
    assert f"one line after at most {parallel.CONNECT_TIMEOUT} s" in DOC
    assert f"never answers after {parallel.CONNECT_TIMEOUT + parallel.ANSWER_TIMEOUT} s in all" in DOC


def test_the_longest_error_line_is_the_code():
    width = len(printable("x" * 10_000))
    assert re.search(rf"a line still longer than {width}\s+characters is cut", DOC)
