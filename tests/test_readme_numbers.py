"""The README's generated numbers agree with the files the code wrote."""

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_SPEC = importlib.util.spec_from_file_location("readme_table", ROOT / "benchmarks" / "readme_table.py")
readme_table = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(readme_table)


def test_speed_table_matches_benchmark_results():
    readme = (ROOT / "README.md").read_text()
    results = json.loads((ROOT / "benchmarks" / "results.json").read_text())
    assert readme == readme_table.expected_readme(readme, results), \
        "README.md's speed table is stale: run python benchmarks/readme_table.py"


def test_the_table_shows_what_the_results_say():
    """A changed result changes the README (the check above is not vacuous)."""
    results = json.loads((ROOT / "benchmarks" / "results.json").read_text())
    results["startup"]["warm"]["wall_s"] = 123.456
    assert "123.46 s" in readme_table.render(results)
