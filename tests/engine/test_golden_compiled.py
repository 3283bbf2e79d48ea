"""Every golden match replayed through the compiled engine reproduces every event exactly.

The golden traces (``tests/golden``, copied from the shared rule book) were
played by another implementation.  :func:`bergen_sim.services.files.trace.replay_match` feeds
a match's deals and recorded plays into the compiled kernel (given deals, a
replay script instead of a policy); leads, draws, passes, points, scores,
settlements and the match end are the kernel's own.  Serialised comparison
makes key order count too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bergen_sim.core.errors import TraceError
from bergen_sim.model.rules import Rules
from bergen_sim.services.files.trace import read_matches, replay_match
from tests.helpers import walk_match

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
#: the version-1 files (double-six, no spinner); the version-2 files join once the compiled engine plays them
FILES = sorted(GOLDEN.glob("*.jsonl"))


def test_eighteen_rule_sets_of_twelve_matches():
    assert len(FILES) == 18  # 9 of bergen-trace/1, 9 of bergen-trace/2
    assert all(len(list(read_matches(path))) == 12 for path in FILES)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_golden_file_replays_exactly(path):
    for recorded in (match.recorded for match in read_matches(path)):
        produced = replay_match(recorded)
        for k, (got, want) in enumerate(zip(produced, recorded)):
            assert json.dumps(got) == json.dumps(want), f"match {recorded[0]['match']} event {k} differs"
        assert len(produced) == len(recorded)
        walk_match(recorded, Rules.from_trace(recorded[0]["rules"]))


def test_replay_refuses_an_illegal_recorded_play():
    recorded = next(read_matches(FILES[0])).recorded
    tampered = [dict(e) for e in recorded]
    play = next(e for e in tampered if e["type"] == "play")
    play["end"] = "L" if play["end"] == "R" else "R"  # the same tile on the other end
    play["tile"] = "6-6" if play["tile"] != "6-6" else "0-0"
    with pytest.raises(TraceError, match="not legal"):
        replay_match(tampered)


def test_replay_refuses_a_trace_cut_short():
    recorded = next(read_matches(FILES[0])).recorded
    plays = [k for k, e in enumerate(recorded) if e["type"] == "play"]
    with pytest.raises(TraceError, match="ran out"):
        replay_match(recorded[: plays[-1]])
