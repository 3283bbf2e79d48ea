"""``analyze``: rank every legal move of a position by its match-win chance (a rollout tool).

The user describes what one seat knows: its hand, the ends of the line and
their double flags, the tiles on the table (optionally who played them), the
other seats' hand counts, the boneyard size, the scores and any numbers a
seat is known to be void in.  :func:`analyze` plays every legal move out in
sampled worlds with the search code of the ``reader`` policy, the default
(:func:`bergen_sim.search.reader.evaluate_worlds`: worlds kept in proportion
to the other seats' plays, when the position says who played what in which
order, which a described position does not: then they are pimc's uniform
worlds), or of ``pimc`` (:func:`bergen_sim.search.pimc.evaluate_worlds`);
either way the same worlds and the same rollout randomness meet every
move.  It samples in batches, until the best move is
separated from every other or the world budget is spent, and reports each
move's match-win probability and expected points with 95% intervals.

Separation: after each batch the paired differences between the leading
move and every other (one per world, common random numbers) must have a
lower confidence bound above 0, Bonferroni-corrected over the moves compared
(z for 0.05 / (moves - 1), two-sided, used one-sided: some slack for the
check being repeated every batch, though not a formal sequential test).  A move whose outcome equals the leader's in every world so far
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
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any, Mapping

import numpy as np

from bergen_sim import feedback, stats
from bergen_sim.compile_cache import in_disk_cache
from bergen_sim.display import ci, html_card
from bergen_sim.domain import Tile
from bergen_sim.engine import layout as L
from bergen_sim.engine.keyed_random import seed_to_int, stream_state
from bergen_sim.engine.play_rules import legal_moves, other_half
from bergen_sim.search.rollout import BASE_POLICIES
from bergen_sim.engine.view import view_start_match
from bergen_sim.engine.worlds import WORLD_SEATS, prepare, samples_worlds_for, world_count
from bergen_sim.errors import BergenError
from bergen_sim.limits import MAX_WORLDS, check_range, check_seed
from bergen_sim.search.match_value import table_for
from bergen_sim.search import reader
from bergen_sim.search.pimc import evaluate_worlds, world_batch
from bergen_sim.rules import Rules

DEFAULT_WORLDS = 100_000
DEFAULT_BATCH = 1_000
DEFAULT_BASE = "expert"
#: search players whose evaluation ranks the moves (each gives every move a value per world)
PLAYERS = ("reader", "pimc")
DEFAULT_PLAYER = "reader"
#: the reader's default trust in the other seats' plays (its setting is in tenths)
READER_TRUST = reader.PARAMS["trust"][0] / 10.0


class PositionError(BergenError, ValueError):
    """A position no game of Bergen can reach (or that leaves nothing to decide)."""


@dataclass(frozen=True)
class Position:
    """What the deciding seat knows (tiles as ``a-b`` names, numbers 0..6).

    ``played`` lists every tile on the table, the led double included;
    ``played_by`` optionally says which seat played some of them; ``counts``
    gives every seat's number of tiles (the own seat's equals ``len(hand)``);
    ``voids`` maps a seat to numbers it surely holds none of now.
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

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> "Position":
        """A position from a JSON/TOML object or CLI options (see docs/pimc.md for the keys)."""
        known = {"seat", "hand", "ends", "played", "played_by", "counts", "boneyard", "scores", "voids"}
        unknown = set(data) - known - {"rules"}
        if unknown:
            raise PositionError(f"unknown position key(s) {', '.join(sorted(unknown))}; "
                                f"keys are {', '.join(sorted(known))}")
        for key in ("hand", "ends", "counts", "boneyard", "scores"):
            if data.get(key) in (None, "", []):
                raise PositionError(f"the position needs {key!r}")
        left, right, left_double, right_double = parse_ends(data["ends"])
        played_by = {_seat_key(k): tuple(_names(v, "played_by")) for k, v in (data.get("played_by") or {}).items()}
        played = list(_names(data.get("played") or [], "played"))
        for tiles in played_by.values():
            played += [t for t in tiles if t not in played]
        voids = {_seat_key(k): tuple(_numbers(v, "voids")) for k, v in (data.get("voids") or {}).items()}
        return cls(
            seat=_whole(data.get("seat", 0), "seat"),
            hand=tuple(_names(data["hand"], "hand")),
            left=left, right=right, left_double=left_double, right_double=right_double,
            played=tuple(played),
            counts=tuple(_whole(x, "counts") for x in _items(data["counts"])),
            boneyard=_whole(data["boneyard"], "boneyard"),
            scores=tuple(_whole(x, "scores") for x in _items(data["scores"])),
            played_by=played_by,
            voids=voids,
        )


