"""``bergen-sim run``: play a batch declared in an experiment file, resumably, and print one results table."""

from __future__ import annotations

import click
from rich.table import Table
from rich.text import Text

from bergen_sim.cli.options import placement_options
from bergen_sim.cli.output import print_json, results_console
from bergen_sim.cli.renamed import old_spelling
from bergen_sim.core import feedback
from bergen_sim.core.errors import one_line
from bergen_sim.services.execution.jobs import RunOptions
from bergen_sim.services.execution.progress import on_terminal


def results_table(result, kind: str, title: str) -> Table:
    """The headline columns of the results, each estimate with its 95% interval in brackets."""
    from bergen_sim.services.analysis.reporting import display_frame
    from bergen_sim.services.experiment import headline_columns

    frame = display_frame(result.table[[c for c in headline_columns(kind) if c in result.table.columns]])
    table = Table(title=title, header_style="bold")
    for column in frame.columns:
        table.add_column(column, justify="left" if frame[column].str.contains("[a-z]", regex=True).any() else "right")
    for row in frame.itertuples(index=False):  # names from the file, shown as text (never markup or escapes)
        table.add_row(*(Text(one_line(str(value))) for value in row))
    return table


@click.command("run")
@old_spelling("--out", "--out-dir", "out_dir", "run", type=click.Path(file_okay=False), metavar="DIR")
@click.argument("experiment_file", metavar="EXPERIMENT.toml", type=click.Path(dir_okay=False), required=False)
@click.option(
    "--example",
    is_flag=True,
    help="Run the example experiment that ships with bergen-sim (8 cells of 2,000 matches: does the "
    "boneyard reserve change who wins when greedy meets random?); --show-example prints it.",
)
@click.option(
    "--show-example",
    is_flag=True,
    help="Print the example experiment file, to copy and edit: bergen-sim run --show-example > my.toml",
)
@click.option(
    "--out-dir",
    type=click.Path(file_okay=False),
    default=None,
    metavar="DIR",
    help="Folder for the cells and the results table (default: the file's `out_dir`, else experiment-out).",
)
@click.option(
    "--allow-plugins",
    is_flag=True,
    help="Run the policies the file names as package.module:function (importing them runs their code); "
    "without it only built-in and installed policies are taken.",
)
@placement_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (every row) instead of a table.")
def command(experiment_file, example, show_example, out_dir, allow_plugins, workers, scheduler, as_json):
    """Play every cell of EXPERIMENT.toml (rule sets x sizes x policy sets x seeds) not already finished."""
    from bergen_sim.services import experiment
    from bergen_sim.services.files.output import OutputError

    if show_example:
        click.echo(experiment.example_text(), nl=False)
        return
    if example == (experiment_file is not None):
        raise click.UsageError("give an experiment file, or --example to run the one that ships with bergen-sim")
    if example:
        experiment_file = str(experiment.example_path())

    plan = experiment.load(experiment_file, out_dir, allow_plugins=allow_plugins)
    RunOptions(workers=workers, scheduler=scheduler)  # refuse bad options before playing
    feedback.info(f"{experiment_file}: {len(plan.cells)} cells of {plan.size_text} ({plan.kind}) into {plan.out}")
    done = experiment.run(
        plan,
        workers=workers,
        scheduler=scheduler,
        progress=on_terminal() and feedback.progress_bar_allowed() and not as_json,
        log=feedback.info,
    )
    if as_json:
        print_json(
            {
                "kind": plan.kind,
                "cells": len(plan.cells),
                "played": len(done.played),
                "reused": len(done.reused),
                "files": [str(path) for path in done.files],
                "results": experiment.results_json(plan, done.table),
            }
        )
    else:
        title = (
            f"{plan.kind}: {len(plan.cells)} cells ({len(done.played)} played, {len(done.reused)} reused), "
            f"{plan.size_text} in each cell"
        )
        if not done.table.empty:
            results_console().print(results_table(done, plan.kind, title))
        if done.files:
            click.echo(one_line(f"wrote {', '.join(str(path) for path in done.files)}"))
    if done.unsaved:  # printed above, then said: status 2
        raise OutputError(done.unsaved)
