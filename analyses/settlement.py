"""Blocked hands: German settlement against the pip count (and the American rule).

When every seat passes in a row the hand is blocked and a settlement picks
the side that scores: ``german`` (fewest doubles, then fewest pips), ``pips``
(fewest pips) or ``american`` (a side without doubles beats every side with
one; then fewest pips, non-double pips if every side holds a double).  This
analysis measures how often hands block, by player count, policy and
``boneyard_reserve`` (2: the last two tiles are never drawn; 0: the boneyard
may be drawn dry); settles the *same* blocked end states all three ways to
see how often the rules name a different winner; plays whole matches under
each settlement from the same seeds (match length, the first leader's match
win rate, the share of points from blocked hands); and runs a duplicate-deal
tournament of the policies under each settlement with 2 players, to see
whether the best policy changes and whether shedding doubles pays more
under German rules.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from bergen_sim.core.i18n import N_, num, tr
from bergen_sim.core.stats import (
    add_clustered,
    add_difference,
    add_family,
    add_mean,
    add_rate,
    cluster_column,
    cluster_sums,
    judged,
    paired_ratio_difference,
    phrase,
)
from bergen_sim.engine.layout import HandEnd
from bergen_sim.model.rules import settlement_name
from bergen_sim.services.analysis import hand_stats as hs
from bergen_sim.services.analysis.figures import Chart, differences, finish, grouped, panels
from bergen_sim.services.analysis.reporting import TABLES, PerMatch, headline_policies, reference_policy, table_name

TITLE = N_("Blocked-hand settlement: German vs pip count (and American)")
SETTLEMENTS = hs.SETTLEMENTS  # german, pips, american
RESERVES = (2, 0)
PAIRS = list(itertools.combinations(range(len(SETTLEMENTS)), 2))
#: the tournament's table
TOURNAMENT_TABLE = "2 players"
#: policies built to shed what a settlement counts, and the baselines the findings compare them with
SHEDDERS = ("doubles-first", "heavy-first")
BASELINES = ("random", "greedy")
METHOD = (
    "Blocking rates and the paired comparison come from self-play under German rules with each boneyard "
    "reserve: every blocked end state (doubles, pips and non-double pips left per side) is settled by the "
    "engine's own settlement function under all three rules, so the comparison is paired: the same positions, "
    "three verdicts. Whole-match results are self-play under each settlement from the same seed (the same "
    "deals). The tournament plays every pair of policies on duplicate deals (each deal in both seat "
    "orders) under each settlement; its intervals are Student-t over deal sets. Per-hand rates (blocked hands, "
    "disagreements among blocked hands) are ratios of per-match sums, clustered by match. Family of comparisons: "
    "reserve 0 against reserve 2 (blocked rate), each other settlement against German (hands per match), and "
    "German against the others in the tournaments (win rates against the field, and of the shedding "
    "policies against the baselines), for every table and policy, given simultaneous 95% intervals "
    "(Bonferroni over the family). The reserve and settlement differences of whole matches are paired by match "
    "(match i meets the same deal under both: per-match hands and blocked hands compared match by match); the "
    "tournament differences combine two intervals over deal sets (Newcombe), conservative since the deals are "
    "shared."
)
SHOW = {
    "blocking": "Share of hands that end blocked, by boneyard reserve (German rules, self-play).",
    "paired": (
        "The same blocked end states settled all three ways: how often two rules name a different "
        "winner (or one names nobody), and how often each names nobody (a tie for best).",
        "boneyard_reserve == 2",
    ),
    "matches": "Whole matches under each settlement (same seeds): match length, blocked hands, first leader's match win rate, share of points from blocked hands.",
    "policy_change": "Each policy's match win rate against the field of the others (2 players, duplicate deals) under each settlement, and the change from pips (or american) to german.",
}


def collect(chunk, rules) -> dict:
    """Per-chunk sums: blocked end states settled three ways (clustered by match), first leaders' wins, point sources."""
    rows = chunk.hand_rows
    hands = chunk.hands
    is_blocked = hands["end"] == HandEnd.BLOCKED
    winners = np.full((len(rows), len(SETTLEMENTS)), -1, dtype=np.int64)
    winners[is_blocked] = hs.settle_all_ways(rows[is_blocked], rules)
    matches = chunk.matches
    first_won = hs.seat_side(matches["first_leader"], rules) == matches["winner"]
    verdicts = np.column_stack(
        [
            *(is_blocked & (winners[:, a] != winners[:, b]) for a, b in PAIRS),
            is_blocked & (winners.min(axis=1) != winners.max(axis=1)),
            *(is_blocked & (winners[:, k] < 0) for k in range(len(SETTLEMENTS))),
        ]
    )
    per_match = hs.match_sums(np.column_stack([verdicts, is_blocked]).astype(np.int64), hands["match"])
    return {
        "verdicts": cluster_sums(per_match[:, :-1], per_match[:, -1]),
        "blocked": cluster_sums(matches["blocked_hands"], matches["hands"]),
        "first_won": np.array(first_won.sum()),
        "sources": hs.source_sums(rows, rules),
        "per_match": PerMatch(np.column_stack([matches["hands"], matches["blocked_hands"]]).astype(np.int64)),
    }


