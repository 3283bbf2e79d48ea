"""The pure helpers of the developer benchmarks: profile_kernel's reading of a profile, trees' table settings."""

import argparse
import importlib.util
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def _load(name: str):
    sys.path.insert(0, str(BENCHMARKS))  # the scripts import each other as a folder of scripts
    try:
        spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCHMARKS / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCHMARKS))


profile_kernel = _load("profile_kernel")
trees = _load("trees")


def test_stretches_split_at_twelve_unsampled_instructions_busiest_first():
    counts = [0, 5, 0, 3] + [0] * 12 + [9, 9, 0, 1] + [0] * 11 + [2]
    # 1..3 is one stretch; 16..19 another (eleven zeros do not end it, so 31 joins it)
    assert profile_kernel.stretches(counts) == [(16, 31), (1, 3)]
    assert profile_kernel.stretches([0, 0, 0]) == []


def test_a_compiled_function_name_loses_its_abi_tags_and_argument_types():
    name = ("bergen_sim::policies::expert::choose[abi:v134][abi:c8tJTC_2fWw](Array<long long, 1, C, mutable, "
            "aligned>, long long)")
    assert profile_kernel.short(name) == "bergen_sim::policies::expert::choose"


def test_table_settings_read_numbers_and_switches():
    assert trees.game_settings("players=4,domino_set=double-nine,spinner=off") == {
        "players": 4, "domino_set": "double-nine", "spinner": False}
    assert trees.game_label({"players": 8, "domino_set": "double-eighteen", "partnerships": True}) == \
        "8p double-eighteen partnerships"
    with pytest.raises(argparse.ArgumentTypeError):
        trees.game_settings("players")


def test_the_readme_row_says_how_many_runs_each_median_of_the_size_sweep_took():
    readme_table = _load("readme_table")

    def sweep(repeats, short_repeats, counts):
        rows = [{"matches": m, "repeats": r} for m, r in counts]
        return {"repeats": repeats, "short_repeats": short_repeats, "rows": rows}

    assert readme_table._repeats(sweep(3, 9, [(10_000, 9), (300_000, 9), (1_000_000, 3)])) == \
        "3 (9 up to 300,000 matches)"
    assert readme_table._repeats(sweep(3, 3, [(10_000, 3), (1_000_000, 3)])) == "3"
    assert readme_table._repeats({"repeats": 5, "rows": []}) == "5"  # a sweep saved before short repeats existed
    assert readme_table._repeats(sweep(3, 9, [(10_000, 9), (30_000, 9)])) == "9"  # only short runs were measured
