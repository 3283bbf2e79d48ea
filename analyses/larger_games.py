"""The larger games: how the set, the spinner and the table size change Bergen, and what the lead choice is worth.

The oldest rule book plays Bergen with larger sets "to accommodate more
players", the first double a spinner that branches four ways, and any
double leading.  For tables of 4 to 8 players on double-six to
double-eighteen, with the spinner on and off where both are played, this
analysis measures in self-play how often headers come (per hand), how many
hands a match lasts, how often a hand ends blocked, how often the leader's
side wins the hands someone wins (against the fair share) and how often the
first hand's leader wins the match; it ranks the policies on each table
size on duplicate deals; and, where any double may lead, it measures what
the leader's choice is worth: ``expert`` leading by its rule (the double
whose number the rest of its hand shows most often) against ``expert``
leading its lowest or its highest double.
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
)
from bergen_sim.model.rules import Rules
from bergen_sim.services.analysis import hand_stats as hs
from bergen_sim.services.analysis.figures import Chart, differences, finish, grouped, panels
from bergen_sim.services.analysis.reporting import PerMatch, headline_policies, table_name

TITLE = N_("Larger sets, the spinner and up to eight players")
#: label -> (players, partnerships, preset, settings)
GAMES: dict[str, tuple[int, bool, str, dict]] = {
    N_("double-six, 4 players"): (4, False, "standard", {}),
    N_("double-six, 4 players, spinner"): (4, False, "standard", {"spinner": True}),
    N_("double-nine, 4 players"): (4, False, "standard", {"domino_set": "double-nine"}),
    N_("double-nine, 4 players, no spinner"): (4, False, "standard", {"domino_set": "double-nine", "spinner": False}),
    N_("double-nine, 6 players"): (6, False, "standard", {"domino_set": "double-nine"}),
    N_("double-twelve, 6 players"): (6, False, "standard", {"domino_set": "double-twelve"}),
    N_("double-twelve, 6 partnerships"): (6, True, "standard", {"domino_set": "double-twelve"}),
    N_("double-fifteen, 7 players"): (7, False, "standard", {"domino_set": "double-fifteen"}),
    N_("double-eighteen, 8 players"): (8, False, "standard", {"domino_set": "double-eighteen"}),
    N_("double-eighteen, 8 partnerships"): (8, True, "standard", {"domino_set": "double-eighteen"}),
}
#: (spinner on, spinner off): the same set and table, played from the same seed (paired by match)
SPINNER_PAIRS = (
    ("double-six, 4 players, spinner", "double-six, 4 players"),
    ("double-nine, 4 players", "double-nine, 4 players, no spinner"),
)
#: games where the leader chooses its double (lead = any-double)
LEAD_GAMES: dict[str, tuple[int, bool, str, dict]] = {
    N_("double-six, 2 players, classic"): (2, False, "classic", {}),
    N_("double-nine, 4 players, any double"): (
        4,
        False,
        "standard",
        {"domino_set": "double-nine", "lead": "any-double"},
    ),
}
LEAD_POLICIES = ("expert", "expert:lead=lowest", "expert:lead=highest")
#: tables on which the policies are ranked (duplicate deals)
RANKING_GAMES = (
    "double-six, 4 players",
    "double-nine, 4 players",
    "double-twelve, 6 players",
    "double-eighteen, 8 players",
)
RANKED = ("random", "greedy", "expert")
#: per-match columns kept for the paired spinner comparison: hands, headers, blocked hands, first leader won
MEASURES = {
    "headers_per_hand": "headers per hand",
    "blocked_rate": "percentage points of hands",
    "hands_per_match": "hands per match",
}
METHOD = (
    "Self-play with the realistic player (expert) and the random baseline; every game from the same seed. "
    "Per-hand figures (headers per hand, the share of hands that end blocked, the leader's side's share of "
    "the decided hands) are ratios of per-match sums with delta-method intervals clustered by match; hands "
    "per match and the first hand's leader's match win rate are per-match means and rates (Wilson). The "
    "spinner's effect is spinner on minus spinner off on the same set and table, both played from the same "
    "seed so that match i starts from the same deal; the difference is paired by match (delta method on the "
    "per-match differences). Family of comparisons: every spinner difference (three measures, two sets, each "
    "policy) and every lead-choice difference from 50%, given simultaneous 95% intervals (Bonferroni over the family). Policy "
    "rankings and lead choices come from duplicate-deal round-robins (seats rotated), whose per-pair win rates "
    "carry 95% intervals over deal sets."
)
SHOW = {
    "games": "Per game and policy (self-play): headers, blocked hands, match length and the leader's edge.",
    "spinner_effect": "Spinner on minus off, same set and table, paired by match.",
    "lead_choice": "Leading by expert's rule against leading the lowest or the highest double (any-double lead).",
    "ranking": "Each policy's match win rate against the field on duplicate deals, per table.",
}


def rules_for(game: tuple[int, bool, str, dict]) -> Rules:
    players, partnerships, preset, settings = game
    return Rules.make(players=players, partnerships=partnerships, preset=preset, **settings)


def collect(chunk, rules) -> dict:
    """Per-match sums: hands, headers, blocked hands, decided hands and the leader's side's wins; first leaders."""
    rows, hands, matches = chunk.hand_rows, chunk.hands, chunk.matches
    decided = hands["winner"] >= 0
    leader_won = decided & (hs.leader_side(rows, rules) == hands["winner"])
    per_hand = np.column_stack(
        [
            np.ones(len(rows), dtype=np.int64),
            hands["double_headers"] + hands["triple_headers"],
            (hands["end"] == 1).astype(np.int64),  # HandEnd.BLOCKED
            decided.astype(np.int64),
            leader_won.astype(np.int64),
        ]
    )
    per_match = hs.match_sums(per_hand, hands["match"])
    first_won = hs.seat_side(matches["first_leader"], rules) == matches["winner"]
    return {
        "per_hand": cluster_sums(per_match[:, 1:3], per_match[:, 0]),
        "leader": cluster_sums(per_match[:, 4], per_match[:, 3]),
        "paired": PerMatch(per_match[:, :3]),
        "first_won": int(first_won.sum()),
        "hands_sq": int((matches["hands"] ** 2).sum()),
    }


def _self_play(ctx) -> tuple[pd.DataFrame, pd.DataFrame]:
    policies = headline_policies(list(ctx.policies)) or list(ctx.policies)[:1]
    rows, paired = [], {}
    for label, game in GAMES.items():
        rules = rules_for(game)
        for policy in policies:
            played = ctx.play(rules, policy, collect, hand_rows=True, match_rows=True)
            s = played.sums
            paired[label, policy] = s["paired"].values
            rows.append(
                {
                    "game": label,
                    "set": rules.domino_set,
                    "spinner": rules.spinner,
                    "players": rules.players,
                    "partnerships": rules.partnerships,
                    "policy": policy,
                    "matches": played.matches,
                    "hands": int(played.counts["hands"]),
                    "hands_sq": s["hands_sq"],
                    "first_leader_match_wins": s["first_won"],
                    "fair_share": 1 / rules.sides,
                    "_headers": cluster_column(s["per_hand"], 0),
                    "_blocked": cluster_column(s["per_hand"], 1),
                    "_leader": s["leader"],
                }
            )
    games = pd.DataFrame(rows)
    add_clustered(games, "headers_per_hand", games.pop("_headers"))
    add_clustered(games, "blocked_rate", games.pop("_blocked"))
    add_clustered(games, "leader_side_hand_win_rate", games.pop("_leader"))
    games["hands_per_match"] = games["hands"] / games["matches"]
    var = (
        (games["hands_sq"] / games["matches"] - games["hands_per_match"] ** 2)
        * games["matches"]
        / (games["matches"] - 1)
    )
    half = 1.959964 * np.sqrt(var.clip(lower=0) / games["matches"])
    games["hands_per_match_lo"], games["hands_per_match_hi"] = (
        games["hands_per_match"] - half,
        games["hands_per_match"] + half,
    )
    add_rate(games, "first_leader_match_win_rate", "first_leader_match_wins", "matches")
    effects = []
    for on, off in SPINNER_PAIRS:
        for policy in policies:
            a, b = paired[on, policy], paired[off, policy]
            n = min(len(a), len(b))
            a, b = a[:n], b[:n]
            ones = np.ones(n)
            row = {
                "set": GAMES[on][3].get("domino_set", "double-six"),
                "players": GAMES[on][0],
                "policy": policy,
                "matches": n,
            }
            for name, (xa, ya, xb, yb) in {
                "headers_per_hand": (a[:, 1], a[:, 0], b[:, 1], b[:, 0]),
                "blocked_rate": (a[:, 2], a[:, 0], b[:, 2], b[:, 0]),
                "hands_per_match": (a[:, 0], ones, b[:, 0], ones),
            }.items():
                d, lo, hi = paired_ratio_difference(xa, ya, xb, yb)
                row.update({f"{name}_change": d, f"{name}_change_lo": lo, f"{name}_change_hi": hi})
            effects.append(row)
    return games, pd.DataFrame(effects)


def _lead_choice(ctx) -> pd.DataFrame:
    rows = []
    for label, game in LEAD_GAMES.items():
        table = ctx.tournament(rules_for(game), list(LEAD_POLICIES))
        pairs = table[(table["policy"] == "expert") & (table["opponent"] != "field")]
        for _, pair in pairs.iterrows():
            rows.append(
                {
                    "game": label,
                    "against": pair["opponent"],
                    "matches": int(pair["matches"]),
                    "win_rate_edge": pair["win_rate"] - 0.5,
                    "win_rate_edge_lo": pair["win_rate_lo"] - 0.5,
                    "win_rate_edge_hi": pair["win_rate_hi"] - 0.5,
                }
            )
    return pd.DataFrame(rows)


def _ranking(ctx) -> pd.DataFrame:
    """Rank :data:`RANKED` per table; ``--quick`` ranks only its own policies (fewer pairs to play)."""
    ranked = [p for p in RANKED if p in ctx.policies] if ctx.quick else list(RANKED)
    frames = []
    for label in RANKING_GAMES:
        table = ctx.tournament(rules_for(GAMES[label]), ranked)
        field = table[table["opponent"] == "field"].assign(game=label)
        frames.append(field[["game", "policy", "matches", "win_rate", "win_rate_lo", "win_rate_hi"]])
    return pd.concat(frames, ignore_index=True)


def run(ctx) -> dict[str, pd.DataFrame]:
    """Self-play every game, pair the spinner on and off, rank the policies, measure the lead choice."""
    games, effects = _self_play(ctx)
    lead = _lead_choice(ctx)
    columns = [(effects, f"{name}_change") for name in MEASURES]
    add_family(columns + [(lead, "win_rate_edge")])
    return {"games": games, "spinner_effect": effects, "lead_choice": lead, "ranking": _ranking(ctx)}


def key_findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """The spinner's effect on headers, and the lead choice, in plain words."""
    out = []
    effects = tables["spinner_effect"]
    for _, row in effects[effects["policy"] == "expert"].iterrows():
        verdict, numbers = judged(
            row,
            "headers_per_hand_change",
            tr("headers per hand"),
            larger=tr("more headers"),
            smaller=tr("fewer headers"),
            same=tr("no clear change in headers"),
        )
        out.append(
            tr(
                "{set}, {players} players, expert play: the spinner gives {verdict} ({numbers}, {matches} matches)."
            ).format(
                set=row["set"],
                players=row["players"],
                verdict=verdict,
                numbers=numbers,
                matches=num(row["matches"], ","),
            )
        )
    lead = tables["lead_choice"]
    for _, row in lead.iterrows():
        verdict, numbers = judged(
            row,
            "win_rate_edge",
            larger=tr("wins more often"),
            smaller=tr("wins less often"),
            same=tr("does not clearly win more often"),
        )
        against = row["against"].split("=")[-1]
        out.append(
            (
                tr(
                    "{game}: leading by expert's rule {verdict} than leading by lowest double ({numbers}, "
                    "{matches} matches)."
                )
                if against == "lowest"
                else tr(
                    "{game}: leading by expert's rule {verdict} than leading by highest double ({numbers}, "
                    "{matches} matches)."
                )
            ).format(game=table_name(row["game"]), verdict=verdict, numbers=numbers, matches=num(row["matches"], ","))
        )
    return out


def findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """Per game: headers, blocked hands, match length and the leader's edge; the rankings."""
    games = tables["games"]
    out = []
    for _, row in games.iterrows():
        out.append(
            f"**{row['game']}**, {row['policy']}: {phrase(row, 'headers_per_hand', row['hands'], 'hands')} "
            f"headers per hand; {phrase(row, 'blocked_rate')} of hands end blocked; "
            f"{phrase(row, 'hands_per_match', row['matches'], 'matches')} hands per match; the leader's side "
            f"wins {phrase(row, 'leader_side_hand_win_rate')} of the decided hands (fair share "
            f"{row['fair_share']:.1%}); the first leader wins {phrase(row, 'first_leader_match_win_rate')} "
            "of matches."
        )
    effects = tables["spinner_effect"]
    for _, row in effects.iterrows():
        parts = []
        for name, unit in MEASURES.items():
            verdict, numbers = judged(row, f"{name}_change", unit)
            parts.append(f"{name.replace('_', ' ')}: {verdict} ({numbers})")
        out.append(
            f"Spinner on minus off, {row['set']}, {row['players']} players, {row['policy']}: " + "; ".join(parts) + "."
        )
    for game, part in tables["ranking"].groupby("game", sort=False):
        order = part.sort_values("win_rate", ascending=False)
        out.append(
            f"Ranking, {game}: "
            + ", ".join(
                f"{r['policy']} {r['win_rate']:.1%} [{r['win_rate_lo']:.1%}, {r['win_rate_hi']:.1%}]"
                for _, r in order.iterrows()
            )
            + " of matches against the field."
        )
    return out