def run(ctx) -> dict[str, pd.DataFrame]:
    """Blocking by reserve, the paired settlement, whole matches per settlement and the tournaments."""
    blocking, paired, matches, per_match = [], [], [], {}
    for table in TABLES:
        for policy in ctx.policies:
            key = {"table": table, "policy": policy}
            for settlement, reserve in [("german", 0), *((s, 2) for s in SETTLEMENTS)]:
                rules = ctx.rules(table, settlement=settlement, boneyard_reserve=reserve)
                played = ctx.play(rules, policy, collect, hand_rows=True, match_rows=True)
                t, sums = played.counts, played.sums
                per_match[table, policy, settlement, reserve] = sums["per_match"].values
                if settlement == "german":
                    blocking.append(
                        {
                            **key,
                            "boneyard_reserve": reserve,
                            "hands": int(t["hands"]),
                            "blocked_hands": int(t["blocked_hands"]),
                            "_blocked": sums["blocked"],
                        }
                    )
                    paired.append(
                        {
                            **key,
                            "boneyard_reserve": reserve,
                            "blocked_hands": int(t["blocked_hands"]),
                            "_verdicts": sums["verdicts"],
                        }
                    )
                if reserve == 2:
                    shares = hs.source_shares(sums["sources"])
                    matches.append(
                        {
                            **key,
                            "settlement": settlement,
                            "matches": played.matches,
                            "hands": int(t["hands"]),
                            "hands_sq": int(t["hands_sq"]),
                            "blocked_hands": int(t["blocked_hands"]),
                            "_blocked": sums["blocked"],
                            "first_leader_match_wins": int(sums["first_won"]),
                            **{k: v for k, v in shares.items() if k.startswith("blocked_share")},
                        }
                    )
    block = pd.DataFrame(blocking)
    add_clustered(block, "blocked_rate", block.pop("_blocked"))
    block = _reserve_change(block, per_match)
    pair = pd.DataFrame(paired)
    verdicts = pair.pop("_verdicts")
    names = [f"{SETTLEMENTS[a]}_vs_{SETTLEMENTS[b]}_differ_rate" for a, b in PAIRS] + ["any_differ_rate"]
    names += [f"{name}_no_winner_rate" for name in SETTLEMENTS]
    for k, name in enumerate(names):
        add_clustered(pair, name, [cluster_column(v, k) for v in verdicts])
    match = pd.DataFrame(matches)
    add_mean(match, "hands_per_match", "hands", "hands_sq", "matches")
    add_clustered(match, "blocked_rate", match.pop("_blocked"))
    match = _versus_german(match, per_match)
    add_rate(match, "first_leader_match_win_rate", "first_leader_match_wins", "matches")
    match = match.drop(columns=["hands_sq"])
    match = match[
        [c for c in match.columns if not c.startswith("blocked_share")]
        + ["blocked_share", "blocked_share_lo", "blocked_share_hi"]
    ]

    tournaments = []
    for settlement in SETTLEMENTS:
        if len(ctx.policies) > 1:
            table = ctx.tournament(ctx.rules(TOURNAMENT_TABLE, settlement=settlement))
            tournaments.append(table.assign(settlement=settlement))
    tables = {"blocking": block, "paired": pair, "matches": match}
    family = [(block, "blocked_rate_change"), (match, "hands_per_match_change")]
    if tournaments:
        tour = pd.concat(tournaments, ignore_index=True)
        tour = tour[["settlement", *[c for c in tour.columns if c != "settlement"]]]
        tables["tournament"] = tour
        tables["policy_change"] = _policy_change(tour)
        tables["shedding"] = _shedding(tour)
        family += [(tables["policy_change"], f"win_rate_german_minus_{other}") for other in SETTLEMENTS[1:]]
        family += [(tables["shedding"], "win_rate_german_minus_pips")]
    add_family(family)
    return tables


