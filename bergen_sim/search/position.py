"""``analyze``: rank every legal move of a position by its match-win chance (a rollout tool).

The user describes what one seat knows: its hand, the ends of the line and
their double flags, the tiles on the table (optionally who played them), the
other seats' hand counts, the boneyard size, the scores and any numbers a
seat is known to be void in.  :func:`analyze` plays every legal move out in
sampled worlds with the search code of a player (``player``): by default the
tree search of the one that measured best against ``pimc``, ``ismcts.STEERED``'s raced root
without the race (:func:`bergen_sim.search.ismcts.evaluate_worlds`: each move
walks its own subtree in every world), because that player wins more than
``reader`` at the same cost per decision (docs/policies.md); or the
``reader`` policy's (:func:`bergen_sim.search.reader.evaluate_worlds`), or
``pimc``'s (:func:`bergen_sim.search.pimc.evaluate_worlds`).  ``ismcts`` and
``reader`` keep worlds in proportion to the other seats' plays read with
``expert``'s model, ``reader.STRONGEST``, when given a game's view, which
holds the order of the plays; a described position does not, and its worlds
are pimc's uniform ones.  Every way, the same worlds and the same rollout
randomness meet every move.  It samples in batches, until the best move is
separated from every other or the world budget is spent, and reports each
move's match-win probability and expected points with 95% intervals.

Separation: at a few looks (the first batch to reach 100 worlds, then
each time the worlds done have doubled, and at the budget) the paired
differences between the leading move and every other (one per world, common
random numbers) must have a lower confidence bound above 0.  Each look tests
at 5% divided by the number of looks and of pairs of moves (Bonferroni over
both), so with moves of equal value the analysis calls one of them
separated at most 5% of the time however many looks it takes
(``tests/search/test_analyze_stopping.py`` measures it).  A move whose outcome
equals the leader's in every world so far
(e.g. the same tile on either end of a ``d|d`` line) cannot be separated and
is reported as a tie.  Batches are a fixed size and worlds are keyed by
(seed, world), so a given seed always gives the same numbers.

A position that no game can reach (a tile in two places, counts that do not
add up to 28, ends the played tiles cannot show, voids no deal can satisfy)
raises :class:`PositionError` with a one-line reason.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

import numpy as np

from bergen_sim.core import feedback, stats
from bergen_sim.core.compile_cache import in_disk_cache
from bergen_sim.core.display import ci, html_card
from bergen_sim.core.errors import BergenError, MoveError, shown
from bergen_sim.core.estimate import Estimate
from bergen_sim.core.limits import (
    MAX_WORLDS,
    MIN_WORLDS,
    ascii_digits,
    check_range,
    check_seed,
    integer,
    is_whole,
    whole_number,
)
from bergen_sim.engine import layout as L
from bergen_sim.engine.keyed_random import seed_to_int, stream_state
from bergen_sim.engine.play_rules import hand_moves, other_half
from bergen_sim.engine.tileset import compiled_set, no_tiles_for, store, store_split
from bergen_sim.engine.view import view_start_match
from bergen_sim.engine.worlds import prepare, world_count
from bergen_sim.model.domain import Move, Tile
from bergen_sim.model.rules import Rules
from bergen_sim.search import ismcts, reader
from bergen_sim.search.inference import MODELS, READING, evidence_buffer, play_evidence
from bergen_sim.search.match_value import table_for
from bergen_sim.search.pimc import Moves, evaluate_worlds, world_batch
from bergen_sim.search.rollout import BASE_POLICIES

if TYPE_CHECKING:
    import pandas as pd

DEFAULT_WORLDS = 100_000
DEFAULT_BATCH = 1_000
#: what each estimate of a ranked move counts (its ``unit``; every one is over the worlds sampled)
MOVE_UNITS = {
    "win": "match-win probability",
    "points": "points this hand",
    "win_behind_best": "match-win probability behind the best move",
    "win_behind_best_held_out": "match-win probability behind the best move",
}
#: fewest worlds before the stopping rule may end an analysis: below this the normal interval of a paired mean
#: is not to be trusted (a handful of worlds can agree by chance), and a tiny ``batch`` would look at it after
#: every world; the default batch (1,000) first looks well past it
MIN_VERDICT_WORLDS = 100
DEFAULT_BASE = "expert"
#: search players whose evaluation ranks the moves (each gives every move a value per world): ``ismcts`` is the raced
#: root of ``ismcts.STEERED`` without the race (every move meets every world, its tree kept over the worlds;
#: a lead under ``any-double``, which its walk does not play, is ranked by ``reader``); it is the default because
#: that player beats ``reader`` at equal cost per decision (research/time-limit/README.md, "Search players")
PLAYERS = ("reader", "pimc", "ismcts")
DEFAULT_PLAYER = "ismcts"
#: how the reader reads the other seats' plays, when the view holds them (a game's view does; a described
#: position does not): the reading measured strongest, ``reader.STRONGEST`` (its trust setting is in tenths)
READER_TRUST = READING["trust"] / 10.0
READER_MODEL = MODELS.index(READING["model"])
#: the tree search of ``player="ismcts"``: the exploration of ``ismcts.STEERED`` (whose reading is the one
#: above; in tenths there) and the default expansion, which it keeps
ISMCTS_EXPLORE = ismcts.TIME_LIMIT_SETTINGS["explore"] / 10.0
ISMCTS_EXPAND = ismcts.PARAMS["expand"].default
#: and its steering of the other seats' replies, ``ismcts.STEERED``'s (in hundredths there)
ISMCTS_PRIOR = ismcts.STEERING_SETTINGS["prior"] / 100.0
#: each player's evaluation of the worlds; all take one set of arguments (pimc.evaluate_worlds describes them),
#: the last the player's own settings: ``reader``'s reading, ``ismcts``'s walks and tree, none for ``pimc``
EVALUATIONS = {"reader": reader.evaluate_worlds, "pimc": evaluate_worlds, "ismcts": ismcts.evaluate_worlds}
#: each player's evaluation named as the policy whose search and reading it is (reports and ``--json`` say which
#: one ranked the moves): ``pimc`` reads no plays (uniform worlds; a game's view tells it who led)
ENGINES = {
    "reader": reader.STRONGEST,
    "pimc": "pimc",
    "ismcts": ismcts.STRONGEST
    + f":explore={ismcts.TIME_LIMIT_SETTINGS['explore']}"
    + f":prior={ismcts.STEERING_SETTINGS['prior']}",
}


def analysis_walks() -> ismcts.Walks:
    """The walks of the analyzer's tree search: its exploration, expansion and steering, and the reader's reading."""
    return ismcts.Walks(ISMCTS_EXPLORE, np.int64(ISMCTS_EXPAND), READER_TRUST, np.int64(READER_MODEL), ISMCTS_PRIOR)


class PositionError(BergenError, ValueError):
    """A position no game of Bergen can reach (or that leaves nothing to decide)."""


@dataclass(frozen=True)
class Position:
    """What the deciding seat knows (tiles as ``a-b`` names, numbers 0..max_number of the set).

    ``played`` lists every tile on the table, the led double included;
    ``played_by`` optionally says which seat played some of them; ``counts``
    gives every seat's number of tiles (the own seat's equals ``len(hand)``);
    ``voids`` maps a seat to numbers it surely holds none of now.

    With the spinner on, ``spinner`` is the number of the led double (the
    spinner) and the layout has four arms: L and R (``left``, ``right``) and
    U and D (``up``, ``down``).  An arm with no tile on it shows the spinner's
    number as a double end (the spinner itself lies there), which is how
    such an arm is written: ``up=None`` is the same as ``up=spinner,
    up_double=True``.  Which arms are open and which count for headers
    follows from which hold tiles (RULES.md, the spinner).
    """

    seat: int
    hand: tuple[str, ...]
    left: int
    right: int
    left_double: bool
    right_double: bool
    played: tuple[str, ...]
    counts: tuple[int, ...]
    boneyard: int
    scores: tuple[int, ...]
    played_by: Mapping[int, tuple[str, ...]] = field(default_factory=dict)
    voids: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    spinner: int | None = None
    up: int | None = None
    down: int | None = None
    up_double: bool = False
    down_double: bool = False

    def arms(self) -> list[tuple[int, bool]]:
        """(number, double end) of each end in End order: L, R, and with the spinner U and D."""
        out = [(self.left, self.left_double), (self.right, self.right_double)]
        if self.spinner is not None:
            for number, double in ((self.up, self.up_double), (self.down, self.down_double)):
                out.append((self.spinner, True) if number is None else (number, double))
        return out

    def arm_is_empty(self, end: int) -> bool:
        """Whether no tile lies on this arm of the spinner (it shows the spinner as a double end)."""
        return self.spinner is not None and self.arms()[end] == (self.spinner, True)

    def ends_text(self, sep: str = ",") -> str:
        """The ends as written in a position: ``6,5d``; with the spinner ``L,R,U,D`` with ``*`` for an empty arm."""
        return ends_text(self.arms(), self.spinner, sep)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Position:
        """A position from a JSON/TOML object or CLI options (see docs/pimc.md for the keys)."""
        known = {"seat", "hand", "ends", "played", "played_by", "counts", "boneyard", "scores", "voids", "spinner"}
        unknown = set(data) - known - {"rules"}
        if unknown:
            raise PositionError(
                f"unknown position key(s) {', '.join(sorted(unknown))}; keys are {', '.join(sorted(known))}"
            )
        for key in ("hand", "ends", "counts", "boneyard", "scores"):
            if data.get(key) in (None, "", []):
                raise PositionError(f"the position needs {key!r}")
        spinner = _spinner(data.get("spinner"))
        arms = parse_ends(data["ends"], spinner)
        (left, left_double), (right, right_double) = arms[:2]
        if left is None or right is None:  # parse_ends gives the led double's number to an empty L or R arm
            raise PositionError("ends: the left and right ends need numbers")
        (up, up_double), (down, down_double) = arms[2:] if len(arms) == 4 else ((None, False), (None, False))
        played_by = _per_seat(data.get("played_by"), "played_by", "tiles", _names)
        played = list(_names(data.get("played") or [], "played"))
        for tiles in played_by.values():
            played += [t for t in tiles if t not in played]
        voids = _per_seat(data.get("voids"), "voids", "numbers", _numbers)
        return cls(
            seat=_whole(data.get("seat", 0), "seat"),
            hand=tuple(_names(data["hand"], "hand")),
            left=left,
            right=right,
            left_double=left_double,
            right_double=right_double,
            played=tuple(played),
            counts=tuple(_whole(x, "counts") for x in _items(data["counts"])),
            boneyard=_whole(data["boneyard"], "boneyard"),
            scores=tuple(_whole(x, "scores") for x in _items(data["scores"])),
            played_by=played_by,
            voids=voids,
            spinner=spinner,
            up=up,
            down=down,
            up_double=up_double,
            down_double=down_double,
        )


def _items(value: Any) -> list:
    """A list from a list or a comma-separated string."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def _by_seat(value: Any, key: str, what: str) -> Mapping[Any, Any]:
    """A position's per-seat table (``played_by``, ``voids``): seat -> its {what}; absent: none."""
    if value in (None, "", [], {}):
        return {}
    if not isinstance(value, Mapping):
        raise PositionError(f'{key} is a table of seat -> {what} (e.g. {{"1": ...}}), not {shown(value)}')
    return value


