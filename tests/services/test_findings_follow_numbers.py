"""Every verdict word in a report's key findings follows the sign and interval of its number.

Each case takes the committed report's own tables, turns one difference the
other way (value, interval and simultaneous interval negated), and checks
that the sentence's verdict turns with it: the words said for a positive
difference are said for a negative one and the other way round.  Nothing is
played: the tables are read from ``reports/``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from bergen_sim.services.analysis import reporting

REPORTS = Path(__file__).resolve().parents[2] / "reports"

#: (analysis, table, difference column, words said when it is clearly positive, ... clearly negative)
CASES = [
    ("near_target_cut", "cut_effect", "ends_on_lead_rate_change", "do so more often", "do so less often"),
    ("going_first", "per_hand", "tempo_per_hand", "adds to it", "gives some of it back"),
    ("larger_games", "spinner_effect", "headers_per_hand_change", "gives more headers", "gives fewer headers"),
    ("larger_games", "lead_choice", "win_rate_edge", "wins more often", "wins less often"),
    ("variants", "versus_standard", "hands_per_match_change", "makes matches longer", "makes matches shorter"),
]


def _tables(name: str) -> dict[str, pd.DataFrame]:
    folder = REPORTS / name / "tables"
    return {path.stem: reporting.read_table(path)[0] for path in sorted(folder.glob("*.parquet"))}


def _flipped(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    """The same table with ``column``'s difference turned the other way (its intervals mirrored)."""
    out = frame.copy()
    out[column] = -frame[column]
    for lo, hi in (("_lo", "_hi"), ("_adj_lo", "_adj_hi")):
        if f"{column}{lo}" in frame:
            out[f"{column}{lo}"], out[f"{column}{hi}"] = -frame[f"{column}{hi}"], -frame[f"{column}{lo}"]
    return out


def _clear(frame: pd.DataFrame, column: str, sign: int) -> pd.DataFrame:
    """The same table with every row of ``column`` a clear difference of the given sign."""
    out = frame.copy()
    out[column] = sign * 0.01
    for lo, hi in (("_lo", "_hi"), ("_adj_lo", "_adj_hi")):
        if f"{column}{lo}" in frame:
            out[f"{column}{lo}"], out[f"{column}{hi}"] = sorted((sign * 0.005, sign * 0.015))
    return out


def _count(sentences: list[str], words: str) -> int:
    return sum(s.count(words) for s in sentences)


@pytest.mark.parametrize("name, table, column, positive, negative", CASES, ids=[f"{c[0]}:{c[2]}" for c in CASES])
def test_a_flipped_difference_flips_the_verdict(name, table, column, positive, negative):
    module = reporting.load(name)
    tables = _tables(name)
    before = module.key_findings(tables)
    after = module.key_findings({**tables, table: _flipped(tables[table], column)})
    said = _count(before, positive) + _count(before, negative)
    assert said, f"{name}: no verdict on {column} in {before}"
    assert (_count(after, positive), _count(after, negative)) == (_count(before, negative), _count(before, positive))


@pytest.mark.parametrize("name, table, column, positive, negative", CASES, ids=[f"{c[0]}:{c[2]}" for c in CASES])
def test_the_verdict_says_the_sign_of_a_clear_difference(name, table, column, positive, negative):
    module = reporting.load(name)
    tables = _tables(name)
    up = module.key_findings({**tables, table: _clear(tables[table], column, +1)})
    down = module.key_findings({**tables, table: _clear(tables[table], column, -1)})
    assert _count(up, positive) > 0 and _count(up, negative) == 0
    assert _count(down, negative) > 0 and _count(down, positive) == 0


def test_the_cut_headline_says_the_direction_of_on_minus_off():
    """16.6% of matches end on the lead with the cut on, 25.1% with it off: with it on they do so less often."""
    module = reporting.load("near_target_cut")
    tables = _tables("near_target_cut")
    summary, change = tables["summary"], tables["cut_effect"]
    two = summary[(summary["table"] == "2 players") & (summary["policy"] == "expert")].set_index("setting")
    on, off = two.loc["cut on", "ends_on_lead_rate"], two.loc["cut off", "ends_on_lead_rate"]
    diff = change[(change["table"] == "2 players") & (change["policy"] == "expert")].iloc[0]
    assert diff["ends_on_lead_rate_change"] == pytest.approx(on - off, abs=1e-12)
    sentence = next(s for s in module.key_findings(tables) if s.startswith("2 players, expert play"))
    assert f"cut on they do so {'less' if on < off else 'more'} often than with it off" in sentence


def test_the_settlement_headline_gives_the_size_of_the_change_and_counts_the_clear_ones():
    """The policies' German-minus-pips changes are said with their largest simultaneous bound: a clear but tiny
    change must not read as a large one, and the count of clear changes follows the intervals."""
    module = reporting.load("settlement")
    tables = _tables("settlement")
    change = tables["policy_change"]
    column = "win_rate_german_minus_pips"

    def headline(frame: pd.DataFrame) -> str:
        said = module.key_findings({**tables, "policy_change": frame})
        return next(s for s in said if s.startswith("The best policy against the field"))

    bound = max(change[f"{column}_adj_lo"].abs().max(), change[f"{column}_adj_hi"].abs().max())
    clear = int(((change[f"{column}_adj_lo"] > 0) | (change[f"{column}_adj_hi"] < 0)).sum())
    assert f"by at most {100 * bound:.2g} percentage points" in headline(change)
    assert f"{clear} of these {len(change)} changes are clear" in headline(change)
    up = _clear(change, column, +1)  # every change +1 point, simultaneous interval +0.5 to +1.5
    assert "by at most 1.5 percentage points" in headline(up)
    assert f"{len(change)} of these {len(change)} changes are clear" in headline(up)
    none = change.assign(**{f"{column}_adj_lo": -0.001, f"{column}_adj_hi": 0.001})
    assert "by at most 0.1 percentage points" in headline(none)
    assert f"0 of these {len(change)} changes are clear" in headline(none)


def test_the_lead_findings_count_the_hands_cut_short_by_the_match_end():
    """The leader's hand win rate leaves out hands cut short by the match end; the sentence says how many, how
    many of them the leader's side ended, and the rate with them counted as taken by the side that ended them."""
    module = reporting.load("lead_advantage")
    tables = _tables("lead_advantage")
    summary = tables["summary"]
    row = summary[summary["policy"] == "expert"].iloc[0]  # the findings speak of the headline policies
    taken = (row["cut_by_leader_hands"] / row["cut_hands"], row["leader_take_rate"])
    assert 0 < taken[0] < 1 and 0 < taken[1] < 1
    sentence = next(s for s in module.findings(tables) if s.startswith(f"**{row['table']}** ({row['policy']}"))
    assert "cut short by the end of the match" in sentence
    ended = re.search(r"the leader's side ended ([\d.]+)%", sentence)
    takes = re.search(r"the leader's side takes ([\d.]+)%", sentence)
    assert ended and abs(float(ended.group(1)) - 100 * row["cut_by_leader_rate"]) < 0.1, sentence
    assert takes and abs(float(takes.group(1)) - 100 * row["leader_take_rate"]) < 0.1, sentence
