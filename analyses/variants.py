"""What do the rule variants change? Five points for going out, no boneyard reserve, the classic rules.

Against the standard game: ``out_points = 5`` (going out pays 5 instead of 2),
``boneyard_reserve = 0`` (the boneyard may be drawn dry) and the ``classic``
preset (highest-double lead, 1 point for going out or a blocked hand, pip
count settlement, no reserve, no near-target cut).  For each player count and
policy (self-play), from the same seeds: how long matches last, how much
the seating matters (the first hand's leader's match win rate, and each
seat's), and where the points come from.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bergen_sim.core.i18n import N_, tr
from bergen_sim.core.stats import (
    add_clustered,
    add_family,
    add_mean,
    add_rate,
    cluster_sums,
    judged,
    paired_ratio_difference,
    phrase,
)
from bergen_sim.services.analysis import hand_stats as hs
from bergen_sim.services.analysis.figures import Chart, differences, finish, grouped, panels, stacked_shares
from bergen_sim.services.analysis.reporting import TABLES, PerMatch, headline_policies, reference_policy

TITLE = N_("Rule variants against the standard game")
#: label -> (preset, settings)
VARIANTS = {
    "standard": ("standard", {}),
    "out_points 5": ("standard", {"out_points": 5}),
    "boneyard_reserve 0": ("standard", {"boneyard_reserve": 0}),
    "classic": ("classic", {}),
}
METHOD = (
    "Self-play; every variant is played from the same seed, so the deals are the same (the play that follows "
    "differs with the rules). Seat advantage: the match win rate of the first hand's leader and of each seat "
    "against the fair share 1 / number of sides. Differences from standard are paired by match: match i of "
    "every variant starts from the same deal, so each difference is a ratio of per-match sums compared match "
    "by match (delta method over the per-match influences). The blocked rate is a ratio of per-match sums, clustered by match. Family of "
    "comparisons: every measure of the versus_standard table (match length in hands per match, first leader's "
    "match win rate, blocked rate and the four point shares, in percentage points) for every variant, table "
    "and policy, given simultaneous 95% intervals (Bonferroni over the family)."
)
SHOW = {
    "summary": "Match length, first leader's match win rate, blocked hands and point sources per variant.",
    "versus_standard": "Each variant minus the standard game (same table and policy).",
}
_MEASURES = ("hands_per_match", "first_leader_match_win_rate", "blocked_rate", *(f"{s}_share" for s in hs.SOURCES))


def collect(chunk, rules) -> dict:
    """Per-chunk sums (first leaders' match wins, point sources) and the per-match values the pairing needs."""
    matches, hands = chunk.matches, chunk.hands
    first_won = hs.seat_side(matches["first_leader"], rules) == matches["winner"]
    sources = hs.match_sums(hs.points_by_source(chunk.hand_rows, rules), hands["match"]).astype(np.int64)
    return {
        "first_won": first_won.sum(),
        "sources": hs.source_sums(chunk.hand_rows, rules),
        "blocked": cluster_sums(matches["blocked_hands"], matches["hands"]),
        "per_match": PerMatch(
            np.column_stack(
                [matches["hands"], first_won, matches["blocked_hands"], sources, sources.sum(axis=1)]
            ).astype(np.int64)
        ),
    }


#: the per-match columns ``collect`` keeps: hands, first leader won, blocked hands, each source's points, all points
_HANDS, _FIRST_WON, _BLOCKED, _SOURCES, _POINTS = 0, 1, 2, slice(3, 3 + len(hs.SOURCES)), 3 + len(hs.SOURCES)
#: each measure as a ratio of per-match sums: (numerator column, denominator column or None for "per match")
_RATIOS = {
    "hands_per_match": (_HANDS, None),
    "first_leader_match_win_rate": (_FIRST_WON, None),
    "blocked_rate": (_BLOCKED, _HANDS),
    **{f"{source}_share": (_SOURCES.start + k, _POINTS) for k, source in enumerate(hs.SOURCES)},
}


def run(ctx) -> dict[str, pd.DataFrame]:
    """Play every table x policy x variant and tabulate."""
    summary, seats, change = [], [], []
    for table in TABLES:
        for policy in ctx.policies:
            per_match = {}
            for variant, (preset, settings) in VARIANTS.items():
                rules = ctx.rules(table, preset=preset, **settings)
                played = ctx.play(rules, policy, collect, hand_rows=True, match_rows=True)
                t = played.counts
                key = {"table": table, "policy": policy, "variant": variant}
                per_match[variant] = played.sums["per_match"].values
                summary.append(
                    {
                        **key,
                        "matches": played.matches,
                        "hands": int(t["hands"]),
                        "hands_sq": int(t["hands_sq"]),
                        "blocked_hands": int(t["blocked_hands"]),
                        "first_leader_match_wins": int(played.sums["first_won"]),
                        "_blocked": played.sums["blocked"],
                        "fair_share": 1 / rules.sides,
                        **hs.source_shares(played.sums["sources"]),
                    }
                )
                for side in range(rules.sides):
                    seats.append(
                        {
                            **key,
                            "side": side,
                            "matches": played.matches,
                            "match_wins": int(t["match_wins"][side]),
                            "fair_share": 1 / rules.sides,
                        }
                    )
            change.extend(_versus_standard(table, policy, per_match))
    frame = pd.DataFrame(summary)
    add_mean(frame, "hands_per_match", "hands", "hands_sq", "matches")
    add_rate(frame, "first_leader_match_win_rate", "first_leader_match_wins", "matches")
    add_clustered(frame, "blocked_rate", frame.pop("_blocked"))
    frame = frame.drop(columns=["hands_sq", "points"])
    seat = pd.DataFrame(seats)
    add_rate(seat, "match_win_rate", "match_wins", "matches")
    versus = pd.DataFrame(change)
    add_family([(versus, f"{measure}_change") for measure in _MEASURES])
    return {"summary": frame, "seats": seat, "versus_standard": versus}


def _versus_standard(table: str, policy: str, per_match: dict[str, np.ndarray]) -> list[dict]:
    """Each variant's measures minus the standard game's, paired by match (the same deals)."""
    base = per_match["standard"]
    ones = np.ones(len(base))
    rows = []
    for variant, values in per_match.items():
        if variant == "standard":
            continue
        row = {"table": table, "policy": policy, "variant": variant, "matches": len(values)}
        for measure, (top, bottom) in _RATIOS.items():
            d = paired_ratio_difference(
                values[:, top],
                ones if bottom is None else values[:, bottom],
                base[:, top],
                ones if bottom is None else base[:, bottom],
            )
            row.update({f"{measure}_change": d[0], f"{measure}_change_lo": d[1], f"{measure}_change_hi": d[2]})
        rows.append(row)
    return rows


def key_findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """The few findings a player reads first."""
    frame, change = tables["summary"], tables["versus_standard"]
    out = []
    for policy in headline_policies(list(pd.unique(frame["policy"]))):
        rows = frame[(frame["table"] == "2 players") & (frame["policy"] == policy)].set_index("variant")
        diffs = change[(change["table"] == "2 players") & (change["policy"] == policy)].set_index("variant")
        if rows.empty:
            continue
        parts = []
        for variant in list(VARIANTS)[1:]:
            word, numbers = judged(
                diffs.loc[variant],
                "hands_per_match_change",
                tr("hands per match"),
                larger=tr("longer"),
                smaller=tr("shorter"),
                same=tr("about as long"),
            )
            parts.append(
                tr("{variant} makes matches {verdict} ({numbers})").format(
                    variant=variant, verdict=word, numbers=numbers
                )
            )
        out.append(
            tr("2 players, {policy} play: a standard match lasts {hands} hands; {variants}.").format(
                policy=policy, hands=phrase(rows.loc["standard"], "hands_per_match"), variants="; ".join(parts)
            )
        )
    return out


def findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """Plain-language findings from the tables."""
    frame, change = tables["summary"], tables["versus_standard"]
    ref = reference_policy(list(pd.unique(frame["policy"])))
    out = []
    for table in pd.unique(frame["table"]):
        rows = frame[(frame["table"] == table) & (frame["policy"] == ref)].set_index("variant")
        diffs = change[(change["table"] == table) & (change["policy"] == ref)].set_index("variant")
        standard = rows.loc["standard"]
        parts = []
        for variant in list(VARIANTS)[1:]:
            word, numbers = judged(
                diffs.loc[variant],
                "hands_per_match_change",
                "hands per match",
                larger="longer",
                smaller="shorter",
                same="about as long",
            )
            parts.append(f"{variant}: {phrase(rows.loc[variant], 'hands_per_match')} ({word}, {numbers})")
        text = (
            f"**{table}** ({ref} play): a standard match lasts "
            f"{phrase(standard, 'hands_per_match', standard['matches'], 'matches')} hands; " + "; ".join(parts) + "."
        )
        fair = standard["fair_share"]
        lead = [f"{variant} {phrase(rows.loc[variant], 'first_leader_match_win_rate')}" for variant in VARIANTS]
        text += f" The first hand's leader wins (fair share {fair:.0%}): " + ", ".join(lead) + "."
        out.append(text)
        biggest = []
        for variant in list(VARIANTS)[1:]:
            d = diffs.loc[variant]
            source = max(hs.SOURCES, key=lambda s: abs(d[f"{s}_share_change"]))
            word, numbers = judged(d, f"{source}_share_change", larger="up", smaller="down", same="not clearly moved")
            biggest.append(
                f"{variant} moves the share of points from {_source_words(source)} the most, "
                f"{phrase(rows.loc['standard'], f'{source}_share')} to {phrase(rows.loc[variant], f'{source}_share')} "
                f"({word}: {numbers})"
            )
        out.append(f"{table} ({ref}), point sources: " + "; ".join(biggest) + ".")
    return out


def _source_words(source: str) -> str:
    return {"lead": "the lead", "header": "headers", "out": "going out", "blocked": "blocked hands"}[source]


def figures(tables: dict[str, pd.DataFrame]) -> list[Chart]:
    """Match length, first leader's advantage and point sources per variant."""
    frame = tables["summary"]
    charts = []
    for value, label, name in (
        ("hands_per_match", "hands per match", "match_length"),
        ("first_leader_match_win_rate", "first hand's leader wins the match", "first_leader"),
    ):
        fig, axes = panels(len(TABLES))
        for ax, table in zip(axes, TABLES):
            part = frame[frame["table"] == table]
            grouped(ax, part, "policy", "variant", value, groups=list(VARIANTS))
            if value == "first_leader_match_win_rate":
                ax.axhline(float(part["fair_share"].iloc[0]), color="grey", linestyle="--", linewidth=1)
            ax.set_title(table)
            ax.set_xlabel("policy (self-play)")
            ax.set_ylabel(label)
        charts.append(
            Chart(
                name,
                finish(
                    fig, f"{label[0].upper()}{label[1:]}, by rule variant", legend_from=axes[0], legend_title="variant"
                ),
                f"{label[0].upper()}{label[1:]} under each rule variant, by table and policy"
                + ("; dashed: fair share" if value != "hands_per_match" else ""),
            )
        )
    change = tables["versus_standard"]
    for value, label in (
        ("hands_per_match_change", "hands per match"),
        ("first_leader_match_win_rate_change", "first leader's match win rate (pp)"),
    ):
        fig, axes = panels(len(TABLES))
        for ax, table in zip(axes, TABLES):
            differences(ax, change[change["table"] == table], "variant", value, group="policy")
            ax.set_title(table)
            ax.set_xlabel("variant")
            ax.set_ylabel(f"variant minus standard: {label}")
        charts.append(
            Chart(
                value,
                finish(
                    fig,
                    f"Each variant minus the standard game: {label}",
                    legend_from=axes[0],
                    legend_title="policy (self-play)",
                    note="Thick bars: 95% intervals; thin bars: simultaneous intervals over the "
                    "family of variant comparisons; dashed: no difference.",
                ),
                f"Change from the standard game in {label}, with 95% and simultaneous intervals",
            )
        )
    ref = reference_policy(list(pd.unique(frame["policy"])))
    fig, axes = panels(len(TABLES))
    for ax, table in zip(axes, TABLES):
        part = frame[(frame["table"] == table) & (frame["policy"] == ref)]
        stacked_shares(ax, part, "variant", [f"{s}_share" for s in hs.SOURCES], [_source_words(s) for s in hs.SOURCES])
        ax.set_title(table)
        ax.set_ylabel("share of all points")
    charts.append(
        Chart(
            "point_sources",
            finish(
                fig,
                f"Where the points come from, by rule variant ({ref} play)",
                legend_from=axes[0],
                legend_title="source of points",
            ),
            f"Share of all points from the lead, headers, going out and blocked hands per variant ({ref} play)",
        )
    )
    return charts
