"""``bergen-sim compare``: a round-robin of policies on duplicate deals, as a table, JSON or a file."""

from __future__ import annotations

import dataclasses
import json

import click
import pandas as pd
from rich.console import Console
from rich.table import Table

from bergen_sim.cli.options import rule_options, run_options
from bergen_sim.rules import parse_settings
from bergen_sim.tournament import OUT_FORMATS, TournamentResult, check_out_path, compare


def _interval(row: pd.Series, column: str, percent: bool = False) -> str:
    scale, unit, digits = (100, "%", 2) if percent else (1, "", 3)
    values = [row[column], row[f"{column}_low"], row[f"{column}_high"]]
    mean, low, high = (f"{scale * v:.{digits}f}" for v in values)
    return f"{mean}{unit} [{low}, {high}]"


def _verdict(row: pd.Series, better: str, worse: str) -> str:
    if not row["win_significant"]:
        return f"no clear difference (p={row['win_p_value']:.2g})"
    winner = better if row["win_rate"] > 0.5 else worse
    return f"{winner} better (p={row['win_p_value']:.2g})"


def pairs_table(result: TournamentResult) -> Table:
    """Each pair from the first policy's side, 95% intervals in brackets."""
    meta = result.meta
    rules = meta["rules"]
    table = Table(
        title=(f"{meta['design']} deals: {meta['deal_sets']:,} deal sets x {len(meta['rotations'])} rotations "
               f"({' '.join(meta['rotations'])}) per pair, {rules['players']} players"
               f"{' (partnerships)' if rules['partnerships'] else ''}, seed {meta['seed']}"),
        header_style="bold",
    )
    for name, justify in (("a vs b", "left"), ("a match win rate", "right"), ("a points/hand", "right"),
                          ("b points/hand", "right"), ("a - b points/hand", "right"), ("verdict", "left")):
        table.add_column(name, justify=justify)
    for _, row in result.pairs.iterrows():
        table.add_row(
            f"{row['policy']} vs {row['opponent']}",
            _interval(row, "win_rate", percent=True),
            _interval(row, "points_per_hand"),
            _interval(row, "opponent_points_per_hand"),
            _interval(row, "points_margin"),
            _verdict(row, row["policy"], row["opponent"]),
        )
    return table


def standings_table(result: TournamentResult) -> Table:
    """Each policy against the field of the others, best first."""
    meta = result.meta
    table = Table(title=f"standings: each policy against the field ({meta['matches']:,} matches, "
                        f"{meta['elapsed_s']:.2f} s + {meta['startup_s']:.2f} s start-up)", header_style="bold")
    for name in ("rank", "policy", "match win rate vs field", "points/hand", "margin/hand", "vs even"):
        table.add_column(name, justify="left" if name in ("policy", "vs even") else "right")
    for _, row in result.standings.iterrows():
        even = (("above" if row["win_rate"] > 0.5 else "below") if row["win_significant"]
                else "not significant") + f" (p={row['win_p_value']:.2g})"
        table.add_row(str(row["rank"]), row["policy"], _interval(row, "win_rate", percent=True),
                      _interval(row, "points_per_hand"), _interval(row, "points_margin"), even)
    return table


@click.command("compare")
@rule_options
@click.option("--policies", required=True, metavar="A,B[,C...]",
              help="Policies to compare, separated by commas (built-in names or package.module:function).")
@click.option("--matches", type=int, default=10_000, show_default=True,
              help="Deal sets per pair; each is played in every seat rotation.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the keyed random streams.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of tables.")
@click.option("--out", type=click.Path(dir_okay=False), help=f"Write the results ({', '.join(OUT_FORMATS)}).")
@click.option("--independent-deals", "independent", is_flag=True,
              help="Give each rotation its own seed (no duplicate deals); for measuring what duplicates buy.")
@run_options
def command(players, partnerships, preset, settings, policies, matches, seed, as_json, out, independent, run,
            chunk_size):
    """Round-robin of POLICIES with seat rotation on duplicate deals."""
    if out:
        check_out_path(out)  # refuse a bad file name before playing
    if as_json:
        run = dataclasses.replace(run, progress=False)
    result = compare(
        players=players, partnerships=partnerships, preset=preset, settings=parse_settings(settings),
        policies=policies.split(","), matches=matches, seed=seed, independent=independent, chunk_size=chunk_size,
        workers=run.workers, scheduler=run.scheduler, checkpoint=run.checkpoint, progress=run.progress,
    )
    if out:
        result.write(out)
    if as_json:
        click.echo(json.dumps(result.to_json()))
    else:
        console = Console()
        console.print(pairs_table(result))
        console.print(standings_table(result))
        if out:
            click.echo(f"wrote {len(result.results)} result rows to {out}")
