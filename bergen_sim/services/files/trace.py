"""The ``bergen-trace`` format: kernel trace rows to JSON events, reading and checking files, and replay.

Writers write ``bergen-trace/2`` (RULES.md); version-1 files (double-six, no
spinner, ends L and R only, a ten-key rules object) are still read, checked
and replayed, and a replay writes each match in its recording's version, so a
valid file of either version comes back identical.

The events come from the same compiled engine that runs batch simulations
(its trace buffer), never from the Python game of :mod:`bergen_sim.model.state`.  Replaying a recorded
trace feeds its deals and plays back into the kernel and returns the events
the kernel produces, which must equal the recorded ones.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, cast

import numpy as np

from bergen_sim.core.errors import RuleError, TraceError
from bergen_sim.engine import layout as L
from bergen_sim.engine.play_rules import LEAD_CHOICE
from bergen_sim.model.domain import (
    FORMAT_V2,
    FORMATS,
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
    parse_event,
)
from bergen_sim.model.rules import Rules
from bergen_sim.runtime.runner import Engine
from bergen_sim.services.files.output import OutputFile, check_file, open_output

#: the version writers write
FORMAT = FORMAT_V2
#: file type of a trace (``-`` writes it to standard output)
TRACE_FORMATS = (".jsonl",)
#: matches per kernel call when streaming a standard game; fewer when the target allows longer matches,
#: so that memory stays flat whatever the number of matches and the rules
TRACE_BATCH = 64


def format_version(format: str) -> int:
    """``"bergen-trace/2"`` -> 2."""
    return FORMATS.index(format) + 1


def row_event(row: Sequence[int], rules: Rules, policies: Sequence[str], seed: int, format: str = FORMAT) -> TraceEvent:
    """One kernel trace row (layout ``TRACE``) as a trace event (a match event in version ``format``)."""
    r = L.TRACE.decode(row, widths={"score": rules.sides, "deal": rules.n_tiles})
    kind, score = L.Event(r["type"]), r["score"]
    if kind == L.Event.MATCH:
        return MatchEvent(format, r["match"], rules.to_dict(format_version(format)), list(policies), seed)
    if kind == L.Event.DEAL:
        deal = [Tile.from_index(t) for t in r["deal"]]
        k = rules.hand_size
        return DealEvent(
            r["hand"], [deal[s * k : (s + 1) * k] for s in range(rules.players)], deal[rules.players * k :]
        )
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


def rows_to_events(
    rows: np.ndarray, rules: Rules, policies: Sequence[str], seed: int, format: str = FORMAT
) -> list[dict[str, Any]]:
    """Turn kernel trace rows into trace events (dicts in the format's key order)."""
    return [row_event(row, rules, policies, seed, format).to_dict() for row in rows.tolist()]


def iter_events(engine: Engine, seed: int, first_match: int, n_matches: int) -> Iterator[dict[str, Any]]:
    """Events of matches played by the compiled engine with keyed deals, a few matches at a time.

    Why batches: a trace of many matches does not fit in memory (about 10 kB
    a match); a batch's kernel buffer is bounded by the longest possible
    match (``sides * (target - 1) + 1`` hands), so memory stays flat.
    """
    most_hands = engine.rules.most_hands
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
    see :func:`bergen_sim.services.files.output.open_output`; failures raise OutputError.
    """
    target = path if isinstance(path, OutputFile) else check_trace_path(path)
    count = 0
    with open_output(target) as fh:
        for event in events:
            fh.write(json.dumps(event, separators=(",", ":")) + "\n")
            count += 1
    return count


def read_jsonl(path: str | os.PathLike) -> list[dict[str, Any]]:
    """Read a trace file's events (UTF-8; a byte-order mark at the start is skipped)."""
    with open(path, encoding="utf-8-sig") as fh:
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


def check_match(events: list[dict[str, Any]]) -> tuple[Rules, list[TraceEvent]]:
    """Check one recorded match's events as a file of its version may hold them; returns its rules and events.

    The first event is a ``match`` event of a known version whose rules
    object has exactly that version's keys; every event parses; tiles belong
    to the match's set; ends are L or R (and U or D only with the spinner);
    seats count up to the players, scores have one entry per side, and every
    deal deals the whole set.  Whether the events follow the rules is the
    replay's business.  Raises TraceError naming the event.
    """
    head = events[0] if events else {}
    if not isinstance(head, dict) or head.get("type") != "match" or head.get("format") not in FORMATS:
        raise TraceError(f"a match must start with a match event of format {' or '.join(FORMATS)}")
    rules_object = head.get("rules")
    try:
        rules = Rules.from_trace(rules_object)
        if list(cast(Mapping, rules_object)) != list(rules.to_dict(format_version(head["format"]))):
            raise RuleError(
                f"a {head['format']} rules object has the keys "
                f"{', '.join(rules.to_dict(format_version(head['format'])))} in that order"
            )
    except RuleError as exc:
        raise TraceError(f"match {head.get('match')}: {exc}") from None
    ends = L.END_NAMES if rules.spinner else L.END_NAMES[:2]
    parsed = []
    for k, event in enumerate(events):
        where = f"match {head.get('match')} event {k + 1}"
        try:
            if not isinstance(event, dict):
                raise ValueError(f"an event is a JSON object, not {event!r}")
            item = parse_event(event)
        except (ValueError, TypeError) as exc:
            raise TraceError(f"{where}: {exc}") from None
        problem = _event_problem(item, rules, ends)
        if problem:
            raise TraceError(f"{where}: {problem}")
        parsed.append(item)
    return rules, parsed


def _event_problem(item: TraceEvent, rules: Rules, ends: Sequence[str]) -> str | None:
    """What makes one parsed event impossible in a match of ``rules`` (None when nothing does)."""
    seat = getattr(item, "seat", 0)
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < rules.players:
        return f"seat must be 0..{rules.players - 1}, not {seat!r}"
    score = getattr(item, "score", [0] * rules.sides)
    if not isinstance(score, list) or len(score) != rules.sides:
        return f"score must list {rules.sides} side scores, not {score!r}"
    winner = getattr(item, "winner", None)
    if winner is not None and (
        not isinstance(winner, int) or isinstance(winner, bool) or not 0 <= winner < rules.sides
    ):
        return f"winner must be a side 0..{rules.sides - 1}, not {winner!r}"
    tiles = [t for name in ("tile", "hands", "boneyard") for t in _flat(getattr(item, name, []))]
    outside = [str(t) for t in tiles if not t.in_set(rules.max_number)]
    if outside:
        return f"tile {outside[0]} is not in the {rules.domino_set} set"
    if isinstance(item, PlayEvent) and item.end.name not in ends:
        return f"end must be {' or '.join(ends)}{'' if rules.spinner else ' (the spinner is off)'}, not {item.end.name}"
    if isinstance(item, DealEvent):
        if len(item.hands) != rules.players or any(len(h) != rules.hand_size for h in item.hands):
            return f"a deal gives {rules.players} hands of {rules.hand_size} tiles"
        if item.boneyard is None:
            return "the deal's boneyard is null; a trace lists the boneyard, in draw order"
        if sorted(t.index for t in tiles) != list(range(rules.n_tiles)):
            return f"the deal is not the {rules.domino_set} set ({rules.n_tiles} tiles), each tile once"
    return None


def _flat(value: Any) -> list[Tile]:
    if isinstance(value, Tile):
        return [value]
    return [t for v in value for t in _flat(v)] if isinstance(value, list) else []


def _script(events: list[TraceEvent], rules: Rules) -> list[tuple[int, int]]:
    """The recorded decisions in order: every play, and with ``any-double`` every lead (end LEAD_CHOICE)."""
    leads = rules.lead == "any-double"
    return [
        e.move.kernel() if isinstance(e, PlayEvent) else (e.tile.index, LEAD_CHOICE)
        for e in events
        if isinstance(e, PlayEvent) or (leads and isinstance(e, LeadEvent))
    ]


def replay_match(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Replay one recorded match through the compiled engine; returns the engine's events.

    Its deals and plays are fed back as given deals and a replay script; every
    other event (leads, draws, passes, points, scores, settlements, the end)
    is the engine's own.
    """
    rules, parsed = check_match(events)
    head = events[0]
    deals = [
        [t.index for hand in e.hands for t in hand] + [t.index for t in e.boneyard or ()]  # listed: check_match
        for e in parsed
        if isinstance(e, DealEvent)
    ]
    script = _script(parsed, rules)
    engine = Engine(rules, ["first"])
    rows = engine.trace_rows(head["seed"], head["match"], 1, deals=np.array(deals), script=np.array(script))
    return rows_to_events(rows, rules, head["policies"], head["seed"], head["format"])
