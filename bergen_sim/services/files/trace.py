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

import itertools
import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import IO, Any, cast

import numpy as np

from bergen_sim.core.errors import RuleError, TraceError, as_json
from bergen_sim.core.i18n import num, tr
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


#: longest line of a trace or a record: an event is a few hundred characters (a deal of the largest set a few
#: thousand), so a longer line is not one, and is refused before it is held or parsed whole
MAX_LINE_CHARS = 100_000


def bounded_lines(name: str | os.PathLike, handle: IO[str]) -> Iterator[str]:
    """The lines of an open text file, each refused (one line) once it is longer than MAX_LINE_CHARS."""
    for k in itertools.count(1):
        line = handle.readline(MAX_LINE_CHARS + 1)
        if not line:
            return
        if len(line) > MAX_LINE_CHARS:
            raise TraceError(
                tr("{path}: line {line} is longer than {most} characters; no event or record line is that long").format(
                    path=name, line=k, most=num(MAX_LINE_CHARS, ",")
                )
            )
        yield line


@dataclass
class TraceMatch:
    """One match of a trace file as read: the events as written, where they are, and (checked) typed.

    :attr:`rules` and :attr:`events` check the match as its version may hold
    it (:func:`check_match`) when first asked for, so a reader that skips a
    match never pays for its check, and a consumer with checks of its own (a
    review's) can run them on :attr:`recorded` first.
    """

    #: where the match is in the file (from 0): what ``--match`` names
    index: int
    #: the events as the file holds them (JSON objects, the ``match`` event first)
    recorded: list[dict[str, Any]]
    #: the line of each event in the file (from 1), for messages
    lines: list[int]
    #: the file's name, for messages
    name: str = "<trace>"

    @cached_property
    def _checked(self) -> tuple[Rules, list[TraceEvent]]:
        return check_match(self.recorded, lambda k: f"{self.name}: line {self.lines[k]}: ")

    @property
    def rules(self) -> Rules:
        return self._checked[0]

    @property
    def events(self) -> list[TraceEvent]:
        """The match's events as the dataclasses of :mod:`bergen_sim.model.domain`, in order."""
        return self._checked[1]


def read_matches(
    source: str | os.PathLike | Iterable[str], name: str | os.PathLike | None = None
) -> Iterator[TraceMatch]:
    """The matches of a ``bergen-trace`` file (a path, or its lines), one at a time as they are read.

    A line at a time: a match is yielded when the next one starts, so a file
    of any size costs the memory of one match, and a reader that stops early
    reads no further.  A line that is not one JSON event object raises
    TraceError naming the file and the line; so does a first event that is
    not a ``match`` event.  A path is read as UTF-8 (a byte-order mark at the
    start is skipped) with lines of at most MAX_LINE_CHARS.
    """
    if isinstance(source, (str, os.PathLike)):
        with open(source, encoding="utf-8-sig") as handle:
            yield from read_matches(bounded_lines(source, handle), source if name is None else name)
        return
    shown_name = str(name) if name is not None else "<trace>"
    index = -1
    for index, group in enumerate(split_matches(_numbered_events(source, shown_name), lambda pair: pair[1]["type"])):
        yield TraceMatch(index, [event for _, event in group], [k for k, _ in group], shown_name)
    if index < 0:
        raise TraceError(f"{shown_name}: the trace holds no match")


def _numbered_events(lines: Iterable[str], name: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, event)`` for each line with text, the first a ``match`` event (TraceError otherwise)."""
    first = True
    for k, line in enumerate(lines, 1):
        if not line.strip():
            continue
        event = _line_event(line, name, k)
        if first and event["type"] != "match":
            why = "trace does not start with a match event"
            raise TraceError(tr("{path}: not a bergen-trace file: {why}").format(path=name, why=why))
        first = False
        yield k, event


def _line_event(line: str, name: str, k: int) -> dict[str, Any]:
    """Line ``k`` of a trace as its event object (one line of TraceError when it is not one)."""
    try:
        event = json.loads(line)
    except ValueError as exc:  # not JSON, or a number too long for Python to read
        why = getattr(exc, "msg", None) or "it holds a number of more than 4,300 digits"
        raise TraceError(tr("{path}: line {line} is not JSON: {why}").format(path=name, line=k, why=why)) from None
    except RecursionError:
        raise TraceError(f"{name}: line {k} is not JSON that can be read: nested too deep") from None
    if not isinstance(event, dict) or not isinstance(event.get("type"), str):
        what = (
            "an object without a 'type' naming its event"
            if isinstance(event, dict)
            else f"{as_json(event)}, not a JSON object with a 'type'"
        )
        raise TraceError(
            f"{name}: line {k} is {what}; a bergen-trace file holds one event object per "
            "line, each with a 'type', the first a match event"
        )
    return event


def read_jsonl(path: str | os.PathLike) -> list[dict[str, Any]]:
    """A trace file's events, all in memory (for small files; :func:`read_matches` streams)."""
    return [event for match in read_matches(path) for event in match.recorded]


def split_matches(
    events: Iterable[Any], type_of: Callable[[Any], Any] = lambda event: event.get("type")
) -> Iterator[list[Any]]:
    """Group events by match as they come (each group starts with its ``match`` event).

    ``type_of(item)`` is an item's event type, for items that carry an event (:func:`read_matches` groups
    ``(line, event)`` pairs).
    """
    current: list[Any] = []
    for event in events:
        if type_of(event) == "match" and current:
            yield current
            current = []
        current.append(event)
    if current:
        yield current


def check_match(
    events: list[dict[str, Any]], place: Callable[[int], str] = lambda k: ""
) -> tuple[Rules, list[TraceEvent]]:
    """Check one recorded match's events as a file of its version may hold them; returns its rules and events.

    The first event is a ``match`` event of a known version whose rules
    object has exactly that version's keys; every event parses; tiles belong
    to the match's set; ends are L or R (and U or D only with the spinner);
    seats count up to the players, scores have one entry per side, and every
    deal deals the whole set.  Whether the events follow the rules is the
    replay's business.  Raises TraceError naming the event, after
    ``place(k)`` (where event ``k``, from 0, is in its file: e.g. ``f: line 9: ``).
    """
    head = events[0] if events else {}
    if not isinstance(head, dict) or head.get("type") != "match" or head.get("format") not in FORMATS:
        raise TraceError(f"{place(0)}a match must start with a match event of format {' or '.join(FORMATS)}")
    rules_object = head.get("rules")
    try:
        rules = Rules.from_trace(rules_object)
        if list(cast(Mapping, rules_object)) != list(rules.to_dict(format_version(head["format"]))):
            raise RuleError(
                f"a {head['format']} rules object has the keys "
                f"{', '.join(rules.to_dict(format_version(head['format'])))} in that order"
            )
    except RuleError as exc:
        raise TraceError(f"{place(0)}match {head.get('match')}: {exc}") from None
    ends = L.END_NAMES if rules.spinner else L.END_NAMES[:2]
    parsed = []
    for k, event in enumerate(events):
        where = f"{place(k)}match {head.get('match')} event {k + 1}"
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