def _per_seat(value: Any, key: str, what: str, read: Callable[[Any, str], list]) -> dict[int, tuple]:
    """A per-seat table read with ``read``: seat -> its items, each once, in the order first given.

    Entries naming the same seat (``"1"`` and ``"01"``, or ``--void 1:5 --void
    1:6``, which the CLI joins to ``"5,6"``) are merged, as if given in one: a
    later one adds to, and never replaces, what an earlier one said.
    """
    out: dict[int, list] = {}
    for k, v in _by_seat(value, key, what).items():
        items = out.setdefault(_seat_key(k), [])
        for item in read(v, key):
            if item not in items:
                items.append(item)
    return {seat: tuple(items) for seat, items in out.items()}


def _whole(value: Any, what: str) -> int:
    """A position file's number: a whole number, its text, or a float with no fraction (JSON writers make 3.0)."""
    if isinstance(value, str):
        number: object = whole_number(value)
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    else:
        number = value
    if not is_whole(number) or not -(2**63) <= integer(number) < 2**63:  # the engine stores int64
        raise PositionError(f"{what} takes whole numbers, not {shown(value)}")
    return integer(number)


def _seat_key(value: Any) -> int:
    return _whole(value, "a seat")


def _names(value: Any, what: str) -> list[str]:
    """Tile names, normalised to ``a-b`` with a <= b."""
    try:
        return [str(Tile.parse(item)) for item in _items(value)]
    except ValueError as exc:
        raise PositionError(f"{what}: {exc}") from None


def _numbers(value: Any, what: str) -> list[int]:
    """Numbers of the largest set; :func:`position_view` checks them against the rules' set."""
    numbers = [_whole(x, what) for x in _items(value)]
    for n in numbers:
        if not 0 <= n <= L.MAX_NUMBER:
            raise PositionError(f"{what}: numbers are 0..{L.MAX_NUMBER}, not {n}")
    return numbers


