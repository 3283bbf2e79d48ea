"""Skill against luck: how often does the stronger player win, as the match gets longer?

A short match is mostly the luck of the tiles; a long one gives skill time to
show.  This analysis plays 2-player matches on duplicate deals (each deal set
in both seat orders, so the tiles' luck falls on both players alike) to a
target of 5, 10, 15 (the standard), 21 and 31 points, for two pairings:
``expert`` against ``greedy`` (a tuned heuristic against the simplest sensible
one) and the search player ``pimc`` against ``expert``.  A club can read off
the match length at which the better player wins often enough.
"""

from __future__ import annotations

import pandas as pd

from bergen_sim.core.i18n import N_, tr
from bergen_sim.core.stats import add_family, judged, phrase
from bergen_sim.services.analysis.figures import Chart, finish, panels, reference_line

TITLE = N_("Skill against luck: the stronger player's match win rate by target")
TARGETS = (5, 10, 15, 21, 31)
#: (stronger, weaker) pairings
PAIRINGS = (("expert", "greedy"), ("pimc", "expert"))
#: the search player costs thousands of times more per match than a heuristic: matches per target at most
SEARCH_MATCHES = 10_000
#: at most this many with --quick
SEARCH_MATCHES_QUICK = 100
#: targets of the search pairing with --quick: each target needs pimc's match-value table for its rules, simulated
#: once per machine, and pimc's matches are slow
SEARCH_TARGETS_QUICK = (TARGETS[0], TARGETS[-1])
SEARCH = "pimc"
TABLE = "2 players"
METHOD = (
    "Duplicate-deal tournaments (bergen_sim.services.comparison), 2 players, standard rules but for the target: each deal "
    "set is played in both seat orders, win rates are the stronger player's share of a deal set's matches, with "
    f"Student-t intervals over deal sets. The heuristic pairing plays the report's matches per target; `pimc` "
    f"plays at most {SEARCH_MATCHES:,} matches per target ({SEARCH_MATCHES_QUICK} with --quick, at the shortest "
    "and longest target only), since each of its decisions plays out dozens of worlds. Family of comparisons: every (pairing, target) win rate against "
    "an even 50% (`win_rate_advantage`, in percentage points), given simultaneous 95% intervals (Bonferroni over the family)."
)
SHOW = {"by_target": "The stronger player's match win rate on duplicate deals, by target."}


def run(ctx) -> dict[str, pd.DataFrame]:
    """One two-player duplicate-deal tournament per pairing and target."""
    parts = []
    for strong, weak in PAIRINGS:
        search = SEARCH in (strong, weak)
        matches = min(ctx.matches, SEARCH_MATCHES_QUICK if ctx.quick else SEARCH_MATCHES) if search else None
        for target in SEARCH_TARGETS_QUICK if search and ctx.quick else TARGETS:
            result = ctx.tournament(ctx.rules(TABLE, target=target), policies=[strong, weak], matches=matches)
            row = result[(result["policy"] == strong) & (result["opponent"] == weak)]
            parts.append(row.assign(target=target, pairing=f"{strong} vs {weak}"))
    frame = pd.concat(parts, ignore_index=True)
    frame = frame[
        [
            "pairing",
            "target",
            "policy",
            "opponent",
            "deal_sets",
            "matches",
            "win_rate",
            "win_rate_lo",
            "win_rate_hi",
            "points_margin",
            "points_margin_lo",
            "points_margin_hi",
        ]
    ]
    for suffix in ("", "_lo", "_hi"):
        frame[f"win_rate_advantage{suffix}"] = frame[f"win_rate{suffix}"] - 0.5
    add_family([(frame, "win_rate_advantage")])
    return {"by_target": frame}


def key_findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """How much the stronger player wins at the shortest and longest match."""
    frame = tables["by_target"]
    out = []
    for _pairing, part in frame.groupby("pairing", sort=False):
        part = part.sort_values("target")
        short, long = part.iloc[0], part.iloc[-1]
        standard = part[part["target"] == 15]
        middle = (
            tr(", {n} to 15 (the standard)").format(n=round(100 * standard.iloc[0]["win_rate"]))
            if len(standard)
            else ""
        )
        out.append(
            tr(
                "{policy} against {opponent} (2 players, duplicate deals): the stronger player wins about "
                "{short_wins} matches in 100 played to {short_target} points{middle} and {long_wins} played to "
                "{long_target} ({short_numbers} and {long_numbers})."
            ).format(
                policy=short["policy"],
                opponent=short["opponent"],
                short_wins=round(100 * short["win_rate"]),
                short_target=int(short["target"]),
                middle=middle,
                long_wins=round(100 * long["win_rate"]),
                long_target=int(long["target"]),
                short_numbers=phrase(short, "win_rate", short["matches"], tr("matches")),
                long_numbers=phrase(long, "win_rate", long["matches"], tr("matches")),
            )
        )
    return out


def findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """Every target's result, each called a win only when its simultaneous interval clears 50%."""
    frame = tables["by_target"]
    out = []
    for pairing, part in frame.groupby("pairing", sort=False):
        words = []
        for _, row in part.sort_values("target").iterrows():
            verdict, numbers = judged(
                row, "win_rate_advantage", larger="ahead", smaller="behind", same="not told apart from even"
            )
            words.append(
                f"to {int(row['target'])} points {phrase(row, 'win_rate', row['matches'], 'matches')} "
                f"({verdict}; {numbers})"
            )
        first, last = part.sort_values("target").iloc[[0, -1]].itertuples()
        trend = (
            "grows"
            if last.win_rate_lo > first.win_rate_hi
            else "shrinks"
            if last.win_rate_hi < first.win_rate_lo
            else "does not clearly change"
        )
        out.append(
            f"**{pairing}**: the stronger player's match win rate "
            + "; ".join(words)
            + f". From the shortest to the longest match its edge {trend} (95% intervals of the two ends)."
        )
    return out


def figures(tables: dict[str, pd.DataFrame]) -> list[Chart]:
    """The stronger player's win rate against the target, with interval bands."""
    frame = tables["by_target"]
    fig, axes = panels(1, width=6.5, height=4.2)
    ax = axes[0]
    for pairing, part in frame.groupby("pairing", sort=False):
        part = part.sort_values("target")
        (line,) = ax.plot(part["target"], 100 * part["win_rate"], marker="o", label=pairing)
        ax.fill_between(
            part["target"], 100 * part["win_rate_lo"], 100 * part["win_rate_hi"], color=line.get_color(), alpha=0.25
        )
    reference_line(ax, 50.0, "even")
    ax.set_xticks(list(TARGETS))
    ax.set_xlabel("target (points to win the match)")
    ax.set_ylabel("stronger player's match win rate (%)")
    ax.grid(alpha=0.3)
    return [
        Chart(
            "skill_by_target",
            finish(
                fig,
                "How often the stronger player wins, by match length (2 players)",
                legend_from=ax,
                legend_title="pairing",
            ),
            "The stronger player's match win rate on duplicate deals against the target, with 95% intervals",
        )
    ]
