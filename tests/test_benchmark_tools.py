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