def figures(tables: dict[str, pd.DataFrame]) -> list[Chart]:
    """Headers per hand by game; the spinner's effect with its interval; the lead choice's edge."""
    games = tables["games"]
    fig, axes = panels(1, width=9.0)
    grouped(axes[0], games, "game", "policy", "headers_per_hand")
    axes[0].tick_params(axis="x", labelrotation=35)
    axes[0].set_xlabel("game")
    axes[0].set_ylabel("headers per hand (double and triple)")
    charts = [
        Chart(
            "headers_by_game",
            finish(
                fig,
                "Headers per hand by set, spinner and table",
                legend_from=axes[0],
                legend_title="policy (self-play)",
                note="Bars: 95% intervals clustered by match.",
            ),
            "Headers per hand in every game, by policy, with intervals",
        )
    ]
    effects = tables["spinner_effect"].assign(label=lambda f: f["set"] + ", " + f["players"].astype(str) + " players")
    fig, axes = panels(1, width=7.0)
    differences(axes[0], effects, "label", "headers_per_hand_change", group="policy")
    axes[0].set_xlabel("set and table")
    axes[0].set_ylabel("spinner on minus off (headers per hand)")
    charts.append(
        Chart(
            "spinner_effect",
            finish(
                fig,
                "What the spinner changes: headers per hand",
                legend_from=axes[0],
                legend_title="policy",
                note="Thick bars: 95% intervals (paired by match); thin bars: simultaneous; dashed: no change.",
            ),
            "Spinner on minus off in headers per hand, with paired intervals",
        )
    )
    lead = tables["lead_choice"]
    if not lead.empty:
        fig, axes = panels(1, width=7.0)
        differences(axes[0], lead, "game", "win_rate_edge", group="against")
        axes[0].set_xlabel("game")
        axes[0].set_ylabel("expert's lead rule: match win rate minus 50%")
        charts.append(
            Chart(
                "lead_choice",
                finish(
                    fig,
                    "What choosing the double to lead is worth",
                    legend_from=axes[0],
                    legend_title="against leading",
                    note="Duplicate deals; thick bars: 95% intervals; thin: simultaneous.",
                ),
                "Expert's lead rule against leading the lowest or the highest double",
            )
        )
    return charts