def _spinner(value: Any) -> int | None:
    """The spinner's number from ``4`` or ``"4-4"`` (None when not given)."""
    if value is None or str(value).strip() == "":
        return None
    text = str(value).strip()
    if "-" not in text:
        numbers = _numbers(value, "spinner")
        if len(numbers) != 1:
            raise PositionError(f"spinner: one number, the led double's (e.g. 4), not {value!r}")
        return numbers[0]
    try:
        tile = Tile.parse(text)
    except ValueError:
        tile = None
    if tile is None or tile.lo != tile.hi:
        raise PositionError(f"spinner: the led double, as a number or a double (e.g. 4 or 4-4), not {value!r}")
    return tile.lo


def parse_ends(value: Any, spinner: int | None = None) -> list[tuple[int | None, bool]]:
    """The ends as (number, double end) pairs: ``"3d,5"`` -> [(3, True), (5, False)].

    With a spinner the layout has four arms, written ``L,R,U,D``; ``*``
    marks an arm with no tile on it (number None), and giving only ``L,R``
    leaves U and D empty.
    """
    items = _items(value)
    four = spinner is not None
    if len(items) == 4 and not four:
        raise PositionError(
            "ends: four ends are a spinner's arms L,R,U,D: give spinner=N too, the number of "
            "the led double (with a line, give L,R)"
        )
    if len(items) not in ((2, 4) if four else (2,)):
        shape = "L,R or L,R,U,D (* marks an arm with no tile)" if four else "L,R (e.g. 3d,5; d marks a double end)"
        raise PositionError(f"ends: give the {'arms' if four else 'left and right end'} as {shape}, not {value!r}")
    out: list[tuple[int | None, bool]] = []
    for item in items:
        text = str(item).strip().lower()
        if text == "*" and four:
            out.append((None, False))
            continue
        double = text.endswith("d")
        number = text[:-1] if double else text
        if not ascii_digits(number) or len(number) > 2 or int(number) > L.MAX_NUMBER:
            star = "; * for an arm with no tile" if four else ""
            raise PositionError(
                f"ends: {shown(item)} is not a number 0..{L.MAX_NUMBER} "
                f"(optionally followed by d for a double end{star})"
            )
        out.append((int(number), double))
    if four:
        out = [(spinner, True) if number is None else (number, double) for number, double in out]
        out += [(spinner, True)] * (4 - len(out))
    return out


def ends_text(arms: list[tuple[int, bool]], spinner: int | None = None, sep: str = ",") -> str:
    """Ends as a position writes them (the inverse of :func:`parse_ends`)."""
    return sep.join(
        "*" if spinner is not None and arm == (spinner, True) else f"{arm[0]}{'d' if arm[1] else ''}" for arm in arms
    )


def _plain_graph(plain: list[tuple[int, int]]):
    """The numbers as a graph whose edges are the plain tiles: each number's degree, and a function
    naming its connected component (union-find), for the layout checks below."""
    parent = list(range(L.MAX_NUMBER + 1))

    def find(x: int) -> int:
        while parent[x] != x:
            x = parent[x]
        return x

    degree = [0] * (L.MAX_NUMBER + 1)
    for a, b in plain:
        degree[a] += 1
        degree[b] += 1
        parent[find(a)] = find(b)
    return degree, find


def line_problem(played: set[str], left: int, right: int, left_double: bool, right_double: bool) -> str | None:
    """Why no line of exactly these tiles can show these ends, or None if one can.

    A line is a trail through the tiles (a plain tile joins its two numbers, a
    double is a loop at its number) from the left end's number to the right
    one's, and an end is a double end exactly when its outermost tile is a
    double.  A trail exists when the tiles are connected and every number
    has even degree except the two ends (Euler); the double at an end number
    can be kept off that end only if the trail passes that number again.
    """
    lo_hi = [(tile.lo, tile.hi) for tile in map(Tile.parse, played)]
    doubles = {a for a, b in lo_hi if a == b}
    plain = [(a, b) for a, b in lo_hi if a != b]
    if not doubles:
        return "no double is on the table, but every hand starts with a led double"
    for side, number, double in (("left", left, left_double), ("right", right, right_double)):
        if double and number not in doubles:
            return f"the {side} end is a double end but {number}-{number} is not on the table"
    if left == right and left_double and right_double and len(played) > 1:
        return f"both ends show the double {left}-{left} only while it is the only tile on the table"
    degree, find = _plain_graph(plain)
    numbers = {x for ab in plain for x in ab} | doubles
    for side, number in (("left", left), ("right", right)):
        if number not in numbers:
            return f"no tile on the table shows {number}, so the {side} end cannot be {number}"
    if len({find(x) for x in numbers}) > 1:
        return "the tiles on the table do not form one connected line"
    odd = {x for x in range(L.MAX_NUMBER + 1) if degree[x] % 2}
    want = set() if left == right else {left, right}
    if odd != want:
        odd_numbers = ", ".join(str(x) for x in sorted(odd)) or "none"
        if left == right:  # both ends one number: a closed trail, so no number may show an odd number of times
            return (
                f"a line whose ends both show {left} has every number on the table an even number of times; "
                f"here {odd_numbers} show an odd number of times"
            )
        return (
            f"a line with ends {left}|{right} needs exactly those numbers an odd number of times; here: {odd_numbers}"
        )
    for side, number, double in (("left", left, left_double), ("right", right, right_double)):
        if double or number not in doubles:
            continue
        if left != right:
            visits = (degree[number] + 1) // 2
            needed = 2
        else:
            visits = degree[number] // 2 + 1
            needed = 2 if (right_double if side == "left" else left_double) else 3
        if visits < needed:
            return (
                f"{number}-{number} is on the table but cannot lie inside the line, "
                f"so the {side} end must be a double end"
            )
    return None


