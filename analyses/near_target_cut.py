"""The near-target cut on its own, and how often a match ends on the lead.

Under the standard rules a header scored close to the target is cut (1 point
when 2 or fewer are needed, at most 2 when 3 are needed); ``reduced_headers =
off`` plays it at full value, all else standard.  This analysis plays both
from the same seed (match i meets the same first deal under both) and
compares, paired by match: how long matches last, how often the first hand's
leader wins, and how a match ends: on the led double's header (the leader of
a hand reaches the target by leading), on a header during play, by going out
or by a blocked hand.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bergen_sim.core.i18n import N_, tr
from bergen_sim.core.stats import add_family, add_mean, add_rate, judged, paired_ratio_difference, phrase
from bergen_sim.engine.layout import HandEnd
from bergen_sim.services.analysis import hand_stats as hs
from bergen_sim.services.analysis.figures import Chart, differences, finish, grouped, panels
from bergen_sim.services.analysis.reporting import TABLES, PerMatch, headline_policies

TITLE = N_("The near-target cut, and matches that end on the lead")
SETTINGS = {"cut on": True, "cut off": False}
#: how a match can end, in the order of the tables' columns
ENDINGS = ("lead", "header", "out", "blocked")
#: measures compared on and off, paired by match: (column, per-match value, unit in words)
MEASURES = ("hands_per_match", "first_leader_match_win_rate", *(f"ends_on_{e}_rate" for e in ENDINGS))
METHOD = (
    "Self-play; 'cut on' is the standard game, 'cut off' sets reduced_headers = off and nothing else. A match "
    "*ends on the lead* when its last hand is cut short with no play after the lead (the led double's header "
    "reached the target); *on a header* when it is cut short later in the hand. Both settings are played from "
    "the same seed, so every difference is paired by match (per-match differences, normal interval). Rates of "
    "matches: Wilson intervals; hands per match: normal intervals. Family of comparisons: every measure's "
    "on-minus-off difference for every table and policy, given simultaneous 95% intervals (Bonferroni over the family)."
)
SHOW = {
    "summary": "Per setting: match length, the first leader's match win rate and how matches end.",
    "cut_effect": "Cut on minus cut off, paired by match (rates in percentage points, length in hands per match).",
}


def collect(chunk, rules) -> dict:
    """Per-match values: hands, did the first leader win, and how the match ended."""
    hands, matches = chunk.hands, chunk.matches
    match = hands["match"]
    last = np.r_[match[1:] != match[:-1], True]  # hand rows of a match are contiguous
    end, plays = hands["end"][last], hands["plays"][last]
    cut = end == HandEnd.CUT
    endings = np.column_stack([cut & (plays == 0), cut & (plays > 0), end == HandEnd.OUT, end == HandEnd.BLOCKED])
    first_won = hs.seat_side(matches["first_leader"], rules) == matches["winner"]
    return {
        "hands": PerMatch(matches["hands"]),
        "first_won": PerMatch(first_won.astype(np.int64)),
        "endings": PerMatch(endings.astype(np.int64)),
    }


def run(ctx) -> dict[str, pd.DataFrame]:
    """Every table x policy with the cut on and off; paired differences."""
    summary, effects = [], []
    for table in TABLES:
        for policy in ctx.policies:
            per_setting = {}
            for label, reduced in SETTINGS.items():
                rules = ctx.rules(table, reduced_headers=reduced)
                sums = ctx.play(rules, policy, collect, hand_rows=True, match_rows=True).sums
                values = {
                    "hands_per_match": sums["hands"].values,
                    "first_leader_match_win_rate": sums["first_won"].values,
                    **{f"ends_on_{e}_rate": sums["endings"].values[:, k] for k, e in enumerate(ENDINGS)},
                }
                per_setting[label] = values
                hands = values["hands_per_match"]
                row = {
                    "table": table,
                    "policy": policy,
                    "setting": label,
                    "matches": len(hands),
                    "hands": int(hands.sum()),
                    "hands_sq": int((hands * hands).sum()),
                    "first_leader_match_wins": int(values["first_leader_match_win_rate"].sum()),
                }
                row.update({f"ends_on_{e}": int(values[f"ends_on_{e}_rate"].sum()) for e in ENDINGS})
                summary.append(row)
            on, off = per_setting["cut on"], per_setting["cut off"]
            effect = {"table": table, "policy": policy, "matches": len(on["hands_per_match"])}
            ones = np.ones(len(on["hands_per_match"]))
            for measure in MEASURES:
                d = paired_ratio_difference(on[measure], ones, off[measure], ones)
                effect.update({f"{measure}_change": d[0], f"{measure}_change_lo": d[1], f"{measure}_change_hi": d[2]})
            effects.append(effect)
    frame = pd.DataFrame(summary)
    add_mean(frame, "hands_per_match", "hands", "hands_sq", "matches")
    add_rate(frame, "first_leader_match_win_rate", "first_leader_match_wins", "matches")
    for e in ENDINGS:
        add_rate(frame, f"ends_on_{e}_rate", f"ends_on_{e}", "matches")
    frame = frame.drop(columns=["hands_sq"])
    change = pd.DataFrame(effects)
    add_family([(change, f"{m}_change") for m in MEASURES])
    return {"summary": frame, "cut_effect": change}


def _unit(measure: str) -> str:
    return "hands per match" if measure == "hands_per_match" else ""


def key_findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """How often a match ends on the lead, and what the cut changes, in plain words."""
    frame, change = tables["summary"], tables["cut_effect"]
    out = []
    for policy in headline_policies(list(pd.unique(frame["policy"]))):
        row = frame[(frame["table"] == "2 players") & (frame["policy"] == policy) & (frame["setting"] == "cut on")]
        diff = change[(change["table"] == "2 players") & (change["policy"] == policy)]
        if row.empty:
            continue
        row, diff = row.iloc[0], diff.iloc[0]
        verdict, numbers = judged(
            diff,
            "ends_on_lead_rate_change",
            larger=tr("more often"),
            smaller=tr("less often"),
            same=tr("about as often"),
        )
        out.append(
            tr(
                "2 players, {policy} play: about {n} matches in 100 end the moment a hand's leader leads its "
                "double ({numbers}); with the near-target cut on they do so {verdict} than with it off (cut on "
                "minus off: {difference})."
            ).format(
                policy=policy,
                n=round(100 * row["ends_on_lead_rate"]),
                numbers=phrase(row, "ends_on_lead_rate", row["matches"], tr("matches")),
                verdict=verdict,
                difference=numbers,
            )
        )
    return out


def findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """Per table (headline policies): how matches end, and each measure's paired change."""
    frame, change = tables["summary"], tables["cut_effect"]
    out = []
    for policy in headline_policies(list(pd.unique(frame["policy"]))):
        for table in pd.unique(frame["table"]):
            on = frame[(frame["table"] == table) & (frame["policy"] == policy) & (frame["setting"] == "cut on")].iloc[0]
            diff = change[(change["table"] == table) & (change["policy"] == policy)].iloc[0]
            ends = ", ".join(
                f"{phrase(on, f'ends_on_{e}_rate')} {words}"
                for e, words in zip(
                    ENDINGS, ("on the lead", "on a header in play", "by going out", "by a blocked hand")
                )
            )
            effects = []
            for measure, words in zip(
                MEASURES,
                (
                    "match length",
                    "the first leader's match win rate",
                    "ending on the lead",
                    "ending on a header in play",
                    "ending by going out",
                    "ending by a blocked hand",
                ),
            ):
                verdict, numbers = judged(
                    diff, f"{measure}_change", _unit(measure), larger="up", smaller="down", same="no clear change"
                )
                effects.append(f"{words} {verdict} ({numbers})")
            out.append(
                f"**{table}** ({policy} play, {int(on['matches']):,} matches per setting): with the cut on, "
                f"matches end {ends}. Cut on minus cut off: " + "; ".join(effects) + "."
            )
    return out


