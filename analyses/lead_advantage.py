"""Does leading the lowest double help the leader?

In every hand the holder of the lowest double must lead it, scoring 2 points at
once and leaving the layout open on both sides.  This analysis measures, for
2, 3 and 4 players and 4 in partnerships and for each policy in self-play,
how often the leader's side wins the hand (among hands someone wins, by going
out or by a blocked hand), the points per hand of each seat counted from the
leader, and the match win rate of the first hand's leader; all of it again
under ``lead = highest-double`` to show the forced lowest lead against the
alternative, and broken down by which double was led.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bergen_sim.core.i18n import N_, num, tr
from bergen_sim.core.stats import (
    add_clustered,
    add_family,
    add_rate,
    cluster_column,
    cluster_sums,
    judged,
    paired_ratio_difference,
    phrase,
    versus,
)
from bergen_sim.engine import layout as L
from bergen_sim.services.analysis import hand_stats as hs
from bergen_sim.services.analysis.figures import Chart, differences, finish, grouped, lines, panels, reference_line
from bergen_sim.services.analysis.reporting import TABLES, PerMatch, headline_policies, reference_policy, table_name

TITLE = N_("Lowest-double lead advantage")
LEADS = ("lowest-double", "highest-double")
#: a led double is compared in the findings only if it led at least this share of the decided hands
MIN_SHARE = 0.02
METHOD = (
    "Self-play: every seat uses the same policy. A hand is *decided* when someone went out or a blocked "
    "hand had a settlement winner; hands cut short by the end of the match (the `cut_rate` column gives their "
    "share) and blocked hands with a tie are not. A hand cut short is *taken* by the side that scored its "
    "last points, the match's winner; `leader_take_rate` counts decided and cut-short hands alike. The fair share of a seat is 1 / number of sides. Per-hand "
    "rates and means are ratios of per-match sums with intervals clustered by match. The two lead rules are "
    "played from the same seed, so match i meets the same deals under both: their difference is paired by "
    "match (delta method on the per-match differences). Family of comparisons: the lowest-minus-highest "
    "difference of the hand win rate and of the first leader's match win rate, and each of the two rates (lowest-"
    "double lead) against the fair share (the `_advantage` columns), for every table and policy, given "
    "simultaneous 95% intervals together (Bonferroni over the family); 'above' or 'below the fair share' is said only when the simultaneous "
    "interval excludes it."
)
SHOW = {
    "summary": "Leader's side hand win rate and first-hand leader's match win rate, lowest- vs highest-double lead.",
    "seat_points": (
        "Points per hand of each seat, counted from the leader (0 = the leader), lowest-double lead. "
        "Seat points: its own lead, headers and going out; side points: everything its side scored, "
        "blocked hands included.",
        "lead == 'lowest-double'",
    ),
    "by_led_double": (
        "Leader's side win rate by the double that was led (lowest-double lead), and the match win "
        "rate of the first hand's leader by the first double led.",
        "lead == 'lowest-double'",
    ),
}


def collect(chunk, rules) -> dict[str, np.ndarray]:
    """Per-chunk sums: by led double, by seat from the leader, first-hand leaders' match wins; per-match outcomes."""
    rows = chunk.hand_rows
    hands = chunk.hands
    led = hands["led_double"]
    decided = hands["winner"] >= 0
    leader_side = hs.leader_side(rows, rules)
    won = decided & (leader_side == hands["winner"])
    matches = chunk.matches
    cut = hands["end"] == L.HandEnd.CUT
    # a hand cut short is the last of its match: the side that scored its last points won the match
    cut_by_leader = cut & (leader_side == matches["winner"][hands["match"] - int(matches["match"][0])])
    doubles = L.N_NUMBERS
    by_double = np.stack(
        [np.bincount(led, minlength=doubles), np.bincount(led, decided, doubles), np.bincount(led, won, doubles)]
    )
    match = hands["match"]
    one_hot = led[:, None] == np.arange(doubles)[None, :]
    per_match = hs.match_sums(
        np.column_stack(
            [
                won,
                decided,
                np.ones_like(won),
                cut,
                one_hot & won[:, None],
                one_hot & decided[:, None],
                cut_by_leader,
            ]
        ).astype(np.int64),
        match,
    )

    leaders = hands["leader"]
    seats = hs.from_leader(hs.seat_points(rows, rules), leaders)
    per_seat_side = hs.side_points(rows, rules)[:, hs.seat_side(np.arange(rules.players), rules)]
    sides = hs.from_leader(per_seat_side, leaders)
    seat_match = hs.match_sums(np.column_stack([seats, sides]), match)

    first_double = hands["led_double"][hands["hand"] == 1]  # one row per match, in match order
    first_won = hs.seat_side(matches["first_leader"], rules) == matches["winner"]
    by_first = np.stack([np.bincount(first_double, minlength=7), np.bincount(first_double, first_won, 7)])
    n_hands = per_match[:, 2]
    return {
        "by_double": by_double.astype(np.int64),
        "first": by_first.astype(np.int64),
        "seat": cluster_sums(seat_match, n_hands),
        "double": cluster_sums(per_match[:, 4 : 4 + doubles], per_match[:, 4 + doubles : 4 + 2 * doubles]),
        "cut_by_leader": PerMatch(per_match[:, -1]),
        "won": PerMatch(per_match[:, 0]),
        "decided": PerMatch(per_match[:, 1]),
        "hands": PerMatch(n_hands),
        "cut": PerMatch(per_match[:, 3]),
        "first_won": PerMatch(first_won),
    }


