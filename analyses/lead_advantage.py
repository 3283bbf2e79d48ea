"""Does leading the lowest double help the leader?

In every hand the holder of the lowest double must lead it, scoring 2 points at
once and leaving the layout open on both sides.  This analysis measures, for
2, 3 and 4 players and 4 in partnerships and for each strategy in self-play,
how often the leader's side wins the hand (among hands someone wins, by going
out or by a blocked hand), the points per hand of each seat counted from the
leader, and the match win rate of the first hand's leader; all of it again
under ``lead = highest-double`` to show the forced lowest lead against the
alternative, and broken down by which double was led.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bergen_sim import hand_stats as hs
from bergen_sim.reporting import TABLES, reference_strategy
from bergen_sim.figures import Chart, finish, grouped, lines, panels, reference_line
from bergen_sim.stats import add_difference, add_mean, add_rate, phrase, signed_points, versus

TITLE = "Lowest-double lead advantage"
LEADS = ("lowest-double", "highest-double")
#: a led double is compared in the findings only if it led at least this share of the decided hands
MIN_SHARE = 0.02
METHOD = (
    "Self-play: every seat uses the same strategy. A hand is *decided* when someone went out or a blocked "
    "hand had a settlement winner (hands cut short by the end of the match, and blocked hands with a tie, "
    "are not). The fair share of a seat is 1 / number of sides. Per-hand means and rates treat hands as "
    "independent units; match rates use matches."
)
SHOW = {
    "summary": "Leader's side hand win rate and first-hand leader's match win rate, lowest- vs highest-double lead.",
    "seat_points": ("Points per hand of each seat, counted from the leader (0 = the leader), lowest-double lead. "
                    "Seat points: its own lead, headers and going out; side points: everything its side scored, "
                    "blocked hands included.", "lead == 'lowest-double'"),
    "by_led_double": ("Leader's side win rate by the double that was led (lowest-double lead), and the match win "
                      "rate of the first hand's leader by the first double led.", "lead == 'lowest-double'"),
}


def collect(chunk, rules) -> dict[str, np.ndarray]:
    """Per-chunk sums: by led double, by seat from the leader, and first-hand leaders' match wins."""
    rows = chunk.hand_rows
    hands = chunk.hands
    led = hands["led_double"]
    decided = hands["winner"] >= 0
    won = decided & (hs.leader_side(rows, rules) == hands["winner"])
    by_double = np.stack([np.bincount(led, minlength=7), np.bincount(led, decided, 7), np.bincount(led, won, 7)])

    leaders = hands["leader"]
    seats = hs.from_leader(hs.seat_points(rows, rules), leaders)
    per_seat_side = hs.side_points(rows, rules)[:, hs.seat_side(np.arange(rules.players), rules)]
    sides = hs.from_leader(per_seat_side, leaders)
    seat = np.stack([seats.sum(0), (seats ** 2).sum(0), sides.sum(0), (sides ** 2).sum(0)])

    matches = chunk.matches
    first_double = hands["led_double"][hands["hand"] == 1]  # one row per match, in match order
    first_won = hs.seat_side(matches["first_leader"], rules) == matches["winner"]
    by_first = np.stack([np.bincount(first_double, minlength=7), np.bincount(first_double, first_won, 7)])
    return {"by_double": by_double.astype(np.int64), "seat": seat.astype(np.int64),
            "first": by_first.astype(np.int64)}


def run(ctx) -> dict[str, pd.DataFrame]:
    """Play every table x strategy x lead rule and tabulate."""
    base, seat_rows, double_rows = [], [], []
    for table in TABLES:
        for strategy in ctx.strategies:
            for lead in LEADS:
                rules = ctx.rules(table, lead=lead)
                played = ctx.play(rules, strategy, collect, hand_rows=True, match_rows=True)
                by_double, seat, first = played.sums["by_double"], played.sums["seat"], played.sums["first"]
                key = {"table": table, "strategy": strategy, "lead": lead}
                hands = int(by_double[0].sum())
                base.append({**key, "matches": played.matches, "hands": hands,
                             "decided_hands": int(by_double[1].sum()), "leader_wins": int(by_double[2].sum()),
                             "first_leader_match_wins": int(first[1].sum()), "fair_share": 1 / rules.sides})
                for k in range(rules.players):
                    seat_rows.append({**key, "seat_from_leader": k, "hands": hands,
                                      "seat_points": seat[0, k], "seat_points_sq": seat[1, k],
                                      "side_points": seat[2, k], "side_points_sq": seat[3, k]})
                for n in range(7):
                    double_rows.append({**key, "led_double": f"{n}-{n}", "hands": int(by_double[0, n]),
                                        "decided_hands": int(by_double[1, n]), "leader_wins": int(by_double[2, n]),
                                        "first_hand_matches": int(first[0, n]),
                                        "first_leader_match_wins": int(first[1, n])})
    leader = pd.DataFrame(base)
    add_rate(leader, "leader_win_rate", "leader_wins", "decided_hands")
    add_rate(leader, "first_leader_match_win_rate", "first_leader_match_wins", "matches")

    seats = pd.DataFrame(seat_rows)
    add_mean(seats, "seat_points_per_hand", "seat_points", "seat_points_sq", "hands")
    add_mean(seats, "side_points_per_hand", "side_points", "side_points_sq", "hands")
    seats = seats.drop(columns=["seat_points", "seat_points_sq", "side_points", "side_points_sq"])

    doubles = pd.DataFrame(double_rows)
    add_rate(doubles, "leader_win_rate", "leader_wins", "decided_hands")
    add_rate(doubles, "first_leader_match_win_rate", "first_leader_match_wins", "first_hand_matches")
    return {"summary": _summary(leader), "leader": leader, "seat_points": seats, "by_led_double": doubles}