#: columns of the per-match values ``collect`` keeps
_HANDS, _BLOCKED = 0, 1


def _paired_rows(frame: pd.DataFrame, name: str, rows, measure) -> None:
    """Set ``name`` (and its interval) on each row given as (index, per-match values, baseline's), NaN elsewhere."""
    for suffix in ("", "_lo", "_hi"):
        frame[f"{name}{suffix}"] = np.nan
    for index, values, baseline in rows:
        d = measure(values, baseline)
        frame.loc[index, [name, f"{name}_lo", f"{name}_hi"]] = d


def _blocked_rate_change(values: np.ndarray, baseline: np.ndarray) -> tuple[float, float, float]:
    return paired_ratio_difference(values[:, _BLOCKED], values[:, _HANDS], baseline[:, _BLOCKED], baseline[:, _HANDS])


def _hands_change(values: np.ndarray, baseline: np.ndarray) -> tuple[float, float, float]:
    ones = np.ones(len(values))
    return paired_ratio_difference(values[:, _HANDS], ones, baseline[:, _HANDS], ones)


def _reserve_change(block: pd.DataFrame, per_match: dict) -> pd.DataFrame:
    """Add ``blocked_rate_change`` (reserve 0 minus reserve 2, same table and policy, paired by match) on the
    reserve-0 rows."""
    rows = [
        (i, per_match[r.table, r.policy, "german", 0], per_match[r.table, r.policy, "german", 2])
        for i, r in block.iterrows()
        if r.boneyard_reserve == 0
    ]
    _paired_rows(block, "blocked_rate_change", rows, _blocked_rate_change)
    return block


def _versus_german(match: pd.DataFrame, per_match: dict) -> pd.DataFrame:
    """Add ``hands_per_match_change`` (this settlement minus German, same table and policy, paired by match) on
    non-German rows."""
    rows = [
        (i, per_match[r.table, r.policy, r.settlement, 2], per_match[r.table, r.policy, "german", 2])
        for i, r in match.iterrows()
        if r.settlement != "german"
    ]
    _paired_rows(match, "hands_per_match_change", rows, _hands_change)
    return match


def _shedding(tour: pd.DataFrame) -> pd.DataFrame:
    """The shedding policies against the baselines: win rate under each settlement, German minus pips."""
    rows = []
    pairs = tour[tour["policy"].isin(SHEDDERS) & tour["opponent"].isin(BASELINES)]
    for (policy, opponent), part in pairs.groupby(["policy", "opponent"], sort=False):
        part = part.set_index("settlement")
        row = {"policy": policy, "opponent": opponent}
        for settlement in SETTLEMENTS:
            for suffix in ("", "_lo", "_hi"):
                row[f"win_rate_{settlement}{suffix}"] = part.loc[settlement, f"win_rate{suffix}"]
            row[f"matches_{settlement}"] = int(part.loc[settlement, "matches"])
        rows.append(row)
    frame = pd.DataFrame(rows) if rows else pd.DataFrame(columns=["policy", "opponent"])
    if len(frame):
        add_difference(frame, "win_rate_german_minus_pips", "win_rate_german", "win_rate_pips")
    else:
        for suffix in ("", "_lo", "_hi"):
            frame[f"win_rate_german_minus_pips{suffix}"] = []
    return frame


def _policy_change(tour: pd.DataFrame) -> pd.DataFrame:
    """Per policy: win rate against the field under each settlement, the rank, and german minus the others."""
    field = tour[tour["opponent"] == "field"]
    wide = None
    for settlement in SETTLEMENTS:
        part = field[field["settlement"] == settlement].set_index("policy")
        part = part[["matches", "win_rate", "win_rate_lo", "win_rate_hi"]].rename(
            columns={
                "matches": f"matches_{settlement}",
                "win_rate": f"win_rate_{settlement}",
                "win_rate_lo": f"win_rate_{settlement}_lo",
                "win_rate_hi": f"win_rate_{settlement}_hi",
            }
        )
        part[f"rank_{settlement}"] = part[f"win_rate_{settlement}"].rank(ascending=False, method="min").astype(int)
        wide = part if wide is None else wide.join(part)
    wide = wide.reset_index()
    for other in SETTLEMENTS[1:]:
        add_difference(wide, f"win_rate_german_minus_{other}", "win_rate_german", f"win_rate_{other}")
    return wide


