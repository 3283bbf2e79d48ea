"""How commands print their results on stdout: tables that are never cut, JSON with its provenance."""

from __future__ import annotations

import sys
from typing import Any

import click
from rich.console import Console

from bergen_sim import provenance

#: width of the console when stdout is not a terminal: wide enough that no table is wrapped or cut
PIPED_WIDTH = 10_000


def results_console(stderr: bool = False) -> Console:
    """A console for results (on standard error when standard output carries the rows): the
    terminal's width, or (piped, redirected) wide enough for any table."""
    stream = sys.stderr if stderr else sys.stdout
    return Console(stderr=stderr) if stream.isatty() else Console(stderr=stderr, width=PIPED_WIDTH)


def print_json(data: dict[str, Any], run_id: str | None = None, err: bool = False) -> None:
    """Print one JSON object with its ``provenance`` (version, command line, UTC time, git commit)."""
    from bergen_sim.output import strict_json

    click.echo(strict_json({**data, "provenance": provenance.record(run_id)}), err=err)