def _summary(leader: pd.DataFrame) -> pd.DataFrame:
    """One row per table and strategy: both lead rules side by side and their difference."""
    keys = ["table", "strategy"]
    columns = ["leader_win_rate", "first_leader_match_win_rate"]
    parts = []
    for lead, tag in zip(LEADS, ("lowest", "highest")):
        part = leader[leader["lead"] == lead].set_index(keys)
        picked = part[[f"{c}{s}" for c in columns for s in ("", "_lo", "_hi")]]
        parts.append(picked.rename(columns=lambda c: _tag(c, tag)))
    lowest = leader[leader["lead"] == LEADS[0]].set_index(keys)
    summary = pd.concat([lowest[["fair_share", "decided_hands", "matches"]], *parts], axis=1).reset_index()
    for column in columns:
        add_difference(summary, f"{column}_gain", f"{column}_lowest", f"{column}_highest")
    order = [*keys, "fair_share", "decided_hands", "matches"]
    for column in columns:
        for suffix in ("lowest", "highest", "gain"):
            order += [f"{column}_{suffix}", f"{column}_{suffix}_lo", f"{column}_{suffix}_hi"]
    return summary[order]


def _which(rows: pd.DataFrame, most: int = 8) -> str:
    """`` (2 players greedy, ...)`` naming a few table-strategy combinations."""
    if rows.empty or len(rows) > most:
        return ""
    return " (" + ", ".join(f"{t} {s}" for t, s in zip(rows["table"], rows["strategy"])) + ")"


def _tag(column: str, tag: str) -> str:
    for end in ("_lo", "_hi"):
        if column.endswith(end):
            return f"{column[:-3]}_{tag}{end}"
    return f"{column}_{tag}"


def findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """Plain-language findings from the tables."""
    summary, doubles, seats = tables["summary"], tables["by_led_double"], tables["seat_points"]
    strategies = list(pd.unique(summary["strategy"]))
    ref = reference_strategy(strategies)
    out = []
    for table in pd.unique(summary["table"]):
        row = summary[(summary["table"] == table) & (summary["strategy"] == ref)].iloc[0]
        fair = row["fair_share"]
        where = versus(row["leader_win_rate_lowest_lo"], row["leader_win_rate_lowest_hi"], fair)
        gain = row["leader_win_rate_gain"]
        better = versus(row["leader_win_rate_gain_lo"], row["leader_win_rate_gain_hi"], 0.0,
                        "more", "less", "no more and no less")
        text = (f"**{table}** ({ref} play): the leader's side wins "
                f"{phrase(row, 'leader_win_rate_lowest', row['decided_hands'], 'decided hands')} of decided hands "
                f"under the lowest-double lead, {where} the fair share of {fair:.0%}. Leading the highest double "
                f"instead gives {phrase(row, 'leader_win_rate_highest')}: the lowest lead is worth {better} to the "
                f"leader (difference {signed_points(gain, row['leader_win_rate_gain_lo'], row['leader_win_rate_gain_hi'], True)}).")
        match_where = versus(row["first_leader_match_win_rate_lowest_lo"], row["first_leader_match_win_rate_lowest_hi"], fair)
        text += (f" The first hand's leader wins {phrase(row, 'first_leader_match_win_rate_lowest', row['matches'], 'matches')}"
                 f" of matches, {match_where} {fair:.0%}.")
        out.append(text)
    gains = summary["leader_win_rate_gain_lo"] > 0
    losses = summary["leader_win_rate_gain_hi"] < 0
    out.append(f"Across all {len(summary)} table-strategy combinations, the lowest-double lead gives the leader's "
               f"side a clearly higher hand win rate than the highest-double lead in {int(gains.sum())}"
               f"{_which(summary[gains])}, a clearly lower one in {int(losses.sum())}{_which(summary[losses])}, "
               f"and no clear difference in {int(len(summary) - gains.sum() - losses.sum())}.")
    table = next(iter(pd.unique(doubles["table"])))
    part = doubles[(doubles["table"] == table) & (doubles["strategy"] == ref) & (doubles["lead"] == LEADS[0])]
    part = part[part["decided_hands"] >= MIN_SHARE * part["decided_hands"].sum()]
    if len(part) > 1:
        top = part.loc[part["leader_win_rate"].idxmax()]
        low = part.loc[part["leader_win_rate"].idxmin()]
        separated = top["leader_win_rate_lo"] > low["leader_win_rate_hi"]
        out.append(f"By the double led ({table}, {ref} play, lowest-double lead; doubles that led at least "
                   f"{MIN_SHARE:.0%} of the decided hands): the leader's side does best after "
                   f"leading {top['led_double']} ({phrase(top, 'leader_win_rate', top['decided_hands'], 'decided hands')}) "
                   f"and worst after {low['led_double']} ({phrase(low, 'leader_win_rate', low['decided_hands'], 'decided hands')})"
                   f"{'' if separated else '; the two intervals overlap, so the ordering is not established'}.")
    for table in pd.unique(seats["table"]):
        part = seats[(seats["table"] == table) & (seats["strategy"] == ref) & (seats["lead"] == LEADS[0])]
        best = part.loc[part["side_points_per_hand"].idxmax()]
        worst = part.loc[part["side_points_per_hand"].idxmin()]
        out.append(f"{table} ({ref}): counted from the leader, seat {int(best['seat_from_leader'])} "
                   f"{'(the leader) ' if best['seat_from_leader'] == 0 else ''}collects the most side points per hand, "
                   f"{phrase(best, 'side_points_per_hand', best['hands'], 'hands')}, and seat "
                   f"{int(worst['seat_from_leader'])} the fewest, {phrase(worst, 'side_points_per_hand')}.")
    return out