def _items(value: Any) -> list:
    """A list from a list or a comma-separated string."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def _whole(value: Any, what: str) -> int:
    try:
        if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
            raise ValueError
        return int(value)
    except (TypeError, ValueError):
        raise PositionError(f"{what} takes whole numbers, not {value!r}") from None


def _seat_key(value: Any) -> int:
    return _whole(value, "a seat")


def _names(value: Any, what: str) -> list[str]:
    """Tile names, normalised to ``a-b`` with a <= b."""
    try:
        return [str(Tile.parse(item)) for item in _items(value)]
    except ValueError as exc:
        raise PositionError(f"{what}: {exc}") from None


def _numbers(value: Any, what: str) -> list[int]:
    numbers = [_whole(x, what) for x in _items(value)]
    for n in numbers:
        if not 0 <= n <= 6:
            raise PositionError(f"{what}: numbers are 0..6, not {n}")
    return numbers


def parse_ends(value: Any) -> tuple[int, int, bool, bool]:
    """``"3d,5"`` (or ``["3d", 5]``) -> (3, 5, True, False): the left and right ends, ``d`` marking a double end."""
    items = _items(value)
    if len(items) != 2:
        raise PositionError(f"ends: give the left and right end as L,R (e.g. 3d,5; d marks a double end), "
                            f"not {value!r}")
    out = []
    for item in items:
        text = str(item).strip().lower()
        double = text.endswith("d")
        number = text[:-1] if double else text
        if not number.isdigit() or int(number) > 6:
            raise PositionError(f"ends: {item!r} is not a number 0..6 (optionally followed by d for a double end)")
        out.append((int(number), double))
    return out[0][0], out[1][0], out[0][1], out[1][1]


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
    parent = list(range(7))

    def find(x: int) -> int:
        while parent[x] != x:
            x = parent[x]
        return x

    degree = [0] * 7
    for a, b in plain:
        degree[a] += 1
        degree[b] += 1
        parent[find(a)] = find(b)
    numbers = {x for ab in plain for x in ab} | doubles
    for side, number in (("left", left), ("right", right)):
        if number not in numbers:
            return f"no tile on the table shows {number}, so the {side} end cannot be {number}"
    if len({find(x) for x in numbers}) > 1:
        return "the tiles on the table do not form one connected line"
    odd = {x for x in range(7) if degree[x] % 2}
    want = set() if left == right else {left, right}
    if odd != want:
        shown = ", ".join(str(x) for x in sorted(odd)) or "none"
        return f"a line with ends {left}|{right} needs exactly those numbers an odd number of times; here: {shown}"
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
            return (f"{number}-{number} is on the table but cannot lie inside the line, "
                    f"so the {side} end must be a double end")
    return None


def position_view(position: Position, rules: Rules) -> np.ndarray:
    """Check a position against the rules and build the policy view (``V_*``) it describes."""
    p = position
    names = set(L.TILE_NAMES[: rules.n_tiles])
    sides = rules.sides
    if not 0 <= p.seat < rules.players:
        raise PositionError(f"seat must be 0..{rules.players - 1}, not {p.seat}")
    seen: dict[str, str] = {}
    for where, tiles in (("the hand", p.hand), ("the table", p.played)):
        for t in tiles:
            if t not in names:
                raise PositionError(f"tile {t} is not in the {rules.domino_set} set (numbers 0..{rules.max_number})")
            if t in seen:
                raise PositionError(f"tile {t} is listed twice ({seen[t]} and {where})")
            seen[t] = where
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
    if rules.spinner or not samples_worlds_for(rules.players, rules.n_tiles):
        raise PositionError(f"analyze reads line positions (no spinner) of 2 to {WORLD_SEATS} players up to "
                            f"double-nine; not {rules.players} players, {rules.domino_set}, spinner "
                            f"{'on' if rules.spinner else 'off'}")
    dealt_boneyard = rules.n_tiles - rules.players * rules.hand_size
    if not rules.boneyard_reserve <= p.boneyard <= dealt_boneyard:
        raise PositionError(f"boneyard must be {rules.boneyard_reserve}..{dealt_boneyard} tiles with these rules, "
                            f"not {p.boneyard}")
    total = sum(p.counts) + p.boneyard + len(p.played)
    if total != rules.n_tiles:
        raise PositionError(f"hands ({sum(p.counts)}) + boneyard ({p.boneyard}) + table ({len(p.played)}) "
                            f"= {total} tiles, not the {rules.n_tiles} of {rules.domino_set}")
    problem = line_problem(set(p.played), p.left, p.right, p.left_double, p.right_double)
    if problem:
        raise PositionError(f"ends {p.left}{'d' if p.left_double else ''}|{p.right}{'d' if p.right_double else ''}: "
                            f"{problem}")
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
                raise PositionError(f"seat {seat} holds {p.counts[seat]} tiles and played {played}: fewer than the "
                                    f"{rules.hand_size} it was dealt")
    for seat in p.voids:
        if not 0 <= seat < rules.players or seat == p.seat:
            raise PositionError(f"voids: give numbers for the other seats, not seat {seat}")

    view = np.zeros(L.V_SIZE, dtype=np.int64)
    view_start_match(view, rules.to_array())
    view[L.V_SEAT] = p.seat
    view[L.V_SIDE] = rules.side_of(p.seat)
    view[L.V_HAND] = L.tile_mask(p.hand)
    view[L.V_LEFT], view[L.V_RIGHT] = p.left, p.right
    view[L.V_LEFT_DOUBLE], view[L.V_RIGHT_DOUBLE] = int(p.left_double), int(p.right_double)
    view[L.V_OPEN_ENDS] = 2
    view[L.V_COUNTING] = (1 << L.END_L) | (1 << L.END_R)
    view[L.V_PLAYED] = L.tile_mask(p.played)
    view[L.V_BONEYARD] = p.boneyard
    view[L.V_HAND_NO] = 1
    view[L.V_PLAY_NO] = len(p.played) - 1
    view[L.V_LEADER] = -1  # unknown: the worlds use no lead evidence (see docs/pimc.md)
    for side in range(sides):
        view[L.V_SCORE + side] = p.scores[side]
    for seat in range(rules.players):
        view[L.V_HAND_COUNT + seat] = p.counts[seat]
        view[L.V_PLAYED_BY + seat] = L.tile_mask(p.played_by.get(seat, ()))
    log = 0
    for seat, numbers in sorted(p.voids.items()):
        for n in sorted(set(numbers)):
            view[L.V_VOID + seat] |= 1 << n
            # logged as a moment with ends showing n and no draw, which is exactly what a void says
            entry = L.V_LOG + L.LOG_SIZE * log
            view[entry + L.LOG_SEAT] = seat
            view[entry + L.LOG_NUMBERS] = 1 << n
            view[entry + L.LOG_DRAWN] = 0
            log += 1
    view[L.V_LOG_N] = log
    spec, completions = prepare(view, _readonly(rules.to_array()), 0)
    if world_count(spec, completions) == 0:
        raise PositionError("no deal of the unseen tiles gives every seat its count without breaking a void")
    return view


def _readonly(array: np.ndarray) -> np.ndarray:
    """A read-only copy: the kernel passes its constants read-only, and matching that type
    lets the analyzer reuse the compiled search code instead of compiling it again."""
    array = np.array(array)
    array.setflags(write=False)
    return array


@dataclass
class Analysis:
    """Every legal move with its estimates, best first, and how the sampling went."""

    moves: list[dict[str, Any]]
    worlds: int
    stopped: str  # "separated", "tie" or "budget"
    base: str
    seed: int
    consistent_worlds: float
    elapsed_s: float
    position: Position
    rules: Rules
    player: str = DEFAULT_PLAYER

    def __repr__(self) -> str:
        best = self.moves[0]
        return (f"Analysis(seat {self.position.seat}, {len(self.moves)} legal moves, best {best['tile']} "
                f"{best['end']} with {100 * best['win']['mean']:.1f}% match win; {self.worlds:,} worlds, {self.stopped})")

    def _repr_html_(self) -> str:
        import pandas as pd

        frame = pd.DataFrame([{"rank": m["rank"], "move": f"{m['tile']} {m['end']}", "ends after": m["ends_after"],
                               "match win": ci(m["win"], "mean"), "points this hand": ci(m["points"], "mean", False)}
                              for m in self.moves])
        return html_card(repr(self), ["95% intervals in brackets; .to_dict() has every estimate"], {"moves": frame})

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready result."""
        p = self.position
        return {
            "position": {
                "seat": p.seat, "hand": list(p.hand),
                "ends": f"{p.left}{'d' if p.left_double else ''},{p.right}{'d' if p.right_double else ''}",
                "played": list(p.played), "played_by": {str(k): list(v) for k, v in p.played_by.items()},
                "counts": list(p.counts), "boneyard": p.boneyard, "scores": list(p.scores),
                "voids": {str(k): list(v) for k, v in p.voids.items()},
            },
            "rules": self.rules.to_dict(),
            "player": self.player,
            "base": self.base,
            "seed": self.seed,
            "worlds": self.worlds,
            "stopped": self.stopped,
            "consistent_worlds": self.consistent_worlds,
            "elapsed_s": self.elapsed_s,
            "moves": self.moves,
        }