def key_findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """The few findings a player reads first."""
    block, pair = tables["blocking"], tables["paired"]
    out = []
    for policy in headline_policies(list(pd.unique(block["policy"]))):
        two = block[(block["table"] == "2 players") & (block["policy"] == policy) & (block["boneyard_reserve"] == 2)]
        same = pair[(pair["table"] == "2 players") & (pair["policy"] == policy) & (pair["boneyard_reserve"] == 2)]
        if two.empty or same.empty:
            continue
        two, same = two.iloc[0], same.iloc[0]
        out.append(
            tr(
                "2 players, {policy} play: about {n} hands in 100 end blocked ({numbers}); on those same "
                "blocked hands, German and pip-count settlement pick a different winner {differ} of the time, "
                "about {all} in 100 of all hands."
            ).format(
                policy=policy,
                n=round(100 * two["blocked_rate"]),
                numbers=phrase(two, "blocked_rate", two["hands"], tr("hands")),
                differ=phrase(same, "german_vs_pips_differ_rate"),
                all=num(100 * two["blocked_rate"] * same["german_vs_pips_differ_rate"], ".0f"),
            )
        )
    if "policy_change" in tables:
        change = tables["policy_change"]
        best = {s: change.loc[change[f"win_rate_{s}"].idxmax(), "policy"] for s in SETTLEMENTS}
        moved = change[
            (change["win_rate_german_minus_pips_adj_lo"] > 0) | (change["win_rate_german_minus_pips_adj_hi"] < 0)
        ]
        best_text = (
            tr("{policy} under every settlement").format(policy=best["german"])
            if len(set(best.values())) == 1
            else ", ".join(
                tr("{policy} under {settlement}").format(policy=best[s], settlement=settlement_name(s))
                for s in SETTLEMENTS
            )
        )
        bound = max(
            change["win_rate_german_minus_pips_adj_lo"].abs().max(),
            change["win_rate_german_minus_pips_adj_hi"].abs().max(),
        )
        out.append(
            tr(
                "The best policy against the field ({table}) is {best}. German rather than pip-count settlement "
                "changes a policy's match win rate by at most {bound} percentage points (simultaneous interval); "
                "{moved} of these {policies} changes are clear."
            ).format(
                table=table_name(TOURNAMENT_TABLE),
                best=best_text,
                bound=num(100 * bound, ".2g"),
                moved=len(moved),
                policies=len(change),
            )
        )
    return out


def findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """Plain-language findings from the tables."""
    block, pair, match = tables["blocking"], tables["paired"], tables["matches"]
    ref = reference_policy(list(pd.unique(block["policy"])))
    out = []
    for table in pd.unique(block["table"]):
        rows = block[(block["table"] == table) & (block["policy"] == ref)].set_index("boneyard_reserve")
        two, zero = rows.loc[2], rows.loc[0]
        direction, numbers = judged(zero, "blocked_rate_change", larger="more", smaller="fewer", same="about as many")
        spread = block[(block["table"] == table) & (block["boneyard_reserve"] == 2)]
        text = (
            f"**{table}** ({ref} play): {phrase(two, 'blocked_rate', two['hands'], 'hands')} of hands block "
            f"with a reserve of 2; drawing the boneyard dry (reserve 0) gives {direction} blocked hands, "
            f"{phrase(zero, 'blocked_rate', zero['hands'], 'hands')} ({numbers})."
        )
        if len(spread) > 1:
            hi, lo = spread.loc[spread["blocked_rate"].idxmax()], spread.loc[spread["blocked_rate"].idxmin()]
            text += (
                f" By policy (reserve 2) it ranges from {phrase(lo, 'blocked_rate')} ({lo['policy']}) to "
                f"{phrase(hi, 'blocked_rate')} ({hi['policy']})."
            )
        out.append(text)
    for table in pd.unique(pair["table"]):
        row = pair[(pair["table"] == table) & (pair["policy"] == ref) & (pair["boneyard_reserve"] == 2)].iloc[0]
        out.append(
            f"{table} ({ref}, reserve 2): on the same {int(row['blocked_hands']):,} blocked end states, German and "
            f"pip-count settlement name a different winner in {phrase(row, 'german_vs_pips_differ_rate')}, German and "
            f"American in {phrase(row, 'german_vs_american_differ_rate')}, pips and American in "
            f"{phrase(row, 'pips_vs_american_differ_rate')}. Nobody wins (a tie for best) in "
            f"{phrase(row, 'german_no_winner_rate')} under German, {phrase(row, 'pips_no_winner_rate')} under pips "
            f"and {phrase(row, 'american_no_winner_rate')} under American rules."
        )
    for table in pd.unique(match["table"]):
        rows = match[(match["table"] == table) & (match["policy"] == ref)].set_index("settlement")
        german = rows.loc["german"]
        parts = []
        for other in SETTLEMENTS[1:]:
            o = rows.loc[other]
            word, numbers = judged(
                o,
                "hands_per_match_change",
                "hands per match",
                larger=f"{other} matches are longer",
                smaller=f"{other} matches are shorter",
            )
            parts.append(f"{other}: {phrase(o, 'hands_per_match')} ({word}, {numbers})")
        out.append(
            f"{table} ({ref}): a match lasts {phrase(german, 'hands_per_match', german['matches'], 'matches')} "
            f"hands under German settlement; "
            + "; ".join(parts)
            + ". The first hand's leader wins the match "
            + ", ".join(
                f"{phrase(rows.loc[s], 'first_leader_match_win_rate')} of the time under {s}" for s in SETTLEMENTS
            )
            + "."
        )
    if "policy_change" in tables:
        out += _tournament_findings(tables["policy_change"], tables["shedding"])
    return out