def run(ctx) -> dict[str, pd.DataFrame]:
    """Play every table x policy x lead rule and tabulate."""
    base, seat_rows, double_rows, pairs = [], [], [], []
    for table in TABLES:
        for policy in ctx.policies:
            per_lead = {}
            for lead in LEADS:
                rules = ctx.rules(table, lead=lead)
                played = ctx.play(rules, policy, collect, hand_rows=True, match_rows=True)
                sums = played.sums
                per_lead[lead] = sums
                by_double, first = sums["by_double"], sums["first"]
                key = {"table": table, "policy": policy, "lead": lead}
                hands = int(by_double[0].sum())
                won, decided = sums["won"].values, sums["decided"].values
                base.append(
                    {
                        **key,
                        "matches": played.matches,
                        "hands": hands,
                        "decided_hands": int(by_double[1].sum()),
                        "leader_wins": int(by_double[2].sum()),
                        "cut_hands": int(sums["cut"].values.sum()),
                        "first_leader_match_wins": int(first[1].sum()),
                        "fair_share": 1 / rules.sides,
                        "_win": cluster_sums(won, decided),
                        "_cut": cluster_sums(sums["cut"].values, sums["hands"].values),
                        "cut_by_leader_hands": int(sums["cut_by_leader"].values.sum()),
                        "_cut_by_leader": cluster_sums(sums["cut_by_leader"].values, sums["cut"].values),
                        "_take": cluster_sums(won + sums["cut_by_leader"].values, decided + sums["cut"].values),
                    }
                )
                for k in range(rules.players):
                    seat_rows.append(
                        {
                            **key,
                            "seat_from_leader": k,
                            "hands": hands,
                            "_seat": cluster_column(sums["seat"], k),
                            "_side": cluster_column(sums["seat"], rules.players + k),
                        }
                    )
                for n in range(L.N_NUMBERS):
                    double_rows.append(
                        {
                            **key,
                            "led_double": f"{n}-{n}",
                            "hands": int(by_double[0, n]),
                            "decided_hands": int(by_double[1, n]),
                            "leader_wins": int(by_double[2, n]),
                            "first_hand_matches": int(first[0, n]),
                            "first_leader_match_wins": int(first[1, n]),
                            "_win": cluster_column(sums["double"], n),
                        }
                    )
            low, high = (per_lead[lead] for lead in LEADS)
            hand_gain = paired_ratio_difference(
                low["won"].values, low["decided"].values, high["won"].values, high["decided"].values
            )
            ones = np.ones(len(low["first_won"].values))
            match_gain = paired_ratio_difference(low["first_won"].values, ones, high["first_won"].values, ones)
            pairs.append({"table": table, "policy": policy, "hand_gain": hand_gain, "match_gain": match_gain})
    leader = pd.DataFrame(base)
    add_clustered(leader, "leader_win_rate", leader.pop("_win"))
    add_clustered(leader, "cut_rate", leader.pop("_cut"))
    add_clustered(leader, "leader_take_rate", leader.pop("_take"))
    add_clustered(leader, "cut_by_leader_rate", leader.pop("_cut_by_leader"))
    add_rate(leader, "first_leader_match_win_rate", "first_leader_match_wins", "matches")

    seats = pd.DataFrame(seat_rows)
    add_clustered(seats, "seat_points_per_hand", seats.pop("_seat"))
    add_clustered(seats, "side_points_per_hand", seats.pop("_side"))

    doubles = pd.DataFrame(double_rows)
    add_clustered(doubles, "leader_win_rate", doubles.pop("_win"))
    add_rate(doubles, "first_leader_match_win_rate", "first_leader_match_wins", "first_hand_matches")
    doubles = doubles[doubles["hands"] > 0].reset_index(drop=True)
    summary = _summary(leader, pd.DataFrame(pairs))
    for column in ("leader_win_rate", "first_leader_match_win_rate"):  # against the fair share 1 / sides
        for suffix in ("", "_lo", "_hi"):
            summary[f"{column}_advantage{suffix}"] = summary[f"{column}_lowest{suffix}"] - summary["fair_share"]
    add_family(
        [
            (summary, "leader_win_rate_gain"),
            (summary, "first_leader_match_win_rate_gain"),
            (summary, "leader_win_rate_advantage"),
            (summary, "first_leader_match_win_rate_advantage"),
        ]
    )
    return {"summary": summary, "leader": leader, "seat_points": seats, "by_led_double": doubles}


