"""The shared match loops play exactly what the loops compiled for one mix of policies played.

Every mix of built-in policies runs on one compiled match loop per tile-set
width (:mod:`bergen_sim.runtime.kernel_build`; a search player in the mix
adds itself to it), which dispatches to a seat's policy by its code and
passes its settings and match-value table as arguments.  ``tests/data/kernel_outputs.json`` holds what the command line
printed for each configuration below when every mix compiled a loop of its
own, with the settings and tables frozen into it; the shared loops must
print the same bytes (simulate and compare ``--json``, and traces).
Regenerate it (only on purpose: a change of the engine's behaviour) with
``python -m tests.runtime.test_kernel_build``.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from bergen_sim.cli import cli
from bergen_sim.core.compile_cache import in_disk_cache
from bergen_sim.model.rules import Rules
from bergen_sim.runtime.kernel_build import load_kernel, searches
from bergen_sim.runtime.registry import BUILTINS, resolve
from bergen_sim.runtime.runner import _NO_HANDS, KEYED, Engine

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "kernel_outputs.json"

#: name -> (command-line arguments of the configuration's rules and policies, matches, slow)
CONFIGS = {
    "2p random": (["--players", "2"], 400, False),
    "2p expert vs greedy": (["--players", "2", "--policy", "expert", "--policy", "greedy"], 200, False),
    "4p partnerships mixed": (
        [
            "--players",
            "4",
            "--partnerships",
            "--set",
            "lead=any-double",
            "--policy",
            "expert:lead=lowest",
            "--policy",
            "defensive",
            "--policy",
            "expert:weights=spinner",
            "--policy",
            "heavy-first",
        ],
        100,
        False,
    ),
    "3p double-nine": (
        [
            "--players",
            "3",
            "--set",
            "domino_set=double-nine",
            "--policy",
            "doubles-first",
            "--policy",
            "first",
            "--policy",
            "random",
        ],
        100,
        False,
    ),
    "6p double-twelve spinner": (
        [
            "--players",
            "6",
            "--set",
            "domino_set=double-twelve",
            "--set",
            "spinner=true",
            "--policy",
            "expert",
            "--policy",
            "greedy",
            "--policy",
            "random",
            "--policy",
            "heavy-first",
            "--policy",
            "defensive",
            "--policy",
            "expert:weights=spinner",
        ],
        30,
        True,
    ),
    "3p search": (
        [
            "--players",
            "3",
            "--policy",
            "pimc:worlds=4",
            "--policy",
            "reader:worlds=32",
            "--policy",
            "ismcts:iterations=20",
        ],
        2,
        True,
    ),
}
#: compare --json runs (policies, matches); a round robin plays every pair's seatings on duplicate deals
COMPARES = {
    "compare expert,greedy,random": (["--policy", "expert,greedy,random"], 60, False),
    "compare pimc,expert": (["--policy", "pimc:worlds=4,expert"], 2, True),
}
SEED = "5"


def _run(args: list[str]) -> str:
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def _simulate(name: str) -> dict[str, str]:
    """What ``simulate --json`` prints and ``trace`` writes for configuration ``name`` (1 worker: one chunk order)."""
    args, matches, _ = CONFIGS[name]
    summary = _run(
        ["simulate", *args, "--matches", str(matches), "--seed", SEED, "--json", "--quiet", "--workers", "1"]
    )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "trace.jsonl"
        _run(["trace", *args, "--matches", "2", "--seed", SEED, "--out", str(path), "--quiet"])
        trace = path.read_text()
    return {"simulate": _stable(summary), "trace": trace}


def _compare(name: str) -> dict[str, str]:
    args, matches, _ = COMPARES[name]
    return {
        "compare": _stable(
            _run(["compare", *args, "--deals", str(matches), "--seed", SEED, "--json", "--quiet", "--workers", "1"])
        )
    }


#: keys of the JSON output that measure the run (its time and speed), not the play
_VOLATILE = {
    "seconds",
    "elapsed_s",
    "matches_per_s",
    "hands_per_s",
    "matches_per_second",
    "hands_per_second",
    "wall_s",
    "startup_s",
    "provenance",
}


def _stable(text: str) -> str:
    """The JSON printed, without the keys that measure the run rather than the play."""

    def drop(value):
        if isinstance(value, dict):
            return {k: drop(v) for k, v in value.items() if k not in _VOLATILE}
        if isinstance(value, list):
            return [drop(v) for v in value]
        return value

    return json.dumps(drop(json.loads(text)), sort_keys=True)


def _params(table: dict) -> list:
    return [pytest.param(name, marks=[pytest.mark.slow] if entry[2] else []) for name, entry in table.items()]


def test_every_mix_of_built_ins_and_table_size_shares_one_kernel():
    four = Rules.make(players=4, partnerships=True)
    first = Engine(Rules.make(players=2), ["random"])
    second = Engine(four, ["expert:lead=lowest", "greedy", "defensive", "expert:weights=spinner"])
    assert second._kernel is first._kernel
    call = second._call_args(0, 0, 0, KEYED, _NO_HANDS)[0]
    assert in_disk_cache(second._kernel.run_matches, call)  # compiled for the first: nothing more to compile
    assert second.seat_policy.tolist() == [
        second._kernel.ENTRIES.index(("bergen_sim.policies." + m, "choose"))
        for m in ("expert", "greedy", "defensive", "expert")
    ]
    assert second._seat_params[:, :2].tolist() == [[0, 0], [0, 0], [0, 0], [2, 1]]  # expert's lead, weights


def test_a_search_player_has_one_kernel_for_every_setting_and_plug_ins_get_their_own():
    pimc = load_kernel([resolve("pimc:worlds=8"), resolve("random")])
    assert pimc is load_kernel([resolve("pimc:worlds=64:base=greedy"), resolve("expert")])
    heuristics = load_kernel([resolve("random")])
    searching = [name for name in BUILTINS if searches(resolve(name))]
    assert set(pimc.ENTRIES) - set(heuristics.ENTRIES) == {("bergen_sim.search.pimc", "choose")}
    assert {module for module, _ in heuristics.ENTRIES} == {BUILTINS[n][0] for n in BUILTINS if n not in searching}
    both = load_kernel([resolve("ismcts:iterations=20"), resolve("pimc")])
    assert set(both.ENTRIES) - set(heuristics.ENTRIES) == {
        ("bergen_sim.search.pimc", "choose"),
        ("bergen_sim.search.ismcts", "choose"),
    }
    plugin = load_kernel([resolve("tests.plugins_probe:record"), resolve("random")])
    assert set(plugin.ENTRIES) == {("tests.plugins_probe", "record"), ("bergen_sim.policies.random_move", "choose")}


def test_only_policies_that_declare_it_play_without_a_view():
    kernel = load_kernel([resolve("tests.plugins_probe:record"), resolve("random")])
    reads = {entry: kernel.reads_view.py_func(code) for code, entry in enumerate(kernel.ENTRIES)}
    assert reads[("bergen_sim.policies.random_move", "choose")] is False
    assert reads[("tests.plugins_probe", "record")] is True  # a plug-in is never assumed not to read it
    built_ins = load_kernel([resolve("random")])
    assert sorted(m for code, (m, _) in enumerate(built_ins.ENTRIES) if not built_ins.reads_view.py_func(code)) == [
        "bergen_sim.policies.first_move",
        "bergen_sim.policies.random_move",
    ]


@pytest.mark.parametrize("name", _params(CONFIGS))
def test_simulate_and_trace_match_the_loops_compiled_per_mix(name):
    assert _simulate(name) == json.loads(FIXTURE.read_text())[name]


@pytest.mark.parametrize("name", _params(COMPARES))
def test_compare_matches_the_loops_compiled_per_mix(name):
    assert _compare(name) == json.loads(FIXTURE.read_text())[name]


if __name__ == "__main__":
    produced = {name: _simulate(name) for name in CONFIGS} | {name: _compare(name) for name in COMPARES}
    FIXTURE.write_text(json.dumps(produced, indent=1, sort_keys=True) + "\n")
    print(f"wrote {FIXTURE} ({len(produced)} configurations)", file=sys.stderr)
