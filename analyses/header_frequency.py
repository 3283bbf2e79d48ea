"""How often do headers happen, and where do the points come from?

A header scores when, after a play, both open ends show the same number: a
double-header (2 points) or, when one of them is a double end, a
triple-header (3 points).  This analysis counts double- and triple-headers
per hand and per play, by player count, policy (self-play) and the point in
the hand (the play number: the first play after the lead is play 1), and
splits all points scored into the lead, headers, going out and blocked hands.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bergen_sim.core.i18n import N_, num, tr
from bergen_sim.core.stats import add_clustered, add_rate, cluster_column, cluster_sums, phrase
from bergen_sim.engine.layout import MAX_PLAY_NO
from bergen_sim.services.analysis import hand_stats as hs
from bergen_sim.services.analysis.figures import Chart, empty_note, finish, grouped, lines, panels, stacked_shares
from bergen_sim.services.analysis.reporting import TABLES, headline_policies, reference_policy

TITLE = N_("Header frequency and where the points come from")
KINDS = ("double", "triple")
#: a play number is drawn in the figure only once this many hands reached it
MIN_HANDS = 200
METHOD = (
    "Self-play under the standard rules. Headers count plays after the lead (the led double's 2 points count "
    "as lead points). Headers per hand and per play are ratios of per-match sums (headers over hands, headers "
    "over plays) with delta-method intervals clustered by match. The rate at play number p is headers on play "
    "p over hands that reached play p, with Wilson intervals over hands (one play p per hand; the engine keeps "
    "these counts only as totals, so they are not clustered by match). Shares of points are ratios of sums "
    "over matches. No difference is tested here (the report describes rates, it does not compare them), so no "
    "family needs controlling; 'most' and 'fewest' are said of policies only when their intervals do not "
    "overlap."
)
SHOW = {
    "per_hand": "Headers per hand (means) and per play (rates), and plays per hand.",
    "point_sources": "Share of all points scored that came from the lead, headers, going out and blocked hands.",
    "by_play": (
        "Header rate by play number (the first eight plays after the lead), reference policy.",
        lambda frame: frame[
            (frame["policy"] == reference_policy(list(pd.unique(frame["policy"])))) & (frame["play_number"] <= 8)
        ],
    ),
}


def collect(chunk, rules) -> dict:
    """Per-chunk sums: hands by number of plays, per-match cluster sums of headers, plays and hands, point sources."""
    plays = chunk.hands["plays"]
    m = chunk.matches
    counts = np.column_stack([m["double_headers"], m["triple_headers"], m["double_headers"] + m["triple_headers"]])
    return {
        "plays_hist": np.bincount(np.minimum(plays, MAX_PLAY_NO), minlength=MAX_PLAY_NO + 1),
        "per_hand": cluster_sums(np.column_stack([counts, m["plays"]]), m["hands"]),
        "per_play": cluster_sums(counts, m["plays"]),
        "sources": hs.source_sums(chunk.hand_rows, rules),
    }


def run(ctx) -> dict[str, pd.DataFrame]:
    """Play every table x policy under the standard rules and tabulate."""
    per_hand, by_play, sources = [], [], []
    for table in TABLES:
        for policy in ctx.policies:
            rules = ctx.rules(table)
            played = ctx.play(rules, policy, collect, hand_rows=True, match_rows=True)
            t = played.counts
            key = {"table": table, "policy": policy}
            per_hand.append(
                {
                    **key,
                    "matches": played.matches,
                    "hands": int(t["hands"]),
                    "plays": int(t["plays"]),
                    "double_headers": int(t["double_headers"]),
                    "triple_headers": int(t["triple_headers"]),
                    "headers": int(t["double_headers"] + t["triple_headers"]),
                    "_hand": played.sums["per_hand"],
                    "_play": played.sums["per_play"],
                }
            )
            reaching = np.cumsum(played.sums["plays_hist"][::-1])[::-1]  # hands with at least p plays
            for p in range(1, MAX_PLAY_NO + 1):
                if reaching[p] == 0:
                    break
                by_play.append(
                    {
                        **key,
                        "play_number": p,
                        "hands_reaching": int(reaching[p]),
                        "double_headers": int(t["headers_by_play"][2 * p]),
                        "triple_headers": int(t["headers_by_play"][2 * p + 1]),
                        "headers": int(t["headers_by_play"][2 * p] + t["headers_by_play"][2 * p + 1]),
                    }
                )
            sources.append({**key, **hs.source_shares(played.sums["sources"])})
    hands = pd.DataFrame(per_hand)
    per_hand_sums, per_play_sums = hands.pop("_hand"), hands.pop("_play")
    add_clustered(hands, "plays_per_hand", [cluster_column(s, 3) for s in per_hand_sums])
    for k, kind in enumerate((*(f"{k}_" for k in KINDS), "")):  # each kind, then all headers
        add_clustered(hands, f"{kind}headers_per_hand", [cluster_column(s, k) for s in per_hand_sums])
        add_clustered(hands, f"{kind}header_rate_per_play", [cluster_column(s, k) for s in per_play_sums])
    plays = pd.DataFrame(by_play)
    for kind in ("", *(f"{k}_" for k in KINDS)):
        add_rate(plays, f"{kind}header_rate", f"{kind}headers", "hands_reaching")
    return {"per_hand": hands, "by_play": plays, "point_sources": pd.DataFrame(sources)}


def key_findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """The few findings a player reads first."""
    hands, sources = tables["per_hand"], tables["point_sources"]
    out = []
    for policy in headline_policies(list(pd.unique(hands["policy"]))):
        row = hands[(hands["table"] == "2 players") & (hands["policy"] == policy)]
        src = sources[(sources["table"] == "2 players") & (sources["policy"] == policy)]
        if row.empty or src.empty:
            continue
        row, src = row.iloc[0], src.iloc[0]
        out.append(
            tr(
                "2 players, {policy} play: a hand has on average {headers} headers (double or triple), "
                "about one in every {plays} plays; {header_share} of all points come from headers and "
                "{lead_share} from leading a double."
            ).format(
                policy=policy,
                headers=phrase(row, "headers_per_hand"),
                plays=num(1 / row["header_rate_per_play"], ".0f"),
                header_share=phrase(src, "header_share"),
                lead_share=phrase(src, "lead_share"),
            )
        )
    return out


def findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """Plain-language findings from the tables."""
    hands, plays, sources = tables["per_hand"], tables["by_play"], tables["point_sources"]
    ref = reference_policy(list(pd.unique(hands["policy"])))
    out = []
    for table in pd.unique(hands["table"]):
        row = hands[(hands["table"] == table) & (hands["policy"] == ref)].iloc[0]
        text = (
            f"**{table}** ({ref} play): a hand has {phrase(row, 'double_headers_per_hand', row['hands'], 'hands')} "
            f"double-headers and {phrase(row, 'triple_headers_per_hand')} triple-headers; "
            f"{phrase(row, 'double_header_rate_per_play', row['plays'], 'plays')} of plays make a double-header "
            f"and {phrase(row, 'triple_header_rate_per_play')} a triple-header."
        )
        part = hands[hands["table"] == table]
        if len(part) > 1:
            most, least = part.loc[part["headers_per_hand"].idxmax()], part.loc[part["headers_per_hand"].idxmin()]
            others = part.drop(index=most.name)
            rest = part.drop(index=least.name)
            top = (
                f"{most['policy']} makes the most headers per hand"
                if (most["headers_per_hand_lo"] > others["headers_per_hand_hi"]).all()
                else f"{most['policy']} makes the most headers per hand "
                f"of those played, though its interval overlaps another's"
            )
            bottom = (
                f"{least['policy']} the fewest"
                if (least["headers_per_hand_hi"] < rest["headers_per_hand_lo"]).all()
                else f"{least['policy']} the fewest (its interval overlaps another's, so the order is not established)"
            )
            text += (
                f" Of the policies, {top} ({phrase(most, 'headers_per_hand', most['hands'], 'hands')}) and "
                f"{bottom} ({phrase(least, 'headers_per_hand', least['hands'], 'hands')})."
            )
        curve = plays[(plays["table"] == table) & (plays["policy"] == ref) & (plays["hands_reaching"] >= MIN_HANDS)]
        if len(curve):
            peak = curve.loc[curve["header_rate"].idxmax()]
            text += (
                f" Headers are likeliest on play {int(peak['play_number'])} after the lead: "
                f"{phrase(peak, 'header_rate', peak['hands_reaching'], 'hands reaching it')} of those plays "
                f"make one."
            )
        out.append(text)
    for table in pd.unique(sources["table"]):
        row = sources[(sources["table"] == table) & (sources["policy"] == ref)].iloc[0]
        ranked = sorted(hs.SOURCES, key=lambda s: -row[f"{s}_share"])
        out.append(
            f"{table} ({ref}): of {int(row['points']):,} points over {int(row['matches']):,} matches, "
            + ", ".join(f"{phrase(row, f'{s}_share')} came from {_source_words(s)}" for s in ranked)
            + "."
        )
    return out


def _source_words(source: str) -> str:
    return {"lead": "the lead", "header": "headers", "out": "going out", "blocked": "blocked hands"}[source]


def figures(tables: dict[str, pd.DataFrame]) -> list[Chart]:
    """Headers per hand; header rate by play number; point sources."""
    hands, plays, sources = tables["per_hand"], tables["by_play"], tables["point_sources"]
    charts = []
    fig, axes = panels(2, width=5.5)
    for ax, kind in zip(axes, KINDS):
        grouped(ax, hands, "table", "policy", f"{kind}_headers_per_hand", categories=list(TABLES), bars=True)
        ax.set_title(f"{kind}-headers per hand")
        ax.set_xlabel("table")
        ax.set_ylabel(f"{kind}-headers per hand (mean)")
    charts.append(
        Chart(
            "headers_per_hand",
            finish(
                fig,
                "Double- and triple-headers per hand, by table and policy",
                legend_from=axes[0],
                legend_title="policy (self-play)",
            ),
            "Mean double- and triple-headers per hand by table and policy",
        )
    )
    fig, axes = panels(2 * len(TABLES))
    for row, kind in enumerate(KINDS):
        for ax, table in zip(axes[row * len(TABLES) :], TABLES):
            part = plays[(plays["table"] == table) & (plays["hands_reaching"] >= MIN_HANDS)]
            if part.empty:
                empty_note(ax, f"no play number reached by {MIN_HANDS} hands")
            lines(ax, part, "play_number", f"{kind}_header_rate", group="policy")
            ax.set_title(f"{table}: {kind}-headers", fontsize=10)
            ax.set_xlabel("play number after the lead")
            ax.set_ylabel(f"P({kind}-header on this play)")
    charts.append(
        Chart(
            "headers_by_play",
            finish(
                fig,
                "Header rate by play number (hands that reached that play)",
                legend_from=axes[0],
                legend_title="policy (self-play)",
            ),
            "Probability that a play makes a double- or triple-header, by play number after the lead",
        )
    )
    fig, axes = panels(len(TABLES))
    for ax, table in zip(axes, TABLES):
        part = sources[sources["table"] == table]
        stacked_shares(ax, part, "policy", [f"{s}_share" for s in hs.SOURCES], [_source_words(s) for s in hs.SOURCES])
        ax.set_title(table)
        ax.set_ylabel("share of all points")
        ax.set_xlabel("policy (self-play)")
    charts.append(
        Chart(
            "point_sources",
            finish(fig, "Where the points come from", legend_from=axes[0], legend_title="source of points"),
            "Share of all points from the lead, headers, going out and blocked hands, by table and policy",
        )
    )
    return charts
