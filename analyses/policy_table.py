"""Which policy wins? Every built-in against every other on duplicate deals.

A round-robin tournament of the policies with 2 players, 3 players and 4 in
partnerships.  Each pair meets on the same deals in every seat rotation, so
the luck of the tiles falls on both alike and cancels in their difference.
For every policy: its match win rate and points per hand against the field
of all the others, and head to head against each one, with 95% intervals.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bergen_sim.core.i18n import N_, tr
from bergen_sim.core.stats import add_family, judged, phrase
from bergen_sim.services.analysis.figures import Chart, finish, panels, points
from bergen_sim.services.analysis.reporting import AnalysisError, table_name

TITLE = N_("Policy table: every built-in policy against every other")
#: tables of the tournaments (label -> (players, partnerships), a subset of analysis.TABLES)
TOURNAMENT_TABLES = ("2 players", "3 players", "4 partnerships")
METHOD = (
    "Round-robin on duplicate deals (bergen_sim.services.comparison): every pair of policies plays the same deal sets, "
    "each deal in every seat rotation (2 players and partnerships: the two policies swap sides; 3 players: each "
    "policy alone in each seat against two copies of the other, and the other way round), so a policy's fair "
    "share is 50% in every table. Win rate = share of a deal set's matches won by a side the policy plays; "
    "intervals are Student-t over deal sets, which accounts for the pairing. Against the field = the mean over "
    "its opponents. Family of comparisons: every head-to-head pair and every policy against the field, in all "
    "tables, each tested against an even 50% (the `win_rate_advantage` columns: win rate minus 50%, in "
    "percentage points), given simultaneous 95% intervals (Bonferroni over the family); a policy is said to beat another "
    "only when its simultaneous interval excludes 50%."
)
SHOW = {
    "standings": "Each policy against the field of all the others, best first.",
    "pairs": "Head to head, from the first-listed policy's side.",
}


def run(ctx) -> dict[str, pd.DataFrame]:
    """One tournament per table."""
    if len(ctx.policies) < 2:
        raise AnalysisError(f"the policy table needs at least two policies, not {len(ctx.policies)}")
    parts = [ctx.tournament(ctx.rules(table)).assign(table=table) for table in TOURNAMENT_TABLES]
    results = pd.concat(parts, ignore_index=True)
    results = results[["table", *[c for c in results.columns if c != "table"]]]
    field = results[results["opponent"] == "field"].copy()
    field["rank"] = field.groupby("table")["win_rate"].rank(ascending=False, method="min").astype(int)
    standings = field.drop(columns="opponent").sort_values(["table", "rank", "policy"]).reset_index(drop=True)
    order = {name: i for i, name in enumerate(ctx.policies)}
    head = results[results["opponent"] != "field"]
    pairs = head[head["policy"].map(order) < head["opponent"].map(order)].reset_index(drop=True)
    standings = standings[
        ["table", "rank", "policy", *[c for c in standings.columns if c not in ("table", "rank", "policy")]]
    ]
    for frame in (standings, pairs):
        for suffix in ("", "_lo", "_hi"):
            frame[f"win_rate_advantage{suffix}"] = frame[f"win_rate{suffix}"] - 0.5
    add_family([(pairs, "win_rate_advantage"), (standings, "win_rate_advantage")])
    return {"standings": standings, "pairs": pairs, "results": results}


def _head_to_head(pairs: pd.DataFrame, table: str, policy: str, opponent: str):
    """The pairs row of policy against opponent (either order) and the sign that makes it policy's view."""
    part = pairs[pairs["table"] == table]
    row = part[(part["policy"] == policy) & (part["opponent"] == opponent)]
    if len(row):
        return row.iloc[0], 1
    row = part[(part["policy"] == opponent) & (part["opponent"] == policy)]
    return (row.iloc[0], -1) if len(row) else (None, 0)


def _from_side(row, sign: int):
    """A pairs row seen from the opponent's side when sign is -1 (win rate 1 - x, advantage -x)."""
    if sign == 1:
        return row
    flipped = row.copy()
    flipped["win_rate"], flipped["win_rate_lo"], flipped["win_rate_hi"] = (
        1 - row["win_rate"],
        1 - row["win_rate_hi"],
        1 - row["win_rate_lo"],
    )
    for lo, hi in (
        ("win_rate_advantage_lo", "win_rate_advantage_hi"),
        ("win_rate_advantage_adj_lo", "win_rate_advantage_adj_hi"),
    ):
        flipped[lo], flipped[hi] = -row[hi], -row[lo]
    flipped["win_rate_advantage"] = -row["win_rate_advantage"]
    return flipped