def _z_separation(n_moves: int) -> float:
    """z of a two-sided 95% interval, Bonferroni-corrected over the moves compared with the leader."""
    return NormalDist().inv_cdf(1 - 0.05 / (2 * max(n_moves - 1, 1)))


def analyze(position: Position, rules: Rules, base: str = DEFAULT_BASE, worlds: int = DEFAULT_WORLDS,
            batch: int = DEFAULT_BATCH, seed: int = 0, player: str = DEFAULT_PLAYER) -> Analysis:
    """Rank every legal move of ``position`` (see the module note); reproducible from ``seed``.

    ``player`` names the search whose evaluation is used (:data:`PLAYERS`).
    """
    if base not in BASE_POLICIES:
        raise PositionError(f"base must be one of {', '.join(BASE_POLICIES)}, not {base!r}")
    if player not in PLAYERS:
        raise PositionError(f"player must be one of {', '.join(PLAYERS)}, not {player!r}")
    check_range("worlds", worlds, 1, MAX_WORLDS)  # memory: two floats per world and move
    check_range("batch", batch, 1, MAX_WORLDS)
    check_seed(seed)
    start = time.perf_counter()
    view = position_view(position, rules)
    rules_vec = _readonly(rules.to_array())
    move_tiles = np.zeros(L.MAX_MOVES, dtype=np.int64)
    move_ends = np.zeros(L.MAX_MOVES, dtype=np.int64)
    playable = view[L.V_HAND] & (L.NUMBER_TILES[position.left, 0] | L.NUMBER_TILES[position.right, 0])
    n = legal_moves(playable, view, move_tiles, move_ends)
    if n == 0:
        raise PositionError(f"no tile in the hand fits the ends {position.left}|{position.right}: "
                            "the seat must draw, there is no move to choose")
    table = _readonly(table_for(rules, base))
    key = np.uint64(stream_state(np.uint64(seed_to_int(seed)), 0, 0, 0))
    values = np.zeros((worlds, n), dtype=np.float64)
    points = np.zeros((worlds, n), dtype=np.float64)
    mirror = _mirrors(position, move_tiles, move_ends, n)
    z = _z_separation(n)
    if in_disk_cache(reader.evaluate_worlds if player == "reader" else evaluate_worlds) is False:
        feedback.compiling("the position analyzer's rollouts")
    base_code = np.int64(BASE_POLICIES.index(base))
    done = 0
    stopped = "budget"
    consistent = 0.0
    while done < worlds:
        count = min(batch, worlds - done)
        if player == "reader":
            consistent = reader.evaluate_worlds(rules_vec, view, move_tiles, move_ends, n, key, np.int64(done),
                                                np.int64(count), READER_TRUST, base_code, table,
                                                values[done : done + count], points[done : done + count])
        else:
            consistent = evaluate_worlds(rules_vec, view, move_tiles, move_ends, n,
                                         world_batch(key, done, count, base_code, 0), table,
                                         values[done : done + count], points[done : done + count])
        done += count
        verdict = _verdict(values[:done], points[:done], z, mirror)
        if verdict:
            stopped = verdict
            break
    moves = _summaries(values[:done], points[:done], move_tiles, move_ends, mirror, view)
    return Analysis(moves, done, stopped, base, seed, float(consistent), time.perf_counter() - start, position, rules,
                    player)


