"""How commands print their results on stdout: tables that are never cut, JSON with its provenance."""

from __future__ import annotations

import sys
from typing import Any

import click
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from bergen_sim.core import provenance
from bergen_sim.core.errors import one_line

#: width of the console when stdout is not a terminal: wide enough that no table is wrapped or cut
PIPED_WIDTH = 10_000


def _plain(cell: Any) -> str:
    """A table cell's text (a cell given as a string is Rich markup)."""
    return cell.plain if isinstance(cell, Text) else Text.from_markup(str(cell)).plain


def table_as_list(table: Table) -> list[str]:
    """A table's title and its rows, one line per row (``column: value, ...``): what a too narrow terminal shows."""
    headers = [_plain(column.header) for column in table.columns]
    cells = [list(column.cells) for column in table.columns]
    lines = [_plain(table.title)] if table.title else []
    for row in zip(*cells):
        lines.append("- " + ", ".join(f"{header}: {_plain(cell)}" for header, cell in zip(headers, row)))
    return lines


class ResultsConsole(Console):
    """A Rich console that prints a table too wide for the terminal (``COLUMNS=5``, or 0) as a list of its rows.

    Rich would draw such a table as an empty grid, or nothing at all, and the
    results would be lost from sight.
    """

    def __init__(self, *args: Any, narrow: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.narrow = narrow  # the terminal said its width is 0: lists, on unwrapped lines

    def render_str(self, text: str, **options: Any) -> Text:
        """Any text printed, a table's cells included, with control characters escaped (``one_line``) on each line:
        a name from a file or an argument can neither clear the screen nor retitle the window."""
        if not text.replace("\n", "").isprintable():
            text = "\n".join(one_line(line) for line in text.split("\n"))
        return super().render_str(text, **options)

    def print(self, *objects: Any, **options: Any) -> None:
        for item in objects:
            wide = self.options.update_width(PIPED_WIDTH)
            if isinstance(item, Table) and (self.narrow or self.width < Measurement.get(self, wide, item).minimum):
                for line in table_as_list(item):
                    super().print(Text(line), soft_wrap=True)
            else:
                super().print(item, **options)


def results_console(stderr: bool = False) -> Console:
    """A console for results (on standard error when standard output carries the rows): the
    terminal's width, or (piped, redirected) wide enough for any table."""
    stream = sys.stderr if stderr else sys.stdout
    if not stream.isatty():
        return ResultsConsole(stderr=stderr, width=PIPED_WIDTH)
    console = ResultsConsole(stderr=stderr)
    # a width of 0 (COLUMNS=0) would print nothing at all: every line unwrapped, tables as lists
    return console if console.width > 0 else ResultsConsole(stderr=stderr, width=PIPED_WIDTH, narrow=True)


def print_json(data: dict[str, Any], run_id: str | None = None, err: bool = False) -> None:
    """Print one JSON object with its ``provenance`` (version, command line, UTC time, git commit)."""
    from bergen_sim.services.files.output import strict_json

    click.echo(strict_json({**data, "provenance": provenance.record(run_id)}), err=err)
