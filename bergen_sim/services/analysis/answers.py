"""The three questions bergen-sim was built for, answered in a player's words from a report folder's tables.

1. Does going first help, and does it matter which double leads?
2. How often are headers made, and where do the points come from?
3. How often do German and pip-count settlement disagree, and what does that do to a match?

Each answer is one short paragraph written from the tables ``bergen-sim report``
saved (``lead_advantage``, ``header_frequency``, ``settlement``), 2 players
and ``expert`` play unless it says otherwise; its verdict words come from the
sign and interval of the numbers beside them (:func:`bergen_sim.core.stats.versus`),
so a different result reads differently.  The reports index and the README
open with them.  A question whose report is missing says which command makes it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from bergen_sim.core.stats import number, versus

#: the table and play the answers speak of first
TABLE, POLICY = "2 players", "expert"
#: the plays whose lead-rule differences bound "which double leads" (the reports' headline policies)
LEAD_RULE_POLICIES = ("expert", "random")
#: a change in a hand-win chance below this (one hand in 100) is called one no player could notice: telling it
#: apart at the table takes tens of thousands of hands
NOTICEABLE = 0.01
QUESTIONS = {
    "going_first": "Does going first help, and does it matter which double leads?",
    "headers": "How often are headers made, and where do the points come from?",
    "settlement": "How often do German and pip-count settlement disagree, and what does that change?",
}


def _table(reports: Path, analysis: str, table: str) -> pd.DataFrame | None:
    path = reports / analysis / "tables" / f"{table}.parquet"
    return pd.read_parquet(path) if path.is_file() else None


def _row(frame: pd.DataFrame, **where) -> pd.Series | None:
    """The first row matching ``where``, or None: none matches, or the table lacks a column (a report an older
    version wrote, whose answer is then missing as if the report were)."""
    if not set(where) <= set(frame.columns):
        return None
    mask = np.ones(len(frame), dtype=bool)
    for column, value in where.items():
        mask &= (frame[column] == value).to_numpy()
    return frame[mask].iloc[0] if mask.any() else None


def _shown(row: pd.Series, name: str) -> str:
    return number(row[name], row[f"{name}_lo"], row[f"{name}_hi"], name, significant=1)


def _points(value: float) -> str:
    """A difference of shares in points of 100, to the digits that matter in a sentence."""
    return f"{100 * value:.1f}" if abs(value) < 0.1 else f"{100 * value:.0f}"


#: how an answer whose report is missing begins
MISSING = "(No `"


def _missing(analysis: str) -> str:
    return f"{MISSING}{analysis}` report in this folder yet: `bergen-sim report {analysis}` makes it.)"


def going_first(reports: Path) -> str:
    """The value of leading the first hand, and the largest effect the lead rule could have."""
    summary = _table(reports, "lead_advantage", "summary")
    row = None if summary is None else _row(summary, table=TABLE, policy=POLICY)
    if summary is None or row is None:
        return _missing("lead_advantage")
    edge = "first_leader_match_win_rate_advantage"
    where = versus(row[f"{edge}_lo"], row[f"{edge}_hi"], 0.0, "is worth", "costs", "makes no clear difference:")
    size = f" about {_points(abs(row[edge]))} points of match share" if where != "makes no clear difference:" else ""
    text = (
        f"Yes. In {TABLE.split()[0]}-player matches between good players ({POLICY} play), the side that "
        f"leads the first hand wins about {round(100 * row['first_leader_match_win_rate_lowest'])} matches in "
        f"100 ({_shown(row, 'first_leader_match_win_rate_lowest')} of {int(row['matches']):,} matches, against "
        f"a fair share of {row['fair_share']:.0%}): going first {where}{size}."
    )
    if where != "is worth":
        text = text.replace("Yes. ", "")
    gains = summary[summary["policy"].isin(LEAD_RULE_POLICIES)]
    ends = gains[["leader_win_rate_gain_adj_lo", "leader_win_rate_gain_adj_hi"]].to_numpy(float)
    ends = ends[np.isfinite(ends).all(axis=1)]
    if len(ends):
        clear = int(((ends[:, 0] > 0) | (ends[:, 1] < 0)).sum())
        bound = float(np.abs(ends).max())
        family = int(gains["leader_win_rate_gain_family"].iloc[0])
        text += (
            f" Which double leads (the lowest, as the rules say, or the highest) moves the leader's chance of "
            f"winning the hand by at most {100 * bound:.2f} points in 100 at any table with "
            f"{' or '.join(LEAD_RULE_POLICIES)} play (simultaneous 95% intervals over {family} comparisons; "
            + (
                "no table shows a clear difference"
                if clear == 0
                else f"{clear} of {len(ends)} tables show one, of that size at most"
            )
            + ")"
            + (": nothing a player could notice." if bound < NOTICEABLE else ".")
        )
    return text


def headers(reports: Path) -> str:
    """How many headers a hand has, and the share of points from each source."""
    per_hand = _table(reports, "header_frequency", "per_hand")
    sources = _table(reports, "header_frequency", "point_sources")
    hand = None if per_hand is None else _row(per_hand, table=TABLE, policy=POLICY)
    src = None if sources is None else _row(sources, table=TABLE, policy=POLICY)
    if hand is None or src is None:
        return _missing("header_frequency")
    shares = {name: src[f"{name}_share"] for name in ("header", "lead", "out", "blocked")}
    order = sorted(shares, key=lambda name: shares[name], reverse=True)
    words = {"header": "headers", "lead": "leading a double", "out": "going out", "blocked": "blocked hands"}
    return (
        f"About one play in {1 / hand['header_rate_per_play']:.0f} makes a header: a hand of "
        f"{TABLE.split()[0]}-player {POLICY} play has {_shown(hand, 'headers_per_hand')} of them "
        f"({int(hand['hands']):,} hands). Points come most from {words[order[0]]} "
        f"({_shown(src, order[0] + '_share')}), then {words[order[1]]} ({_shown(src, order[1] + '_share')}), "
        f"{words[order[2]]} ({_shown(src, order[2] + '_share')}) and {words[order[3]]} "
        f"({_shown(src, order[3] + '_share')})."
    )


def settlement(reports: Path) -> str:
    """How often the two settlements disagree, and what that does to whole matches and to the policies."""
    blocking = _table(reports, "settlement", "blocking")
    paired = _table(reports, "settlement", "paired")
    matches = _table(reports, "settlement", "matches")
    block = None if blocking is None else _row(blocking, table=TABLE, policy=POLICY, boneyard_reserve=2)
    pair = None if paired is None else _row(paired, table=TABLE, policy=POLICY, boneyard_reserve=2)
    pips = None if matches is None else _row(matches, table=TABLE, policy=POLICY, settlement="pips")
    policies = _table(reports, "settlement", "policy_change")
    if block is None or pair is None or pips is None or policies is None or not len(policies):
        return _missing("settlement")
    overall = pair["german_vs_pips_differ_rate"] * block["blocked_rate"]
    text = (
        f"About {round(100 * block['blocked_rate'])} hands in 100 end blocked "
        f"({_shown(block, 'blocked_rate')}), and on those German and pip-count settlement pick a different "
        f"winner {_shown(pair, 'german_vs_pips_differ_rate')} of the time: about {100 * overall:.0f} hands "
        f"in 100 of all hands."
    )
    change = "hands_per_match_change"
    lo, hi = pips[f"{change}_adj_lo"], pips[f"{change}_adj_hi"]
    length = versus(lo, hi, 0.0, "longer matches", "shorter matches", "matches of no clearly different length")
    text += (
        f" Settled by pip count, 2-player {POLICY} play has {length} ({pips[change]:+.4f} hands per match, "
        f"simultaneous 95% CI {lo:+.4f} to {hi:+.4f})."
    )
    best = {s: policies.loc[policies[f"win_rate_{s}"].idxmax(), "policy"] for s in ("german", "pips")}
    moved = float(policies["win_rate_german_minus_pips"].abs().max())
    same = best["german"] == best["pips"]
    rule = "either rule" if same else f"German rules and {best['pips']} under the pip count"
    text += (
        f" The best policy is {best['german']} under {rule}, and no policy's win rate against the "
        f"others moves by more than {_points(moved)} points in 100 between the two."
    )
    unchanged = same and length.startswith("matches of no") and moved < NOTICEABLE
    return ("Rarely enough not to change a match. " if unchanged else "") + text


def plain_answers(reports: str | Path, missing: bool = True) -> dict[str, str]:
    """Question -> its answer in a paragraph, from the report folder ``reports``; with ``missing=False`` the
    questions whose report is not there are left out instead of naming the command that makes it."""
    folder = Path(reports)
    found = {
        QUESTIONS[name]: answer(folder)
        for name, answer in (("going_first", going_first), ("headers", headers), ("settlement", settlement))
    }
    return {q: a for q, a in found.items() if missing or not a.startswith(MISSING)}


def markdown(reports: str | Path, missing: bool = True) -> str:
    """The answers as Markdown: a bold question, then its paragraph (see :func:`plain_answers`)."""
    return "\n\n".join(f"**{question}** {answer}" for question, answer in plain_answers(reports, missing).items())