def spinner_problem(played: set[str], spinner: int, arms: list[tuple[int, bool]]) -> str | None:
    """Why no spinner layout of exactly these tiles can show these arms, or None if one may.

    Each arm holding tiles is a trail from the spinner's number to the arm's
    end (its first tile is plain: the only double showing the spinner's
    number is the spinner), and U and D hold tiles only once L and R do.
    Checked: the spinner is on the table, double ends have their double,
    every plain tile connects to the spinner, each number's degree has the
    parity the trails give it, and the spinner's number has a plain tile
    per arm that holds any.  These conditions are necessary; unlike
    :func:`line_problem` for a line they are not shown to be sufficient
    (docs/pimc.md says so).
    """
    name = f"{spinner}-{spinner}"
    if name not in played:
        return f"the spinner {name} is not on the table"
    empty = [arm == (spinner, True) for arm in arms]
    names = ("L", "R", "U", "D")
    if (not empty[2] or not empty[3]) and (empty[0] or empty[1]):
        return "the U and D arms open only once L and R each hold a tile"
    lo_hi = [(tile.lo, tile.hi) for tile in map(Tile.parse, played)]
    doubles = {a for a, b in lo_hi if a == b and a != spinner}
    plain = [(a, b) for a, b in lo_hi if a != b]
    for e, (number, double) in enumerate(arms):
        if empty[e]:
            continue
        if double and (number == spinner or number not in doubles):
            return f"the {names[e]} arm ends in the double {number}-{number}, which is not on the table"
    holding = [number for e, (number, _) in enumerate(arms) if not empty[e]]
    if not holding:
        return None if len(played) == 1 else "every arm is empty, so the spinner is the only tile on the table"
    degree, find = _plain_graph(plain)
    for d in sorted(doubles):
        if degree[d] == 0:
            return f"{d}-{d} is on the table but no plain tile shows {d}, so it cannot lie on an arm"
    if degree[spinner] < len(holding):
        return (
            f"{len(holding)} arms hold tiles but only {degree[spinner]} plain tile(s) show the spinner's "
            f"number {spinner}"
        )
    root = find(spinner)
    for a, b in plain:
        if find(a) != root:
            return f"{a}-{b} is not joined to the spinner by the tiles on the table"
    parity = [0] * (L.MAX_NUMBER + 1)
    for number in holding:
        parity[spinner] ^= 1
        parity[number] ^= 1
    odd = [x for x in range(L.MAX_NUMBER + 1) if degree[x] % 2 != parity[x]]
    if odd:
        return (
            f"arms ending {','.join(str(n) for n in holding)} from the spinner {spinner} cannot use exactly "
            f"these tiles: the number(s) {', '.join(map(str, odd))} appear an impossible number of times"
        )
    return None


def _check_types(p: Position) -> None:
    """Refuse, on one line, a :class:`Position` built in Python with a field of the wrong type.

    Why: :meth:`Position.from_mapping` checks what it reads, but a notebook may
    build a Position directly, and a ``voids`` of ``{1: 3}`` or an end of
    ``None`` would otherwise surface as a TypeError deep in the checks below.
    """

    def whole(name: str, value: object, optional: bool = False, number: bool = False) -> None:
        """A whole number (``number``: a number on the tiles, 0 or more; other ranges are checked below)."""
        if not (is_whole(value) or (optional and value is None)) or (
            number and value is not None and integer(value) < 0
        ):
            raise PositionError(
                f"{name} must be a whole number{' 0 or more' if number else ''}"
                f"{' or None' if optional else ''}, not {shown(value)}"
            )

    def several(name: str, value: object, item: str) -> None:
        if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
            raise PositionError(f"{name} must be a list of {item}s, not {shown(value)}")
        for x in value:
            if item == "tile name" and not isinstance(x, str):
                raise PositionError(f"{name}: {shown(x)} is not a tile name such as 6-4")
            if item in ("whole number", "number"):
                whole(name, x, number=item == "number")

    def by_seat(name: str, value: object, item: str) -> None:
        if not isinstance(value, Mapping):
            raise PositionError(f"{name} must map seats to lists of {item}s, not {shown(value)}")
        for seat, items in value.items():
            if not is_whole(seat):
                raise PositionError(f"{name}: seat {shown(seat)} is not a whole number")
            several(f"{name} of seat {seat}", items, item)

    whole("seat", p.seat)
    several("hand", p.hand, "tile name")
    several("played", p.played, "tile name")
    for name in ("left", "right"):
        whole(name, getattr(p, name), number=True)
    for name in ("up", "down", "spinner"):
        whole(name, getattr(p, name), optional=True, number=True)
    for name in ("left_double", "right_double", "up_double", "down_double"):
        if not isinstance(getattr(p, name), (bool, np.bool_)):
            raise PositionError(f"{name} must be True or False, not {shown(getattr(p, name))}")
    several("counts", p.counts, "whole number")
    whole("boneyard", p.boneyard)
    several("scores", p.scores, "whole number")
    by_seat("played_by", p.played_by, "tile name")
    by_seat("voids", p.voids, "number")


def _check_tiles(p: Position, rules: Rules) -> None:
    """Every tile of the hand and the table is in the game's set, and none is listed twice."""
    names = set(L.TILE_NAMES[: rules.n_tiles])
    seen: dict[str, str] = {}
    for where, tiles in (("the hand", p.hand), ("the table", p.played)):
        for t in tiles:
            if t not in names:
                raise PositionError(f"tile {t} is not in the {rules.domino_set} set (numbers 0..{rules.max_number})")
            if t in seen:
                raise PositionError(f"tile {t} is listed twice ({seen[t]} and {where})")
            seen[t] = where


