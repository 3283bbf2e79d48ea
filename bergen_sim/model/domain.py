"""The game's nouns in Python: tiles, moves and trace events, each with its text form in one place.

The compiled engine works on tile indices and codes (:mod:`bergen_sim.engine.layout`);
everything that reads or writes what people type or files hold (the trace
format, the position analyzer, the Python game in :mod:`bergen_sim.model.state`) goes through
these types, so ``"3-5"`` is parsed and printed by exactly one function.

>>> Tile.parse("5-3"), str(Tile.parse("3-5")), Tile.parse("6-6").is_double
(Tile(lo=3, hi=5), '3-5', True)
>>> Tile.parse("3-5").index == Tile.from_index(Tile.parse("3-5").index).index, Tile(3, 5) == "3-5"
(True, True)
>>> m = Move.parse("2-5 R"); (str(m), m.kernel())
('2-5 R', (17, 1))
>>> str(Move.parse("9-12 u")), [str(t) for t in tiles_of_set(1)]
('9-12 U', ['0-0', '0-1', '1-1'])
>>> PlayEvent.from_dict({"type": "play", "seat": 1, "tile": "2-5", "end": "R", "points": 0, "score": [3, 4]})
PlayEvent(seat=1, tile=Tile(lo=2, hi=5), end=<End.R: 1>, points=0, score=[3, 4])
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from bergen_sim.core.errors import MoveError, shown
from bergen_sim.core.i18n import tr
from bergen_sim.core.limits import ascii_digits, integer, short_number
from bergen_sim.engine.layout import MAX_NUMBER, TILE_HI, TILE_LO, End, Event, set_size

#: the highest number on any tile (double-eighteen's); a tile's set is checked where the set is known
HIGHEST = MAX_NUMBER
#: the trace formats: version 1 (double-six, L and R only) is still read; writers write version 2
FORMAT_V1 = "bergen-trace/1"
FORMAT_V2 = "bergen-trace/2"
FORMATS = (FORMAT_V1, FORMAT_V2)


@dataclass(frozen=True, order=True)
class Tile:
    """A domino ``lo-hi`` with ``0 <= lo <= hi <= HIGHEST``; its text is ``"lo-hi"``.

    Any tile up to double-eighteen is a Tile; whether it belongs to the set a
    game plays is :meth:`in_set` (checked where the set is known: trace
    reading, the match state).
    """

    lo: int
    hi: int

    def __post_init__(self) -> None:
        if not 0 <= self.lo <= self.hi <= HIGHEST:
            raise ValueError(f"no tile {self.lo}-{self.hi} in a double-{HIGHEST} set")

    @classmethod
    def parse(cls, text: str) -> Tile:
        """``"3-5"`` (or ``"5-3"``) -> ``Tile(3, 5)``; anything else raises ValueError saying what is allowed."""
        a, sep, b = str(text).strip().partition("-")
        if not sep or not ascii_digits(a.strip()) or not ascii_digits(b.strip()):
            raise ValueError(f"{text!r} is not a tile; write tiles as a-b with numbers 0..{HIGHEST}, e.g. 3-5")
        x, y = int(a), int(b)
        if max(x, y) > HIGHEST:
            raise ValueError(f"{text!r} is not a tile; numbers go from 0 to {HIGHEST}")
        return cls(min(x, y), max(x, y))

    @classmethod
    def from_index(cls, index: int) -> Tile:
        return _TILES[index]

    @property
    def index(self) -> int:
        """The engine's tile index (by high half, then low half: every set is a prefix of the next)."""
        return self.hi * (self.hi + 1) // 2 + self.lo

    def in_set(self, max_number: int) -> bool:
        """Whether this tile belongs to the double-``max_number`` set."""
        return self.hi <= max_number

    @property
    def is_double(self) -> bool:
        return self.lo == self.hi

    @property
    def pips(self) -> int:
        return self.lo + self.hi

    def shows(self, number: int) -> bool:
        return number in (self.lo, self.hi)

    def other_half(self, number: int) -> int:
        """The number left open when this tile is played on an end showing ``number``."""
        return self.hi if number == self.lo else self.lo

    def __str__(self) -> str:
        return f"{self.lo}-{self.hi}"

    def __eq__(self, other: object) -> bool:
        """A tile equals another with the same halves, and its own text (``Tile(3, 5) == "3-5"``), so
        moves can be checked against hands and traces, which hold texts; hashes agree with both."""
        if isinstance(other, Tile):
            return (self.lo, self.hi) == (other.lo, other.hi)
        if isinstance(other, str):
            return str(self) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(str(self))

    def __copy__(self) -> Tile:
        return self  # immutable: a copied game or event shares its tiles

    def __deepcopy__(self, memo: dict) -> Tile:
        return self


