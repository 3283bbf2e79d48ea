"""A progress bar for long runs: matches done, rate and time left, on the terminal only.

It draws on stderr and disappears when the run ends, so stdout carries only
the result.  Scripts, pipes, CI logs and ``--json`` get no bar at all: it is
shown only when both stdout and stderr are terminals (see
:func:`on_terminal`), and callers turn it off for machine-readable output.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager


def on_terminal() -> bool:
    """True when both stdout and stderr are terminals (an interactive run)."""
    return sys.stdout.isatty() and sys.stderr.isatty()


@contextmanager
def match_progress(total: int, done: int = 0, enabled: bool = True) -> Iterator[Callable[[int], None]]:
    """Show a bar for ``total`` matches (``done`` of them already finished, e.g. resumed).

    Yields ``advance(n)``, to call as matches finish; a no-op when disabled.
    Matches counted in ``done`` do not inflate the rate or shorten the ETA.
    """
    if not enabled:
        yield lambda n: None
        return
    # rich's progress module is imported only for a bar: most runs (scripts, --json, pipes) never draw one
    from rich.console import Console
    from rich.progress import BarColumn, Progress, ProgressColumn, Task, TextColumn, TimeRemainingColumn
    from rich.text import Text

    class _RateColumn(ProgressColumn):
        """Matches per second, from rich's moving estimate."""

        def render(self, task: Task) -> Text:
            return Text(f"{task.speed:,.0f} matches/s" if task.speed else "", style="progress.data.speed")

    columns = (
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        TextColumn("{task.completed:,.0f}/{task.total:,.0f}"),
        _RateColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("matches", total=total, completed=done)
        yield lambda n: bar.advance(task, n)
