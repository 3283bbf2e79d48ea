"""``bergen-sim report``: run analyses and write their Markdown reports, figures and Parquet tables."""

from __future__ import annotations

import time
import traceback

import click

from bergen_sim import analysis
from bergen_sim.cli.bounds import SEED, Bounded
from bergen_sim.execution import RunOptions
from bergen_sim.limits import MAX_MATCHES, MAX_WORKERS
from bergen_sim.output import STDOUT, OutputError, check_folder


def _echo(text: str) -> None:
    click.echo(text, err=True)


@click.command("report")
@click.argument("names", nargs=-1, metavar="[NAME ...|all]")
@click.option("--matches", type=Bounded(1, MAX_MATCHES), default=None,
              help=f"Matches per configuration (default {analysis.FULL_MATCHES:,}; "
                   f"{analysis.QUICK_MATCHES:,} with --quick).")
@click.option("--quick", is_flag=True,
              help=f"Small and fast: {analysis.QUICK_MATCHES:,} matches per configuration and only the "
                   f"{', '.join(analysis.QUICK_STRATEGIES)} strategies.")
@click.option("--out", metavar="DIR", default="reports", show_default=True,
              help="Folder for the reports (an index README.md, NAME.md and NAME/ per analysis).")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of every configuration (0..2^64-1).")
@click.option("--strategies", metavar="A,B,...", default=None,
              help="Strategies to compare (default: every built-in heuristic; the quick subset with --quick).")
@click.option("--analyses-dir", type=click.Path(file_okay=False), default=None,
              help="Folder with more analyses (searched before ./analyses and the project's).")
@click.option("--workers", type=Bounded(1, MAX_WORKERS), default=None,
              help="Worker processes (default: every core); with --scheduler local, the cluster's size.")
@click.option("--scheduler", metavar="local|tcp://HOST:PORT", default=None,
              help="Run the chunks on Dask: 'local' starts a LocalCluster, an address uses a running one.")
@click.option("--list", "list_only", is_flag=True, help="List the analyses found and exit.")
@click.option("--verbose", is_flag=True, help="Show the traceback of an analysis that fails.")
def command(names, matches, quick, out, seed, strategies, analyses_dir, workers, scheduler, list_only, verbose):
    """Run the analyses NAME ... (or all) and write Markdown reports with tables, figures and findings.

    An analysis that fails (cannot be imported, raises, returns the wrong
    type) is named on one line and the others still run; the command then
    lists the failures and exits with status 2.
    """
    known = analysis.discover(analyses_dir)
    if list_only:
        for name, path in known.items():
            click.echo(f"{name}  ({path})")
        return
    if out == STDOUT:
        raise OutputError("--out -: a report is a folder of files, it cannot go to standard output")
    check_folder(out, "--out")  # before anything runs
    chosen = list(known) if not names or "all" in names else list(dict.fromkeys(names))
    for name in chosen:
        if name not in known:
            raise analysis.AnalysisError(f"unknown analysis {name!r}; available: {', '.join(known) or 'none'}, or all")
    picked = [s.strip() for s in strategies.split(",")] if strategies else None
    options = RunOptions(workers=workers, scheduler=scheduler)
    start = time.perf_counter()
    failed: list[str] = []
    for name in chosen:
        _echo(f"{name}: running")
        try:
            result = analysis.run(name, matches=matches, seed=seed, quick=quick, strategies=picked,
                                  analyses_dir=analyses_dir, options=options, log=_echo)
        except analysis.AnalysisError as exc:  # a broken analysis: say so, go on with the others
            _echo(f"{name}: failed: {exc}")
            if verbose and exc.__cause__ is not None:
                _echo("".join(traceback.format_exception(exc.__cause__)).rstrip())
            failed.append(name)
            continue
        try:
            page = analysis.save(result, out)
        except OSError as exc:
            raise OutputError(f"--out {out}: cannot write the report of {name} "
                              f"({exc.strerror or exc}{': ' + str(exc.filename) if exc.filename else ''})") from None
        _echo(f"{name}: wrote {page} ({result.meta['total_matches']:,} matches, {result.meta['elapsed_s']:,.0f} s)")
    done = len(chosen) - len(failed)
    if done:
        try:
            index = analysis.write_index(out)
        except OSError as exc:
            raise OutputError(f"--out {out}: cannot write the index ({exc.strerror or exc})") from None
        click.echo(f"wrote {index} and {done} report(s) in {time.perf_counter() - start:,.0f} s")
    if failed:
        raise analysis.AnalysisError(f"{len(failed)} of {len(chosen)} analyses failed: {', '.join(failed)} "
                                     f"(see the lines above{'' if verbose else '; --verbose shows tracebacks'})")
