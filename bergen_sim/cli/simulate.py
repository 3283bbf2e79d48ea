"""``bergen-sim simulate``: play matches and print a summary table or JSON."""

from __future__ import annotations

import dataclasses
import json

import click
from rich.console import Console
from rich.table import Table

from bergen_sim.cli.options import policy_option, rule_options, rules_from, run_options
from bergen_sim.simulate import simulate


def _pct(record: dict) -> str:
    lo, hi = record["ci95"]
    return f"{100 * record['rate']:.2f}% [{100 * lo:.2f}, {100 * hi:.2f}]"


def _mean(record: dict) -> str:
    lo, hi = record["ci95"]
    return f"{record['mean']:.4f} [{lo:.4f}, {hi:.4f}]"


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
    for name in ("hands", "redeals", "plays", "draws", "passes", "double_headers", "triple_headers",
                 "blocked_hands", "out_hands", "decided_hands", "leader_side_hand_wins"):
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
    table.add_row("speed", f"{summary['matches_per_s']:,.0f} matches/s, {summary['hands_per_s']:,.0f} hands/s on {where}")
    if summary["resumed_matches"]:
        table.add_row("resumed", f"{summary['resumed_matches']:,} matches read back from the checkpoint")
    return table


@click.command("simulate")
@rule_options
@policy_option
@click.option("--matches", type=click.IntRange(min=1), default=10_000, show_default=True, help="Matches to play.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the keyed random streams.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table.")
@click.option("--out", type=click.Path(dir_okay=False, writable=True), help="Write one row per match to Parquet.")
@run_options
def command(players, partnerships, preset, settings, policies, matches, seed, as_json, out, run, chunk_size):
    """Play MATCHES matches and summarise them."""
    if as_json:
        run = dataclasses.replace(run, progress=False)
    result = simulate(
        rules=rules_from(players, partnerships, preset, settings), policies=policies, matches=matches, seed=seed,
        out=out, chunk_size=chunk_size, options=run,
    )
    if as_json:
        click.echo(json.dumps(result.summary))
    else:
        Console().print(summary_table(result.summary))
        if out:
            click.echo(f"wrote {result.summary['matches']:,} match rows to {out}")