def position_view(position: Position, rules: Rules) -> np.ndarray:
    """Check a position against the rules and build the policy view (``V_*``) it describes."""
    p = position
    _check_types(p)
    sides = rules.sides
    if not 0 <= p.seat < rules.players:
        raise PositionError(f"seat must be 0..{rules.players - 1}, not {p.seat}")
    _check_tiles(p, rules)
    if not p.hand:
        raise PositionError("the hand is empty: a seat with no tiles has gone out")
    if len(p.counts) != rules.players:
        raise PositionError(f"counts: give one tile count per seat ({rules.players}), not {len(p.counts)}")
    if p.counts[p.seat] != len(p.hand):
        raise PositionError(f"counts: seat {p.seat} holds {len(p.hand)} tiles (the hand), not {p.counts[p.seat]}")
    if min(p.counts) < 1:
        raise PositionError("counts: every seat holds at least one tile until the hand ends")
    if len(p.scores) != sides:
        raise PositionError(f"scores: give one score per side ({sides}), not {len(p.scores)}")
    if min(p.scores) < 0 or max(p.scores) >= rules.target:
        raise PositionError(f"scores must be 0..{rules.target - 1} (a side at the target {rules.target} has won)")
    if rules.spinner and p.spinner is None:
        raise PositionError(
            "with the spinner on, give spinner=N, the number of the led double (the spinner), "
            "and the ends as L,R,U,D (* for an arm with no tile)"
        )
    if not rules.spinner and p.spinner is not None:
        raise PositionError(
            f"spinner={p.spinner} is given but the rules play a line (spinner off): drop it, or use --set spinner=on"
        )
    arms = p.arms()
    numbers = [n for n, _ in arms] + [n for v in p.voids.values() for n in v]
    numbers += [] if p.spinner is None else [p.spinner]
    if max(numbers) > rules.max_number:
        raise PositionError(f"number {max(numbers)} is not in {rules.domino_set} (numbers 0..{rules.max_number})")
    dealt_boneyard = rules.n_tiles - rules.players * rules.hand_size
    if not rules.boneyard_reserve <= p.boneyard <= dealt_boneyard:
        raise PositionError(
            f"boneyard must be {rules.boneyard_reserve}..{dealt_boneyard} tiles with these rules, not {p.boneyard}"
        )
    total = sum(p.counts) + p.boneyard + len(p.played)
    if total != rules.n_tiles:
        raise PositionError(
            f"hands ({sum(p.counts)}) + boneyard ({p.boneyard}) + table ({len(p.played)}) "
            f"= {total} tiles, not the {rules.n_tiles} of {rules.domino_set}"
        )
    if p.spinner is None:
        problem = line_problem(set(p.played), p.left, p.right, p.left_double, p.right_double)
    else:
        problem = spinner_problem(set(p.played), p.spinner, arms)
    if problem:
        raise PositionError(f"ends {p.ends_text('|')}: {problem}")
    for seat in p.played_by:
        if not 0 <= seat < rules.players:
            raise PositionError(f"played_by: seat must be 0..{rules.players - 1}, not {seat}")
    by = [t for tiles in p.played_by.values() for t in tiles]
    if len(by) != len(set(by)):
        raise PositionError("played_by: a tile is credited to two seats")
    if not set(by) <= set(p.played):
        raise PositionError(f"played_by: {', '.join(sorted(set(by) - set(p.played)))} not on the table")
    if len(by) == len(p.played):
        for seat in range(rules.players):
            played = len(p.played_by.get(seat, ()))
            if p.counts[seat] + played < rules.hand_size:
                raise PositionError(
                    f"seat {seat} holds {p.counts[seat]} tiles and played {played}: fewer than the "
                    f"{rules.hand_size} it was dealt"
                )
    for seat in p.voids:
        if not 0 <= seat < rules.players or seat == p.seat:
            raise PositionError(f"voids: give numbers for the other seats, not seat {seat}")

    view = np.zeros(L.V_SIZE, dtype=np.int64)
    view_start_match(view, rules.to_array())
    view[L.V_SEAT] = p.seat
    view[L.V_SIDE] = rules.side_of(p.seat)
    store(view, L.V_HAND, L.tile_mask(p.hand))
    _set_ends(view, p)
    store(view, L.V_PLAYED, L.tile_mask(p.played))
    view[L.V_BONEYARD] = p.boneyard
    view[L.V_HAND_NO] = 1
    view[L.V_PLAY_NO] = len(p.played) - 1
    view[L.V_LEADER] = -1  # unknown: the worlds use no lead evidence (see docs/pimc.md)
    for side in range(sides):
        view[L.V_SCORE + side] = p.scores[side]
    for seat in range(rules.players):
        view[L.V_HAND_COUNT + seat] = p.counts[seat]
        store_split(
            view,
            L.V_PLAYED_BY + seat,
            L.V_PLAYED_BY_HIGH + seat * (L.SET_WORDS - 1),
            L.tile_mask(p.played_by.get(seat, ())),
        )
    log = 0
    for seat, void_numbers in sorted(p.voids.items()):
        for n in sorted(set(void_numbers)):
            view[L.V_VOID + seat] |= 1 << n
            # logged as a moment with ends showing n and no draw, which is exactly what a void says
            entry = L.V_LOG + L.LOG_SIZE * log
            view[entry + L.LOG_SEAT] = seat
            view[entry + L.LOG_NUMBERS] = 1 << n
            view[entry + L.LOG_DRAWN] = 0
            log += 1
    view[L.V_LOG_N] = log
    spec, completions = prepare(view, rules.to_array(), 0, no_tiles_for(rules.n_tiles))
    if world_count(spec, completions) == 0:
        raise PositionError("no deal of the unseen tiles gives every seat its count without breaking a void")
    return view


def _set_ends(view: np.ndarray, p: Position) -> None:
    """The view's ends, arms and spinner as the engine keeps them (engine/view.py).

    An arm that holds tiles is counted as holding one: the rules only ask
    whether an arm holds any (to open U and D, and to count an arm).
    """
    arms = p.arms()
    spinner = -1 if p.spinner is None else p.spinner
    for e in range(L.N_ENDS):
        number, double = arms[e] if e < len(arms) else arms[0]
        view[L.V_END + e] = number
        view[L.V_END_DOUBLE + e] = int(double)
        view[L.V_END_TILES + e] = 0 if e >= len(arms) or p.arm_is_empty(e) else 1
    view[L.V_SPINNER] = spinner
    view[L.V_COUNTING] = (1 << L.END_L) | (1 << L.END_R)
    view[L.V_OPEN_ENDS] = 2
    if p.spinner is not None and not p.arm_is_empty(L.END_L) and not p.arm_is_empty(L.END_R):
        view[L.V_OPEN_ENDS] = 4
        for e in (L.END_U, L.END_D):
            if not p.arm_is_empty(e):
                view[L.V_COUNTING] |= 1 << e


@dataclass(frozen=True)
class RankedMove:
    """One legal move of an analysed position with its estimates over the worlds sampled (units: :data:`MOVE_UNITS`).

    ``win`` is the match-win probability after the move; ``win_behind_best`` its paired difference to the best
    move on the same worlds, and ``win_behind_best_held_out`` the same difference with the best move chosen on
    other worlds than it is judged on (what ``review`` counts as a loss).  ``mirror_of`` is the same tile on the
    twin end that looks alike (the same move seen in a mirror), if there is one.
    """

    rank: int
    move: Move
    ends_after: str
    win: Estimate
    points: Estimate
    win_behind_best: Estimate
    win_behind_best_held_out: Estimate
    mirror_of: Move | None = None

    def to_dict(self) -> dict[str, Any]:
        """The move as ``analyze --json`` writes it: its tile and end as texts, each estimate as its JSON object."""
        return {
            "rank": self.rank,
            "tile": str(self.move.tile),
            "end": self.move.end.name,
            "ends_after": self.ends_after,
            **{name: getattr(self, name).to_json() for name in MOVE_UNITS},
            "mirror_of": None if self.mirror_of is None else str(self.mirror_of),
        }


