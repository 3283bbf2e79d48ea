"""What is going first worth? The leader's edge split into the lead's points and the tempo after them.

The holder of the lowest double leads it, scoring its double-header at once,
and then the other side plays first on the open layout.  How much does the
leading side gain per hand, and how much of that is the led double's own
points (the *lead points*) rather than what follows (the *tempo*: being a tile
ahead, seeing the other side's first reply)?  Measured with 2 players and 4 in
partnerships (two sides), for every policy in self-play.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bergen_sim.core.i18n import N_, tr
from bergen_sim.core.stats import add_clustered, add_family, cluster_column, cluster_sums, judged, phrase
from bergen_sim.services.analysis import hand_stats as hs
from bergen_sim.services.analysis.figures import Chart, differences, finish, panels
from bergen_sim.services.analysis.reporting import headline_policies, table_name

TITLE = N_("The value of going first: lead points and tempo")
TWO_SIDED = ("2 players", "4 partnerships")
PARTS = ("edge", "lead_points", "tempo")
METHOD = (
    "Self-play under the standard rules. Per hand: the *edge* is the leading side's points minus the other "
    "side's (everything scored in the hand: the lead, headers, going out, a blocked hand), the *lead points* "
    "are what the led double itself scored (2, or less under the near-target cut), and the *tempo* is the edge "
    "without the lead points. Each is a mean per hand: a ratio of per-match sums over hands per match, with a "
    "delta-method interval clustered by match. Family of comparisons: the edge and the tempo against zero for "
    "every table and policy (the lead points are positive by the rules), given simultaneous 95% intervals (Bonferroni over the family)."
)
SHOW = {"per_hand": "The leading side's edge per hand, split into lead points and tempo (points per hand)."}


def collect(chunk, rules) -> dict:
    """Per-match sums of the leader's edge, lead points and tempo, and of the hands."""
    rows = chunk.hand_rows
    points = hs.side_points(rows, rules)
    leader = hs.leader_side(rows, rules)
    own = np.take_along_axis(points, leader[:, None], axis=1)[:, 0]
    edge = own - (points.sum(axis=1) - own)
    lead = hs.lead_points(rows, rules)
    per_match = hs.match_sums(
        np.column_stack([edge, lead, edge - lead, np.ones(len(rows), dtype=np.int64)]), chunk.hands["match"]
    )
    return {"parts": cluster_sums(per_match[:, :3], per_match[:, 3])}


def run(ctx) -> dict[str, pd.DataFrame]:
    """Play each two-sided table with every policy and tabulate the edge and its parts."""
    rows = []
    for table in TWO_SIDED:
        for policy in ctx.policies:
            played = ctx.play(ctx.rules(table), policy, collect, hand_rows=True)
            sums = played.sums["parts"]
            rows.append(
                {
                    "table": table,
                    "policy": policy,
                    "matches": played.matches,
                    "hands": int(played.counts["hands"]),
                    **{f"_{part}": cluster_column(sums, k) for k, part in enumerate(PARTS)},
                }
            )
    frame = pd.DataFrame(rows)
    for part in PARTS:
        add_clustered(frame, f"{part}_per_hand", frame.pop(f"_{part}"))
    add_family([(frame, "edge_per_hand"), (frame, "tempo_per_hand")])
    return {"per_hand": frame}


def key_findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """The leader's edge in plain words."""
    frame = tables["per_hand"]
    out = []
    for policy in headline_policies(list(pd.unique(frame["policy"]))):
        for table in TWO_SIDED:
            part = frame[(frame["table"] == table) & (frame["policy"] == policy)]
            if part.empty:
                continue
            row = part.iloc[0]
            verdict, numbers = judged(
                row,
                "tempo_per_hand",
                tr("points per hand"),
                larger=tr("adds to it"),
                smaller=tr("gives some of it back"),
                same=tr("adds nothing clear"),
            )
            out.append(
                tr(
                    "{table}, {policy} play: the side that leads a hand outscores the other by {edge} points "
                    "in that hand; the led double itself is {lead} points of it and the tempo after it "
                    "{verdict} ({numbers})."
                ).format(
                    table=table_name(table),
                    policy=policy,
                    edge=phrase(row, "edge_per_hand"),
                    lead=phrase(row, "lead_points_per_hand"),
                    verdict=verdict,
                    numbers=numbers,
                )
            )
    return out


def findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """Every policy's split, with the tempo judged on its simultaneous interval."""
    frame = tables["per_hand"]
    out = []
    for table in pd.unique(frame["table"]):
        parts = []
        for _, row in frame[frame["table"] == table].iterrows():
            verdict, numbers = judged(
                row,
                "tempo_per_hand",
                "points per hand",
                larger="positive",
                smaller="negative",
                same="not clearly different from zero",
            )
            share = row["lead_points_per_hand"] / row["edge_per_hand"] if row["edge_per_hand"] else float("nan")
            parts.append(
                f"{row['policy']}: edge {phrase(row, 'edge_per_hand', row['hands'], 'hands')} points per "
                f"hand, of which lead points {phrase(row, 'lead_points_per_hand')} ({share:.0%} of the "
                f"edge) and tempo {verdict} ({numbers})"
            )
        out.append(f"**{table}**: " + "; ".join(parts) + ".")
    return out


def figures(tables: dict[str, pd.DataFrame]) -> list[Chart]:
    """The edge and its two parts per policy, each with its interval."""
    frame = tables["per_hand"]
    long = []
    for part in PARTS:
        columns = {f"{part}_per_hand{s}": f"points_per_hand{s}" for s in ("", "_lo", "_hi", "_adj_lo", "_adj_hi")}
        present = {k: v for k, v in columns.items() if k in frame}
        long.append(frame[["table", "policy", *present]].rename(columns=present).assign(part=part.replace("_", " ")))
    long = pd.concat(long, ignore_index=True)
    fig, axes = panels(len(TWO_SIDED), width=5.5)
    for ax, table in zip(axes, TWO_SIDED):
        differences(ax, long[long["table"] == table], "policy", "points_per_hand", group="part")
        ax.set_title(table)
        ax.set_xlabel("policy (self-play)")
        ax.set_ylabel("leading side minus other side (points per hand)")
    return [
        Chart(
            "edge_split",
            finish(
                fig,
                "What going first is worth per hand: the edge, the lead points, the tempo",
                legend_from=axes[0],
                legend_title="part of the edge",
                note="Thick bars: 95% intervals; thin bars: simultaneous intervals (edge and tempo); dashed: no edge.",
            ),
            "The leading side's points minus the other side's per hand, split into the led double's points and "
            "the tempo after it, with intervals",
        )
    ]
