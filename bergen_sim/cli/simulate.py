"""``bergen-sim simulate``: play matches and print a summary table or JSON."""

from __future__ import annotations

import dataclasses

import click
from rich.table import Table

from bergen_sim.cli.bounds import SEED, SEED_HELP, Bounded
from bergen_sim.cli.options import policy_option, run_options, with_rules
from bergen_sim.cli.output import print_json, results_console
from bergen_sim.core.errors import one_line
from bergen_sim.core.limits import MAX_MATCHES
from bergen_sim.services.files.match_table import check_rows_path
from bergen_sim.services.files.output import OutputError
from bergen_sim.services.simulation import simulate


def _pct(estimate: dict) -> str:
    return f"{100 * estimate['value']:.2f}% [{100 * estimate['low']:.2f}, {100 * estimate['high']:.2f}]"


def _mean(estimate: dict) -> str:
    return f"{estimate['value']:.4f} [{estimate['low']:.4f}, {estimate['high']:.4f}]"


def summary_table(summary: dict) -> Table:
    """A readable table of a run's summary (95% intervals in brackets)."""
    rules = summary["rules"]
    title = (
        f"{summary['matches']:,} matches, {rules['players']} players"
        f"{' (partnerships)' if rules['partnerships'] else ''}, policies {', '.join(summary['policies'])}, "
        f"seed {summary['seed']}"
    )
    table = Table(title=title, show_header=True, header_style="bold")
    table.add_column("measure")
    table.add_column("value", justify="right")
    hands = summary["hands"]
    for name in (
        "hands",
        "redeals",
        "plays",
        "draws",
        "passes",
        "double_headers",
        "triple_headers",
        "blocked_hands",
        "out_hands",
        "decided_hands",
        "leader_side_hand_wins",
    ):
        table.add_row(name.replace("_", " "), f"{summary[name]:,}")
    table.add_row("hands per match", _mean(summary["hands_per_match"]))
    table.add_row("double-headers per hand", _mean(summary["double_headers_per_hand"]))
    table.add_row("triple-headers per hand", _mean(summary["triple_headers_per_hand"]))
    table.add_row("leader's side wins decided hand", _pct(summary["leader_side_hand_win_rate"]))
    for source, points in summary["points_by_source"].items():
        table.add_row(f"points from {source}", f"{points:,} ({points / max(hands, 1):.3f}/hand)")
    for side, record in enumerate(summary["match_win_rate"]):
        table.add_row(f"side {side} match wins", f"{summary['match_wins'][side]:,}  {_pct(record)}")
    table.add_row("elapsed", f"{summary['elapsed_s']:.2f} s (+{summary['startup_s']:.2f} s start-up)")
    where = f"Dask {summary['scheduler']}" if summary["scheduler"] else f"{summary['workers']} worker(s)"
    table.add_row(
        "speed", f"{_speed(summary['matches_per_s'])} matches/s, {_speed(summary['hands_per_s'])} hands/s on {where}"
    )
    if summary["resumed_matches"]:
        table.add_row("resumed", f"{summary['resumed_matches']:,} matches read back from the checkpoint")
    return table


def _speed(per_s: float) -> str:
    """A rate to three significant figures below 100 (a slow search run plays 0.35 matches/s, not 0)."""
    return f"{per_s:,.0f}" if per_s >= 100 else f"{per_s:.3g}"


@click.command("simulate")
@with_rules
@policy_option
@click.option("--matches", type=Bounded(1, MAX_MATCHES), default=10_000, show_default=True, help="Matches to play.")
@click.option("--seed", type=SEED, default=0, show_default=True, help=SEED_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table.")
@click.option(
    "-o",
    "--out",
    metavar="FILE",
    help="Write one row per match to FILE.parquet or FILE.csv (- for CSV on "
    "standard output; the summary then goes to standard error).",
)
@run_options
def command(rules, policies, matches, seed, as_json, out, run):
    """Play MATCHES matches and summarise them."""
    rows_to_stdout = out is not None and check_rows_path(out).to_stdout
    if as_json:
        run = dataclasses.replace(run, progress=False)
    try:
        result = simulate(
            rules=rules,
            policies=policies,
            matches=matches,
            seed=seed,
            out=out,
            options=run,
        )
    except OutputError as exc:  # the run finished but its file or checkpoint failed: show what was played
        if exc.result is not None:
            _show(exc.result, as_json, rows_to_stdout)
        raise
    _show(result, as_json, rows_to_stdout)
    if out and not as_json:
        click.echo(
            one_line(
                f"wrote {result.summary['matches']:,} match rows to {'standard output' if rows_to_stdout else out}"
            ),
            err=rows_to_stdout,
        )


def _show(result, as_json: bool, to_stderr: bool) -> None:
    """A run's summary on standard output (standard error when the rows went there)."""
    if as_json:
        print_json(result.summary, result.run_id, err=to_stderr)
    else:
        results_console(stderr=to_stderr).print(summary_table(result.summary))
