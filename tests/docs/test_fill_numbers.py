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
        ("games.nosuch", ".2f", "selects None, not a number or a sentence"),
        ("seed ==", ".2f", "not a JMESPath expression"),
        ("seed", "text", "'text' quotes a sentence"),
        ("seed", ".2q", "format '.2q'"),
        ("[seed, seed]", "{:d} and {:d} and {:d}", "cannot show"),
    ],
)
def test_a_marker_that_selects_no_single_number_is_refused_in_one_line(path, fmt, says):
    with pytest.raises(fill_numbers.MarkerError, match=None) as caught:
        fill_numbers.number(ROOT, "research/lead-choice/lead_choice.json", path, fmt)
    assert says in str(caught.value) and "\n" not in str(caught.value)


def test_a_marker_naming_a_missing_file_says_so(tmp_path):
    with pytest.raises(fill_numbers.MarkerError, match="cannot read it as JSON"):
        fill_numbers.number(tmp_path, "no.json", "a", ".2f")


@pytest.mark.parametrize(
    "path, fmt, shown",
    [
        ("games.*.standings[].win_rate | [0]", ".2p", None),
        ("[seed, seed]", "{:,d} and {:d}", None),
    ],
)
def test_a_format_shows_points_and_templates(path, fmt, shown):
    data = json.loads((ROOT / "research/lead-choice/lead_choice.json").read_text())
    said = fill_numbers.number(ROOT, "research/lead-choice/lead_choice.json", path, fmt)
    if fmt == ".2p":
        import jmespath

        assert said == f"{100 * jmespath.search(path, data):.2f}"
    else:
        assert said == f"{data['seed']:,d} and {data['seed']:d}"


def test_a_parquet_table_reads_as_its_rows_and_text_quotes_a_sentence(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"policy": ["a", "b"], "win_rate": [0.25, 0.75]}), tmp_path / "t.parquet")
    (tmp_path / "m.json").write_text(json.dumps({"key_findings": ["b wins 75 matches in 100."]}))
    assert fill_numbers.number(tmp_path, "t.parquet", "[?policy=='b'].win_rate", ".1p") == "75.0"
    assert fill_numbers.number(tmp_path, "m.json", "key_findings[0]", "text") == "b wins 75 matches in 100."
    page = (
        "<!-- table: t.parquet :: [].[policy, win_rate] :: | `{}` | {:.0%} | -->\n\n| policy | rate |\n|---|---|\n"
        "| old | row |\n\n<!-- /table -->"
    )
    filled = fill_numbers.fill(page, tmp_path)
    assert "| `a` | 25% |\n| `b` | 75% |\n\n<!-- /table -->" in filled and "old" not in filled
    assert fill_numbers.fill(filled, tmp_path) == filled
    with pytest.raises(fill_numbers.MarkerError, match="cannot read it as a Parquet table"):
        fill_numbers.number(tmp_path, "m.parquet", "a", ".2f")
    with pytest.raises(fill_numbers.MarkerError, match="not a list of rows"):
        fill_numbers.rows(tmp_path, "t.parquet", "[0].win_rate", "| {} |")
