"""``bergen-sim compare``: a round-robin of policies on duplicate deals, as a table, JSON or a file."""

from __future__ import annotations

import dataclasses
import json

import click
import pandas as pd
from rich.console import Console
from rich.table import Table

from bergen_sim.cli.options import rule_options, rules_from, run_options
from bergen_sim.tournament import OUT_FORMATS, TournamentResult, check_out_path, compare


def _interval(row: pd.Series, column: str, percent: bool = False) -> str:
    """Mean ± half-width (the t intervals are symmetric); the file outputs keep low and high."""
    scale, unit, digits = (100, "%", 2) if percent else (1, "", 3)
    half = (row[f"{column}_high"] - row[f"{column}_low"]) / 2
    return f"{scale * row[column]:.{digits}f} ± {scale * half:.{digits}f}{unit}"


def _p(value: float) -> str:
    return "p<1e-300" if value == 0 else f"p={value:.2g}"  # the t tail underflows to 0 below ~1e-308


def _verdict(row: pd.Series) -> str:
    if not row["win_significant"]:
        return f"neither ({_p(row['win_p_value'])})"
    better = row["policy"] if row["win_rate"] > 0.5 else row["opponent"]
    return f"{better} ({_p(row['win_p_value'])})"


def pairs_table(result: TournamentResult) -> Table:
    """Each pair from the first policy's side, with 95% intervals."""
    meta = result.meta
    rules = meta["rules"]
    table = Table(
        title=(f"{meta['design']} deals: {meta['deal_sets']:,} deal sets x {len(meta['rotations'])} rotations "
               f"({' '.join(meta['rotations'])}) per pair, {rules['players']} players"
               f"{' (partnerships)' if rules['partnerships'] else ''}, seed {meta['seed']}"),
        header_style="bold",
    )
    for name, justify in (("a vs b", "left"), ("a match win rate", "right"), ("a points/hand", "right"),
                          ("b points/hand", "right"), ("a - b points/hand", "right"), ("better", "left")):
        table.add_column(name, justify=justify)
    for _, row in result.pairs.iterrows():
        table.add_row(
            f"{row['policy']} vs {row['opponent']}",
            _interval(row, "win_rate", percent=True),
            _interval(row, "points_per_hand"),
            _interval(row, "opponent_points_per_hand"),
            _interval(row, "points_margin"),
            _verdict(row),
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
                else "not significant") + f" ({_p(row['win_p_value'])})"
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
        rules=rules_from(players, partnerships, preset, settings), policies=policies.split(","), matches=matches,
        seed=seed, independent=independent, chunk_size=chunk_size, options=run,
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