#: the summary's columns given for the lowest-double lead only
LOWEST_ONLY = [
    "fair_share",
    "decided_hands",
    "matches",
    "cut_rate",
    "cut_rate_lo",
    "cut_rate_hi",
    "cut_hands",
    "cut_by_leader_hands",
    "cut_by_leader_rate",
    "cut_by_leader_rate_lo",
    "cut_by_leader_rate_hi",
    "leader_take_rate",
    "leader_take_rate_lo",
    "leader_take_rate_hi",
]


def _summary(leader: pd.DataFrame, pairs: pd.DataFrame) -> pd.DataFrame:
    """One row per table and policy: both lead rules side by side and their paired difference."""
    keys = ["table", "policy"]
    columns = ["leader_win_rate", "first_leader_match_win_rate"]
    parts = []
    for lead, tag in zip(LEADS, ("lowest", "highest")):
        part = leader[leader["lead"] == lead].set_index(keys)
        picked = part[[f"{c}{s}" for c in columns for s in ("", "_lo", "_hi")]]
        parts.append(picked.rename(columns=lambda c, tag=tag: _tag(c, tag)))
    lowest = leader[leader["lead"] == LEADS[0]].set_index(keys)
    summary = pd.concat([lowest[LOWEST_ONLY], *parts], axis=1).reset_index()
    gains = pairs.set_index(keys).reindex(pd.MultiIndex.from_frame(summary[keys]))
    for column, source in zip(columns, ("hand_gain", "match_gain")):
        values = np.array(gains[source].tolist(), dtype=float).reshape(-1, 3)
        for k, suffix in enumerate(("", "_lo", "_hi")):
            summary[f"{column}_gain{suffix}"] = values[:, k]
    order = [*keys, *LOWEST_ONLY]
    for column in columns:
        for suffix in ("lowest", "highest", "gain"):
            order += [f"{column}_{suffix}", f"{column}_{suffix}_lo", f"{column}_{suffix}_hi"]
    return summary[order]


def _tag(column: str, tag: str) -> str:
    for end in ("_lo", "_hi"):
        if column.endswith(end):
            return f"{column[:-3]}_{tag}{end}"
    return f"{column}_{tag}"


def _lead_verdict(row) -> str:
    verdict, numbers = judged(
        row, "leader_win_rate_gain", larger="a clearly higher", smaller="a clearly lower", same="no clearly different"
    )
    return f"{verdict} hand win rate for the leader's side than the highest-double lead ({numbers})"


