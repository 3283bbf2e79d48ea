"""Marked numbers of the pages agree with the result files they name (tools/fill_numbers.py)."""

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location("fill_numbers", ROOT / "tools" / "fill_numbers.py")
fill_numbers = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(fill_numbers)

PAGES = fill_numbers.pages(ROOT)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_marked_number_is_what_its_file_says(page):
    text = page.read_text()
    assert text == fill_numbers.fill(text, ROOT), (
        f"{page.name}'s marked numbers are stale: run python tools/fill_numbers.py"
    )


def test_the_lead_choice_table_and_the_start_up_times_are_marked():
    """The lead-choice study's table (3 rules x 3 numbers x 2 games, and the matches of each game) and the plug-in
    start-up times in docs/policies.md come from their files, so a rerun that changes them changes the pages."""
    study = (ROOT / "research/lead-choice/README.md").read_text()
    assert study.count("<!-- number: research/lead-choice/lead_choice.json :: ") == 2 * (3 * 3 + 1)
    assert (ROOT / "docs/policies.md").read_text().count("<!-- number: benchmarks/results.json :: startup.") == 4


def test_a_changed_file_changes_the_page(tmp_path):
    shutil.copytree(ROOT / "research/lead-choice", tmp_path / "research/lead-choice")
    path = tmp_path / "research/lead-choice/lead_choice.json"
    data = json.loads(path.read_text())
    game = next(iter(data["games"]))
    row = next(r for r in data["games"][game]["standings"] if r["policy"] == "expert:lead=follow")
    row.update(win_rate=0.61234, matches=1234567)
    path.write_text(json.dumps(data))
    text = (ROOT / "research/lead-choice/README.md").read_text()
    filled = fill_numbers.fill(text, tmp_path)
    assert "-->61.23<!-- /number -->% [" in filled and "-->1,234,567<!-- /number -->" in filled
    assert filled.count("-->") == text.count("-->")  # the markers stay, only the numbers change


@pytest.mark.parametrize(
    "path, fmt, says",
    [
        ("games.*.standings[].win_rate", ".2f", "selects 6 values"),
        ("games.nosuch", ".2f", "selects None, not a number"),
        ("seed ==", ".2f", "not a JMESPath expression"),
        ("seed", "x10 .2f", "after 'x100'"),
        ("seed", ".2q", "format '.2q'"),
    ],
)
def test_a_marker_that_selects_no_single_number_is_refused_in_one_line(path, fmt, says):
    with pytest.raises(fill_numbers.MarkerError, match=None) as caught:
        fill_numbers.number(ROOT, "research/lead-choice/lead_choice.json", path, fmt)
    assert says in str(caught.value) and "\n" not in str(caught.value)


def test_a_marker_naming_a_missing_file_says_so(tmp_path):
    with pytest.raises(fill_numbers.MarkerError, match="cannot read it as JSON"):
        fill_numbers.number(tmp_path, "no.json", "a", ".2f")
