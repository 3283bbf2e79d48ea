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

from bergen_sim.engine import layout as L
from bergen_sim.runtime.runner import Engine
from bergen_sim.errors import TraceError
from bergen_sim.rules import Rules

FORMAT = "bergen-trace/1"


def rows_to_events(rows: np.ndarray, rules: Rules, policies: Sequence[str], seed: int) -> list[dict[str, Any]]:
    """Turn kernel trace rows into trace events (dicts in the format's key order)."""
    sides = rules.sides
    events: list[dict[str, Any]] = []
    names = L.TILE_NAMES
    for row in rows.tolist():
        ev = row[L.T_TYPE]
        score = row[L.T_SCORE : L.T_SCORE + sides]
        if ev == L.EV_MATCH:
            events.append({
                "type": "match", "format": FORMAT, "match": row[L.T_MATCH], "rules": rules.to_dict(),
                "policies": list(policies), "seed": seed,
            })
        elif ev == L.EV_DEAL:
            deal = [names[t] for t in row[L.T_DEAL : L.T_DEAL + L.N_TILES]]
            k = rules.hand_size
            hands = [deal[s * k : (s + 1) * k] for s in range(rules.players)]
            events.append({"type": "deal", "hand": row[L.T_HAND], "hands": hands, "boneyard": deal[rules.players * k :]})
        elif ev == L.EV_REDEAL:
            events.append({"type": "redeal", "hand": row[L.T_HAND]})
        elif ev == L.EV_LEAD:
            events.append({"type": "lead", "seat": row[L.T_SEAT], "tile": names[row[L.T_TILE]],
                           "points": row[L.T_POINTS], "score": score})
        elif ev == L.EV_DRAW:
            events.append({"type": "draw", "seat": row[L.T_SEAT], "tile": names[row[L.T_TILE]]})
        elif ev == L.EV_PLAY:
            events.append({"type": "play", "seat": row[L.T_SEAT], "tile": names[row[L.T_TILE]],
                           "end": L.END_NAMES[row[L.T_END]], "points": row[L.T_POINTS], "score": score})
        elif ev == L.EV_PASS:
            events.append({"type": "pass", "seat": row[L.T_SEAT]})
        elif ev == L.EV_OUT:
            events.append({"type": "out", "seat": row[L.T_SEAT], "points": row[L.T_POINTS], "score": score})
        elif ev == L.EV_BLOCKED:
            winner = row[L.T_WINNER]
            events.append({"type": "blocked", "winner": None if winner < 0 else winner,
                           "points": row[L.T_POINTS], "score": score})
        else:
            events.append({"type": "match_end", "winner": row[L.T_WINNER], "score": score})
    return events


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
        idx = [L.TILE_INDEX[t] for t in tiles]
    except KeyError as exc:
        raise TraceError(f"unknown tile {exc.args[0]!r} in deal of hand {event.get('hand')}") from None
    if sorted(idx) != list(range(L.N_TILES)):
        raise TraceError(f"deal of hand {event.get('hand')} is not a full double-six set")
    return idx


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
    script = [(L.TILE_INDEX[e["tile"]], L.END_NAMES.index(e["end"])) for e in events if e["type"] == "play"]
    engine = Engine(rules, ["first"])
    rows = engine.trace_rows(head["seed"], head["match"], 1, deals=np.array(deals), script=np.array(script))
    return rows_to_events(rows, rules, head["policies"], head["seed"])