def _tournament_findings(change: pd.DataFrame, shedding: pd.DataFrame) -> list[str]:
    out = []
    best = {s: change.loc[change[f"win_rate_{s}"].idxmax()] for s in SETTLEMENTS}
    names = {s: row["policy"] for s, row in best.items()}
    same = len(set(names.values())) == 1
    out.append(
        f"Tournament ({TOURNAMENT_TABLE}, duplicate deals): the best policy against the field is "
        + ", ".join(
            f"{names[s]} under {s} ({phrase(best[s], f'win_rate_{s}', best[s][f'matches_{s}'], 'matches')})"
            for s in SETTLEMENTS
        )
        + (": the best policy does not change." if same else ": the best policy changes with the settlement.")
    )
    moved = change.loc[change["win_rate_german_minus_pips"].abs().idxmax()]
    word, numbers = judged(
        moved,
        "win_rate_german_minus_pips",
        larger="does better",
        smaller="does worse",
        same="does neither clearly better nor clearly worse",
    )
    out.append(
        f"The policy whose result moves most between German and pip-count settlement is {moved['policy']}: "
        f"it {word} under German rules ({numbers}, in match win rate against the field)."
    )
    for _, row in shedding.iterrows():
        verdict, numbers = judged(
            row,
            "win_rate_german_minus_pips",
            larger="pays more under German rules",
            smaller="pays less under German rules",
            same="pays about the same under both",
        )
        out.append(
            f"Shedding: {row['policy']} against {row['opponent']} wins "
            f"{phrase(row, 'win_rate_german', row['matches_german'], 'matches')} of matches under German "
            f"settlement and {phrase(row, 'win_rate_pips', row['matches_pips'], 'matches')} under pips "
            f"(American: {phrase(row, 'win_rate_american')}): it {verdict} ({numbers})."
        )
    return out


