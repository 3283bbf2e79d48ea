"""The match-value table's two kinds: exact per score vector, and exchangeable (pooled) for many sides.

The exchangeable table holds P(side 0 wins) at side 0's score and the
multiset of the other sides' scores; it is used only where the exact table
would exceed ``MAX_STATES`` (6 to 8 sides at the default target).
"""

from __future__ import annotations

import time
from itertools import permutations
from math import comb

import numpy as np
import pytest

from bergen_sim import RunOptions
from bergen_sim.core.errors import PolicyError
from bergen_sim.engine import layout as L
from bergen_sim.model.rules import Rules
from bergen_sim.search import match_value as mv
from bergen_sim.search.match_value import table_for, win_probability
from bergen_sim.services.simulation import simulate


@pytest.mark.parametrize("target, sides", [(4, 3), (3, 5), (10, 8), (15, 6)])
def test_exchangeable_index_round_trips(target, sides):
    """Every (own score, multiset of the others) has its own index, in 0 .. entries - 1, and the kernel finds it."""
    reps, order = mv._pooled_layout(target, sides)
    entries = target * comb(target + sides - 2, sides - 1)
    assert reps.shape == (entries, sides) and np.array_equal(np.sort(order), np.arange(entries))
    assert len({tuple(r) for r in reps}) == entries  # distinct score multisets
    assert (np.diff(reps[:, 1:], axis=1) >= 0).all()  # the others sorted
    found = np.array([mv._pooled_index(r, 0, target, sides, 0) for r in reps])
    assert np.array_equal(found, np.arange(entries))
    totals = reps.sum(axis=1)[order]
    assert (np.diff(totals) <= 0).all()  # backward pass: higher totals (successors) first


@pytest.mark.parametrize("sides", [3, 6, 8])
def test_exchangeable_lookup_ignores_the_order_of_the_other_sides(sides):
    """Rotating the asked side to the front and permuting the others' scores gives the same index."""
    target = 10
    rng = np.random.default_rng(sides)
    for _ in range(30):
        scores = rng.integers(0, target, size=sides)
        for side in range(sides):
            own = mv._pooled_index(scores, 0, target, sides, side)
            others = [scores[(side + i) % sides] for i in range(1, sides)]
            assert own == scores[side] + target * sum(comb(int(a) + i, i + 1) for i, a in enumerate(sorted(others)))
            for perm in list(permutations(others))[:24]:
                assert mv._pooled_index(np.array([scores[side], *perm]), 0, target, sides, 0) == own


def test_win_probability_uses_the_exchangeable_table_beyond_max_states():
    """8 sides to 10: lookups land on the pooled index; 5 sides to 10 (100,000 vectors) stay exact."""
    assert mv.table_kind(10, 5) == ("exact", 10**5)
    assert mv.table_kind(10, 8) == ("exchangeable", 114_400)
    rules = Rules.make(players=8, domino_set="double-nine")
    rv = rules.to_array()
    table = np.arange(114_400, dtype=np.float64)
    view = np.zeros(L.V_SIZE, dtype=np.int64)
    scores = np.array([3, 9, 0, 4, 4, 1, 7, 2])
    view[L.V_SCORE : L.V_SCORE + 8] = scores
    for side in range(8):
        assert win_probability(table, rv, view, side) == mv._pooled_index(scores, 0, 10, 8, side)
    view[L.V_SCORE + 5] = 10
    assert win_probability(table, rv, view, 5) == 1.0 and win_probability(table, rv, view, 0) == 0.0


def test_too_large_games_are_refused_in_one_line():
    with pytest.raises(PolicyError) as info:
        table_for(Rules.make(players=8, domino_set="double-nine", target=11), "first")
    message = str(info.value)
    assert "use a target of 10 or less" in message and "\n" not in message
    assert "213,928 table entries even pooling the other sides' scores" in message
    assert [mv._largest_target(k) for k in (6, 7, 8)] == [15, 12, 10]  # as docs/pimc.md says


@pytest.mark.parametrize("players, target", [(3, 6), (4, 4)])
def test_exchangeable_table_agrees_with_the_exact_one(players, target):
    """Where both fit, the pooled table matches the exact one averaged over the others' seatings."""
    rules = Rules.make(players=players, target=target)
    per_state = 400
    exact = mv.build_table(rules, "first", "exact", per_state).reshape((target,) * players)
    pooled = mv.build_table(rules, "first", "exchangeable", per_state)
    reps, _ = mv._pooled_layout(target, players)
    gaps = []
    for index, rep in enumerate(reps):
        seatings = set(permutations(rep[1:]))
        # exact grid axis i holds the score of side players-1-i
        mean = np.mean([exact[tuple(reversed((rep[0], *p)))] for p in seatings])
        gaps.append(pooled[index] - mean)
    gaps = np.abs(gaps)
    # one entry's sampling error is about 0.5 / sqrt(400) = 0.025 before the backward pass averages it
    assert gaps.mean() < 0.02 and gaps.max() < 0.1, (gaps.mean(), gaps.max())