#: every tile up to double-eighteen in index order, made once: tiles are values, so all users share them
_TILES = tuple(Tile(int(lo), int(hi)) for lo, hi in zip(TILE_LO, TILE_HI))


def tiles_of_set(max_number: int) -> list[Tile]:
    """The tiles of the double-``max_number`` set in tile-index order (``set_size(max_number)`` of them)."""
    return [Tile.from_index(t) for t in range(set_size(max_number))]


def parse_end(text: str) -> End:
    """``"L"`` -> ``End.L``; the ends' names are the trace format's (L, R, and the spinner's U and D)."""
    try:
        return End[str(text).strip().upper()]
    except KeyError:
        raise ValueError(f"{text!r} is not an end; ends are {', '.join(e.name for e in End)}") from None


@dataclass(frozen=True)
class Move:
    """A tile played on an end; its text is ``"3-5 L"``.  The one move type: traces, the step API
    (:mod:`bergen_sim.services.game`), OpenSpiel and Gymnasium actions.

    Fields are a :class:`Tile` and an :class:`End`; the constructor also takes their texts.

    >>> Move.parse("5-3 r"), Move.parse("5-3 r") == Move("3-5", "R") == Move(Tile(3, 5), End.R)
    (Move('3-5', 'R'), True)
    >>> str(Move("0-6", "l")), Move.parse(str(Move("0-6", "L"))) == Move("0-6", "L")
    ('0-6 L', True)
    >>> Move("0-1", "R").action, str(Move.from_action(5)), str(Move.of(("6-2", "D")))
    (5, '0-1 R', '2-6 D')
    """

    tile: Tile
    end: End

    def __post_init__(self) -> None:
        if not isinstance(self.tile, Tile):
            object.__setattr__(self, "tile", _move_part(Tile.parse, self.tile))
        if not isinstance(self.end, End):
            object.__setattr__(self, "end", _move_part(parse_end, self.end))

    @classmethod
    def parse(cls, text: str) -> Move:
        """``"3-5 L"`` (or ``"5-3 l"``) -> ``Move(3-5, L)``; :class:`MoveError` on anything else."""
        parts = str(text).split()
        if len(parts) != 2:
            raise MoveError(
                tr("a move is a tile and an end, e.g. '3-5 L' (ends: {ends}), not {value}").format(
                    ends=", ".join(e.name for e in End), value=repr(text)
                )
            )
        return cls.of((parts[0], parts[1]))

    @classmethod
    def of(cls, move: Move | str | tuple[Any, Any]) -> Move:
        """A Move from a Move, its text or a ``(tile, end)`` pair."""
        if isinstance(move, Move):
            return move
        if isinstance(move, tuple) and len(move) == 2:
            return cls(*move)
        if isinstance(move, str):
            return cls.parse(move)
        raise MoveError(f"a move is a Move, a text such as '3-5 L' or a (tile, end) pair, not {move!r}")

    @classmethod
    def from_kernel(cls, tile: int, end: int) -> Move:
        return cls(Tile.from_index(int(tile)), End(int(end)))

    def kernel(self) -> tuple[int, int]:
        """(tile index, end code) as the kernel lists moves."""
        return self.tile.index, int(self.end)

    @property
    def action(self) -> int:
        """The move's action number (OpenSpiel, Gymnasium): ``len(End) * tile index + end``."""
        return self.tile.index * len(End) + int(self.end)

    @classmethod
    def from_action(cls, action: int) -> Move:
        """The move an action number stands for (legal or not): ``len(End) * tile + end``.

        A float, a bool, text or a number beyond the largest set's tiles is
        refused (ValueError), never cut or wrapped (-1 is not the last tile).
        """
        most = set_size(MAX_NUMBER) * len(End)
        try:
            number = integer(action)
        except TypeError:
            raise ValueError(
                f"an action is a whole number 0..{most - 1} ({len(End)} x tile + end), not {shown(action)}"
            ) from None
        if not 0 <= number < most:
            raise ValueError(f"an action is 0..{most - 1} ({len(End)} x tile + end), not {short_number(number)}")
        tile, end = divmod(number, len(End))
        return cls.from_kernel(tile, end)

    def __str__(self) -> str:
        return f"{self.tile} {self.end.name}"

    def __repr__(self) -> str:
        return f"Move({str(self.tile)!r}, {self.end.name!r})"

    def __copy__(self) -> Move:
        return self  # immutable, as its tile and end are

    def __deepcopy__(self, memo: dict) -> Move:
        return self


def _move_part(parse, text: Any):
    """A move's tile or end from its text; a :class:`MoveError` (one line) if it is not one."""
    try:
        return parse(text)
    except ValueError as exc:
        raise MoveError(str(exc)) from None


