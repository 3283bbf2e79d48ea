"""Reading ``bergen-trace`` files of both versions: what a file may hold, and one-line refusals of what it may not."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from bergen_sim.core.errors import TraceError
from bergen_sim.model.domain import MatchEvent, PlayEvent
from bergen_sim.model.rules import Rules
from bergen_sim.services.files.trace import FORMAT, check_match, read_matches

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def first_match(name: str) -> list[dict]:
    return next(read_matches(GOLDEN / f"{name}.jsonl")).recorded


def test_writers_write_version_2():
    assert FORMAT == "bergen-trace/2"


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.jsonl")), ids=lambda p: p.stem)
def test_every_golden_match_is_a_valid_file_of_its_version(path):
    for match in read_matches(path):
        events, rules, parsed = match.recorded, match.rules, match.events
        assert isinstance(parsed[0], MatchEvent) and len(parsed) == len(events)
        assert [e.to_dict() for e in parsed] == events  # parsing and writing back is exact
        if events[0]["format"] == "bergen-trace/1":
            assert (rules.domino_set, rules.spinner) == ("double-six", False)
        else:
            assert rules.to_dict() == events[0]["rules"]


def _tamper(events: list[dict], change) -> list[dict]:
    events = copy.deepcopy(events)
    change(events)
    return events


def _first(events, kind):
    return next(e for e in events if e["type"] == kind)


@pytest.mark.parametrize(
    "name, change, message",
    [
        ("2p-standard", lambda ev: ev[0].update(format="bergen-trace/3"), "format bergen-trace/1 or bergen-trace/2"),
        ("2p-standard", lambda ev: ev[0]["rules"].update(domino_set="double-nine"), "rules lack spinner"),
        (
            "2p-double-nine",
            lambda ev: ev[0].update(format="bergen-trace/1"),
            "bergen-trace/1 cannot describe double-nine",
        ),
        (
            "2p-classic-any-double",
            lambda ev: ev[0].update(format="bergen-trace/1"),
            "bergen-trace/1 rules object has the keys",
        ),
        ("2p-double-nine", lambda ev: ev[0]["rules"].pop("spinner"), "lack spinner"),
        ("2p-double-nine", lambda ev: ev[0]["rules"].update(domino_set="double-ten"), "domino_set must be one of"),
        ("2p-double-nine", lambda ev: ev[0]["rules"].update(players=9), "players must be 2..8"),
        ("2p-standard", lambda ev: _first(ev, "play").update(end="U"), "end must be L or R (the spinner is off)"),
        ("3p-spinner", lambda ev: _first(ev, "play").update(end="X"), "is not an end"),
        ("2p-standard", lambda ev: _first(ev, "play").update(tile="6-7"), "tile 6-7 is not in the double-six set"),
        ("2p-double-nine", lambda ev: _first(ev, "draw").update(tile="9-10"), "not in the double-nine set"),
        ("2p-double-nine", lambda ev: _first(ev, "play").update(tile="3-19"), "numbers go from 0 to 18"),
        ("2p-double-nine", lambda ev: _first(ev, "play").update(seat=2), "seat must be 0..1"),
        ("8p-partnerships-double-eighteen", lambda ev: _first(ev, "lead").update(seat=8), "seat must be 0..7"),
        (
            "8p-partnerships-double-eighteen",
            lambda ev: _first(ev, "play").update(score=[0] * 8),
            "score must list 2 side scores",
        ),
        ("2p-double-nine", lambda ev: _first(ev, "deal")["boneyard"].pop(), "is not the double-nine set (55 tiles)"),
        ("6p-double-twelve", lambda ev: _first(ev, "deal")["hands"].pop(), "a deal gives 6 hands of 5 tiles"),
        ("2p-double-nine", lambda ev: _first(ev, "deal").update(boneyard=None), "the deal's boneyard is null"),
        ("2p-double-nine", lambda ev: _first(ev, "match_end").update(winner=2), "winner must be a side 0..1"),
        ("2p-double-nine", lambda ev: _first(ev, "play").pop("end"), "play event lacks end"),
    ],
)
def test_impossible_files_are_refused_in_one_line(name, change, message):
    with pytest.raises(TraceError) as info:
        check_match(_tamper(first_match(name), change))
    assert message in str(info.value) and "\n" not in str(info.value)


def test_play_events_read_every_end():
    for end in "LRUD":
        event = PlayEvent.from_dict(
            {"type": "play", "seat": 3, "tile": "12-9", "end": end, "points": 0, "score": [0, 0]}
        )
        assert event.to_dict()["end"] == end and event.to_dict()["tile"] == "9-12"


def test_version_1_rules_objects_read_as_double_six_without_spinner():
    rules, _ = check_match(first_match("3p-american"))
    assert rules == Rules.make(players=3, settlement="american")
