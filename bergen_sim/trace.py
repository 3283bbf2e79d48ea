"""The ``bergen-trace/1`` format: kernel trace rows to JSON events, and replay.

The events come from the same compiled engine that runs batch simulations
(its trace buffer), never from the reference engine.  Replaying a recorded
trace feeds its deals and plays back into the kernel and returns the events
the kernel produces, which must equal the recorded ones.
"""

from __future__ import annotations

import json
import os
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from bergen_sim.domain import (
    BlockedEvent,
    DealEvent,
    DrawEvent,
    LeadEvent,
    MatchEndEvent,
    MatchEvent,
    OutEvent,
    PassEvent,
    PlayEvent,
    RedealEvent,
    Tile,
    TraceEvent,
)
from bergen_sim.engine import layout as L
from bergen_sim.engine.play_rules import LEAD_CHOICE
from bergen_sim.runtime.runner import Engine
from bergen_sim.errors import TraceError
from bergen_sim.output import OutputFile, check_file, open_output
from bergen_sim.rules import Rules

FORMAT = "bergen-trace/2"
#: the first rule book's format: no domino_set or spinner (read as double-six without a spinner)
FORMAT_1 = "bergen-trace/1"
#: file type of a trace (``-`` writes it to standard output)
TRACE_FORMATS = (".jsonl",)
#: matches per kernel call when streaming a standard game; fewer when the target allows longer matches,
#: so that memory stays flat whatever the number of matches and the rules
TRACE_BATCH = 64


def row_event(row: Sequence[int], rules: Rules, policies: Sequence[str], seed: int) -> TraceEvent:
    """One kernel trace row (layout ``TRACE``) as a trace event."""
    r = L.TRACE.decode(row, widths={"score": rules.sides, "deal": rules.n_tiles})
    kind, score = L.Event(r["type"]), r["score"]
    if kind == L.Event.MATCH:
        return MatchEvent(FORMAT, r["match"], rules.to_dict(), list(policies), seed)
    if kind == L.Event.DEAL:
        deal = [Tile.from_index(t) for t in r["deal"]]
        k = rules.hand_size
        return DealEvent(r["hand"], [deal[s * k : (s + 1) * k] for s in range(rules.players)], deal[rules.players * k :])
    if kind == L.Event.REDEAL:
        return RedealEvent(r["hand"])
    if kind == L.Event.LEAD:
        return LeadEvent(r["seat"], Tile.from_index(r["tile"]), r["points"], score)
    if kind == L.Event.DRAW:
        return DrawEvent(r["seat"], Tile.from_index(r["tile"]))
    if kind == L.Event.PLAY:
        return PlayEvent(r["seat"], Tile.from_index(r["tile"]), L.End(r["end"]), r["points"], score)
    if kind == L.Event.PASS:
        return PassEvent(r["seat"])
    if kind == L.Event.OUT:
        return OutEvent(r["seat"], r["points"], score)
    if kind == L.Event.BLOCKED:
        return BlockedEvent(None if r["winner"] < 0 else r["winner"], r["points"], score)
    return MatchEndEvent(r["winner"], score)


def rows_to_events(rows: np.ndarray, rules: Rules, policies: Sequence[str], seed: int) -> list[dict[str, Any]]:
    """Turn kernel trace rows into trace events (dicts in the format's key order)."""
    return [row_event(row, rules, policies, seed).to_dict() for row in rows.tolist()]


