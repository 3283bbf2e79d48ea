"""``bergen-sim report``: run analyses and write their Markdown reports, figures and Parquet tables."""

from __future__ import annotations

import dataclasses
import time

import click

from bergen_sim import reporting
from bergen_sim.cli.options import run_options


def _echo(text: str) -> None:
    click.echo(text, err=True)


@click.command("report")
@click.argument("names", nargs=-1, metavar="[NAME ...|all]")
@click.option("--matches", type=click.IntRange(min=1), default=None,
              help=f"Matches per configuration (default {reporting.FULL_MATCHES:,}; "
                   f"{reporting.QUICK_MATCHES:,} with --quick).")
@click.option("--quick", is_flag=True,
              help=f"Small and fast: {reporting.QUICK_MATCHES:,} matches per configuration and only the "
                   f"{', '.join(reporting.QUICK_STRATEGIES)} strategies.")
@click.option("--out", type=click.Path(file_okay=False), default="reports", show_default=True,
              help="Folder for the reports (an index README.md, NAME.md and NAME/ per analysis).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of every configuration.")
@click.option("--strategies", metavar="A,B,...", default=None,
              help="Strategies to compare (default: every built-in heuristic; the quick subset with --quick).")
@click.option("--analyses-dir", type=click.Path(file_okay=False), default=None,
              help="Folder with more analyses (searched before ./analyses and the project's).")
@click.option("--list", "list_only", is_flag=True, help="List the analyses found and exit.")
@run_options(resumable=False)
def command(names, matches, quick, out, seed, strategies, analyses_dir, list_only, run, chunk_size):
    """Run the analyses NAME ... (or all) and write Markdown reports with tables, figures and findings."""
    known = reporting.discover(analyses_dir)
    if list_only:
        for name, path in known.items():
            click.echo(f"{name}  ({path})")
        return
    chosen = list(known) if not names or "all" in names else list(dict.fromkeys(names))
    for name in chosen:
        if name not in known:
            raise reporting.AnalysisError(f"unknown analysis {name!r}; available: {', '.join(known) or 'none'}, or all")
    picked = [s.strip() for s in strategies.split(",")] if strategies else None
    run = dataclasses.replace(run, progress=False)  # one log line per analysis instead of a bar per run
    start = time.perf_counter()
    for name in chosen:
        _echo(f"{name}: running")
        result = reporting.run(name, matches=matches, seed=seed, quick=quick, strategies=picked,
                              analyses_dir=analyses_dir, chunk_size=chunk_size, options=run, log=_echo)
        page = reporting.save(result, out)
        _echo(f"{name}: wrote {page} ({result.meta['total_matches']:,} matches, {result.meta['elapsed_s']:,.0f} s)")
    index = reporting.write_index(out)
    click.echo(f"wrote {index} and {len(chosen)} report(s) in {time.perf_counter() - start:,.0f} s")
