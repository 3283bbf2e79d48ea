"""``bergen-sim compare``: a round-robin of policies on duplicate deals, as a table, JSON or a file."""

from __future__ import annotations

import dataclasses
from typing import NamedTuple, cast

import click
import pandas as pd
from rich.console import JustifyMethod
from rich.table import Table

from bergen_sim.cli.bounds import SEED, SEED_HELP, Bounded
from bergen_sim.cli.groups import option_group
from bergen_sim.cli.options import policy_names_given, run_options, with_rules
from bergen_sim.cli.output import print_json, results_console
from bergen_sim.cli.renamed import deprecated, old_spelling
from bergen_sim.core.errors import one_line
from bergen_sim.core.limits import MAX_DEAL_SETS
from bergen_sim.services.comparison import (
    ADJUSTMENTS,
    DEFAULT_DEALS,
    OUT_FORMATS,
    TournamentResult,
    check_out_path,
    compare,
    parse_luck_models,
)
from bergen_sim.services.files.output import OutputError


class LuckOptions(NamedTuple):
    """--adjust, --luck-model and --luck-playouts: whether and how the luck of the deals is adjusted for."""

    adjust: str
    luck_models: tuple[str, ...]
    luck_playouts: int | None


def _interval(row: pd.Series, column: str, percent: bool = False) -> str:
    """Mean ± half-width (the t intervals are symmetric), or mean [low, high] where the interval was kept within
    what the figure can be (a win rate 0..100%) and is no longer symmetric; the file outputs keep low and high."""
    scale, unit, digits = (100, "%", 2) if percent else (1, "", 3)
    mean, low, high = row[column], row[f"{column}_lo"], row[f"{column}_hi"]
    half = (high - low) / 2
    if half != half:  # NaN: one deal set has no spread to make an interval from
        return f"{scale * mean:.{digits}f}{unit} (no interval)"
    if abs((mean - low) - (high - mean)) > 1e-9 * max(1.0, abs(half)):  # clipped at a bound
        return f"{scale * mean:.{digits}f}{unit} [{scale * low:.{digits}f}, {scale * high:.{digits}f}]"
    return f"{scale * mean:.{digits}f} ± {scale * half:.{digits}f}{unit}"


def _p(value: float) -> str:
    if value != value:  # NaN: one deal set, or no spread at all, gives no t test
        return "no test"
    return "p<1e-300" if value == 0 else f"p={value:.2g}"  # the t tail underflows to 0 below ~1e-308


def _verdict(row: pd.Series, prefix: str = "") -> str:
    """The significantly better policy of a pair, from the raw or (``prefix="adjusted_"``) luck-adjusted test."""
    if not row[f"{prefix}win_significant"]:
        return f"neither ({_p(row[f'{prefix}win_p_value'])})"
    better = row["policy"] if row[f"{prefix}win_rate"] > 0.5 else row["opponent"]
    return f"{better} ({_p(row[f'{prefix}win_p_value'])})"


def _adjusted(result: TournamentResult) -> bool:
    return result.meta.get("adjust") == "luck"


def pairs_table(result: TournamentResult) -> Table:
    """Each pair from the first policy's side, with 95% intervals."""
    meta = result.meta
    rules = meta["rules"]
    table = Table(
        title=(
            f"{meta['design']} deals: {meta['deal_sets']:,} deal sets x {len(meta['rotations'])} rotations "
            f"({' '.join(meta['rotations'])}) per pair, {rules['players']} players"
            f"{' (partnerships)' if rules['partnerships'] else ''}, seed {meta['seed']}"
            f"{'; adj. = luck-adjusted' if _adjusted(result) else ''}"
        ),
        header_style="bold",
    )
    adjusted = _adjusted(result)
    columns = [
        ("a vs b", "left"),
        ("a match win rate", "right"),
        ("a points/hand", "right"),
        ("b points/hand", "right"),
        ("a - b points/hand", "right"),
    ]
    if adjusted:
        columns += [("a win rate (adj.)", "right"), ("a - b (adj.)", "right")]
    for name, justify in columns + [("better", "left")]:
        table.add_column(name, justify=cast(JustifyMethod, justify))
    for _, row in result.pairs.iterrows():
        cells = [
            f"{row['policy']} vs {row['opponent']}",
            _interval(row, "win_rate", percent=True),
            _interval(row, "points_per_hand"),
            _interval(row, "opponent_points_per_hand"),
            _interval(row, "points_margin"),
        ]
        if adjusted:
            cells += [_interval(row, "adjusted_win_rate", percent=True), _interval(row, "adjusted_points_margin")]
        table.add_row(*cells, _verdict(row, "adjusted_" if adjusted else ""))
    return table


def standings_table(result: TournamentResult) -> Table:
    """Each policy against the field of the others, best first."""
    meta = result.meta
    table = Table(
        title=f"standings: each policy against the field ({meta['matches']:,} matches, "
        f"{meta['elapsed_s']:.2f} s + {meta['startup_s']:.2f} s start-up)",
        header_style="bold",
    )
    adjusted = _adjusted(result)
    prefix = "adjusted_" if adjusted else ""
    names = ["rank", "policy", "match win rate vs field", "points/hand", "margin/hand"]
    if adjusted:
        names += ["win rate (adj.)", "margin (adj.)"]
    for name in names + ["vs even"]:
        table.add_column(name, justify="left" if name in ("policy", "vs even") else "right")
    for _, row in result.standings.iterrows():
        even = (
            ("above" if row[f"{prefix}win_rate"] > 0.5 else "below")
            if row[f"{prefix}win_significant"]
            else "not significant"
        ) + f" ({_p(row[f'{prefix}win_p_value'])})"
        cells = [
            str(row["rank"]),
            row["policy"],
            _interval(row, "win_rate", percent=True),
            _interval(row, "points_per_hand"),
            _interval(row, "points_margin"),
        ]
        if adjusted:
            cells += [_interval(row, "adjusted_win_rate", percent=True), _interval(row, "adjusted_points_margin")]
        table.add_row(*cells, even)
    return table


