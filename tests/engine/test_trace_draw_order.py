"""A trace's draws follow the boneyard order its deal event lists: a draw deleted or moved is refused.

A ``bergen-trace`` deal event lists the boneyard in draw order, and the rules
always draw its next tile; ``drive`` refuses a trace draw that is not that
tile, naming the event, so ``bergen-sim review`` never judges a game other
than the file's.  A game record states no order: its draws only need to be
legal.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bergen_sim.cli import main
from bergen_sim.services.files.record import RecordError, drive, parse_record, read_games
from bergen_sim.services.files.trace import split_matches
from tests.helpers import error_lines

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def _events(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _write(path: Path, events: list[dict]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


def _two_draws(events: list[dict]) -> int:
    """The index of the first draw event followed by another draw of the same seat."""
    for k, (event, after) in enumerate(zip(events, events[1:])):
        if event["type"] == after["type"] == "draw" and event["seat"] == after["seat"]:
            return k
    raise LookupError("no seat draws twice in a row")


def _deleted_draw(events: list[dict]) -> tuple[list[dict], str]:
    """The events without a draw that the same seat's next draw follows, and the message that draw must get."""
    k = _two_draws(events)
    # the draws before event k took the boneyard's tiles before events[k]'s, so that tile is still next;
    # the next draw moves up to index k: event number k + 1
    message = (
        f"event {k + 1} of match {events[0]['match']}: seat {events[k + 1]['seat']} draws "
        f"{events[k + 1]['tile']}, but the boneyard's next tile is {events[k]['tile']}"
    )
    return events[:k] + events[k + 1 :], message


@pytest.fixture(scope="module")
def greedy_trace(tmp_path_factory) -> Path:
    """The sweep's trace: two greedy matches to 5 points."""
    path = tmp_path_factory.mktemp("trace") / "g.jsonl"
    assert (
        main(["trace", "--matches", "2", "--policy", "greedy", "--seed", "3", "--set", "target=5", "-o", str(path)])
        == 0
    )
    return path


def test_the_untouched_trace_replays(greedy_trace):
    for written in read_games(greedy_trace):
        drive(written)


def test_a_deleted_draw_is_refused_by_drive_naming_the_event(greedy_trace, tmp_path):
    events, message = _deleted_draw(_events(greedy_trace))
    path = _write(tmp_path / "bad.jsonl", events)
    (written, *_) = read_games(path)
    with pytest.raises(RecordError) as caught:
        drive(written)
    text = str(caught.value)
    assert len(text.splitlines()) == 1
    assert text.startswith(message), text
    assert "lists the boneyard in draw order" in text


def test_a_deleted_draw_is_refused_by_review_in_one_line(greedy_trace, tmp_path, capsys):
    events, message = _deleted_draw(_events(greedy_trace))
    path = _write(tmp_path / "bad.jsonl", events)
    capsys.readouterr()
    assert main(["review", str(path), "--worlds", "50"]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert len(error_lines(err)) == 1 and message in err and "Traceback" not in err, err


def test_two_draws_swapped_are_refused(tmp_path):
    events = next(split_matches(_events(GOLDEN / "2p-standard.jsonl")))
    k = _two_draws(events)
    events[k], events[k + 1] = events[k + 1], events[k]
    (written,) = read_games(_write(tmp_path / "swapped.jsonl", events))
    with pytest.raises(
        RecordError,
        match=re.escape(
            f"event {k + 1} of match 0: seat {events[k]['seat']} draws "
            f"{events[k]['tile']}, but the boneyard's next tile is "
            f"{events[k + 1]['tile']}"
        ),
    ):
        drive(written)


@pytest.mark.parametrize("name", sorted(p.name for p in GOLDEN.glob("*.jsonl")))
def test_a_deleted_draw_is_refused_in_every_golden_file(tmp_path, name):
    """Both versions: a bergen-trace/1 deal lists its boneyard in draw order as a bergen-trace/2 deal does."""
    first_match = next(split_matches(_events(GOLDEN / name)))
    bad, message = _deleted_draw(first_match)
    (written,) = read_games(_write(tmp_path / name, bad))
    with pytest.raises(RecordError, match=re.escape(message)):
        drive(written)


def test_every_golden_trace_still_replays():
    """Every match of every golden file (9 of version 1, 9 of version 2) replays event for event."""
    versions = set()
    count = 0
    for path in sorted(GOLDEN.glob("*.jsonl")):
        for written in read_games(path):
            game = drive(written)
            assert game.events[0]["format"] == written.format
            versions.add(written.format)
            count += 1
    assert versions == {"bergen-trace/1", "bergen-trace/2"}
    assert count == 216


def test_a_record_draws_in_any_legal_order():
    """A record written at a table does not know the boneyard's order: any legal draws are read."""
    record = """bergen-record 1
rules players=2 hand_size=2 target=3
deal 1-1 1-2 | 2-3 4-4
1: draw {draws}
1: 0-1 L
"""
    for draws in ("0-0 0-1", "5-5 0-0 0-1", "6-6 0-1"):
        game = drive(parse_record(record.format(draws=draws)))
        assert [e["tile"] for e in game.events if e["type"] == "draw"] == draws.split()
