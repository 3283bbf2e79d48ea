"""How commands print their results on stdout: tables that are never cut, JSON with its provenance."""

from __future__ import annotations

import json
import sys
from typing import Any

import click
from rich.console import Console

from bergen_sim import provenance

#: width of the console when stdout is not a terminal: wide enough that no table is wrapped or cut
PIPED_WIDTH = 10_000


def results_console() -> Console:
    """A console for results: the terminal's width, or (piped, redirected) wide enough for any table."""
    return Console() if sys.stdout.isatty() else Console(width=PIPED_WIDTH)


def print_json(data: dict[str, Any], run_id: str | None = None) -> None:
    """Print one JSON object with its ``provenance`` (version, command line, UTC time, git commit)."""
    click.echo(json.dumps({**data, "provenance": provenance.record(run_id)}))
