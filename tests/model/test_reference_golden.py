"""The reference engine must reproduce every golden trace event for event (versions 1 and 2).

A version-1 file is replayed in version 1 (its match event keeps the ten-key
rules object and ``bergen-trace/1``), a version-2 file in version 2, so the
comparison is of every event exactly, key order included: nothing is ignored.
"""

import json
import random
from pathlib import Path

import pytest

from bergen_sim.engine.layout import DOMINO_SETS
from tests.oracle import (
    TILES,
    canonical_rules,
    deals_from_trace,
    legal_moves,
    moves_from_trace,
    play_match_reference,
    random_choose,
    random_deal_source,
    replay_reference,
    split_matches,
)

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
GOLDEN_FILES = sorted(GOLDEN.glob("*.jsonl"))


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def golden_matches():
    for path in GOLDEN_FILES:
        for i, match in enumerate(split_matches(load(path))):
            yield pytest.param(match, id=f"{path.stem}-m{i}")


def test_golden_files_present():
    assert len(GOLDEN_FILES) == 18
    formats = [load(path)[0]["format"] for path in GOLDEN_FILES]
    assert formats.count("bergen-trace/1") == 9 and formats.count("bergen-trace/2") == 9
    for path in GOLDEN_FILES:
        assert len(split_matches(load(path))) == 12


def test_golden_files_cover_the_new_rules():
    """The version-2 files hold what the README promises: U/D plays, headers over arms, chosen leads."""
    files = [load(path) for path in GOLDEN_FILES]
    v2 = [e for events in files if events[0]["format"] == "bergen-trace/2" for e in events]
    assert {e["end"] for e in v2 if e["type"] == "play"} == {"L", "R", "U", "D"}
    assert {e["points"] for e in v2 if e["type"] == "play"} >= {2, 3}
    assert sum(e["type"] == "redeal" for e in v2) > 0


@pytest.mark.parametrize("recorded", list(golden_matches()))
def test_replay_golden_match(recorded):
    produced = replay_reference(recorded)
    for k, (got, want) in enumerate(zip(produced, recorded)):
        assert got == want, f"event {k} differs"
        assert list(got) == list(want), f"event {k} key order differs"
    assert len(produced) == len(recorded)


def test_tiles_order():
    """By high half, then low half: every set is a prefix of the next (the engine's index order)."""
    assert len(TILES) == 28
    assert TILES[:8] == ["0-0", "0-1", "1-1", "0-2", "1-2", "2-2", "0-3", "1-3"]
    assert TILES[-1] == "6-6"


def test_legal_moves_order_by_tile_index_not_hand_order():
    assert legal_moves(["3-5", "0-3", "2-4"], 3, 4) == [("0-3", "L"), ("2-4", "R"), ("3-5", "L")]


def test_legal_moves_tile_fitting_both_ends_listed_twice():
    assert legal_moves({"3-4", "1-1"}, 3, 4) == [("3-4", "L"), ("3-4", "R")]
    # both ends show the same number: still one move per end
    assert legal_moves(["2-6", "2-2"], 2, 2) == [("2-2", "L"), ("2-2", "R"), ("2-6", "L"), ("2-6", "R")]


def test_legal_moves_none():
    assert legal_moves(["0-1", "5-6"], 3, 4) == []
    assert legal_moves([], 3, 4) == []


def test_illegal_choice_raises():
    rules = load(GOLDEN_FILES[0])[0]["rules"]
    with pytest.raises(ValueError):
        play_match_reference(
            rules, random_deal_source(random.Random(1), 2, 6), lambda seat, hand, moves, info: ("9-9", "L")
        )


def test_hand_size_one_leader_goes_out_on_lead():
    rules = dict(
        players=2,
        partnerships=False,
        hand_size=1,
        target=15,
        lead="lowest-double",
        settlement="german",
        blocked_points=2,
        out_points=2,
        boneyard_reserve=2,
        reduced_headers=True,
    )

    def deals(hand_number, attempt):
        return [["3-3"], ["1-2"]], [t for t in TILES if t not in ("3-3", "1-2")]

    events = play_match_reference(rules, deals, random_choose(random.Random(0)))
    assert events[1:4] == [
        {
            "type": "deal",
            "hand": 1,
            "hands": [["3-3"], ["1-2"]],
            "boneyard": [t for t in TILES if t not in ("3-3", "1-2")],
        },
        {"type": "lead", "seat": 0, "tile": "3-3", "points": 2, "score": [2, 0]},
        {"type": "out", "seat": 0, "points": 2, "score": [4, 0]},
    ]
    assert events[-1]["type"] == "match_end"


def test_random_baseline_runs_to_target():
    for rules in {json.dumps(load(p)[0]["rules"], sort_keys=True) for p in GOLDEN_FILES}:
        rules = canonical_rules(json.loads(rules))
        rng = random.Random(7)
        events = play_match_reference(
            rules,
            random_deal_source(rng, rules["players"], rules["hand_size"], DOMINO_SETS[rules["domino_set"]]),
            random_choose(rng),
            seed=7,
        )
        end = events[-1]
        assert end["type"] == "match_end"
        assert max(end["score"]) >= rules["target"]
        assert [e["type"] for e in events].count("match_end") == 1


def test_match_event_rules_in_canonical_key_order():
    recorded = split_matches(load(GOLDEN_FILES[0]))[0]
    rules = dict(reversed(list(recorded[0]["rules"].items())))
    produced = play_match_reference(
        rules,
        deals_from_trace(recorded),
        moves_from_trace(recorded),
        seed=recorded[0]["seed"],
        policies=recorded[0]["policies"],
    )
    assert list(produced[0]["rules"]) == list(recorded[0]["rules"])
    assert produced == recorded


def test_settlements_and_ties():
    from tests.oracle import settle_blocked

    base = dict(players=3, partnerships=False)
    hands = [["1-1"], ["0-6"], ["2-3"]]  # doubles 1,0,0; pips 2,6,5
    assert settle_blocked({**base, "settlement": "german"}, hands) == 2
    assert settle_blocked({**base, "settlement": "pips"}, hands) == 0
    assert settle_blocked({**base, "settlement": "american"}, hands) == 2
    # every side holds a double: american compares non-double pips only
    hands = [["6-6", "0-1"], ["1-1", "0-2"], ["0-0", "3-4"]]
    assert settle_blocked({**base, "settlement": "american"}, hands) == 0
    # a tie for best scores nobody even though another side is worse
    hands = [["1-4"], ["2-3"], ["6-6"]]
    assert settle_blocked({**base, "settlement": "pips"}, hands) is None
    assert settle_blocked({**base, "settlement": "german"}, hands) is None
    # partnerships pool their hands
    hands = [["0-1"], ["0-0"], ["0-2"], ["0-3"]]
    assert settle_blocked({"players": 4, "partnerships": True, "settlement": "pips"}, hands) is None
