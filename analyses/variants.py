"""What do the rule variants change? Five points for going out, no boneyard reserve, the classic rules.

Against the standard game: ``out_points = 5`` (going out pays 5 instead of 2),
``boneyard_reserve = 0`` (the boneyard may be drawn dry) and the ``classic``
preset (highest-double lead, 1 point for going out or a blocked hand, pip
count settlement, no reserve, no near-target cut).  For each player count and
strategy (self-play), from the same seeds: how long matches last, how much
the seating matters (the first hand's leader's match win rate, and each
seat's), and where the points come from.
"""

from __future__ import annotations

import pandas as pd

from bergen_sim import hand_stats as hs
from bergen_sim.reporting import TABLES, headline_strategies, reference_strategy
from bergen_sim.figures import Chart, differences, finish, grouped, panels, stacked_shares
from bergen_sim.stats import add_clustered, add_difference, add_family, add_mean, add_rate, cluster_sums, judged, phrase

TITLE = "Rule variants against the standard game"
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
    "against the fair share 1 / number of sides. Differences from standard use Newcombe's method (conservative, "
    "since the deals are shared). The blocked rate is a ratio of per-match sums, clustered by match. Family of "
    "comparisons: every measure of the versus_standard table (match length in hands per match, first leader's "
    "match win rate, blocked rate and the four point shares, in percentage points) for every variant, table "
    "and strategy, controlled together with Holm's procedure."
)
SHOW = {
    "summary": "Match length, first leader's match win rate, blocked hands and point sources per variant.",
    "versus_standard": "Each variant minus the standard game (same table and strategy).",
}
_MEASURES = ("hands_per_match", "first_leader_match_win_rate", "blocked_rate",
             *(f"{s}_share" for s in hs.SOURCES))


def collect(chunk, rules) -> dict:
    """Per-chunk sums: first leaders' match wins and point sources."""
    matches = chunk.matches
    first_won = hs.seat_side(matches["first_leader"], rules) == matches["winner"]
    return {"first_won": first_won.sum(), "sources": hs.source_sums(chunk.hand_rows, rules),
            "blocked": cluster_sums(matches["blocked_hands"], matches["hands"])}


def run(ctx) -> dict[str, pd.DataFrame]:
    """Play every table x strategy x variant and tabulate."""
    summary, seats = [], []
    for table in TABLES:
        for strategy in ctx.strategies:
            for variant, (preset, settings) in VARIANTS.items():
                rules = ctx.rules(table, preset=preset, **settings)
                played = ctx.play(rules, strategy, collect, hand_rows=True, match_rows=True)
                t = played.counts
                key = {"table": table, "strategy": strategy, "variant": variant}
                summary.append({**key, "matches": played.matches, "hands": int(t["hands"]),
                                "hands_sq": int(t["hands_sq"]), "blocked_hands": int(t["blocked_hands"]),
                                "first_leader_match_wins": int(played.sums["first_won"]),
                                "_blocked": played.sums["blocked"],
                                "fair_share": 1 / rules.sides, **hs.source_shares(played.sums["sources"])})
                for side in range(rules.sides):
                    seats.append({**key, "side": side, "matches": played.matches,
                                  "match_wins": int(t["match_wins"][side]), "fair_share": 1 / rules.sides})
    frame = pd.DataFrame(summary)
    add_mean(frame, "hands_per_match", "hands", "hands_sq", "matches")
    add_rate(frame, "first_leader_match_win_rate", "first_leader_match_wins", "matches")
    add_clustered(frame, "blocked_rate", frame.pop("_blocked"))
    frame = frame.drop(columns=["hands_sq", "points"])
    seat = pd.DataFrame(seats)
    add_rate(seat, "match_win_rate", "match_wins", "matches")
    change = _versus_standard(frame)
    add_family([(change, f"{measure}_change") for measure in _MEASURES])
    return {"summary": frame, "seats": seat, "versus_standard": change}


def _versus_standard(frame: pd.DataFrame) -> pd.DataFrame:
    """Each variant's measures minus the standard game's, same table and strategy."""
    keys = ["table", "strategy"]
    base = frame[frame["variant"] == "standard"].set_index(keys)
    columns = [f"{m}{s}" for m in _MEASURES for s in ("", "_lo", "_hi")]
    rows = frame[frame["variant"] != "standard"].join(base[columns].add_suffix("_standard"), on=keys)
    out = rows[[*keys, "variant", "matches"]].copy()
    for measure in _MEASURES:
        renamed = rows.rename(columns={f"{measure}_standard": "b", f"{measure}_lo_standard": "b_lo",
                                       f"{measure}_hi_standard": "b_hi"})
        add_difference(renamed, f"{measure}_change", measure, "b")
        for suffix in ("", "_lo", "_hi"):
            out[f"{measure}_change{suffix}"] = renamed[f"{measure}_change{suffix}"]
    return out.reset_index(drop=True)


def key_findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """The few findings a player reads first."""
    frame, change = tables["summary"], tables["versus_standard"]
    out = []
    for strategy in headline_strategies(list(pd.unique(frame["strategy"]))):
        rows = frame[(frame["table"] == "2 players") & (frame["strategy"] == strategy)].set_index("variant")
        diffs = change[(change["table"] == "2 players") & (change["strategy"] == strategy)].set_index("variant")
        if rows.empty:
            continue
        parts = []
        for variant in list(VARIANTS)[1:]:
            word, numbers = judged(diffs.loc[variant], "hands_per_match_change", "hands per match",
                                   larger="longer", smaller="shorter", same="about as long")
            parts.append(f"{variant} makes matches {word} ({numbers})")
        out.append(f"2 players, {strategy} play: a standard match lasts "
                   f"{phrase(rows.loc['standard'], 'hands_per_match')} hands; " + "; ".join(parts) + ".")
    return out


def findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """Plain-language findings from the tables."""
    frame, change = tables["summary"], tables["versus_standard"]
    ref = reference_strategy(list(pd.unique(frame["strategy"])))
    out = []
    for table in pd.unique(frame["table"]):
        rows = frame[(frame["table"] == table) & (frame["strategy"] == ref)].set_index("variant")
        diffs = change[(change["table"] == table) & (change["strategy"] == ref)].set_index("variant")
        standard = rows.loc["standard"]
        parts = []
        for variant in list(VARIANTS)[1:]:
            word, numbers = judged(diffs.loc[variant], "hands_per_match_change", "hands per match",
                                   larger="longer", smaller="shorter", same="about as long")
            parts.append(f"{variant}: {phrase(rows.loc[variant], 'hands_per_match')} ({word}, {numbers})")
        text = (f"**{table}** ({ref} play): a standard match lasts "
                f"{phrase(standard, 'hands_per_match', standard['matches'], 'matches')} hands; " + "; ".join(parts) + ".")
        fair = standard["fair_share"]
        lead = [f"{variant} {phrase(rows.loc[variant], 'first_leader_match_win_rate')}" for variant in VARIANTS]
        text += f" The first hand's leader wins (fair share {fair:.0%}): " + ", ".join(lead) + "."
        out.append(text)
        biggest = []
        for variant in list(VARIANTS)[1:]:
            d = diffs.loc[variant]
            source = max(hs.SOURCES, key=lambda s: abs(d[f"{s}_share_change"]))
            word, numbers = judged(d, f"{source}_share_change", larger="up", smaller="down", same="not clearly moved")
            biggest.append(f"{variant} moves the share of points from {_source_words(source)} the most, "
                           f"{phrase(rows.loc['standard'], f'{source}_share')} to {phrase(rows.loc[variant], f'{source}_share')} "
                           f"({word}: {numbers})")
        out.append(f"{table} ({ref}), point sources: " + "; ".join(biggest) + ".")
    return out


def _source_words(source: str) -> str:
    return {"lead": "the lead", "header": "headers", "out": "going out", "blocked": "blocked hands"}[source]


def figures(tables: dict[str, pd.DataFrame]) -> list[Chart]:
    """Match length, first leader's advantage and point sources per variant."""
    frame = tables["summary"]
    charts = []
    for value, label, name in (("hands_per_match", "hands per match", "match_length"),
                               ("first_leader_match_win_rate", "first hand's leader wins the match", "first_leader")):
        fig, axes = panels(len(TABLES))
        for ax, table in zip(axes, TABLES):
            part = frame[frame["table"] == table]
            grouped(ax, part, "strategy", "variant", value, groups=list(VARIANTS))
            if value == "first_leader_match_win_rate":
                ax.axhline(float(part["fair_share"].iloc[0]), color="grey", linestyle="--", linewidth=1)
            ax.set_title(table)
            ax.set_xlabel("strategy (self-play)")
            ax.set_ylabel(label)
        charts.append(Chart(name, finish(fig, f"{label[0].upper()}{label[1:]}, by rule variant",
                                         legend_from=axes[0], legend_title="variant"),
                            f"{label[0].upper()}{label[1:]} under each rule variant, by table and strategy"
                            + ("; dashed: fair share" if value != "hands_per_match" else "")))
    change = tables["versus_standard"]
    for value, label in (("hands_per_match_change", "hands per match"),
                         ("first_leader_match_win_rate_change", "first leader's match win rate (pp)")):
        fig, axes = panels(len(TABLES))
        for ax, table in zip(axes, TABLES):
            differences(ax, change[change["table"] == table], "variant", value, group="strategy")
            ax.set_title(table)
            ax.set_xlabel("variant")
            ax.set_ylabel(f"variant minus standard: {label}")
        charts.append(Chart(value, finish(fig, f"Each variant minus the standard game: {label}", legend_from=axes[0],
                                          legend_title="strategy (self-play)",
                                          note="Thick bars: 95% intervals; thin bars: Holm-adjusted intervals over the "
                                               "family of variant comparisons; dashed: no difference."),
                            f"Change from the standard game in {label}, with 95% and Holm-adjusted intervals"))
    ref = reference_strategy(list(pd.unique(frame["strategy"])))
    fig, axes = panels(len(TABLES))
    for ax, table in zip(axes, TABLES):
        part = frame[(frame["table"] == table) & (frame["strategy"] == ref)]
        stacked_shares(ax, part, "variant", [f"{s}_share" for s in hs.SOURCES], [_source_words(s) for s in hs.SOURCES])
        ax.set_title(table)
        ax.set_ylabel("share of all points")
    charts.append(Chart("point_sources", finish(fig, f"Where the points come from, by rule variant ({ref} play)",
                                                legend_from=axes[0], legend_title="source of points"),
                        f"Share of all points from the lead, headers, going out and blocked hands per variant ({ref} play)"))
    return charts
