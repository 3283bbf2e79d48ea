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

from bergen_sim.engine import layout as L
from bergen_sim.engine.runner import Engine
from bergen_sim.errors import TraceError
from bergen_sim.output import OutputFile, check_file, open_output
from bergen_sim.rules import Rules

FORMAT = "bergen-trace/1"
#: file type of a trace (``-`` writes it to standard output)
TRACE_FORMATS = (".jsonl",)
#: matches per kernel call when streaming a standard game; fewer when the target allows longer matches,
#: so that memory stays flat whatever the number of matches and the rules
TRACE_BATCH = 64


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