# --- trace events (the bergen-trace format; field order is the format's key order) -----------------
def _text(value: Any) -> Any:
    if isinstance(value, Tile):
        return str(value)
    if isinstance(value, End):
        return value.name
    if isinstance(value, list):
        return [_text(v) for v in value]
    if isinstance(value, dict):  # a match event's rules: a new object, as every list is
        return {key: _text(v) for key, v in value.items()}
    return value


def _tiles(values: Any) -> list[Tile]:
    return [Tile.parse(t) for t in values]


@dataclass(frozen=True)
class TraceEvent:
    """One event of a trace; :meth:`to_dict` gives the format's JSON object, :meth:`from_dict` reads one."""

    TYPE: ClassVar[Event]
    #: field name -> parser of its JSON value (fields not listed are plain JSON values)
    PARSERS: ClassVar[Mapping[str, Any]] = {}

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.TYPE.name.lower()}
        for f in dataclasses.fields(self):
            out[f.name] = _text(getattr(self, f.name))
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TraceEvent:
        kind = EVENT_TYPES.get(str(data.get("type")))
        if kind is None:
            raise ValueError(f"unknown event type {data.get('type')!r}; types are {', '.join(EVENT_TYPES)}")
        names = [f.name for f in dataclasses.fields(kind)]
        missing = [n for n in names if n not in data]
        if missing:
            raise ValueError(f"{data['type']} event lacks {', '.join(missing)}")
        return kind(**{n: kind.PARSERS.get(n, lambda v: v)(data[n]) for n in names})


@dataclass(frozen=True)
class MatchEvent(TraceEvent):
    TYPE: ClassVar[Event] = Event.MATCH
    format: str
    match: int
    rules: dict
    policies: list
    seed: int


@dataclass(frozen=True)
class DealEvent(TraceEvent):
    TYPE: ClassVar[Event] = Event.DEAL
    PARSERS: ClassVar[Mapping[str, Any]] = {
        "hands": lambda v: [_tiles(h) for h in v],
        "boneyard": lambda v: None if v is None else _tiles(v),  # None: the order was decided draw by draw
    }
    hand: int
    hands: list
    boneyard: list | None


@dataclass(frozen=True)
class RedealEvent(TraceEvent):
    TYPE: ClassVar[Event] = Event.REDEAL
    hand: int


@dataclass(frozen=True)
class LeadEvent(TraceEvent):
    TYPE: ClassVar[Event] = Event.LEAD
    PARSERS: ClassVar[Mapping[str, Any]] = {"tile": Tile.parse}
    seat: int
    tile: Tile
    points: int
    score: list


@dataclass(frozen=True)
class DrawEvent(TraceEvent):
    TYPE: ClassVar[Event] = Event.DRAW
    PARSERS: ClassVar[Mapping[str, Any]] = {"tile": Tile.parse}
    seat: int
    tile: Tile


@dataclass(frozen=True)
class PlayEvent(TraceEvent):
    TYPE: ClassVar[Event] = Event.PLAY
    PARSERS: ClassVar[Mapping[str, Any]] = {"tile": Tile.parse, "end": parse_end}
    seat: int
    tile: Tile
    end: End
    points: int
    score: list

    @property
    def move(self) -> Move:
        return Move(self.tile, self.end)


@dataclass(frozen=True)
class PassEvent(TraceEvent):
    TYPE: ClassVar[Event] = Event.PASS
    seat: int


@dataclass(frozen=True)
class OutEvent(TraceEvent):
    TYPE: ClassVar[Event] = Event.OUT
    seat: int
    points: int
    score: list


@dataclass(frozen=True)
class BlockedEvent(TraceEvent):
    TYPE: ClassVar[Event] = Event.BLOCKED
    winner: int | None  # the winning side, None when nobody wins the settlement
    points: int
    score: list


@dataclass(frozen=True)
class MatchEndEvent(TraceEvent):
    TYPE: ClassVar[Event] = Event.MATCH_END
    winner: int
    score: list


#: the format's ``type`` -> event class
EVENT_TYPES: dict[str, type[TraceEvent]] = {
    cls.TYPE.name.lower(): cls
    for cls in (
        MatchEvent,
        DealEvent,
        RedealEvent,
        LeadEvent,
        DrawEvent,
        PlayEvent,
        PassEvent,
        OutEvent,
        BlockedEvent,
        MatchEndEvent,
    )
}


def parse_event(data: Mapping[str, Any]) -> TraceEvent:
    """A trace event object from its JSON object (ValueError naming what is wrong)."""
    return TraceEvent.from_dict(data)
