"""The README's answers and the speed table of docs/speed.md are marked numbers of the files the code wrote, and
the README's verdict words are what the package says of the same reports."""

import importlib.util
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_FILL_SPEC = importlib.util.spec_from_file_location("fill_numbers", ROOT / "tools" / "fill_numbers.py")
fill_numbers = importlib.util.module_from_spec(_FILL_SPEC)
_FILL_SPEC.loader.exec_module(fill_numbers)

#: the README's verdicts on the three questions: each is said on the page only where the package's own answer to the
#: same reports (bergen_sim.services.analysis.answers, which words them from the numbers' signs and intervals) says it
VERDICTS = (
    "Yes.",
    "going first is worth about",
    "nothing a player could notice",
    "Rarely enough not to change a match",
    "matches of no clearly different length",
    "The best policy is expert under either rule",
)


def test_the_speed_table_is_marked_from_the_benchmark_results():
    """Every cell of docs/speed.md's speed table quotes benchmarks/results.json (test_fill_numbers.py checks them)."""
    page = (ROOT / "docs" / "speed.md").read_text()
    table = page[page.index("| measure | result |") : page.index("peak memory of the main process")]
    rows = [line for line in table.splitlines()[2:] if line.count("|") >= 3]
    assert len(rows) >= 10
    for line in rows:
        assert "<!-- number: benchmarks/results.json :: " in line.split("|")[-2], line
    assert "C loop" in table and "naive pure-Python engine" in table


def test_a_changed_benchmark_result_changes_the_speed_table(tmp_path):
    results = json.loads((ROOT / "benchmarks" / "results.json").read_text())
    results["python_baseline"]["2 players"]["ratio"] = 123.456
    results["c_loop"]["rows"][1]["ratio"] = 0.123
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "results.json").write_text(json.dumps(results))
    filled = fill_numbers.fill((ROOT / "docs" / "speed.md").read_text(), tmp_path)
    assert "the compiled engine is 123x faster" in filled and "2 players, expert 0.12 (by CPU time" in filled


def test_the_readme_answers_come_from_the_three_reports():
    """Every number of the three answers is marked with the report table it comes from (the page test of
    test_fill_numbers.py then checks each against its table)."""
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Three questions, answered") : readme.index("Each answer comes from one report")]
    for analysis in ("lead_advantage", "header_frequency", "settlement"):
        assert f"<!-- number: reports/{analysis}/tables/" in section, analysis
    unmarked = re.sub(r"<!-- number: .*?<!-- /number -->", "", section, flags=re.S)
    assert not re.search(r"\d+\.\d", unmarked), "a number of the answers is typed by hand"


def test_the_readme_s_verdicts_are_the_answers_of_the_same_reports():
    from bergen_sim.services.analysis import answers

    said = " ".join(answers.markdown(ROOT / "reports").split()).replace("(expert play)", "(`expert` play)")
    readme = " ".join((ROOT / "README.md").read_text().split())
    for verdict in VERDICTS:
        assert verdict in readme, verdict
        assert verdict in said, f"the reports no longer say {verdict!r}: the README must say what they do"


def test_a_changed_report_table_changes_the_readme(tmp_path):
    import shutil

    import pyarrow as pa
    import pyarrow.parquet as pq

    shutil.copytree(ROOT / "reports", tmp_path / "reports")
    path = tmp_path / "reports" / "lead_advantage" / "tables" / "summary.parquet"
    frame = pq.read_table(path).to_pandas()
    row = frame.index[(frame["table"] == "2 players") & (frame["policy"] == "expert")][0]
    frame.loc[row, ["first_leader_match_win_rate_lowest", "matches"]] = [0.61234, 1234]
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path)
    filled = fill_numbers.fill((ROOT / "README.md").read_text(), tmp_path)
    assert "-->61.23% [" in filled and "-->1,234<!-- /number --> matches" in filled


def test_the_readme_quotes_no_pimc_or_compare_numbers_without_a_source():
    """Numbers once typed by hand are gone from the README's own text (its marked numbers may quote them)."""
    readme = re.sub(
        r"<!-- (number|table)[^>]*-->.*?<!-- /?[^>]*-->",
        "",
        (ROOT / "README.md").read_text(),
        flags=re.S,
    )
    for stale in ("58.1%", "0.22 ms", "334 matches/s", "±0.45", "61.1%"):
        assert stale not in readme


def test_golden_counts_in_the_readme_are_the_files():
    """The README's count of golden matches and files is what tests/golden holds."""
    root = Path(__file__).resolve().parents[2]
    files = sorted((root / "tests" / "golden").glob("*.jsonl"))
    matches = sum(
        1 for path in files for line in path.read_text().splitlines() if '"type":"match"' in line.replace(" ", "")
    )
    versions = [1 if '"bergen-trace/1"' in path.read_text().splitlines()[0] else 2 for path in files]
    text = " ".join((root / "docs" / "guide.md").read_text().split())
    assert f"All {matches} matches of the {len(files)} golden trace files" in text
    assert f"{versions.count(1)} of `bergen-trace/1`, {versions.count(2)} of `bergen-trace/2`" in text