def _mirrors(position: Position, move_tiles: np.ndarray, move_ends: np.ndarray, n: int) -> np.ndarray:
    """mirror[k] = the index of the move that is move k on the other end when both ends look alike, else -1."""
    mirror = np.full(n, -1)
    if position.left == position.right and position.left_double == position.right_double:
        for k in range(n - 1):
            if move_tiles[k] == move_tiles[k + 1]:
                mirror[k], mirror[k + 1] = k + 1, k
    return mirror


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


def _summaries(values: np.ndarray, points: np.ndarray, move_tiles: np.ndarray, move_ends: np.ndarray,
               mirror: np.ndarray, view: np.ndarray) -> list[dict[str, Any]]:
    """One record per move, best first: win probability, expected points and the gap to the best."""
    order = _ranking(values, points)
    best = order[0]
    out = []
    for rank, k in enumerate(order, 1):
        tile = int(move_tiles[k])
        end = int(move_ends[k])
        left, right = int(view[L.V_LEFT]), int(view[L.V_RIGHT])
        double = L.TILE_LO[tile] == L.TILE_HI[tile]
        new = int(other_half(tile, left if end == L.END_L else right))
        ends = (new, right) if end == L.END_L else (left, new)
        flags = (double, bool(view[L.V_RIGHT_DOUBLE])) if end == L.END_L else (bool(view[L.V_LEFT_DOUBLE]), double)
        diff = values[:, best] - values[:, k]
        out.append({
            "rank": rank,
            "tile": L.TILE_NAMES[tile],
            "end": L.END_NAMES[end],
            "ends_after": f"{ends[0]}{'d' if flags[0] else ''},{ends[1]}{'d' if flags[1] else ''}",
            "win": _record(values[:, k]),
            "points": _record(points[:, k]),
            "win_behind_best": _record(diff),
            "mirror_of": None if mirror[k] < 0 else f"{L.TILE_NAMES[tile]} {L.END_NAMES[int(move_ends[mirror[k]])]}",
        })
    return out


def _record(sample: np.ndarray) -> dict[str, Any]:
    m, lo, hi = stats.mean_interval(float(sample.sum()), float((sample * sample).sum()), sample.shape[0])
    if math.isnan(lo):
        lo = hi = m
    return {"mean": m, "ci95": [lo, hi], "n": int(sample.shape[0])}