def key_findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """The few findings a player reads first: the first leader's edge, and whether the lead rule matters."""
    summary = tables["summary"]
    out = []
    for policy in headline_policies(list(pd.unique(summary["policy"]))):
        for table in ("2 players", "4 partnerships"):
            rows = summary[(summary["table"] == table) & (summary["policy"] == policy)]
            if rows.empty:
                continue
            row = rows.iloc[0]
            rate = row["first_leader_match_win_rate_lowest"]
            out.append(
                tr(
                    "{table}, {policy} play: the side that leads the first hand wins about {n} matches in "
                    "100 ({numbers}; fair share {fair})."
                ).format(
                    table=table_name(table),
                    policy=policy,
                    n=round(100 * rate),
                    numbers=phrase(row, "first_leader_match_win_rate_lowest", row["matches"], tr("matches")),
                    fair=num(row["fair_share"], ".0%"),
                )
            )
            if table != "2 players":
                continue
            part = summary[summary["policy"] == policy]
            clear = part[(part["leader_win_rate_gain_adj_lo"] > 0) | (part["leader_win_rate_gain_adj_hi"] < 0)]
            ends = np.abs(part[["leader_win_rate_gain_adj_lo", "leader_win_rate_gain_adj_hi"]].to_numpy())
            bound = float(ends[np.isfinite(ends)].max()) if np.isfinite(ends).any() else None
            if bound is None:
                out.append(
                    tr("{policy} play: too few matches to judge whether the lead rule matters.").format(policy=policy)
                )
            elif clear.empty:
                out.append(
                    tr(
                        "{policy} play: whether the lowest or the highest double leads makes no clear "
                        "difference to the leader's hand win rate at any table; the data rule out differences "
                        "larger than {bound} percentage points (simultaneous interval)."
                    ).format(policy=policy, bound=num(100 * bound, ".2f"))
                )
            else:
                out.append(
                    tr(
                        "{policy} play: the lead rule changes the leader's hand win rate clearly at {clear} "
                        "of {tables} tables ({names}), by at most {bound} percentage points (simultaneous "
                        "interval)."
                    ).format(
                        policy=policy,
                        clear=len(clear),
                        tables=len(part),
                        names=", ".join(table_name(t) for t in clear["table"]),
                        bound=num(100 * bound, ".2f"),
                    )
                )
    return out


def findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """Plain-language findings from the tables."""
    summary, doubles, seats = tables["summary"], tables["by_led_double"], tables["seat_points"]
    policies = list(pd.unique(summary["policy"]))
    out = []
    for ref in headline_policies(policies):
        for table in pd.unique(summary["table"]):
            row = summary[(summary["table"] == table) & (summary["policy"] == ref)].iloc[0]
            fair = row["fair_share"]
            where = versus(row["leader_win_rate_advantage_adj_lo"], row["leader_win_rate_advantage_adj_hi"], 0.0)
            text = (
                f"**{table}** ({ref} play): the leader's side wins "
                f"{phrase(row, 'leader_win_rate_lowest', row['decided_hands'], 'decided hands')} of decided "
                f"hands under the lowest-double lead, {where} the fair share of {fair:.0%} "
                f"({phrase(row, 'cut_rate')} of hands are cut short by the end of the match and are not "
                f"decided; the leader's side ended {phrase(row, 'cut_by_leader_rate')} of them. "
                f"Counting a hand cut short as taken by the side that ended the match, the leader's side takes "
                f"{phrase(row, 'leader_take_rate')} of hands.) Leading the highest double instead gives "
                f"{phrase(row, 'leader_win_rate_highest')}: the lowest-double lead gives {_lead_verdict(row)}."
            )
            match_where = versus(
                row["first_leader_match_win_rate_advantage_adj_lo"],
                row["first_leader_match_win_rate_advantage_adj_hi"],
                0.0,
            )
            text += (
                f" The first hand's leader wins "
                f"{phrase(row, 'first_leader_match_win_rate_lowest', row['matches'], 'matches')}"
                f" of matches, {match_where} {fair:.0%}."
            )
            out.append(text)
    family = int(summary["leader_win_rate_gain_family"].iloc[0])
    gains = summary["leader_win_rate_gain_adj_lo"] > 0
    losses = summary["leader_win_rate_gain_adj_hi"] < 0
    out.append(
        f"Across all {len(summary)} table-policy combinations (simultaneous intervals over the report's family of {family} "
        f"comparisons), the lowest-double lead gives the leader's side a clearly higher hand win "
        f"rate than the highest-double lead in {int(gains.sum())}{_which(summary[gains])}, a clearly lower "
        f"one in {int(losses.sum())}{_which(summary[losses])}, and no clear difference in "
        f"{int(len(summary) - gains.sum() - losses.sum())}."
    )
    ref = reference_policy(policies)
    table = next(iter(pd.unique(doubles["table"])))
    part = doubles[(doubles["table"] == table) & (doubles["policy"] == ref) & (doubles["lead"] == LEADS[0])]
    part = part[part["decided_hands"] >= MIN_SHARE * part["decided_hands"].sum()]
    if len(part) > 1:
        top = part.loc[part["leader_win_rate"].idxmax()]
        low = part.loc[part["leader_win_rate"].idxmin()]
        separated = top["leader_win_rate_lo"] > low["leader_win_rate_hi"]
        out.append(
            f"By the double led ({table}, {ref} play, lowest-double lead; doubles that led at least "
            f"{MIN_SHARE:.0%} of the decided hands): the leader's side does best after "
            f"leading {top['led_double']} ({phrase(top, 'leader_win_rate', top['decided_hands'], 'decided hands')}) "
            f"and worst after {low['led_double']} ({phrase(low, 'leader_win_rate', low['decided_hands'], 'decided hands')})"
            f"{'' if separated else '; the two intervals overlap, so the ordering is not established'}."
        )
    for table in pd.unique(seats["table"]):
        part = seats[(seats["table"] == table) & (seats["policy"] == ref) & (seats["lead"] == LEADS[0])]
        best = part.loc[part["side_points_per_hand"].idxmax()]
        worst = part.loc[part["side_points_per_hand"].idxmin()]
        out.append(
            f"{table} ({ref}): counted from the leader, seat {int(best['seat_from_leader'])} "
            f"{'(the leader) ' if best['seat_from_leader'] == 0 else ''}collects the most side points per hand, "
            f"{phrase(best, 'side_points_per_hand', best['hands'], 'hands')} points, and seat "
            f"{int(worst['seat_from_leader'])} the fewest, {phrase(worst, 'side_points_per_hand')} points."
        )
    return out