def figures(tables: dict[str, pd.DataFrame]) -> list[Chart]:
    """How matches end under each setting; the cut's paired effect on each measure."""
    frame, change = tables["summary"], tables["cut_effect"]
    fig, axes = panels(len(TABLES))
    for ax, table in zip(axes, TABLES):
        part = frame[(frame["table"] == table) & (frame["setting"] == "cut on")]
        long = pd.concat(
            [
                part[["policy", f"ends_on_{e}_rate", f"ends_on_{e}_rate_lo", f"ends_on_{e}_rate_hi"]]
                .set_axis(["policy", "end_rate", "end_rate_lo", "end_rate_hi"], axis=1)
                .assign(ending=e)
                for e in ENDINGS
            ],
            ignore_index=True,
        )
        grouped(ax, long, "ending", "policy", "end_rate", categories=list(ENDINGS), bars=True)
        ax.set_title(table)
        ax.set_xlabel("how the match ended")
        ax.set_ylabel("share of matches")
    charts = [
        Chart(
            "how_matches_end",
            finish(
                fig,
                "How matches end (standard rules, cut on)",
                legend_from=axes[0],
                legend_title="policy (self-play)",
            ),
            "Share of matches ending on the lead, on a header in play, by going out or by a blocked hand",
        )
    ]
    long = []
    for measure in MEASURES[1:]:
        columns = {f"{measure}_change{s}": f"rate_change{s}" for s in ("", "_lo", "_hi", "_adj_lo", "_adj_hi")}
        long.append(
            change[["table", "policy", *columns]]
            .rename(columns=columns)
            .assign(measure=measure.replace("_rate", "").replace("_", " "))
        )
    long = pd.concat(long, ignore_index=True)
    fig, axes = panels(len(TABLES))
    for ax, table in zip(axes, TABLES):
        differences(ax, long[long["table"] == table], "measure", "rate_change", group="policy")
        ax.set_title(table)
        ax.set_xlabel("")
        ax.set_ylabel("cut on minus cut off (pp)")
    charts.append(
        Chart(
            "cut_effect",
            finish(
                fig,
                "What the near-target cut changes (paired by match)",
                legend_from=axes[0],
                legend_title="policy (self-play)",
                note="Thick bars: 95% intervals; thin bars: simultaneous intervals; dashed: no change.",
            ),
            "Cut on minus cut off for the first leader's match win rate and each way a match ends, "
            "in percentage points, with 95% and simultaneous intervals",
        )
    )
    return charts