@click.command("compare")
@old_spelling(
    "--matches", "--deals", "deals", "compare", " (it counted deal sets)", type=Bounded(1, MAX_DEAL_SETS), metavar="N"
)
@with_rules
@click.option(
    "--policy",
    "policy_values",
    multiple=True,
    metavar="NAME[,NAME...]",
    help="A policy to compare (built-in name or package.module:function): repeat it or give a comma "
    "list, at least two in all (--policy greedy --policy expert, or --policy greedy,expert).",
)
@click.option(
    "--deals",
    type=Bounded(1, MAX_DEAL_SETS),
    default=None,
    help=f"Deal sets per pair (default {DEFAULT_DEALS:,}); each is played in every seat rotation, so a "
    "pair plays 2 to 6 matches per deal set.",
)
@click.option("--policies", "old_policies", hidden=True)  # the old spelling, for one release
@click.option("--seed", type=SEED, default=0, show_default=True, help=SEED_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of tables.")
@click.option(
    "-o",
    "--out",
    metavar="FILE",
    help=f"Write the results ({', '.join(OUT_FORMATS)}; - for CSV on standard "
    "output, the tables then go to standard error).",
)
@click.option(
    "--independent-deals",
    "independent",
    is_flag=True,
    help="Give each rotation its own seed (no duplicate deals); for measuring what duplicates buy.",
)
@option_group(
    "luck",
    [
        click.option(
            "--adjust",
            type=click.Choice(ADJUSTMENTS),
            default="none",
            show_default=True,
            help="luck: add luck-adjusted win rates and points (control variates at every deal and draw: "
            "narrower intervals, but thousands of hand play-outs per match; see docs/compare.md).",
        ),
        click.option(
            "--luck-model",
            "luck_models",
            multiple=True,
            metavar="NAME=MODEL",
            help="With --adjust luck: play policy NAME's seats by MODEL in the adjustment's play-outs: a "
            "built-in heuristic, or pimc[:worlds=N] (a search in every play-out: slower, closer to a "
            "search player). A plug-in or search is otherwise played there by expert; a closer model "
            "narrows the interval, none biases it. Repeatable.",
        ),
        click.option(
            "--luck-playouts",
            "luck_playouts",
            type=int,
            metavar="N",
            help="With --adjust luck: play-outs per evaluated position (default 32; more narrow the adjusted "
            "interval further, at their cost).",
        ),
    ],
    LuckOptions,
)
@run_options
def command(
    rules,
    policy_values,
    deals,
    old_policies,
    seed,
    as_json,
    out,
    independent,
    luck: LuckOptions,
    run,
):
    """Round-robin of the policies given with --policy, with seat rotation on duplicate deals."""
    if old_policies is not None:
        deprecated("--policies A,B", "--policy A,B (or --policy A --policy B)")
        policy_values = (*policy_values, old_policies)
    policies = policy_names_given(policy_values)  # compare() refuses fewer than two, as for a notebook
    target = check_out_path(out) if out is not None else None  # refuse a bad file name before playing
    to_stderr = bool(target and target.to_stdout)
    if as_json:
        run = dataclasses.replace(run, progress=False)
    try:
        result = compare(
            rules=rules,
            policies=policies,
            deals=deals,
            seed=seed,
            independent=independent,
            options=run,
            adjust=luck.adjust,
            luck_models=parse_luck_models(luck.luck_models, names=policies),
            luck_playouts=luck.luck_playouts,
        )
    except OutputError as exc:  # finished, but the checkpoint failed: show the results before the error
        if isinstance(exc.result, TournamentResult):  # what compare() attaches
            _show(exc.result, as_json, to_stderr)
            if target:
                exc.result.write(target)
        raise
    if luck.adjust == "luck":
        from bergen_sim.core import feedback
        from bergen_sim.services.luck import MIN_ADJUSTED_DEAL_SETS

        played = result.meta["deal_sets"]
        if played < MIN_ADJUSTED_DEAL_SETS:  # said, not left to the reader to notice equal columns
            feedback.info(
                f"--adjust luck: {played:,} deal sets are too few to fit the adjustment (it needs "
                f"{MIN_ADJUSTED_DEAL_SETS:,}): the adjusted figures are the raw ones"
            )
    _show(result, as_json, to_stderr)  # shown first: a file that cannot be written loses nothing
    if target:
        result.write(target)
        if not as_json:
            click.echo(
                one_line(f"wrote {len(result.results)} result rows to {'standard output' if to_stderr else out}"),
                err=to_stderr,
            )


def _show(result: TournamentResult, as_json: bool, to_stderr: bool) -> None:
    if as_json:
        print_json(result.to_json(), err=to_stderr)
    else:
        console = results_console(stderr=to_stderr)
        console.print(pairs_table(result))
        console.print(standings_table(result))