def _which(rows: pd.DataFrame, most: int = 8) -> str:
    """`` (2 players greedy, ...)`` naming a few table-policy combinations."""
    if rows.empty or len(rows) > most:
        return ""
    return " (" + ", ".join(f"{t} {s}" for t, s in zip(rows["table"], rows["policy"])) + ")"


def figures(tables: dict[str, pd.DataFrame]) -> list[Chart]:
    """The lead rules' difference with its intervals; win rates by led double; points by seat from the leader."""
    summary, doubles, seats = tables["summary"], tables["by_led_double"], tables["seat_points"]
    charts = []
    for value, label in (
        ("leader_win_rate_gain", "leader's side hand win rate"),
        ("first_leader_match_win_rate_gain", "first leader's match win rate"),
    ):
        fig, axes = panels(len(TABLES))
        for ax, table in zip(axes, TABLES):
            differences(ax, summary[summary["table"] == table], "policy", value)
            ax.set_title(table)
            ax.set_xlabel("policy (self-play)")
            ax.set_ylabel("lowest minus highest lead (pp)")
        charts.append(
            Chart(
                value,
                finish(
                    fig,
                    f"Lowest- minus highest-double lead: {label} (paired by match)",
                    note="Thick bars: 95% intervals; thin bars: simultaneous intervals over "
                    "the report's family of comparisons; dashed: no difference.",
                ),
                f"Difference in the {label} between the lowest- and the highest-double lead, with its "
                f"95% and simultaneous intervals (percentage points)",
            )
        )
    fig, axes = panels(2 * len(TABLES))
    for row, lead in enumerate(LEADS):
        for ax, table in zip(axes[row * len(TABLES) :], TABLES):
            part = doubles[
                (doubles["table"] == table) & (doubles["lead"] == lead) & (doubles["decided_hands"] > 0)
            ].copy()
            part["double"] = part["led_double"].str[0].astype(int)
            lines(ax, part, "double", "leader_win_rate", group="policy")
            reference_line(ax, 1 / _sides(table))
            ax.set_title(f"{table}, {lead} lead", fontsize=10)
            ax.set_xlabel("double led (n-n)")
            ax.set_ylabel("leader's side wins hand")
    charts.append(
        Chart(
            "by_led_double",
            finish(
                fig,
                "Leader's side hand win rate by the double led",
                legend_from=axes[0],
                legend_title="policy (self-play)",
            ),
            "Leader's side hand win rate by the double that was led, per table, lead rule and policy",
        )
    )
    fig, axes = panels(len(TABLES))
    for ax, table in zip(axes, TABLES):
        part = seats[(seats["table"] == table) & (seats["lead"] == LEADS[0])]
        grouped(ax, part, "seat_from_leader", "policy", "side_points_per_hand", bars=True)
        ax.set_title(table)
        ax.set_xlabel("seat counted from the leader (0 = leader)")
        ax.set_ylabel("side points per hand")
    charts.append(
        Chart(
            "points_by_seat",
            finish(
                fig,
                "Points per hand by seat counted from the leader (lowest-double lead)",
                legend_from=axes[0],
                legend_title="policy (self-play)",
            ),
            "Points per hand each seat's side scores, by seat counted from the leader, per table and policy",
        )
    )
    return charts


def _sides(table: str) -> int:
    players, partnerships = TABLES[table]
    return 2 if partnerships else players
