"""Which starting hands win? Doubles held, pips, the lowest double and suits covered.

Every hand of every match is looked at from each seat: the tiles it was dealt
(the engine's keyed deal, rebuilt from the hand's match, number and redeal
count) and what came of them: did the seat's side win the hand (going out or
a blocked hand; hands cut short by the end of the match are not decided), and
how many points did its side score in it.  With 2 players and 4 in
partnerships, for realistic (``expert``) and random play.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bergen_sim.core.i18n import N_, tr
from bergen_sim.core.stats import (
    add_clustered,
    add_family,
    group_cluster_sums,
    group_cross_sums,
    group_difference,
    judged,
    phrase,
)
from bergen_sim.engine import layout as L
from bergen_sim.services.analysis import hand_stats as hs
from bergen_sim.services.analysis.figures import Chart, finish, grouped, panels, reference_line
from bergen_sim.services.analysis.reporting import headline_policies

TITLE = N_("Which starting hands win")
TABLES_HERE = ("2 players", "4 partnerships")
#: pips are grouped in bins this wide
PIP_BIN = 5
#: feature -> (label, number of values)
FEATURES = {
    "doubles_held": ("doubles held", L.N_NUMBERS + 1),
    "pips": (f"pips in hand (bins of {PIP_BIN})", 2 * (L.N_NUMBERS - 1) * 6 // PIP_BIN + 2),
    "holds_lowest_double": ("holds the lowest double in play", 2),
    "suits_covered": ("numbers (suits) the hand shows", L.N_NUMBERS + 1),
}
#: a feature value is shown (and used for the contrast) only when it holds at least this share of the hands
MIN_SHARE = 0.01
METHOD = (
    "Self-play under the standard rules. The deal behind every hand row is rebuilt from the engine's keyed "
    "randomness (bergen_sim.services.analysis.hand_stats.keyed_deals: seed, match, hand number and the redeal attempt the row "
    "records). Every seat's hand is an observation; *holds the lowest double* is the seat that must lead it. "
    "Hand win rate: decided hands its side won over decided hands; points: its side's points in the hand. Both "
    "are ratios of per-match sums with intervals clustered by match (a match's hands, and the seats of one "
    "hand, are not independent). Contrast: the highest against the lowest value of each feature (among values "
    f"holding at least {MIN_SHARE:.0%} of the hands; chosen by value, not by result), a difference of the two "
    "ratios with the match as the unit and their covariance within a match counted (the two values are often "
    "seats of the same hands: when one wins the other loses, which widens the interval), "
    "given simultaneous 95% intervals as one family over every feature, table and policy (Bonferroni)."
)
SHOW = {
    "by_feature": (
        "Hand win rate and side points per hand by a feature of the starting hand.",
        lambda frame: frame[frame["share_of_hands"] >= MIN_SHARE],
    ),
    "contrasts": "Highest against lowest value of each feature (hand win rate in percentage points).",
}


def hand_features(deals: np.ndarray, players: int, hand_size: int) -> dict[str, np.ndarray]:
    """(hands, players) arrays of each seat's doubles held, pips, suits covered and whether it holds the lowest double."""
    tiles = deals[:, : players * hand_size].reshape(len(deals), players, hand_size)
    lo, hi = L.TILE_LO[tiles], L.TILE_HI[tiles]
    is_double = lo == hi
    numbers = np.zeros((len(deals), players, L.N_NUMBERS), dtype=bool)
    for half in (lo, hi):
        np.put_along_axis(numbers, half, True, axis=2)
    double_number = np.where(is_double, lo, L.N_NUMBERS)
    lowest = double_number.min(axis=(1, 2))  # the lowest double in any hand (N_NUMBERS: none)
    return {
        "doubles_held": is_double.sum(axis=2),
        "pips": (lo + hi).sum(axis=2) // PIP_BIN,
        "holds_lowest_double": (double_number == lowest[:, None, None]).any(axis=2).astype(np.int64),
        "suits_covered": numbers.sum(axis=2),
    }


