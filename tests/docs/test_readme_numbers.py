"""The generated numbers of the README and the docs agree with the files the code wrote."""

import importlib.util
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location("readme_table", ROOT / "benchmarks" / "readme_table.py")
readme_table = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(readme_table)


def test_speed_table_matches_benchmark_results():
    page = (ROOT / "docs" / "speed.md").read_text()
    results = json.loads((ROOT / "benchmarks" / "results.json").read_text())
    assert page == readme_table.expected_readme(page, results), (
        "docs/speed.md's speed table is stale: run python benchmarks/readme_table.py"
    )


def test_the_table_shows_what_the_results_say():
    """A changed result changes the README (the check above is not vacuous)."""
    results = json.loads((ROOT / "benchmarks" / "results.json").read_text())
    results["startup"]["warm"]["wall_s"] = 123.456
    assert "123.46 s" in readme_table.render(results)


def test_the_table_gives_the_engines_share_of_the_c_anchor_measured_in_one_run():
    """The C row states the ratios of benchmarks/c_anchor.py's run (never a ratio to a slower, older C loop)."""
    results = json.loads((ROOT / "benchmarks" / "results.json").read_text())
    anchor = results["c_loop"]
    assert [row["row"] for row in anchor["rows"]] == [
        "2 players, random",
        "2 players, expert",
        "double-nine, 4 players, random",
        "double-eighteen, 8 players, random",
    ]
    assert anchor["variants"][0]["variant"] == "anchor" and anchor["rows"][0]["same_totals_as_anchor"]
    anchor["rows"][1]["ratio"] = 0.123
    assert "2 players, expert 0.12 (by CPU time" in readme_table.render(results)


_FINDINGS_SPEC = importlib.util.spec_from_file_location("readme_findings", ROOT / "tools" / "readme_findings.py")
readme_findings = importlib.util.module_from_spec(_FINDINGS_SPEC)
_FINDINGS_SPEC.loader.exec_module(readme_findings)


def test_report_numbers_match_the_reports():
    for path in set(readme_findings.BLOCKS.values()):
        text = path.read_text()
        assert text == readme_findings.expected_text(text, path, ROOT / "reports"), (
            f"{path.name}'s report numbers are stale: run python tools/readme_findings.py"
        )


def test_every_report_block_is_in_its_page():
    for name, path in readme_findings.BLOCKS.items():
        text = path.read_text()
        assert text.index(readme_findings.begin(name)) < text.index(readme_findings.end(name))


def test_the_report_numbers_follow_the_tables(tmp_path):
    """A changed table changes the README (the check above is not vacuous); a missing report quotes nothing."""
    import shutil

    import pyarrow as pa
    import pyarrow.parquet as pq

    reports = tmp_path / "reports"
    shutil.copytree(ROOT / "reports" / "strategy_table", reports / "strategy_table")
    path = reports / "strategy_table" / "tables" / "results.parquet"
    frame = pq.read_table(path).to_pandas()
    row = frame.index[
        (frame["table"] == "2 players") & (frame["policy"] == "expert") & (frame["opponent"] == "random")
    ][0]
    frame.loc[row, ["win_rate", "win_rate_lo", "win_rate_hi"]] = [0.1234, 0.1200, 0.1268]
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path)
    blocks = readme_findings.render(reports)
    assert "12.34% [12.00, 12.68] against `random`" in blocks["strategies"]
    assert "`expert` does not (12.34% [12.00, 12.68])" in blocks["strategies"]
    assert "not yet in `reports/`" in blocks["search"]


def test_the_readme_quotes_no_pimc_or_compare_numbers_without_a_source():
    """Numbers once typed by hand are gone from the README's own text (the generated blocks may quote them)."""
    readme = re.sub(
        r"<!-- (report-numbers|speed-table|answers)[^>]*begin.*?-->.*?<!-- [^>]*end -->",
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