def figures(tables: dict[str, pd.DataFrame]) -> list[Chart]:
    """Blocking by reserve; paired disagreement; match length by settlement; policies by settlement."""
    block, pair, match = tables["blocking"], tables["paired"], tables["matches"]
    charts = []
    fig, axes = panels(len(TABLES))
    for ax, table in zip(axes, TABLES):
        part = block[block["table"] == table].assign(reserve=lambda f: "reserve " + f["boneyard_reserve"].astype(str))
        grouped(ax, part, "policy", "reserve", "blocked_rate", bars=True)
        ax.set_title(table)
        ax.set_xlabel("policy (self-play)")
        ax.set_ylabel("share of hands blocked")
    charts.append(
        Chart(
            "blocked_rate",
            finish(
                fig,
                "How often hands block, by boneyard reserve (German rules)",
                legend_from=axes[0],
                legend_title="boneyard reserve",
            ),
            "Share of hands that end blocked, by table, policy and boneyard reserve",
        )
    )
    long = []
    for _, row in pair[pair["boneyard_reserve"] == 2].iterrows():
        for a, b in PAIRS:
            name = f"{SETTLEMENTS[a]}_vs_{SETTLEMENTS[b]}_differ_rate"
            long.append(
                {
                    "table": row["table"],
                    "policy": row["policy"],
                    "pair": f"{SETTLEMENTS[a]} vs {SETTLEMENTS[b]}",
                    "differ_rate": row[name],
                    "differ_rate_lo": row[f"{name}_lo"],
                    "differ_rate_hi": row[f"{name}_hi"],
                }
            )
    long = pd.DataFrame(long)
    fig, axes = panels(len(TABLES))
    for ax, table in zip(axes, TABLES):
        grouped(ax, long[long["table"] == table], "policy", "pair", "differ_rate", bars=True)
        ax.set_title(table)
        ax.set_xlabel("policy (self-play)")
        ax.set_ylabel("blocked hands with a different winner")
    charts.append(
        Chart(
            "paired_disagreement",
            finish(
                fig,
                "Same blocked positions, different verdicts (reserve 2)",
                legend_from=axes[0],
                legend_title="settlements compared",
            ),
            "Share of the same blocked end states on which two settlements name a different winner",
        )
    )
    fig, axes = panels(len(TABLES))
    for ax, table in zip(axes, TABLES):
        grouped(ax, match[match["table"] == table], "policy", "settlement", "hands_per_match", groups=SETTLEMENTS)
        ax.set_title(table)
        ax.set_xlabel("policy (self-play)")
        ax.set_ylabel("hands per match")
    charts.append(
        Chart(
            "match_length",
            finish(
                fig, "Match length under each settlement (same deals)", legend_from=axes[0], legend_title="settlement"
            ),
            "Mean hands per match under each settlement, by table and policy",
        )
    )
    fig, axes = panels(len(TABLES))
    for ax, table in zip(axes, TABLES):
        differences(
            ax, block[(block["table"] == table) & (block["boneyard_reserve"] == 0)], "policy", "blocked_rate_change"
        )
        ax.set_title(table)
        ax.set_xlabel("policy (self-play)")
        ax.set_ylabel("reserve 0 minus reserve 2 (pp)")
    charts.append(
        Chart(
            "blocked_rate_change",
            finish(
                fig,
                "Drawing the boneyard dry: change in the share of blocked hands",
                note="Thick bars: 95% intervals; thin bars: simultaneous "
                "intervals over the settlement family; dashed: no change.",
            ),
            "Blocked hands with reserve 0 minus reserve 2, percentage points, with 95% and simultaneous intervals",
        )
    )
    if "policy_change" in tables:
        change = tables["policy_change"]
        long = pd.concat(
            [
                change[["policy", *(f"win_rate_german_minus_{o}{x}" for x in ("", "_lo", "_hi", "_adj_lo", "_adj_hi"))]]
                .rename(columns=lambda c, o=o: c.replace(f"win_rate_german_minus_{o}", "win_rate_change"))
                .assign(comparison=f"german minus {o}")
                for o in SETTLEMENTS[1:]
            ],
            ignore_index=True,
        )
        fig, axes = panels(1, width=8, height=4)
        differences(axes[0], long, "policy", "win_rate_change", group="comparison")
        axes[0].set_xlabel("policy")
        axes[0].set_ylabel("change in win rate against the field (pp)")
        charts.append(
            Chart(
                "policy_change",
                finish(
                    fig,
                    f"German minus other settlements ({TOURNAMENT_TABLE})",
                    legend_from=axes[0],
                    legend_title="comparison",
                    note="Thick bars: 95% intervals; thin bars: simultaneous intervals; dashed: no change.",
                ),
                "Each policy's match win rate against the field under German minus pips (or American) "
                "settlement, percentage points",
            )
        )
        field = tables["tournament"]
        field = field[field["opponent"] == "field"]
        fig, axes = panels(1, width=7, height=4)
        grouped(axes[0], field, "policy", "settlement", "win_rate", groups=SETTLEMENTS)
        axes[0].axhline(0.5, color="grey", linestyle="--", linewidth=1)
        axes[0].set_xlabel("policy")
        axes[0].set_ylabel("match win rate against the field")
        charts.append(
            Chart(
                "policies_by_settlement",
                finish(
                    fig,
                    f"Policies against the field under each settlement ({TOURNAMENT_TABLE})",
                    legend_from=axes[0],
                    legend_title="settlement",
                ),
                "Each policy's match win rate against all the others on duplicate deals, per settlement",
            )
        )
    return charts