def collect_with(seed: int):
    """A collect function for ``seed``: per feature value, cluster sums of hand wins and side points."""

    def collect(chunk, rules) -> dict:
        hands = chunk.hands
        deals = hs.keyed_deals(seed, hands["match"], hands["hand"], hands["redeals"])
        features = hand_features(deals, rules.players, rules.hand_size)
        sides = hs.seat_side(np.arange(rules.players), rules)
        decided = hands["winner"] >= 0
        won = decided[:, None] & (hands["winner"][:, None] == sides[None, :])
        points = hs.side_points(chunk.hand_rows, rules)[:, sides]
        match = np.repeat(hands["match"], rules.players)
        out = {}
        for name, values in features.items():
            size = FEATURES[name][1]
            value = np.minimum(values.ravel(), size - 1)
            decided_seats = np.repeat(decided, rules.players)
            out[name] = {
                "win": group_cluster_sums(match, value, won.ravel(), decided_seats, size),
                "points": group_cluster_sums(match, value, points.ravel(), np.ones(value.size), size),
                "win_cross": group_cross_sums(match, value, won.ravel(), decided_seats, size),
                "points_cross": group_cross_sums(match, value, points.ravel(), np.ones(value.size), size),
            }
        return out

    return collect


def run(ctx) -> dict[str, pd.DataFrame]:
    """Play the two-sided tables with the headline policies and tabulate every feature."""
    rows, contrasts, cross_sums = [], [], {}
    for table in TABLES_HERE:
        for policy in headline_policies(ctx.policies):
            rules = ctx.rules(table)
            played = ctx.play(rules, policy, collect_with(ctx.seed), hand_rows=True)
            cross_sums[table, policy] = played.sums
            seat_hands = int(played.counts["hands"]) * rules.players
            for name, sums in played.sums.items():
                for value in range(FEATURES[name][1]):
                    win = {k: v[value] for k, v in sums["win"].items()}
                    pts = {k: v[value] for k, v in sums["points"].items()}
                    if pts["sy"] == 0:
                        continue
                    rows.append(
                        {
                            "table": table,
                            "policy": policy,
                            "feature": name,
                            "value": _value_label(name, value),
                            "order": value,
                            "seat_hands": int(pts["sy"]),
                            "share_of_hands": pts["sy"] / seat_hands,
                            "decided": int(win["sy"]),
                            "_win": win,
                            "_points": pts,
                        }
                    )
    frame = pd.DataFrame(rows)
    add_clustered(frame, "hand_win_rate", frame.pop("_win"))
    add_clustered(frame, "side_points_per_hand", frame.pop("_points"))
    for (table, policy, feature), part in frame.groupby(["table", "policy", "feature"], sort=False):
        part = part[part["share_of_hands"] >= MIN_SHARE].sort_values("order")
        if len(part) < 2:
            continue
        low, high = part.iloc[0], part.iloc[-1]
        record = {"table": table, "policy": policy, "feature": feature, "low": low["value"], "high": high["value"]}
        for name, cross in (("hand_win_rate", "win_cross"), ("side_points_per_hand", "points_cross")):
            for tag, row in (("low", low), ("high", high)):
                record.update({f"{name}_{tag}{s}": row[f"{name}{s}"] for s in ("", "_lo", "_hi")})
            d = group_difference(cross_sums[table, policy][feature][cross], int(high["order"]), int(low["order"]))
            record.update(dict(zip((f"{name}_difference{s}" for s in ("", "_lo", "_hi")), d)))
        contrasts.append(record)
    contrast = pd.DataFrame(contrasts)
    add_family([(contrast, "hand_win_rate_difference")])
    return {"by_feature": frame, "contrasts": contrast}


def _value_label(feature: str, value: int) -> str:
    if feature == "pips":
        return f"{value * PIP_BIN}-{value * PIP_BIN + PIP_BIN - 1}"
    if feature == "holds_lowest_double":
        return "yes" if value else "no"
    return str(value)


