"""The ``bergen-trace/1`` format: kernel trace rows to JSON events, and replay.

The events come from the same compiled engine that runs batch simulations
(its trace buffer), never from the reference engine.  Replaying a recorded
trace feeds its deals and plays back into the kernel and returns the events
the kernel produces, which must equal the recorded ones.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
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
from bergen_sim.runtime.runner import Engine
from bergen_sim.errors import TraceError
from bergen_sim.rules import Rules

FORMAT = "bergen-trace/1"


def row_event(row: Sequence[int], rules: Rules, policies: Sequence[str], seed: int) -> TraceEvent:
    """One kernel trace row (layout ``TRACE``) as a trace event."""
    r = L.TRACE.decode(row, widths={"score": rules.sides})
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


def generate(engine: Engine, seed: int, first_match: int, n_matches: int) -> list[dict[str, Any]]:
    """Events of matches played by the compiled engine with keyed deals."""
    rows = engine.trace_rows(seed, first_match, n_matches)
    return rows_to_events(rows, engine.rules, engine.policy_names, seed)


def write_jsonl(events: Iterable[dict[str, Any]], path: str | os.PathLike) -> None:
    """Write events as JSON Lines, atomically (a failed run leaves no half file)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w") as fh:
            for event in events:
                fh.write(json.dumps(event, separators=(",", ":")) + "\n")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


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


def _deal_tiles(event: dict[str, Any]) -> list[int]:
    tiles = [t for hand in event["hands"] for t in hand] + list(event["boneyard"])
    try:
        idx = [Tile.parse(t).index for t in tiles]
    except ValueError as exc:
        raise TraceError(f"deal of hand {event.get('hand')}: {exc}") from None
    if sorted(idx) != list(range(L.N_TILES)):
        raise TraceError(f"deal of hand {event.get('hand')} is not a full double-six set")
    return idx


def _script(events: list[dict[str, Any]]) -> list[tuple[int, int]]:
    try:
        return [PlayEvent.from_dict(e).move.kernel() for e in events if e["type"] == "play"]
    except ValueError as exc:
        raise TraceError(f"recorded play: {exc}") from None


def replay_match(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Replay one recorded match through the compiled engine; returns the engine's events.

    Its deals and plays are fed back as given deals and a replay script; every
    other event (leads, draws, passes, points, scores, settlements, the end)
    is the engine's own.
    """
    head = events[0]
    if head.get("type") != "match" or head.get("format") != FORMAT:
        raise TraceError(f"a match must start with a {FORMAT} match event")
    rules = Rules.from_trace(head["rules"])
    deals = [_deal_tiles(e) for e in events if e["type"] == "deal"]
    script = _script(events)
    engine = Engine(rules, ["first"])
    rows = engine.trace_rows(head["seed"], head["match"], 1, deals=np.array(deals), script=np.array(script))
    return rows_to_events(rows, rules, head["policies"], head["seed"])
