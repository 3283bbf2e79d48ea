"""``bergen-sim report``: run analyses and write their Markdown reports, figures and Parquet tables."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import click

from bergen_sim.cli.bounds import SEED, Bounded
from bergen_sim.cli.groups import option_group
from bergen_sim.cli.options import policy_names_given, run_options
from bergen_sim.cli.output import print_json
from bergen_sim.cli.renamed import deprecated, old_spelling
from bergen_sim.core import feedback
from bergen_sim.core.errors import one_line
from bergen_sim.core.limits import MAX_MATCHES
from bergen_sim.services.analysis import reporting


def _plan(
    matches: int | None, quick: bool, seed: int, policy_values: tuple[str, ...], old_strategies: str | None
) -> dict[str, Any]:
    """What every analysis plays (--matches, --quick, --seed, --policy), as ``report()``'s keywords."""
    if old_strategies is not None:
        deprecated("report --strategies A,B", "--policy A,B")
        policy_values = (*policy_values, old_strategies)
    picked = policy_names_given(policy_values) if policy_values else None  # '' is refused, not the default
    return {"matches": matches, "quick": quick, "seed": seed, "policies": picked}


def _warn(text: str) -> None:
    """A failure line: on standard error even with --quiet."""
    click.echo(one_line(text), err=True)


@click.command("report")
@old_spelling("--out", "--out-dir", "out_dir", "report", metavar="DIR")
@click.argument("names", nargs=-1, metavar="[NAME ...|all]")
@option_group(
    "plan",
    [
        click.option(
            "--matches",
            type=Bounded(1, MAX_MATCHES),
            default=None,
            help=f"Matches per configuration (default {reporting.FULL_MATCHES:,}; {reporting.QUICK_MATCHES:,} with --quick).",
        ),
        click.option(
            "--quick",
            is_flag=True,
            help=f"Small and fast: {reporting.QUICK_MATCHES:,} matches per configuration and only the "
            f"{', '.join(reporting.QUICK_POLICIES)} policies.",
        ),
        click.option(
            "--seed", type=SEED, default=0, show_default=True, help="Seed of every configuration (0..2^64-1)."
        ),
        click.option(
            "--policy",
            "policy_values",
            multiple=True,
            metavar="NAME[,NAME...]",
            help="Policies to compare, repeated or as a comma list (default: every built-in heuristic; the "
            "quick subset with --quick).",
        ),
        click.option("--strategies", "old_strategies", default=None, hidden=True),  # the old spelling, for one release
    ],
    _plan,
)
@click.option(
    "--out-dir",
    metavar="DIR",
    default=reporting.DEFAULT_OUT_DIR,
    show_default=True,
    help="Folder for the reports (an index README.md, NAME.md and NAME/ per analysis).",
)
@click.option(
    "--analyses-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Folder with more analyses, searched before the project's (./analyses only when named: --analyses-dir analyses).",
)
@click.option("--list", "list_only", is_flag=True, help="List the analyses found and exit.")
@click.option(
    "--allow-dirty",
    is_flag=True,
    help="Run a full-scale report (1,000,000 matches per configuration or more) into bergen-sim's own "
    "checkout while it has uncommitted changes (refused by default: the report could not say which "
    "code made it).",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print one JSON object (the analyses found, or each report written with its findings).",
)
@run_options(resumable=False)
def command(
    names,
    plan,
    out_dir,
    analyses_dir,
    list_only,
    allow_dirty,
    as_json,
    run,
):
    """Run the analyses NAME ... (or all) and write Markdown reports with tables, figures and findings.

    An analysis that fails (cannot be imported, raises, returns the wrong
    type) is named on one line and the others still run; the command then
    lists the failures and exits with status 2 (--verbose shows tracebacks).
    """
    if list_only:
        known = reporting.discover(analyses_dir)
        if as_json:
            print_json({"analyses": [{"name": name, "path": str(path)} for name, path in known.items()]})
        for name, path in ({} if as_json else known).items():
            click.echo(one_line(f"{name}  ({path})"))
        return
    run = dataclasses.replace(run, progress=False)  # one log line per analysis instead of a bar per run
    for old in (name for name in names if name in reporting.RENAMED_ANALYSES):
        deprecated(f"report {old}", f"report {reporting.RENAMED_ANALYSES[old]}")
    start = time.perf_counter()
    done = reporting.report(
        [reporting.RENAMED_ANALYSES.get(name, name) for name in names],
        out_dir,
        **plan,
        analyses_dir=analyses_dir,
        options=reporting.ReportOptions.of(
            run,
            log=feedback.info,
            warn=_warn,
            tracebacks=feedback.level() >= feedback.VERBOSE,
            allow_dirty=allow_dirty,
        ),
    )
    if as_json:
        print_json(
            {
                "index": str(done.index) if done.index else None,
                "failed": done.failed,
                "reports": [
                    {
                        "analysis": result.name,
                        "title": result.title,
                        "page": str(page),
                        "findings": result.findings,
                        "total_matches": result.meta["total_matches"],
                        "elapsed_s": result.meta["elapsed_s"],
                        "tables": {
                            table: str(page.parent / result.name / "tables" / f"{table}.parquet")
                            for table in result.tables
                        },
                    }
                    for result, page in zip(done.results, done.pages)
                ],
            }
        )
    elif done.results:
        click.echo(
            one_line(f"wrote {done.index} and {len(done.results)} report(s) in {time.perf_counter() - start:,.0f} s")
        )
    if done.failed:
        chosen = len(done.results) + len(done.failed)
        raise reporting.AnalysisError(
            f"{len(done.failed)} of {chosen} analyses failed: {', '.join(done.failed)} "
            f"(see the lines above{'' if feedback.level() >= feedback.VERBOSE else '; --verbose shows tracebacks'})"
        )