def key_findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """The starting-hand features that matter most, in plain words."""
    frame = tables["by_feature"]
    out = []
    for policy in headline_policies(list(pd.unique(frame["policy"]))):
        part = frame[
            (frame["table"] == "2 players")
            & (frame["policy"] == policy)
            & (frame["share_of_hands"] >= MIN_SHARE)
            & np.isfinite(frame["hand_win_rate"])
        ]
        if part.empty:
            continue
        doubles = part[part["feature"] == "doubles_held"].sort_values("order")
        lowest = part[(part["feature"] == "holds_lowest_double") & (part["value"] == "yes")]
        text = tr("2 players, {policy} play: ").format(policy=policy)
        decided = tr("decided hands")
        if len(doubles) >= 2:
            none, most = doubles.iloc[0], doubles.iloc[-1]
            text += tr(
                "a hand with {few} doubles wins about {few_wins} decided hands in 100, one with {many} about "
                "{many_wins} ({few_numbers} and {many_numbers})"
            ).format(
                few=none["value"],
                few_wins=round(100 * none["hand_win_rate"]),
                many=most["value"],
                many_wins=round(100 * most["hand_win_rate"]),
                few_numbers=phrase(none, "hand_win_rate", none["decided"], decided),
                many_numbers=phrase(most, "hand_win_rate", most["decided"], decided),
            )
        if len(lowest):
            row = lowest.iloc[0]
            text += tr("; holding the lowest double (and so leading) wins {numbers}").format(
                numbers=phrase(row, "hand_win_rate", row["decided"], decided)
            )
        out.append(text + ".")
    return out


def findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """Each feature's contrast, judged on its simultaneous interval."""
    contrast = tables["contrasts"]
    out = []
    for (table, policy), part in contrast.groupby(["table", "policy"], sort=False):
        parts = []
        for _, row in part.iterrows():
            verdict, numbers = judged(
                row, "hand_win_rate_difference", larger="wins more", smaller="wins less", same="wins about as often"
            )
            parts.append(
                f"{FEATURES[row['feature']][0]}: {row['high']} against {row['low']} {verdict} "
                f"({phrase(row, 'hand_win_rate_high')} against {phrase(row, 'hand_win_rate_low')}; "
                f"{numbers}; side points per hand {phrase(row, 'side_points_per_hand_high')} against "
                f"{phrase(row, 'side_points_per_hand_low')})"
            )
        out.append(f"**{table}** ({policy} play), the hand's side wins the decided hand: " + "; ".join(parts) + ".")
    return out


def figures(tables: dict[str, pd.DataFrame]) -> list[Chart]:
    """Hand win rate and points by each feature."""
    frame = tables["by_feature"]
    frame = frame[frame["share_of_hands"] >= MIN_SHARE]
    charts = []
    for value, label in (
        ("hand_win_rate", "hand win rate of the seat's side"),
        ("side_points_per_hand", "side points per hand"),
    ):
        fig, axes = panels(len(FEATURES) * len(TABLES_HERE), columns=len(FEATURES))
        for ax, (table, feature) in zip(axes, [(t, f) for t in TABLES_HERE for f in FEATURES]):
            part = frame[(frame["table"] == table) & (frame["feature"] == feature)].sort_values("order")
            grouped(ax, part, "value", "policy", value, categories=list(pd.unique(part["value"])))
            if value == "hand_win_rate":
                reference_line(ax, 0.5)
            ax.set_title(f"{table}", fontsize=10)
            ax.set_xlabel(FEATURES[feature][0])
            ax.set_ylabel(label)
        charts.append(
            Chart(
                value,
                finish(
                    fig, f"Starting hands: {label} by feature", legend_from=axes[0], legend_title="policy (self-play)"
                ),
                f"The {label} by doubles held, pips, holding the lowest double and suits covered",
            )
        )
    return charts
