"""The engine's data layout, declared in one place.

Everything the compiled engine touches is a plain integer or a NumPy array of
integers.  Each ``int64`` vector is *declared* here once, as a
:class:`Vector` of :class:`Field` (name, width, meaning); from that
declaration come the offsets the kernels use (module constants such as
``H_PLAYS``, which Numba freezes into the machine code), the Python decoders
(:meth:`Vector.decode`, :meth:`Vector.named`), DataFrame columns
(:meth:`Vector.columns`) and summary keys.  Widths derive from
:data:`MAX_SEATS`, :data:`N_ENDS`, :data:`SET_WORDS` and :data:`MAX_TILES`, so
a larger game changes them in one place.  Codes (events, ends, leads,
settlements, how a hand ended, kernel errors) are ``IntEnum`` classes, which
compiled code reads as constants; ``EV_PLAY``, ``END_L`` ... are the same
members under the names the kernels use.

Tiles and hands
---------------
A double-N set has the tiles ``a-b`` with ``0 <= a <= b <= N``.  Tile index
``t`` orders every tile up to double-eighteen by its high half, then its low
half (``t = b * (b + 1) / 2 + a``)::

    0:0-0  1:0-1  2:1-1  3:0-2  4:1-2  5:2-2  6:0-3 ... 27:6-6 ... 54:9-9 ... 189:18-18

so every set is a prefix of the next: double-six is tiles 0..27, double-nine
0..54, double-twelve 0..90, double-fifteen 0..135, double-eighteen 0..189, and
one table of halves, pips and names serves them all.

A *hand* (or any set of tiles) is a bitmask with bit ``t`` set when tile
``t`` is in it: one ``int64`` for sets of up to 64 tiles (double-six,
double-nine), three words for the larger ones; :mod:`bergen_sim.engine.tileset`
holds the operations for both widths, and in a vector a set takes
``SET_WORDS`` slots.  ``NUMBER_TILES[n]`` is the set of tiles showing ``n`` on
either half, so the playable tiles of a hand are the hand and the union of
the open ends' ``NUMBER_TILES``.

Rules vector (``R_*``)
----------------------
:class:`bergen_sim.model.rules.Rules` becomes an ``int64`` vector of length
``R_SIZE`` for the kernel (enumerations as the ``LEAD_*`` / ``SETTLE_*`` codes).

Policy view (``V_*``)
---------------------
An ``int64`` vector the kernel maintains incrementally and hands to a policy.
It holds exactly what the deciding seat may know (see ``docs/policies.md``):
its own hand, the ends, every played tile and who played it, scores, hand
sizes, the boneyard size and, per seat, the numbers it is known to be void in
plus a log of the moments it drew or passed.  It never holds another hand or
the boneyard order.

Moves
-----
A legal move is ``(tile, end)`` with ``end`` ``END_L`` (0), ``END_R`` (1) or,
once the spinner's arms are open, ``END_U`` (2), ``END_D`` (3).  The kernel
lists them in two arrays ordered by tile index, then end; a tile that fits
two ends is listed once per end.  A lead choice (``lead = any-double``) lists
the leader's doubles with end ``LEAD_CHOICE`` (-1, in play_rules.py).

Trace rows (``T_*``)
--------------------
When tracing, the kernel appends one ``int64`` row of width ``T_WIDTH`` per
event; :mod:`bergen_sim.services.files.trace` turns them into ``bergen-trace/2`` JSON.  A deal
row carries the whole deal (hands in seat order, then the boneyard) in
columns ``T_DEAL ...``.

Totals (``S_*``), match rows (``M_*``) and hand rows (``H_*``)
----------------------------------------------------------------
Counters summed over a run (integers, so chunked runs merge exactly), one row
per match and, when asked, one row per hand with the hand's end state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import IntEnum
from typing import Any, NamedTuple

import numpy as np

# --- tiles ------------------------------------------------------------------
#: the largest set the rule book names is double-eighteen
MAX_NUMBER = 18
#: every tile up to double-eighteen, in index order (see "Tiles and hands")
MAX_TILES = (MAX_NUMBER + 1) * (MAX_NUMBER + 2) // 2
#: the domino sets by name: the highest number on a tile
DOMINO_SETS = {"double-six": 6, "double-nine": 9, "double-twelve": 12, "double-fifteen": 15, "double-eighteen": 18}


def set_size(max_number: int) -> int:
    """Tiles in a double-``max_number`` set (its tiles are indices ``0 .. set_size - 1``)."""
    return (max_number + 1) * (max_number + 2) // 2


#: seats at the table, at most
MAX_SEATS = 8
#: int64 words a set of tiles takes in a vector (a hand, the played tiles): enough for 190 tiles.
#: Compiled code holds a set as one int64 (sets of up to 64 tiles: double-six, double-nine) or a
#: tuple of SET_WORDS int64 (larger sets); see :mod:`bergen_sim.engine.tileset`.
SET_WORDS = (MAX_TILES + 63) // 64
#: the double-six set of the first rule book (the shapes of the step API's observations)
N_TILES = set_size(6)
N_NUMBERS = 7

TILE_LO = np.array([a for b in range(MAX_NUMBER + 1) for a in range(b + 1)], dtype=np.int64)
TILE_HI = np.array([b for b in range(MAX_NUMBER + 1) for a in range(b + 1)], dtype=np.int64)
TILE_PIPS = TILE_LO + TILE_HI
#: 1 for a double, 0 otherwise: the one test of a double, for compiled and plain code alike
TILE_IS_DOUBLE = (TILE_LO == TILE_HI).astype(np.int64)


def seat_side(seat, partnerships):
    """The side ``seat`` scores for: with partnerships seats 0, 2, ... play against 1, 3, ...; else each seat is
    a side.  Plain Python (also on arrays of seats); ``engine/sides.py`` compiles it for the kernels."""
    return seat % 2 if partnerships else seat


def side_total(players, partnerships):
    """How many sides a table of ``players`` has."""
    return 2 if partnerships else players


TILE_NAMES = tuple(f"{a}-{b}" for a, b in zip(TILE_LO.tolist(), TILE_HI.tolist()))
TILE_INDEX = {name: t for t, name in enumerate(TILE_NAMES)}
#: tile index of the double ``n-n``
DOUBLE_TILE = np.array([TILE_INDEX[f"{n}-{n}"] for n in range(MAX_NUMBER + 1)], dtype=np.int64)
#: NUMBER_TILES[n]: the tiles showing n on either half, as SET_WORDS words (bit t of word t // 64)
NUMBER_TILES = np.array(
    [
        [
            sum(1 << (t % 64) for t in range(MAX_TILES) if t // 64 == w and n in (TILE_LO[t], TILE_HI[t]))
            for w in range(SET_WORDS)
        ]
        for n in range(MAX_NUMBER + 1)
    ],
    dtype=np.uint64,
).view(np.int64)
#: every double, as SET_WORDS words
DOUBLE_TILES = np.array(
    [sum(1 << (int(t) % 64) for t in DOUBLE_TILE if int(t) // 64 == w) for w in range(SET_WORDS)], dtype=np.uint64
).view(np.int64)
#: NUMBER_MASK[n]: the tiles showing n among tiles 0..63, one word (one-word sets: up to double-nine)
NUMBER_MASK = NUMBER_TILES[:, 0].copy()
#: TILE_AT[a, b]: index of the tile showing a and b (either order)
TILE_AT = np.array(
    [[TILE_INDEX[f"{min(a, b)}-{max(a, b)}"] for b in range(MAX_NUMBER + 1)] for a in range(MAX_NUMBER + 1)],
    dtype=np.int64,
)


# --- codes ------------------------------------------------------------------
class End(IntEnum):
    """An open end of the line; its name is how traces and moves write it."""

    L = 0
    R = 1
    U = 2  # the spinner's up and down arms (spinner on)
    D = 3


class Lead(IntEnum):
    """Which double leads a hand (the ``lead`` setting)."""

    LOWEST_DOUBLE = 0
    HIGHEST_DOUBLE = 1
    ANY_DOUBLE = 2  # the first seat from the opening seat that holds a double leads one of its choice


class Settlement(IntEnum):
    """How a blocked hand is settled (the ``settlement`` setting)."""

    GERMAN = 0
    PIPS = 1
    AMERICAN = 2


class Event(IntEnum):
    """Type of a trace row (and of a ``bergen-trace`` event: the lower-case name)."""

    MATCH = 0
    DEAL = 1
    REDEAL = 2
    LEAD = 3
    DRAW = 4
    PLAY = 5
    PASS = 6
    OUT = 7
    BLOCKED = 8
    MATCH_END = 9


class HandEnd(IntEnum):
    """How a hand ended (hand rows' ``end``)."""

    OUT = 0  # a seat went out
    BLOCKED = 1  # every seat passed in turn: settled
    CUT = 2  # the match ended inside the hand (a side reached the target)


class KernelError(IntEnum):
    """Why a kernel call stopped early (error slot ``code``)."""

    NONE = 0
    ILLEGAL_CHOICE = 1  # a policy returned an index outside the legal moves
    SCRIPT = 2  # a replayed move is not legal in the replayed position
    SCRIPT_SHORT = 3  # the replay script ran out of moves
    DEALS_SHORT = 4  # the given deals ran out
    TRACE_FULL = 5  # the trace buffer is too small


def code_name(code: IntEnum) -> str:
    """The text form of a code in traces and settings: ``Lead.LOWEST_DOUBLE`` -> ``lowest-double``."""
    return code.name.lower().replace("_", "-") if isinstance(code, Lead) else code.name.lower()


N_ENDS = len(End)
END_NAMES = tuple(e.name for e in End)
LEAD_NAMES = tuple(code_name(c) for c in Lead)
SETTLEMENT_NAMES = tuple(code_name(c) for c in Settlement)
EVENT_NAMES = tuple(code_name(c) for c in Event)
#: the names the kernels use for the codes: END_L, SETTLE_GERMAN, EV_PLAY, HAND_OUT, ERR_SCRIPT ...
#: (written out in the generated block at the end of this module)
CODE_ALIASES = {"END": End, "SETTLE": Settlement, "EV": Event, "HAND": HandEnd, "ERR": KernelError}
LEAD_LOWEST = Lead.LOWEST_DOUBLE
LEAD_HIGHEST = Lead.HIGHEST_DOUBLE
LEAD_ANY_DOUBLE = Lead.ANY_DOUBLE

#: slots of the move arrays: a seat has at most N_ENDS * MAX_NUMBER legal moves (an open end's number shows on a
#: tile on the table, so a hand holds at most MAX_NUMBER of the MAX_NUMBER + 1 tiles showing it), and
#: play_rules.legal_moves writes one slot past the moves it lists: both fit
MAX_MOVES = N_ENDS * (MAX_NUMBER + 1)


# --- vector declarations ----------------------------------------------------
class Field(NamedTuple):
    """One named run of slots in an ``int64`` vector."""

    name: str  # lower_snake: the column / summary key; the kernels' constant is PREFIX_NAME
    width: int = 1  # slots; a field wider than 1 is indexed by what ``per`` names
    meaning: str = ""
    per: str = ""  # what the slots count: "seat", "side", "end", "word", ...
    group: str = ""  # fields reported together (the run summary's plain "count"s and "points" by source)


class Vector:
    """An ``int64`` vector's layout: fields in order, offsets counted from their widths.

    >>> v = Vector("X", [Field("a"), Field("b", 3, per="seat"), Field("c")])
    >>> v.offset("c"), v.size, v.constants()["X_B"]
    (4, 5, 1)
    >>> v.decode([7, 1, 2, 3, 9], widths={"b": 2})
    {'a': 7, 'b': [1, 2], 'c': 9}
    """

    def __init__(self, prefix: str, fields: Sequence[Field], size_name: str | None = None, title: str = ""):
        self.prefix = prefix
        self.title = title
        self.fields = tuple(fields)
        self.size_name = size_name or f"{prefix}_SIZE"
        self._offsets: dict[str, int] = {}
        at = 0
        for field in self.fields:
            if field.name in self._offsets:
                raise ValueError(f"{prefix}: field {field.name!r} declared twice")
            self._offsets[field.name] = at
            at += field.width
        self.size = at

    def offset(self, name: str) -> int:
        return self._offsets[name]

    def field(self, name: str) -> Field:
        return self.fields[list(self._offsets).index(name)]

    def names(self, group: str | None = None) -> list[str]:
        """Field names in order; only those of ``group`` when given."""
        return [f.name for f in self.fields if group is None or f.group == group]

    def slots(self, name: str) -> slice:
        """The slots of field ``name`` as a slice."""
        at = self._offsets[name]
        return slice(at, at + self.field(name).width)

    def constants(self) -> dict[str, int]:
        """The kernels' names for the offsets (``PREFIX_NAME``) and for the size."""
        out = {f"{self.prefix}_{f.name.upper()}": self._offsets[f.name] for f in self.fields}
        out[self.size_name] = self.size
        return out

    def column_names(self, widths: Mapping[str, int] | None = None) -> list[str]:
        """Flat column names in field order; a wide field ``x`` gives ``x_0``, ``x_1`` ... (``widths`` may cut it)."""
        widths = widths or {}
        names = []
        for f in self.fields:
            if f.width == 1:
                names.append(f.name)
            else:
                names.extend(f"{f.name}_{i}" for i in range(widths.get(f.name, f.width)))
        return names

    def columns(
        self, rows: np.ndarray, widths: Mapping[str, int] | None = None, fields: Sequence[str] | None = None
    ) -> dict[str, np.ndarray]:
        """Rows of this layout as named columns (views, no copies), for a DataFrame."""
        widths = widths or {}
        out: dict[str, np.ndarray] = {}
        for f in self.fields:
            if fields is not None and f.name not in fields:
                continue
            at = self._offsets[f.name]
            if f.width == 1:
                out[f.name] = rows[:, at]
            else:
                for i in range(widths.get(f.name, f.width)):
                    out[f"{f.name}_{i}"] = rows[:, at + i]
        return out

    def decode(self, vector, widths: Mapping[str, int] | None = None) -> dict[str, Any]:
        """One vector as Python ints by field name; a wide field is a list of ints (``widths`` may cut it)."""
        widths = widths or {}
        out: dict[str, Any] = {}
        for f in self.fields:
            at = self._offsets[f.name]
            if f.width == 1:
                out[f.name] = int(vector[at])
            else:
                out[f.name] = [int(x) for x in vector[at : at + widths.get(f.name, f.width)]]
        return out

    def named(self, array: np.ndarray) -> Named:
        """Field access by name on a vector or on rows of this layout: ``named["plays"]``."""
        return Named(self, array)

    def describe(self) -> str:
        """The layout as a Markdown table (offset, name, width, meaning)."""
        lines = [f"| offset | {self.prefix}_ | width | meaning |", "|---|---|---|---|"]
        for f in self.fields:
            width = f"{f.width}" + (f" (per {f.per})" if f.per else "")
            lines.append(f"| {self._offsets[f.name]} | {f.name} | {width} | {f.meaning} |")
        return "\n".join(lines)


class Named:
    """A vector (1-D) or rows (2-D) read by field name; a wide field gives its slots, a narrow one its value."""

    def __init__(self, layout: Vector, array: np.ndarray):
        if array.shape[-1] != layout.size:
            raise ValueError(f"{layout.prefix} rows have {layout.size} slots, not {array.shape[-1]}")
        self.layout = layout
        self.array = array

    def __getitem__(self, name: str) -> np.ndarray:
        f = self.layout.field(name)
        at = self.layout.offset(name)
        return self.array[..., at] if f.width == 1 else self.array[..., at : at + f.width]

    def __len__(self) -> int:
        return self.array.shape[0] if self.array.ndim == 2 else 1


RULES = Vector(
    "R",
    [
        Field("players", meaning="seats at the table"),
        Field("partnerships", meaning="1 when 4 players form two sides (seats 0+2, 1+3)"),
        Field("hand_size"),
        Field("target", meaning="points that win the match"),
        Field("lead", meaning="a Lead code"),
        Field("settlement", meaning="a Settlement code"),
        Field("blocked_points"),
        Field("out_points"),
        Field("reserve", meaning="boneyard tiles that are never drawn"),
        Field("reduced", meaning="1 with the near-target cut of headers"),
        Field("max_number", meaning="the set's highest number (6 for double-six ... 18 for double-eighteen)"),
        Field("n_tiles", meaning="tiles in the set: indices 0 .. n_tiles - 1"),
        Field("spinner", meaning="1 when the led double is a spinner (four arms)"),
    ],
    title="rules",
)

#: entries of the policy view's draw/pass log (one per moment a seat drew or passed)
LOG_ENTRY = Vector(
    "LOG",
    [
        Field("seat"),
        Field("numbers", meaning="bit n set when an open end showed n at that moment (it held none of them)"),
        Field("drawn", meaning="tiles drawn at that moment"),
    ],
    title="draw/pass log entry",
)
#: moments kept per hand; later ones are dropped (a policy then knows a little less, never wrong)
V_LOG_CAPACITY = 256
#: entries of the policy view's play log: every tile put down this hand, in order, the led double first
PLAY_ENTRY = Vector(
    "PLAY",
    [
        Field("seat"),
        Field("tile"),
        Field("end", meaning="an End code (the lead: END_L)"),
        Field("moments", meaning="draw/pass moments logged before this play (V_LOG_N then)"),
    ],
    title="play log entry",
)

VIEW = Vector(
    "V",
    [
        Field("seat", meaning="the deciding seat"),
        Field("side", meaning="its side"),
        Field("players"),
        Field("partnerships"),
        Field("target"),
        Field("reserve", meaning="boneyard tiles that are never drawn"),
        Field("max_number", meaning="the set's highest number"),
        Field("n_tiles", meaning="tiles in the set"),
        Field("hand", SET_WORDS, "the deciding seat's own hand (bitmask, word w holds tiles 64w ..)", per="word"),
        Field(
            "end", N_ENDS, "number showing on each end (End order); an empty open arm shows the spinner's", per="end"
        ),
        Field("end_double", N_ENDS, "1 when that end is a double end", per="end"),
        Field("end_tiles", N_ENDS, "tiles played on that end (arm) this hand", per="end"),
        Field(
            "open_ends", meaning="ends a tile may be played on: 2 (L, R) or 4 (L, R, U, D once the spinner's arms open)"
        ),
        Field("counting", meaning="bit e set when end e counts for headers (L, R; U, D once a tile lies on them)"),
        Field("spinner", meaning="number of the led double when it is a spinner, else -1"),
        Field("played", SET_WORDS, "bitmask of every tile on the table (the lead included)", per="word"),
        Field("boneyard", meaning="tiles left in the boneyard"),
        Field("hand_no", meaning="hand number in the match (1-based)"),
        Field("play_no", meaning="plays after the lead so far in this hand"),
        Field("leader", meaning="seat that led this hand"),
        Field("out_points"),
        Field("blocked_points"),
        Field("settlement"),
        Field("reduced"),
        Field("score", MAX_SEATS, "side scores", per="side"),
        Field(
            "played_by", MAX_SEATS, "the tiles that seat has played this hand (bitmask; word 0 of its set)", per="seat"
        ),
        Field(
            "played_by_high",
            MAX_SEATS * (SET_WORDS - 1),
            "words 1.. of each seat's played set (three-word sets)",
            per="seat and word",
        ),
        Field("hand_count", MAX_SEATS, "tiles in that seat's hand", per="seat"),
        Field("void", MAX_SEATS, "mask of numbers (bit n) that seat surely holds none of now", per="seat"),
        Field("plays_n", meaning="entries in the play log this hand (the lead included)"),
        Field("plays", PLAY_ENTRY.size * MAX_TILES, "the play log (PLAY_ENTRY each)", per="entry slot"),
        Field("log_n", meaning="number of draw/pass moments logged this hand"),
        Field("log", LOG_ENTRY.size * V_LOG_CAPACITY, "the draw/pass log (LOG_ENTRY each)", per="entry slot"),
    ],
    title="policy view",
)

TRACE = Vector(
    "T",
    [
        Field("type", meaning="an Event code"),
        Field("match"),
        Field("hand"),
        Field("seat"),
        Field("tile"),
        Field("end", meaning="an End code"),
        Field("points"),
        Field("winner", meaning="side, or -1 for none"),
        Field("score", MAX_SEATS, "side scores after the event", per="side"),
        Field("deal", MAX_TILES, "a deal's tiles: hands in seat order, then the boneyard (n_tiles used)", per="tile"),
    ],
    size_name="T_WIDTH",
    title="trace row",
)

MAX_PLAY_NO = 28
TOTALS = Vector(
    "S",
    [
        Field("matches", group="count"),
        Field("hands", group="count"),
        Field("redeals", group="count"),
        Field("plays", group="count"),
        Field("draws", group="count"),
        Field("passes", group="count"),
        Field("double_headers", group="count"),
        Field("triple_headers", group="count"),
        Field("blocked_hands", group="count"),
        Field("out_hands", group="count"),
        Field("points_lead", meaning="points scored by leading a double", group="points"),
        Field("points_header", meaning="points scored by headers", group="points"),
        Field("points_out", meaning="points scored by going out", group="points"),
        Field("points_blocked", meaning="points won in blocked settlements", group="points"),
        Field("decided_hands"),
        Field("leader_side_wins", meaning="decided hands won by the leader's side"),
        Field("match_wins", MAX_SEATS, "matches won", per="side"),
        Field("policy_calls"),
        # per-match sums for intervals with the match as the unit (hands are clustered in matches):
        # stats.ratio_interval of x per y needs sums over matches of x^2, y^2 and x*y
        Field("double_headers_sq", meaning="sum over matches of (double headers in the match)^2"),
        Field("triple_headers_sq", meaning="sum over matches of (triple headers in the match)^2"),
        Field("hands_sq", meaning="sum over matches of (hands in the match)^2"),
        Field("double_headers_hands", meaning="sum over matches of double headers x hands in the match"),
        Field("triple_headers_hands", meaning="sum over matches of triple headers x hands in the match"),
        Field("leader_side_wins_sq", meaning="sum over matches of (decided hands the leader's side won)^2"),
        Field("decided_hands_sq", meaning="sum over matches of (decided hands in the match)^2"),
        Field("leader_side_wins_decided", meaning="sum over matches of leader-side wins x decided hands"),
        Field(
            "headers_by_play",
            2 * (MAX_PLAY_NO + 1),
            "+ 2*p + k: headers of kind k (0 double, 1 triple) on play p (1-based, capped)",
            per="play and kind",
        ),
    ],
    title="run totals",
)

MATCH_ROW = Vector(
    "M",
    [
        Field("match"),
        Field("winner"),
        Field("score", MAX_SEATS, "final scores, -1 for sides that do not exist", per="side"),
        Field("hands"),
        Field("redeals"),
        Field("first_leader"),
        Field("double_headers"),
        Field("triple_headers"),
        Field("plays"),
        Field("draws"),
        Field("blocked_hands"),
        Field("decided_hands", meaning="hands won by a side (out or a settlement)"),
        Field("leader_side_wins", meaning="decided hands won by the leader's side"),
    ],
    size_name="M_WIDTH",
    title="match row",
)

HAND_ROW = Vector(
    "H",
    [
        Field("match"),
        Field("hand"),
        Field("leader"),
        Field("led_double", meaning="the number of the led double"),
        Field("end", meaning="a HandEnd code"),
        Field("winner", meaning="side that went out or won the settlement, -1 for none"),
        Field(
            "seat_points",
            MAX_SEATS,
            "points of that seat's lead, headers and going out (a settlement's go to side winner)",
            per="seat",
        ),
        Field("double_headers"),
        Field("triple_headers"),
        Field("plays"),
        Field("draws"),
        Field("passes"),
        Field("redeals"),
        Field("side_doubles", MAX_SEATS, "doubles left in the side's hands at the end", per="side"),
        Field("side_pips", MAX_SEATS, "pips left, doubles included", per="side"),
        Field("side_plain_pips", MAX_SEATS, "pips left on non-double tiles", per="side"),
        Field("score_before", MAX_SEATS, "scores when the hand was dealt", per="side"),
    ],
    size_name="H_WIDTH",
    title="hand row",
)

ERROR = Vector(
    "E",
    [
        Field("code", meaning="a KernelError code"),
        Field("match"),
        Field("seat"),
        Field("policy"),
        Field("choice"),
        Field("n_moves"),
        Field("hand", SET_WORDS, "the seat's hand", per="word"),
        Field("end", N_ENDS, "the ends' numbers", per="end"),
    ],
    title="kernel error slots",
)

#: what the hand steps (engine/hand.py) read besides the view; the seat to move and the next
#: boneyard position travel as arguments and results, so the hot loop keeps them in registers
TURN = Vector(
    "TURN",
    [
        Field("bone_start", meaning="position of the first boneyard tile in the tile source (set by start_hand)"),
        Field("bone_stop", meaning="drawing stops at this position (the reserve stays)"),
        Field("match", meaning="match number, for trace rows"),
        Field("tracing", meaning="1 to append trace rows"),
        Field(
            "rules_view",
            meaning="1 when no policy reads the view: the hand steps keep only the slots the rules read "
            "(ends, counting, spinner, scores, hand number)",
        ),
    ],
    title="turn state",
)

#: counters of a kernel call
COUNTERS = Vector(
    "C",
    [
        Field("script", meaning="next row of the replay script"),
        Field("trace", meaning="trace rows written (or that would have been)"),
        Field("deal", meaning="next given deal"),
    ],
    title="kernel counters",
)

VECTORS = (RULES, LOG_ENTRY, PLAY_ENTRY, VIEW, TRACE, TOTALS, MATCH_ROW, HAND_ROW, ERROR, TURN, COUNTERS)


GENERATED_START = "# --- generated from the declarations above by tools/generate_constants.py; do not edit ---"
GENERATED_END = "# --- end of generated constants ---"


def generated_constants(vectors: Sequence[Vector], aliases: Mapping[str, type[IntEnum]] | None = None) -> str:
    """The block of plain assignments that names every offset and size of ``vectors`` and every code alias.

    Written out in the source (not made with ``globals().update``) so readers,
    linters and type checkers find every ``V_*``, ``H_*``, ``EV_*`` name;
    ``tests/engine/test_layout.py`` checks each block against its declarations.
    """
    lines = [GENERATED_START]
    for prefix, enum in (aliases or {}).items():
        lines += [f"{prefix}_{member.name} = {enum.__name__}.{member.name}" for member in enum]
    for vector in vectors:
        lines += [f"{name} = {value}" for name, value in vector.constants().items()]
    return "\n".join([*lines, GENERATED_END])


# --- generated from the declarations above by tools/generate_constants.py; do not edit ---
END_L = End.L
END_R = End.R
END_U = End.U
END_D = End.D
SETTLE_GERMAN = Settlement.GERMAN
SETTLE_PIPS = Settlement.PIPS
SETTLE_AMERICAN = Settlement.AMERICAN
EV_MATCH = Event.MATCH
EV_DEAL = Event.DEAL
EV_REDEAL = Event.REDEAL
EV_LEAD = Event.LEAD
EV_DRAW = Event.DRAW
EV_PLAY = Event.PLAY
EV_PASS = Event.PASS
EV_OUT = Event.OUT
EV_BLOCKED = Event.BLOCKED
EV_MATCH_END = Event.MATCH_END
HAND_OUT = HandEnd.OUT
HAND_BLOCKED = HandEnd.BLOCKED
HAND_CUT = HandEnd.CUT
ERR_NONE = KernelError.NONE
ERR_ILLEGAL_CHOICE = KernelError.ILLEGAL_CHOICE
ERR_SCRIPT = KernelError.SCRIPT
ERR_SCRIPT_SHORT = KernelError.SCRIPT_SHORT
ERR_DEALS_SHORT = KernelError.DEALS_SHORT
ERR_TRACE_FULL = KernelError.TRACE_FULL
R_PLAYERS = 0
R_PARTNERSHIPS = 1
R_HAND_SIZE = 2
R_TARGET = 3
R_LEAD = 4
R_SETTLEMENT = 5
R_BLOCKED_POINTS = 6
R_OUT_POINTS = 7
R_RESERVE = 8
R_REDUCED = 9
R_MAX_NUMBER = 10
R_N_TILES = 11
R_SPINNER = 12
R_SIZE = 13
LOG_SEAT = 0
LOG_NUMBERS = 1
LOG_DRAWN = 2
LOG_SIZE = 3
PLAY_SEAT = 0
PLAY_TILE = 1
PLAY_END = 2
PLAY_MOMENTS = 3
PLAY_SIZE = 4
V_SEAT = 0
V_SIDE = 1
V_PLAYERS = 2
V_PARTNERSHIPS = 3
V_TARGET = 4
V_RESERVE = 5
V_MAX_NUMBER = 6
V_N_TILES = 7
V_HAND = 8
V_END = 11
V_END_DOUBLE = 15
V_END_TILES = 19
V_OPEN_ENDS = 23
V_COUNTING = 24
V_SPINNER = 25
V_PLAYED = 26
V_BONEYARD = 29
V_HAND_NO = 30
V_PLAY_NO = 31
V_LEADER = 32
V_OUT_POINTS = 33
V_BLOCKED_POINTS = 34
V_SETTLEMENT = 35
V_REDUCED = 36
V_SCORE = 37
V_PLAYED_BY = 45
V_PLAYED_BY_HIGH = 53
V_HAND_COUNT = 69
V_VOID = 77
V_PLAYS_N = 85
V_PLAYS = 86
V_LOG_N = 846
V_LOG = 847
V_SIZE = 1615
T_TYPE = 0
T_MATCH = 1
T_HAND = 2
T_SEAT = 3
T_TILE = 4
T_END = 5
T_POINTS = 6
T_WINNER = 7
T_SCORE = 8
T_DEAL = 16
T_WIDTH = 206
S_MATCHES = 0
S_HANDS = 1
S_REDEALS = 2
S_PLAYS = 3
S_DRAWS = 4
S_PASSES = 5
S_DOUBLE_HEADERS = 6
S_TRIPLE_HEADERS = 7
S_BLOCKED_HANDS = 8
S_OUT_HANDS = 9
S_POINTS_LEAD = 10
S_POINTS_HEADER = 11
S_POINTS_OUT = 12
S_POINTS_BLOCKED = 13
S_DECIDED_HANDS = 14
S_LEADER_SIDE_WINS = 15
S_MATCH_WINS = 16
S_POLICY_CALLS = 24
S_DOUBLE_HEADERS_SQ = 25
S_TRIPLE_HEADERS_SQ = 26
S_HANDS_SQ = 27
S_DOUBLE_HEADERS_HANDS = 28
S_TRIPLE_HEADERS_HANDS = 29
S_LEADER_SIDE_WINS_SQ = 30
S_DECIDED_HANDS_SQ = 31
S_LEADER_SIDE_WINS_DECIDED = 32
S_HEADERS_BY_PLAY = 33
S_SIZE = 91
M_MATCH = 0
M_WINNER = 1
M_SCORE = 2
M_HANDS = 10
M_REDEALS = 11
M_FIRST_LEADER = 12
M_DOUBLE_HEADERS = 13
M_TRIPLE_HEADERS = 14
M_PLAYS = 15
M_DRAWS = 16
M_BLOCKED_HANDS = 17
M_DECIDED_HANDS = 18
M_LEADER_SIDE_WINS = 19
M_WIDTH = 20
H_MATCH = 0
H_HAND = 1
H_LEADER = 2
H_LED_DOUBLE = 3
H_END = 4
H_WINNER = 5
H_SEAT_POINTS = 6
H_DOUBLE_HEADERS = 14
H_TRIPLE_HEADERS = 15
H_PLAYS = 16
H_DRAWS = 17
H_PASSES = 18
H_REDEALS = 19
H_SIDE_DOUBLES = 20
H_SIDE_PIPS = 28
H_SIDE_PLAIN_PIPS = 36
H_SCORE_BEFORE = 44
H_WIDTH = 52
E_CODE = 0
E_MATCH = 1
E_SEAT = 2
E_POLICY = 3
E_CHOICE = 4
E_N_MOVES = 5
E_HAND = 6
E_END = 9
E_SIZE = 13
TURN_BONE_START = 0
TURN_BONE_STOP = 1
TURN_MATCH = 2
TURN_TRACING = 3
TURN_RULES_VIEW = 4
TURN_SIZE = 5
C_SCRIPT = 0
C_TRACE = 1
C_DEAL = 2
C_SIZE = 3
# --- end of generated constants ---
#: the two ends under their old names (the line has a left and a right end)
V_LEFT = V_END + End.L
V_RIGHT = V_END + End.R
V_LEFT_DOUBLE = V_END_DOUBLE + End.L
V_RIGHT_DOUBLE = V_END_DOUBLE + End.R


def tile_mask(names) -> int:
    """Bitmask of the named tiles as a Python int (``["0-0", "3-5"]`` -> ``0b...``; bit t for tile t)."""
    mask = 0
    for name in names:
        mask |= 1 << TILE_INDEX[name]
    return mask


def mask_tiles(mask: int) -> list[str]:
    """Names of the tiles in a bitmask (a Python int), in tile-index order."""
    return [TILE_NAMES[t] for t in range(MAX_TILES) if mask >> t & 1]