def figures(tables: dict[str, pd.DataFrame]) -> list[Chart]:
    """Win rates by lead rule per table and strategy; by led double; points by seat from the leader."""
    leader, doubles, seats = tables["leader"], tables["by_led_double"], tables["seat_points"]
    charts = []
    for value, label, name in (("leader_win_rate", "leader's side wins the decided hand", "leader_win_rate"),
                               ("first_leader_match_win_rate", "first hand's leader wins the match",
                                "first_leader_match_win_rate")):
        fig, axes = panels(len(TABLES))
        for ax, table in zip(axes, TABLES):
            part = leader[leader["table"] == table]
            grouped(ax, part, "strategy", "lead", value, groups=LEADS)
            reference_line(ax, float(part["fair_share"].iloc[0]), "fair share")
            ax.set_title(table)
            ax.set_xlabel("strategy (self-play)")
            ax.set_ylabel(label)
            _zoom(ax, part, value, float(part["fair_share"].iloc[0]))
        charts.append(Chart(name, finish(fig, f"How often the {label}: lowest- vs highest-double lead",
                                         legend_from=axes[0], legend_title="lead rule"),
                            f"How often the {label}, by table and strategy, under each lead rule; dashed: fair share"))
    fig, axes = panels(2 * len(TABLES))
    for row, lead in enumerate(LEADS):
        for ax, table in zip(axes[row * len(TABLES):], TABLES):
            part = doubles[(doubles["table"] == table) & (doubles["lead"] == lead) & (doubles["decided_hands"] > 0)].copy()
            part["double"] = part["led_double"].str[0].astype(int)
            lines(ax, part, "double", "leader_win_rate", group="strategy")
            reference_line(ax, 1 / _sides(table))
            ax.set_title(f"{table}, {lead} lead", fontsize=10)
            ax.set_xlabel("double led (n-n)")
            ax.set_ylabel("leader's side wins hand")
    charts.append(Chart("by_led_double", finish(fig, "Leader's side hand win rate by the double led",
                                                legend_from=axes[0], legend_title="strategy (self-play)"),
                        "Leader's side hand win rate by the double that was led, per table, lead rule and strategy"))
    fig, axes = panels(len(TABLES))
    for ax, table in zip(axes, TABLES):
        part = seats[(seats["table"] == table) & (seats["lead"] == LEADS[0])]
        grouped(ax, part, "seat_from_leader", "strategy", "side_points_per_hand", bars=True)
        ax.set_title(table)
        ax.set_xlabel("seat counted from the leader (0 = leader)")
        ax.set_ylabel("side points per hand")
    charts.append(Chart("points_by_seat", finish(fig, "Points per hand by seat counted from the leader (lowest-double lead)",
                                                 legend_from=axes[0], legend_title="strategy (self-play)"),
                        "Points per hand each seat's side scores, by seat counted from the leader, per table and strategy"))
    return charts


def _sides(table: str) -> int:
    players, partnerships = TABLES[table]
    return 2 if partnerships else players


def _zoom(ax, part: pd.DataFrame, value: str, fair: float) -> None:
    """Start the axis near the data so small differences show (bars are compared with the fair share line)."""
    low = min(part[f"{value}_lo"].min(), fair)
    high = max(part[f"{value}_hi"].max(), fair)
    pad = (high - low) * 0.15 + 0.005
    ax.set_ylim(max(0.0, low - pad), min(1.0, high + pad))
