"""The one trace reader (:func:`bergen_sim.services.files.trace.read_matches`): streaming, typed, hostile input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bergen_sim.core.errors import TraceError
from bergen_sim.model.domain import DealEvent, MatchEvent, TraceEvent, parse_event
from bergen_sim.model.rules import Rules
from bergen_sim.services.files.record import RecordError, read_games
from bergen_sim.services.files.trace import MAX_LINE_CHARS, read_jsonl, read_matches

pytestmark = pytest.mark.fast

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
STANDARD = GOLDEN / "2p-standard.jsonl"


def test_a_match_is_yielded_before_the_lines_after_it_are_read():
    lines = STANDARD.read_text(encoding="utf-8").splitlines(keepends=True)
    read = []

    def source():
        for line in lines:
            read.append(line)
            yield line

    first = next(read_matches(source(), "golden"))
    assert first.index == 0 and first.recorded[0]["type"] == "match"
    # the first match and the next match event: the other eleven matches are not read
    assert len(read) == len(first.recorded) + 1 < len(lines)


def test_each_match_holds_its_rules_typed_events_and_lines():
    matches = list(read_matches(STANDARD))
    recorded = read_jsonl(STANDARD)
    assert [m.index for m in matches] == list(range(12))
    assert [e for m in matches for e in m.recorded] == recorded
    first = matches[0]
    assert first.rules == Rules.from_trace(recorded[0]["rules"])
    assert all(isinstance(e, TraceEvent) for e in first.events)
    assert first.events == [parse_event(e) for e in first.recorded]
    assert isinstance(first.events[0], MatchEvent) and isinstance(first.events[1], DealEvent)
    assert first.lines == list(range(1, len(first.recorded) + 1))
    assert matches[1].lines[0] == len(first.recorded) + 1


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "lines, message",
    [
        (['{"type": "deal"}'], "t.jsonl: not a bergen-trace file: trace does not start with a match event"),
        (["", "  "], "t.jsonl: the trace holds no match"),
        (['{"type": "match"', "x"], "t.jsonl: line 1 is not JSON: "),
        (["[1]"], "t.jsonl: line 1 is [1], not a JSON object with a 'type'"),
        (["x" * (MAX_LINE_CHARS + 5)], f"t.jsonl: line 1 is longer than {MAX_LINE_CHARS:,} characters"),
    ],
)
def test_a_line_that_is_not_an_event_is_one_line_naming_file_and_line(tmp_path, lines, message):
    path = _write(tmp_path / "t.jsonl", lines)
    with pytest.raises(TraceError) as caught:
        list(read_matches(path))
    assert str(caught.value).startswith(str(tmp_path)) and message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_match_its_version_cannot_hold_names_the_line_of_the_event(tmp_path):
    """The format's checks say where in the file the bad event is, for every reader (here a second match)."""
    events = read_jsonl(STANDARD)
    second = [k for k, e in enumerate(events) if e["type"] == "match"][1]
    events.insert(second + 2, {"type": "bogus"})
    path = _write(tmp_path / "t.jsonl", [json.dumps(e) for e in events])
    first, bad = list(read_matches(path))[:2]
    assert first.events  # the first match is whole
    with pytest.raises(TraceError, match=rf"t\.jsonl: line {second + 3}: match 1 event 3: "):
        _ = bad.events
    with pytest.raises(RecordError, match=rf"t\.jsonl: line {second + 3}: match 1 event 3: "):
        read_games(path, matches=[1])
    assert read_games(path, matches=[0])[0].actions == read_games(STANDARD, matches=[0])[0].actions