def iter_events(engine: Engine, seed: int, first_match: int, n_matches: int) -> Iterator[dict[str, Any]]:
    """Events of matches played by the compiled engine with keyed deals, a few matches at a time.

    Why batches: a trace of many matches does not fit in memory (about 10 kB
    a match); a batch's kernel buffer is bounded by the longest possible
    match (``sides * (target - 1) + 1`` hands), so memory stays flat.
    """
    most_hands = engine.rules.sides * (engine.rules.target - 1) + 1
    batch = max(1, min(TRACE_BATCH, TRACE_BATCH * 29 // most_hands))  # 29: the standard 2-side game's bound
    for start in range(first_match, first_match + n_matches, batch):
        rows = engine.trace_rows(seed, start, min(batch, first_match + n_matches - start))
        yield from rows_to_events(rows, engine.rules, engine.policy_names, seed)


def generate(engine: Engine, seed: int, first_match: int, n_matches: int) -> list[dict[str, Any]]:
    """Events of matches played by the compiled engine with keyed deals (as a list; see :func:`iter_events`)."""
    return list(iter_events(engine, seed, first_match, n_matches))


def check_trace_path(path: str | os.PathLike) -> OutputFile:
    """Check a ``trace -o`` path before playing (a .jsonl file, or - for standard output)."""
    return check_file(path, "-o", TRACE_FORMATS, stdout=True)


def write_jsonl(events: Iterable[dict[str, Any]], path: str | os.PathLike | OutputFile) -> int:
    """Write events as JSON Lines as they come; returns how many.

    A regular file is written atomically (a failed run leaves no half file),
    see :func:`bergen_sim.output.open_output`; failures raise OutputError.
    """
    target = path if isinstance(path, OutputFile) else check_trace_path(path)
    count = 0
    with open_output(target) as fh:
        for event in events:
            fh.write(json.dumps(event, separators=(",", ":")) + "\n")
            count += 1
    return count


def read_jsonl(path: str | os.PathLike) -> list[dict[str, Any]]:
    """Read a trace file's events."""
    with open(path) as fh:
        return [json.loads(line) for line in fh if line.strip()]


def split_matches(events: Iterable[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    """Group a trace's events by match (each group starts with its ``match`` event)."""
    current: list[dict[str, Any]] = []
    for event in events:
        if event.get("type") == "match" and current:
            yield current
            current = []
        current.append(event)
    if current:
        yield current


def _deal_tiles(event: dict[str, Any], rules: Rules) -> list[int]:
    tiles = [t for hand in event["hands"] for t in hand] + list(event["boneyard"])
    try:
        idx = [Tile.parse(t).index for t in tiles]
    except ValueError as exc:
        raise TraceError(f"deal of hand {event.get('hand')}: {exc}") from None
    if sorted(idx) != list(range(rules.n_tiles)):
        raise TraceError(f"deal of hand {event.get('hand')} is not a full {rules.domino_set} set")
    return idx + [0] * (L.MAX_TILES - len(idx))


def _script(events: list[dict[str, Any]], rules: Rules) -> list[tuple[int, int]]:
    """The recorded decisions in order: every play, and with ``any-double`` every lead (end LEAD_CHOICE)."""
    leads = rules.lead == "any-double"
    script = []
    try:
        for e in events:
            if e["type"] == "play":
                script.append(PlayEvent.from_dict(e).move.kernel())
            elif e["type"] == "lead" and leads:
                script.append((Tile.parse(e["tile"]).index, LEAD_CHOICE))
    except ValueError as exc:
        raise TraceError(f"recorded play: {exc}") from None
    return script


def replay_match(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Replay one recorded match through the compiled engine; returns the engine's events.

    Its deals and plays are fed back as given deals and a replay script; every
    other event (leads, draws, passes, points, scores, settlements, the end)
    is the engine's own.
    """
    head = events[0]
    if head.get("type") != "match" or head.get("format") not in (FORMAT, FORMAT_1):
        raise TraceError(f"a match must start with a {FORMAT} (or {FORMAT_1}) match event")
    rules = Rules.from_trace(head["rules"])
    deals = [_deal_tiles(e, rules) for e in events if e["type"] == "deal"]
    script = _script(events, rules)
    engine = Engine(rules, ["first"])
    rows = engine.trace_rows(head["seed"], head["match"], 1, deals=np.array(deals), script=np.array(script))
    replayed = rows_to_events(rows, rules, head["policies"], head["seed"])
    if head["format"] == FORMAT_1:  # answer in the file's own version
        replayed[0]["format"] = FORMAT_1
        replayed[0]["rules"] = {k: v for k, v in replayed[0]["rules"].items() if k not in ("domino_set", "spinner")}
    return replayed