@pytest.mark.slow  # builds the default-target tables of 6 and 8 sides (about 2 and 7 million hands)
@pytest.mark.parametrize("players, entries", [(6, 20_020), (8, 114_400)])
def test_many_sides_build_a_table_at_the_default_target(players, entries):
    rules = Rules.make(players=players, domino_set="double-nine")
    start = time.perf_counter()
    table = table_for(rules, "expert")
    seconds = time.perf_counter() - start
    hands_per_state = max(mv.MIN_HANDS_PER_STATE, mv.HAND_BUDGET // entries)
    print(f"{players} players: {entries} entries x {hands_per_state} hands in {seconds:.1f} s")
    assert table.shape == (entries,) and ((table >= 0) & (table <= 1)).all()
    reps, _ = mv._pooled_layout(rules.target, players)
    even = np.flatnonzero((reps == reps[:, :1]).all(axis=1))  # everyone at the same score
    assert np.allclose(table[even], 1 / players)  # normalized: the sides' chances sum to 1
    leader = mv._pooled_index(np.array([9] + [0] * (players - 1)), 0, 10, players, 0)
    trailer = mv._pooled_index(np.array([0, 9] + [0] * (players - 2)), 0, 10, players, 0)
    assert table[leader] > 1 / players > table[trailer]


@pytest.mark.slow  # compiles a pimc kernel per seat count; the expert tables come from the test above (or are built)
@pytest.mark.parametrize("players", [6, 8])
def test_pimc_plays_a_many_player_double_nine_match_at_the_default_target(players):
    policies = ["pimc:worlds=4"] + ["expert"] * (players - 1)
    result = simulate(
        rules=Rules.make(players=players, domino_set="double-nine"),
        policies=policies,
        matches=1,
        seed=3,
        rows=True,
        options=RunOptions(workers=1),
    )
    scores = result.matches.filter(like="score").to_numpy()
    assert len(result.matches) == 1 and scores.shape == (1, players) and scores.max() >= 10


def test_a_table_another_builder_is_making_is_waited_for_and_loaded(tmp_path, monkeypatch):
    """Processes starting together (a pool's workers) simulate the table once: a second caller waits for the
    first one's build and loads its file instead of simulating the same two million hands again."""
    import threading

    pytest.importorskip("fcntl")  # without it (Windows) there is no lock, by design
    monkeypatch.setenv("BERGEN_SIM_CACHE_DIR", str(tmp_path))
    rules = Rules.make(players=2)
    building, second_started = threading.Event(), threading.Event()
    builds = []

    def slow_build(rules, base, kind, hands_per_state):
        builds.append(base)
        building.set()
        second_started.wait(30)
        time.sleep(1.0)  # the second caller is now waiting for the lock (or would be building its own table)
        return np.full(rules.target**rules.sides, 0.25)

    monkeypatch.setattr(mv, "build_table", slow_build)
    results = {}
    first = threading.Thread(target=lambda: results.setdefault("first", table_for(rules, "random")), daemon=True)
    first.start()
    assert building.wait(30), "the first caller never started building"
    second_started.set()
    results["second"] = table_for(rules, "random")
    first.join(30)
    assert builds == ["random"]
    assert np.array_equal(results["first"], results["second"]) and results["second"][0] == 0.25


@pytest.mark.parametrize("damage", [lambda b: b[: len(b) // 3], lambda b: b"", lambda b: bytes(len(b))])
def test_a_damaged_cached_table_is_built_again_with_one_notice(tmp_path, monkeypatch, capsys, damage):
    """A table cut short, emptied or zero-filled (a full disk, a killed write) is rebuilt, not a traceback."""
    monkeypatch.setenv("BERGEN_SIM_CACHE_DIR", str(tmp_path))
    rules = Rules.make(players=2, target=5)
    built = []

    def fake_build(rules_, base, kind, hands):  # what build_table returns, without compiling or playing
        built.append(kind)
        return np.full(rules_.target**rules_.sides, 0.5)

    monkeypatch.setattr(mv, "build_table", fake_build)
    first = table_for(rules)
    assert built == ["exact"] and table_for(rules).tolist() == first.tolist() and len(built) == 1  # read back
    [path] = (tmp_path / "match_value").glob("table_*.npy")
    path.write_bytes(damage(path.read_bytes()))
    capsys.readouterr()
    assert table_for(rules).tolist() == first.tolist() and len(built) == 2
    assert capsys.readouterr().err.count("building it again") == 1
