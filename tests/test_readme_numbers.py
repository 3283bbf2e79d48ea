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


def test_lead_choice_table_in_docs_matches_its_measurement():
    """docs/policies.md quotes tools/measure_lead_choice.py's output (docs/lead_choice.json) exactly."""
    import json

    root = Path(__file__).resolve().parent.parent
    data = json.loads((root / "docs" / "lead_choice.json").read_text())
    text = (root / "docs" / "policies.md").read_text()
    for game, tables in data["games"].items():
        by_rule = {row["policy"].split("=")[-1]: row for row in tables["standings"]}
        cells = [f"{by_rule[k]['win_rate'] * 100:.2f}% [{by_rule[k]['win_rate_low'] * 100:.2f}, "
                 f"{by_rule[k]['win_rate_high'] * 100:.2f}]" for k in ("follow", "lowest", "highest")]
        assert f"| {game} | " + " | ".join(cells) + f" | {by_rule['follow']['matches']:,} |" in text, game