def key_findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """The few findings a player reads first: who is best, and by how much against the runner-up and random."""
    standings, pairs = tables["standings"], tables["pairs"]
    out = []
    for table in pd.unique(standings["table"]):
        part = standings[standings["table"] == table].sort_values("win_rate", ascending=False)
        top = part.iloc[0]
        text = tr("{table}: {policy} ranks first against the field").format(
            table=table_name(table), policy=top["policy"]
        )
        for other in dict.fromkeys([part.iloc[1]["policy"], "random"]):
            if other == top["policy"] or other not in set(part["policy"]):
                continue
            row, sign = _head_to_head(pairs, table, top["policy"], other)
            row = _from_side(row, sign)
            verdict, numbers = judged(
                row,
                "win_rate_advantage",
                larger=tr("beats"),
                smaller=tr("loses to"),
                same=tr("cannot be told apart from"),
            )
            text += tr(
                "; head to head it wins about {n} matches in 100 against {other} ({numbers}: it {verdict} "
                "{other}, {difference})"
            ).format(
                n=round(100 * row["win_rate"]),
                other=other,
                numbers=phrase(row, "win_rate", row["matches"], tr("matches")),
                verdict=verdict,
                difference=numbers,
            )
        out.append(text + ".")
    return out


def findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """Plain-language findings from the tables."""
    standings = tables["standings"]
    out = []
    for table in pd.unique(standings["table"]):
        part = standings[standings["table"] == table].sort_values("win_rate", ascending=False)
        top, runner, last = part.iloc[0], part.iloc[1], part.iloc[-1]
        text = (
            f"**{table}**: {top['policy']} ranks first, winning {phrase(top, 'win_rate', top['matches'], 'matches')} "
            f"of its matches against the field; {last['policy']} ranks last with {phrase(last, 'win_rate')}."
        )
        head = _from_side(*_head_to_head(tables["pairs"], table, top["policy"], runner["policy"]))
        verdict, numbers = judged(
            head, "win_rate_advantage", larger="beats", smaller="loses to", same="cannot be told apart from"
        )
        text += (
            f" Head to head, {top['policy']} {verdict} the runner-up {runner['policy']} "
            f"({phrase(head, 'win_rate', head['matches'], 'matches')} for {top['policy']}; {numbers})."
        )
        if "random" in set(part["policy"]):
            others = [p for p in part["policy"] if p != "random"]
            sides = [_from_side(*_head_to_head(tables["pairs"], table, p, "random")) for p in others]
            clear = [row for row in sides if row["win_rate_advantage_adj_lo"] > 0]
            text += (
                f" {len(clear)} of the {len(others)} other policies beat random with the simultaneous "
                f"interval of their win rate above 50%."
            )
        out.append(text)
    return out


def figures(tables: dict[str, pd.DataFrame]) -> list[Chart]:
    """Standings with intervals, and the head-to-head matrix, per table."""
    standings, results = tables["standings"], tables["results"]
    tables_here = list(pd.unique(standings["table"]))
    fig, axes = panels(len(tables_here), width=4.6, height=0.45 * standings["policy"].nunique() + 1.6)
    for ax, table in zip(axes, tables_here):
        points(ax, standings[standings["table"] == table], "policy", "win_rate", reference=0.5)
        ax.set_title(table)
        ax.set_xlabel("match win rate against the field")
    charts = [
        Chart(
            "standings",
            finish(fig, "Policies against the field (duplicate deals; dashed: even)"),
            "Each policy's match win rate against all the others, per table",
        )
    ]
    names = list(pd.unique(standings.sort_values(["table", "rank"])["policy"]))
    fig, axes = panels(len(tables_here), width=0.55 * len(names) + 1.6, height=0.55 * len(names) + 1.4)
    for ax, table in zip(axes, tables_here):
        part = results[(results["table"] == table) & (results["opponent"] != "field")]
        grid = np.full((len(names), len(names)), np.nan)
        clear = np.zeros(grid.shape, dtype=bool)
        for _, row in part.iterrows():
            i, j = names.index(row["policy"]), names.index(row["opponent"])
            grid[i, j] = row["win_rate"]
            seen, sign = _head_to_head(tables["pairs"], table, row["policy"], row["opponent"])
            clear[i, j] = seen is not None and (
                seen["win_rate_advantage_adj_lo"] > 0 or seen["win_rate_advantage_adj_hi"] < 0
            )
        ax.imshow(grid, cmap="RdBu", vmin=0.2, vmax=0.8)
        for i in range(len(names)):
            for j in range(len(names)):
                if np.isfinite(grid[i, j]):
                    ax.text(
                        j,
                        i,
                        f"{100 * grid[i, j]:.1f}" + ("" if clear[i, j] else "\n(even)"),
                        ha="center",
                        va="center",
                        fontsize=7,
                        color="white" if abs(grid[i, j] - 0.5) > 0.18 else "black",
                    )
        ax.set_xticks(range(len(names)), names, rotation=45, ha="right", fontsize=8)
        ax.set_yticks(range(len(names)), names, fontsize=8)
        ax.set_title(table)
        ax.set_xlabel("opponent")
        ax.set_ylabel("policy")
    charts.append(
        Chart(
            "head_to_head",
            finish(
                fig,
                "Head to head: row policy's match win rate (%) against column",
                note="Cells: the row policy's match win rate in %; blue above 50%, red below; "
                "(even): not told apart from 50% (simultaneous interval over all pairs).",
            ),
            "Head-to-head match win rate of each policy (row) against each other (column), per table",
        )
    )
    return charts
