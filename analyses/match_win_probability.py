"""What are my chances from here? The match-win probability from every score.

At the start of every hand each side has a score; this analysis records, for
every hand of every match and from each side's point of view, the side's own
score, the other side's score and whether the side went on to win the match,
with 2 players and 4 in partnerships (two sides, target 15).  The result is a
table of comeback odds: the chance of winning the match from every pair of
scores, for realistic (``expert``) play and for random play.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bergen_sim.core.i18n import N_, tr, trn
from bergen_sim.core.stats import add_clustered, group_cluster_sums, phrase
from bergen_sim.services.analysis.figures import Chart, finish, panels
from bergen_sim.services.analysis.reporting import headline_policies, table_name

TITLE = N_("Match-win probability from every score (comeback odds)")
#: tables with two sides, where "my score, your score" says everything
TWO_SIDED = ("2 players", "4 partnerships")
#: a score cell is described in the findings only when this many matches reached it
MIN_MATCHES = 30
METHOD = (
    "Self-play under the standard rules (target 15). Every hand start is an observation from each side's point of "
    "view (own score, other side's score, did this side win the match); a score pair reached by both sides at "
    "once (a tie) counts once for each. The win rate of a cell is a ratio of per-match sums (a match can start "
    "several hands at the same scores after a blocked hand that nobody wins), clustered by match: "
    "Agresti and Coull's interval at the sample size the clustered variance implies, which keeps its 95% "
    "coverage in cells of a few dozen matches and near 0% or 100%. Equal scores give exactly 50% by symmetry (both sides' views count). The "
    "cells are read as a map, not as a family of tests: no cell is tested against another."
)
SHOW = {
    "by_score": (
        "The chance of winning the match from the start of a hand, by own and opponent's score "
        "(cells reached by at least 30 matches).",
        lambda frame: frame[frame["matches_reaching"] >= MIN_MATCHES],
    ),
}


def collect(chunk, rules) -> dict:
    """Per-chunk cluster sums of (hand starts, match wins) for every (own score, other score) cell."""
    hands, matches = chunk.hands, chunk.matches
    target = rules.target
    first_match = int(matches["match"][0])
    winner = matches["winner"][hands["match"] - first_match]
    before = hands["score_before"]
    own = np.minimum(np.concatenate([before[:, 0], before[:, 1]]), target - 1)  # side 0's view, then side 1's
    other = np.minimum(np.concatenate([before[:, 1], before[:, 0]]), target - 1)
    won = np.concatenate([winner == 0, winner == 1])
    units = np.concatenate([hands["match"], hands["match"]])
    return group_cluster_sums(units, own * target + other, won, np.ones(len(own)), target * target)


def run(ctx) -> dict[str, pd.DataFrame]:
    """Play each two-sided table with the headline policies and tabulate every score cell."""
    rows = []
    for table in TWO_SIDED:
        for policy in headline_policies(ctx.policies):
            rules = ctx.rules(table)
            played = ctx.play(rules, policy, collect, hand_rows=True, match_rows=True)
            target = rules.target
            for cell in range(target * target):
                sums = {k: v[cell] for k, v in played.sums.items()}
                if sums["sy"] == 0:
                    continue
                rows.append(
                    {
                        "table": table,
                        "policy": policy,
                        "own_score": cell // target,
                        "other_score": cell % target,
                        "target": target,
                        "hand_starts": int(sums["sy"]),
                        "matches_reaching": int(sums["n"]),
                        "wins": int(sums["sx"]),
                        "_sums": sums,
                    }
                )
    frame = pd.DataFrame(rows)
    add_clustered(frame, "match_win_rate", frame.pop("_sums"))
    return {"by_score": frame}


def _cell(frame: pd.DataFrame, table: str, policy: str, own: int, other: int):
    part = frame[
        (frame["table"] == table)
        & (frame["policy"] == policy)
        & (frame["own_score"] == own)
        & (frame["other_score"] == other)
        & (frame["matches_reaching"] >= MIN_MATCHES)
    ]
    return None if part.empty else part.iloc[0]


def _in_100(rate: float) -> str:
    n = round(100 * rate)
    return trn("about {n} match in 100", "about {n} matches in 100", n).format(n=n)


def key_findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """Comeback odds in words: from 0 points against up to 10, and leading 10-5."""
    frame = tables["by_score"]
    out = []
    for policy in headline_policies(list(pd.unique(frame["policy"]))):
        for table in TWO_SIDED:
            down = frame[
                (frame["table"] == table)
                & (frame["policy"] == policy)
                & (frame["own_score"] == 0)
                & (frame["other_score"].between(1, 10))
                & (frame["matches_reaching"] >= MIN_MATCHES)
            ]
            if down.empty:
                continue
            behind = down.loc[down["other_score"].idxmax()]
            text = tr(
                "{table}, {policy} play: a side that is {score}-0 down at the start of a hand still wins "
                "{wins} ({numbers})"
            ).format(
                table=table_name(table),
                policy=policy,
                score=int(behind["other_score"]),
                wins=_in_100(behind["match_win_rate"]),
                numbers=phrase(behind, "match_win_rate", behind["matches_reaching"], tr("matches")),
            )
            ahead = _cell(frame, table, policy, 10, 5)
            if ahead is not None:
                text += tr("; one leading 10-5 wins {wins} ({numbers})").format(
                    wins=_in_100(ahead["match_win_rate"]),
                    numbers=phrase(ahead, "match_win_rate", ahead["matches_reaching"], tr("matches")),
                )
            out.append(text + ".")
    return out


def findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """Plain-language findings from the table."""
    frame = tables["by_score"]
    out = []
    for policy in pd.unique(frame["policy"]):
        for table in pd.unique(frame["table"]):
            part = frame[
                (frame["table"] == table) & (frame["policy"] == policy) & (frame["matches_reaching"] >= MIN_MATCHES)
            ]
            if part.empty:
                continue
            parts = []
            for own, other in ((2, 0), (0, 2), (10, 5), (5, 10), (0, 10), (14, 12), (12, 14)):
                row = _cell(frame, table, policy, own, other)
                if row is not None:
                    parts.append(f"{own}-{other}: {phrase(row, 'match_win_rate', row['matches_reaching'], 'matches')}")
            lead = part[part["own_score"] > part["other_score"]]
            comeback = part[(part["own_score"] < part["other_score"]) & (part["match_win_rate_lo"] > 0.5)]
            text = (
                f"**{table}** ({policy} play): the chance of winning the match from the start of a hand, own "
                f"score first: " + "; ".join(parts) + "."
            )
            if len(lead):
                text += (
                    f" Of {len(part)} score pairs reached by at least {MIN_MATCHES} matches, a side that is ahead "
                    f"wins more than half its matches in {int((lead['match_win_rate'] > 0.5).sum())} of "
                    f"{len(lead)}; a side that is behind is clearly the favourite in {len(comeback)}."
                )
            out.append(text)
    return out


def figures(tables: dict[str, pd.DataFrame]) -> list[Chart]:
    """Heat maps of the match-win probability, one per table and policy."""
    frame = tables["by_score"]
    combos = [
        (t, s)
        for s in pd.unique(frame["policy"])
        for t in pd.unique(frame["table"])
        if len(frame[(frame["table"] == t) & (frame["policy"] == s)])
    ]
    fig, axes = panels(len(combos), width=5.0, height=4.6, columns=2)
    for ax, (table, policy) in zip(axes, combos):
        part = frame[(frame["table"] == table) & (frame["policy"] == policy)]
        target = int(part["target"].iloc[0])
        grid = np.full((target, target), np.nan)
        shown = part[part["matches_reaching"] >= MIN_MATCHES]
        grid[shown["own_score"], shown["other_score"]] = shown["match_win_rate"]
        image = ax.imshow(grid, origin="lower", cmap="RdBu", vmin=0, vmax=1)
        for own, other, rate in zip(shown["own_score"], shown["other_score"], shown["match_win_rate"]):
            if own % 2 == 0 and other % 2 == 0:  # every other cell, to stay readable
                ax.text(
                    other,
                    own,
                    f"{100 * rate:.0f}",
                    ha="center",
                    va="center",
                    fontsize=6,
                    color="white" if abs(rate - 0.5) > 0.3 else "black",
                )
        ax.set_title(f"{table}, {policy} play", fontsize=10)
        ax.set_xlabel("opponent's score at the start of the hand")
        ax.set_ylabel("own score at the start of the hand")
        fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="match win probability")
    charts = [
        Chart(
            "match_win_probability",
            finish(
                fig,
                "Chance of winning the match from every score (start of a hand)",
                note=f"Colour: match win probability; numbers: the same in % (every other cell); blank: fewer than "
                f"{MIN_MATCHES} matches reached the cell. Intervals are in the table.",
            ),
            "Match-win probability from the start of a hand at every pair of scores (own score up, opponent's across)",
        )
    ]
    fig, axes = panels(len(combos), width=4.6, height=3.6, columns=2)
    for ax, (table, policy) in zip(axes, combos):
        part = frame[
            (frame["table"] == table)
            & (frame["policy"] == policy)
            & (frame["matches_reaching"] >= MIN_MATCHES)
            & (frame["own_score"] == 0)
        ].sort_values("other_score")
        ax.plot(part["other_score"], part["match_win_rate"], marker="o", markersize=3)
        ax.fill_between(part["other_score"], part["match_win_rate_lo"], part["match_win_rate_hi"], alpha=0.25)
        ax.axhline(0.5, color="grey", linestyle="--", linewidth=1)
        ax.set_title(f"{table}, {policy} play", fontsize=10)
        ax.set_xlabel("opponent's score (own score 0)")
        ax.set_ylabel("match win probability")
        ax.set_ylim(0, 1)
    charts.append(
        Chart(
            "comeback",
            finish(fig, "Comeback odds: winning from 0 points against every opponent score"),
            "Chance of winning the match from 0 points, by the opponent's score, with 95% intervals",
        )
    )
    return charts
