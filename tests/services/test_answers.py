"""The three plain answers: written from the committed reports' tables, and turned when the numbers turn."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from bergen_sim.services.analysis import answers

REPORTS = Path(__file__).resolve().parents[2] / "reports"


def _copy(tmp_path: Path, analysis: str, edit=None, table: str | None = None) -> Path:
    """The committed report's tables for ``analysis`` in ``tmp_path``, with ``edit`` applied to ``table``."""
    target = tmp_path / analysis / "tables"
    target.mkdir(parents=True)
    for path in (REPORTS / analysis / "tables").glob("*.parquet"):
        frame = pd.read_parquet(path)
        if path.stem == table:
            frame = edit(frame)
        frame.to_parquet(target / path.name)
    return tmp_path


def test_every_question_is_answered_from_the_committed_reports():
    text = answers.markdown(REPORTS)
    assert all(question in text for question in answers.QUESTIONS.values())
    assert "No `" not in text  # every report the answers need is committed


def test_a_missing_report_is_named_with_the_command_that_makes_it(tmp_path):
    assert "`bergen-sim report settlement`" in answers.settlement(tmp_path)


def test_a_report_written_before_the_rename_counts_as_missing(tmp_path):
    """Tables that still say ``strategy`` (an older version's report) give no answer rather than an error."""
    old = _copy(tmp_path, "lead_advantage", lambda frame: frame.rename(columns={"policy": "strategy"}), "summary")
    assert answers.going_first(old).startswith(answers.MISSING)
    assert answers.plain_answers(old, missing=False) == {}


def _flip_first_leader(frame: pd.DataFrame) -> pd.DataFrame:
    """The first leader's share mirrored about the fair share: going first now costs what it was worth."""
    out = frame.copy()
    share, edge = "first_leader_match_win_rate_lowest", "first_leader_match_win_rate_advantage"
    out[share], out[f"{share}_lo"], out[f"{share}_hi"] = (
        2 * out["fair_share"] - out[share],
        2 * out["fair_share"] - out[f"{share}_hi"],
        2 * out["fair_share"] - out[f"{share}_lo"],
    )
    for suffix in ("", "_adj"):
        lo, hi = f"{edge}{suffix}_lo", f"{edge}{suffix}_hi"
        out[lo], out[hi] = -frame[hi], -frame[lo]
    out[edge] = -frame[edge]
    return out


def test_going_first_turns_when_the_first_leader_loses_more_than_half(tmp_path):
    before = answers.going_first(REPORTS)
    after = answers.going_first(_copy(tmp_path, "lead_advantage", _flip_first_leader, "summary"))
    assert before.startswith("Yes.") and "going first is worth" in before
    assert not after.startswith("Yes.") and "going first costs" in after


def test_the_lead_rule_bound_grows_with_the_lead_rule_differences(tmp_path):
    def widen(frame: pd.DataFrame) -> pd.DataFrame:
        out = frame.copy()
        out["leader_win_rate_gain_adj_hi"] = out["leader_win_rate_gain_adj_hi"] + 0.05
        return out

    after = answers.going_first(_copy(tmp_path, "lead_advantage", widen, "summary"))
    assert "nothing a player could notice" in answers.going_first(REPORTS)
    assert "nothing a player could notice" not in after


@pytest.mark.parametrize(
    "edit, still_unchanged",
    [
        (lambda f: f, True),
        (lambda f: f.assign(win_rate_german_minus_pips=f["win_rate_german_minus_pips"] * 10), False),
        (lambda f: f.assign(win_rate_pips=f["win_rate_pips"].where(f["policy"] != "random", 2.0)), False),
    ],
)
def test_settlement_says_it_changes_nothing_only_while_the_numbers_say_so(tmp_path, edit, still_unchanged):
    text = answers.settlement(_copy(tmp_path, "settlement", edit, "policy_change"))
    assert text.startswith("Rarely enough not to change a match.") == still_unchanged
