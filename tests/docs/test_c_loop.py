"""The benchmark's C loop plays exactly the matches the engine plays (so its speed ratio compares like with like)."""

import importlib.util
from pathlib import Path

import pytest

import bergen_sim
from bergen_sim import Rules, RunOptions

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "c_reference.py"
_SPEC = importlib.util.spec_from_file_location("c_reference", _PATH)
c_reference = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(c_reference)

pytestmark = pytest.mark.skipif(c_reference.compiler() is None, reason="no C compiler")


@pytest.fixture(scope="module")
def exe(tmp_path_factory):
    built, how = c_reference.build(tmp_path_factory.mktemp("c_loop"))
    assert built is not None, how
    return built


@pytest.mark.parametrize("players, partnerships", [(2, False), (3, False), (4, False), (4, True)])
def test_c_loop_totals_equal_engine(exe, players, partnerships):
    matches, seed = 3000, 11
    c_totals = c_reference.run(exe, players, partnerships, matches, seed)
    result = bergen_sim.simulate(
        rules=Rules.make(players=players, partnerships=partnerships),
        policies=["random"],
        matches=matches,
        seed=seed,
        options=RunOptions(workers=1),
    )
    assert c_reference.agree(c_totals, result.summary) == []
    sides = 2 if partnerships or players == 2 else players
    engine_wins = [round(result.summary["match_win_rate"][s]["value"] * matches) for s in range(sides)]
    assert c_totals["wins"] == engine_wins


def test_a_different_seed_changes_the_totals(exe):
    """The agreement above is not vacuous: another seed gives other totals."""
    a = c_reference.run(exe, 2, False, 500, 1)
    b = c_reference.run(exe, 2, False, 500, 2)
    assert a["hands"] != b["hands"] or a["plays"] != b["plays"]


def test_the_generator_experiment_plays_the_same_game_on_other_deals(exe, tmp_path):
    """c_loop/experiment_lazy_xoshiro.c (another generator and a lazy shuffle) deals other matches of the same game:
    its hands and plays per match agree with the anchor's within sampling error, its totals do not."""
    experiment, how = c_reference.build(tmp_path, c_reference.SOURCE.with_name("experiment_lazy_xoshiro.c"), pgo=False)
    assert experiment is not None, how
    matches = 20_000
    anchor, other = (c_reference.run(program, 2, False, matches, 5) for program in (exe, experiment))
    assert c_reference.agree(other, anchor) != []
    for total, spread in (("hands", 0.015), ("plays", 0.015)):
        assert abs(other[total] / anchor[total] - 1) < spread, total