@dataclass
class Analysis:
    """Every legal move with its estimates, best first (:class:`RankedMove`), and how the sampling went.

    ``moves[0].move`` is the best :class:`~bergen_sim.model.domain.Move` and ``moves[0].win`` its match-win
    probability (an :class:`~bergen_sim.core.estimate.Estimate`); ``move("3-5 L")`` finds one move's estimates;
    ``to_frame()`` is the ranking as a DataFrame and ``to_dict()`` the JSON ``analyze --json`` prints.
    """

    moves: list[RankedMove]
    worlds: int
    stopped: str  # "separated", "tie" or "budget"
    base: str
    seed: int
    consistent_worlds: float
    elapsed_s: float
    position: Position
    rules: Rules
    player: str = DEFAULT_PLAYER
    plays_read: int = 0  # the other seats' plays of this hand that weighed the worlds (0 for a described position)
    leading: bool = False  # the seat chooses the double it leads (lead=any-double): the moves are its doubles

    def __repr__(self) -> str:
        best = self.moves[0]
        return (
            f"Analysis(seat {self.position.seat}, {len(self.moves)} legal moves, best {best.move} "
            f"with {100 * best.win.value:.1f}% match win; {self.worlds:,} worlds, {self.stopped})"
        )

    def move(self, move: Move | str | tuple[Any, Any]) -> RankedMove:
        """The ranked move ``move`` (a :class:`Move`, its text ``"3-5 L"`` or a ``(tile, end)`` pair).

        :class:`~bergen_sim.core.errors.MoveError` if it is not one of the position's legal moves.
        """
        wanted = Move.of(move)
        for ranked in self.moves:
            if ranked.move == wanted:
                return ranked
        legal = ", ".join(str(m.move) for m in self.moves)
        raise MoveError(f"{wanted} is not a legal move of this position; legal: {legal}")

    def to_frame(self) -> pd.DataFrame:
        """The moves as a pandas DataFrame, best first: one row per move, each estimate as its value with a 95%
        interval (``win``, ``win_lo``, ``win_hi``, ...), as the package's tables write estimates."""
        import pandas as pd

        rows = []
        for m in self.moves:
            row: dict[str, Any] = {"rank": m.rank, "move": str(m.move), "ends_after": m.ends_after}
            for name in ("win", "points", "win_behind_best"):
                estimate = getattr(m, name)
                row.update({name: estimate.value, f"{name}_lo": estimate.low, f"{name}_hi": estimate.high})
            rows.append(row)
        return pd.DataFrame(rows)

    def _repr_html_(self) -> str:
        frame = self.to_frame()
        shown_frame = frame[["rank", "move"]].assign(
            **{
                "ends after": frame["ends_after"],
                "match win": [ci(m.win) for m in self.moves],
                "points this hand": [ci(m.points, False) for m in self.moves],
            }
        )
        return html_card(
            repr(self),
            ["95% intervals in brackets; .to_frame() and .to_dict() have every estimate"],
            {"moves": shown_frame},
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready result (what ``analyze --json`` prints): each move's estimates as estimate objects."""
        p = self.position
        return {
            "position": {
                "seat": p.seat,
                "hand": list(p.hand),
                "ends": None if self.leading else p.ends_text(),
                **({"leading": True} if self.leading else {}),
                **({} if p.spinner is None else {"spinner": p.spinner}),
                "played": list(p.played),
                "played_by": {str(k): list(v) for k, v in p.played_by.items()},
                "counts": list(p.counts),
                "boneyard": p.boneyard,
                "scores": list(p.scores),
                "voids": {str(k): list(v) for k, v in p.voids.items()},
            },
            "rules": self.rules.to_dict(),
            "player": self.player,
            "base": self.base,
            "seed": self.seed,
            "worlds": self.worlds,
            "stopped": self.stopped,
            "consistent_worlds": self.consistent_worlds,
            "plays_read": self.plays_read,
            "elapsed_s": self.elapsed_s,
            "moves": [m.to_dict() for m in self.moves],
        }


def look_points(worlds: int, batch: int) -> list[int]:
    """The worlds done at which the stopping rule looks: the first batch end at or past
    :data:`MIN_VERDICT_WORLDS`, then each batch end at or past twice the last look, and the budget (if it is
    at least :data:`MIN_VERDICT_WORLDS`).

    >>> look_points(100_000, 1_000)
    [1000, 2000, 4000, 8000, 16000, 32000, 64000, 100000]
    """
    looks: list[int] = []
    done = 0
    while done < worlds:
        done += min(batch, worlds - done)
        if done >= MIN_VERDICT_WORLDS and (done == worlds or not looks or done >= 2 * looks[-1]):
            looks.append(done)
    return looks


def z_separation(n_moves: int, looks: int) -> float:
    """z of one look's two-sided test, Bonferroni over the looks and the pairs of moves (5% in all)."""
    pairs = max(n_moves * (n_moves - 1) // 2, 1)
    return NormalDist().inv_cdf(1 - 0.05 / (2 * pairs * max(looks, 1)))


def check_player(player: Any) -> None:
    """Refuse a ``player`` that is not one of :data:`PLAYERS` (``review`` checks it before its first decision)."""
    if player not in PLAYERS:
        raise PositionError(f"player must be one of {', '.join(PLAYERS)}, not {shown(player)}")


def analyze(
    position: Position | Any,
    rules: Rules,
    base: str = DEFAULT_BASE,
    worlds: int = DEFAULT_WORLDS,
    batch: int = DEFAULT_BATCH,
    seed: int = 0,
    player: str = DEFAULT_PLAYER,
) -> Analysis:
    """Rank every legal move of ``position`` (see the module note); reproducible from ``seed``.

    ``position`` is a :class:`Position`, or a seat's view of a game
    (:meth:`bergen_sim.services.game.Game.view`, a ``View``): that one also holds the
    order of this hand's plays, the draws and passes between them and who
    led, so the search weighs its worlds by what the other seats' plays
    say (:data:`READER_MODEL`), as it does in a match; a described position
    holds no play order, and its worlds are uniform among those that agree
    with it.  ``player`` names the search whose evaluation is used
    (:data:`PLAYERS`).
    """
    seen = None
    if not isinstance(position, Position):
        if not (
            isinstance(getattr(position, "array", None), np.ndarray) and callable(getattr(position, "position", None))
        ):
            raise PositionError(f"analyze reads a Position or a game's View, not {shown(position)}")
        seen = np.array(position.array, dtype=np.int64)  # a copy: the search never writes the caller's view
        if seen.shape != (L.V_SIZE,):
            raise PositionError(f"a view is {L.V_SIZE} numbers (a game's View), not an array of shape {seen.shape}")
        position = position.position()
        if not isinstance(position, Position):
            raise PositionError(f"a view's position() gives a Position, not {shown(position)}")
    if base not in BASE_POLICIES:
        raise PositionError(f"base must be one of {', '.join(BASE_POLICIES)}, not {base!r}")
    check_player(player)
    check_range("worlds", worlds, MIN_WORLDS, MAX_WORLDS)  # memory: two floats per world and move
    check_range("batch", batch, 1, MAX_WORLDS)
    check_seed(seed)
    start = time.perf_counter()
    leading = seen is not None and seen[L.V_OPEN_ENDS] == 0  # nothing on the table: the double to lead
    if leading:
        _check_lead(position, rules)
    else:
        described = position_view(position, rules)  # checks the position (a view's too) against the rules
    # a seat's whole view, when given, holds the position's fields and the order of the plays
    view = seen if seen is not None else described
    rules_vec = rules.to_array()
    move_tiles = np.zeros(L.MAX_MOVES, dtype=np.int64)
    move_ends = np.zeros(L.MAX_MOVES, dtype=np.int64)
    no_tiles = no_tiles_for(rules.n_tiles)
    if leading:  # the seat's doubles (_check_lead: at least one), each led as the engine leads (on L)
        doubles = _doubles(position.hand)
        n = len(doubles)
        move_tiles[:n] = doubles
        move_ends[:n] = L.END_L
    else:
        n = hand_moves(compiled_set(view, L.V_HAND, no_tiles), view, move_tiles, move_ends)
    if n == 0:
        raise PositionError(
            f"no tile in the hand fits the ends {position.ends_text('|')}: "
            "the seat must draw, there is no move to choose"
        )
    table = table_for(rules, base)
    key = np.uint64(stream_state(np.uint64(seed_to_int(seed)), 0, 0, 0))
    values = np.zeros((worlds, n), dtype=np.float64)
    points = np.zeros((worlds, n), dtype=np.float64)
    mirror = mirror_moves(view, move_tiles, move_ends, n)
    looks = set(look_points(worlds, batch))
    z = z_separation(n, len(looks))
    if player == "ismcts" and leading:
        player = "reader"  # the tree's walk plays moves, not leads: the reader ranks the doubles to lead
    engine = EVALUATIONS[player]
    search: object = None  # pimc's: none
    if player == "ismcts":
        search = ismcts.analyzer_tree(analysis_walks(), worlds, n)
    elif player == "reader":
        search = reader.ReadingModel(READER_TRUST, np.int64(READER_MODEL))
    # the reader's and the tree's worlds read the lead as the players do; pimc's only in a game's view, which
    # says who led (evidence about the doubles, engine/worlds.py); a described position does not
    use_lead = 1 if player != "pimc" else int(seen is not None)
    legal = Moves(move_tiles, move_ends, np.int64(n))
    compiling = in_disk_cache(engine) is False
    if compiling:
        feedback.compiling("the position analyzer's rollouts", "rollouts")
    compile_start = time.perf_counter()
    base_code = np.int64(BASE_POLICIES.index(base))
    done = 0
    stopped = "budget"
    consistent = 0.0
    while done < worlds:
        count = min(batch, worlds - done)
        consistent = engine(
            rules_vec,
            view,
            legal,
            world_batch(key, done, count, base_code, use_lead),
            table,
            values[done : done + count],
            points[done : done + count],
            no_tiles,
            search,
        )
        _copy_twins(values[done : done + count], points[done : done + count], mirror)
        done += count
        if compiling:  # a first batch of up to 1,000 worlds plays in well under a second: its time is the compile's
            if count <= 1_000:
                feedback.compiled("rollouts", time.perf_counter() - compile_start)
            compiling = False
        verdict = _verdict(values[:done], points[:done], z, mirror) if done in looks else None
        if verdict:
            stopped = verdict
            break
    moves = _summaries(values[:done], points[:done], move_tiles, move_ends, mirror, view, leading, rules.spinner, z)
    plays_read = 0  # the other seats' plays whose evidence weighed the worlds (none with the spinner)
    if seen is not None and player in ("reader", "ismcts"):
        plays_read = int(
            play_evidence(view, evidence_buffer(), np.zeros(L.V_SIZE, dtype=np.int64), no_tiles, READER_MODEL)
        )
    return Analysis(
        moves,
        done,
        stopped,
        base,
        seed,
        float(consistent),
        time.perf_counter() - start,
        position,
        rules,
        player,
        plays_read,
        leading,
    )


def _check_lead(position: Position, rules: Rules) -> None:
    """A view with nothing on the table is a leader choosing its double: only under ``any-double``, at a fresh deal.

    (Any other view is checked as a described position is, by :func:`position_view`.)
    """
    _check_types(position)  # before the checks below read its counts and scores
    if rules.lead != "any-double":
        raise PositionError(
            f"nothing is on the table, but with lead={rules.lead} the lead is not a choice: "
            "a view to analyze has the led double on the table, or is under lead=any-double"
        )
    size, players = rules.hand_size, rules.players
    if (
        tuple(position.counts) != (size,) * players
        or position.boneyard != rules.n_tiles - players * size
        or len(position.hand) != size
    ):
        raise PositionError(
            f"a leader choosing its double holds {size} tiles, as every seat does, with "
            f"{rules.n_tiles - players * size} in the boneyard: this view has counts "
            f"{','.join(map(str, position.counts))} and boneyard {position.boneyard}"
        )
    if max(position.scores, default=0) >= rules.target:
        raise PositionError(f"a side has reached the target {rules.target}: the match is over, no lead is chosen")
    _check_tiles(position, rules)
    if not _doubles(position.hand):
        raise PositionError(
            f"the leader holds no double ({' '.join(position.hand)}): only a seat holding a double leads"
        )


def _doubles(hand: tuple[str, ...]) -> list[int]:
    """The doubles of a hand of tile names, as tile indices in ascending order."""
    return sorted(t for t in map(L.TILE_INDEX.__getitem__, hand) if L.TILE_IS_DOUBLE[t])


def _arm_state(view: np.ndarray, end: int) -> tuple[int, int, bool]:
    """What a move on this end sees: its number, its double flag, whether the arm holds tiles."""
    return int(view[L.V_END + end]), int(view[L.V_END_DOUBLE + end]), bool(view[L.V_END_TILES + end])


def _copy_twins(values: np.ndarray, points: np.ndarray, mirror: np.ndarray) -> None:
    """Give each move the figures of its twin listed first, world by world (in place).

    Twins are one move seen in a mirror (:func:`mirror_moves`), so they have one
    value; the rollouts' policies are not mirror-symmetric (they break ties
    by end), and evaluating the two apart gave them different estimates, a
    spurious loss of up to a point of match-win probability for the twin
    ranked second (counted as a loss by ``review``).
    """
    for k in range(mirror.shape[0]):
        if 0 <= mirror[k] < k:
            values[:, k] = values[:, mirror[k]]
            points[:, k] = points[:, mirror[k]]


def mirror_moves(view: np.ndarray, move_tiles: np.ndarray, move_ends: np.ndarray, n: int) -> np.ndarray:
    """mirror[k] = the index of the move that is move k on the twin end, else -1.

    L and R are twins when they look alike (same number, double flag and
    whether they hold tiles), as are the spinner's U and D arms: the same
    tile on either leads to the same game seen in a mirror.  L and U are
    never twins (which arms hold tiles decides when U and D open).
    """
    mirror = np.full(n, -1)
    for twin_a, twin_b in ((L.END_L, L.END_R), (L.END_U, L.END_D)):
        if _arm_state(view, twin_a) != _arm_state(view, twin_b):
            continue
        for k in range(n):
            for j in range(n):
                if move_tiles[k] == move_tiles[j] and (move_ends[k], move_ends[j]) in (
                    (twin_a, twin_b),
                    (twin_b, twin_a),
                ):
                    mirror[k] = j
    return mirror


def ends_after(view: np.ndarray, tile: int, end: int) -> str:
    """The ends as a position writes them after ``tile`` is played on ``end``.

    Only the played end changes (it shows the tile's other half); an arm of
    the spinner with no tile already shows the spinner as a double end in the
    view (engine/view.py), which is what a position writes as ``*``.
    """
    spinner = int(view[L.V_SPINNER])
    arms = [(int(view[L.V_END + e]), bool(view[L.V_END_DOUBLE + e])) for e in range(L.N_ENDS)]
    arms[end] = (int(other_half(tile, arms[end][0])), bool(L.TILE_IS_DOUBLE[tile]))
    return ends_text(arms[:2]) if spinner < 0 else ends_text(arms, spinner)


def lead_ends(tile: int, spinner: bool | None) -> str:
    """The ends as a position writes them after the double ``tile`` is led (engine/view.py, view_start_hand).

    On a line both ends show the double (``5d,5d``); with the spinner on,
    every arm is still empty (``*,*,*,*``).
    """
    number = int(L.TILE_LO[tile])
    return ends_text([(number, True)] * (L.N_ENDS if spinner else 2), number if spinner else None)


def _ranking(values: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Move indices, best first: highest mean win probability, then points, then listing order."""
    n = values.shape[1]
    return np.array(sorted(range(n), key=lambda k: (-values[:, k].mean(), -points[:, k].mean(), k)))


def _verdict(values: np.ndarray, points: np.ndarray, z: float, mirror: np.ndarray) -> str | None:
    """Whether to stop: "separated" when the leader beats every other move beyond the
    interval, "tie" when the others it does not beat equal it in every world so far, else
    None.  The leader's mirror image (same tile, other end of a ``d|d`` line) is the same
    move seen in a mirror and is not raced against it."""
    order = _ranking(values, points)
    best = order[0]
    tie = False
    for k in order[1:]:
        if mirror[best] == k:
            continue
        diff = values[:, best] - values[:, k]
        if not diff.any():
            tie = True
            continue
        _, lo, _ = stats.mean_interval(diff.sum(), (diff * diff).sum(), diff.shape[0], z)
        if not lo > 0:
            return None
    return "tie" if tie else "separated"


def _summaries(
    values: np.ndarray,
    points: np.ndarray,
    move_tiles: np.ndarray,
    move_ends: np.ndarray,
    mirror: np.ndarray,
    view: np.ndarray,
    leading: bool,
    spinner: bool | None,
    z: float,
) -> list[RankedMove]:
    """One ranked move per legal move, best first: win probability, expected points and the gap to the best."""
    order = _ranking(values, points)
    best = order[0]
    out = []
    for rank, k in enumerate(order, 1):
        tile = int(move_tiles[k])
        end = int(move_ends[k])
        out.append(
            RankedMove(
                rank=rank,
                move=Move.from_kernel(tile, end),
                ends_after=lead_ends(tile, spinner) if leading else ends_after(view, tile, end),
                win=_estimate(values[:, k], "win", 0.0, 1.0),
                points=_estimate(points[:, k], "points"),
                win_behind_best=_estimate(values[:, best] - values[:, k], "win_behind_best", -1.0, 1.0),
                win_behind_best_held_out=_held_out_behind_best(values, points, k, z),
                mirror_of=None if mirror[k] < 0 else Move.from_kernel(tile, int(move_ends[mirror[k]])),
            )
        )
    return out


def _held_out_behind_best(values: np.ndarray, points: np.ndarray, k: int, z: float) -> Estimate:
    """Move k's match-win probability behind the best move: the best chosen on other worlds than it is judged on,
    and an interval as wide as the stopping rule's looks (``z``), so that it holds wherever the analysis stopped.

    The best move of all the worlds wins some of its lead by luck (the
    winner's curse), so a loss measured on the worlds that chose it is too
    large.  Here the best move of the even worlds is judged against move k on
    the odd ones, and the other way round, and the two halves are pooled.
    The analysis stopped when a difference looked large, which a 95%
    interval at the stopping point does not allow for; one at the rule's
    level does.
    """
    halves = [(values[start::2], points[start::2]) for start in (0, 1)]
    diffs = []
    for chooser, judge in ((0, 1), (1, 0)):
        judged_values = halves[judge][0]
        if judged_values.shape[0] and halves[chooser][0].shape[0]:
            best = _ranking(*halves[chooser])[0]
            diffs.append(judged_values[:, best] - judged_values[:, k])
    sample = np.concatenate(diffs) if diffs else values[:, k] * 0.0
    return _estimate(sample, "win_behind_best_held_out", -1.0, 1.0, z)


def _estimate(
    sample: np.ndarray, figure: str, low: float = -math.inf, high: float = math.inf, z: float = 0.0
) -> Estimate:
    """Mean of a move's per-world ``figure`` (a key of :data:`MOVE_UNITS`) with a 95% interval: Student's t (a few
    worlds give a wide interval, not a normal one), or ``z`` standard errors when it is the larger, kept within
    ``low .. high``, the values the mean can take (a probability is not 103.5%)."""
    n = sample.shape[0]
    width = max(stats.t95(n - 1), z) if n > 1 else z
    m, lo, hi = stats.mean_interval(float(sample.sum()), float((sample * sample).sum()), n, width)
    return Estimate(m, max(lo, low), min(hi, high), n, MOVE_UNITS[figure], "worlds")
