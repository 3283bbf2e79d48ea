"""``pimc``: determinized Monte Carlo search.

Idea: at each decision, deal the tiles the seat cannot see in many ways that
agree with everything it knows (:mod:`bergen_sim.engine.worlds`), play the
rest of the hand out in each of these worlds once per candidate move with a
fast built-in policy for every seat (:mod:`bergen_sim.search.rollout`), and
make the move with the highest mean match-win probability at the end of the
hand (:mod:`bergen_sim.search.match_value`), not the most hand points.

Every candidate move is played out in the *same* worlds with the *same*
random stream for the rollout (common random numbers), so the comparison
between moves is not blurred by the luck of the worlds.  Ties on win
probability (e.g. every world already decided) go to the move with more
expected hand points, then to the first listed move.

Settings (``pimc:worlds=256:base=greedy``) are declared once, with their defaults and meanings, in :data:`PARAMS`;
``bergen-sim policies --settings`` lists them.

All randomness comes from the seat's keyed stream (``rng``), so a run is
reproducible from its seed like any other.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from bergen_sim.engine import layout as L
from bergen_sim.engine.bits import borrow
from bergen_sim.engine.hand import HandBuffers, begin_turns, borrowed, lead, play, scratch_buffers, side_of_seat
from bergen_sim.engine.keyed_random import next_u64, stream_state
from bergen_sim.engine.worlds import prepare, sample_world, world_count
from bergen_sim.policies.base import LEAD_FOLLOW, Setting, lead_by, positions
from bergen_sim.search.match_value import table_for, win_probability
from bergen_sim.search.rollout import BASE_POLICIES, play_out_by_seat

NAME = "pimc"

#: settings: name -> (default, allowed values); see bergen_sim.runtime.registry
PARAMS = {
    "worlds": Setting(64, range(1, 100_001), "worlds sampled per decision; the cost grows linearly with it"),
    "base": Setting("expert", BASE_POLICIES, "the built-in that plays every seat inside the worlds"),
    # code 0: as base; k: BASE_POLICIES[k - 1]
    "partner": Setting(
        "base",
        ("base", *BASE_POLICIES),
        "in partnerships, the built-in that plays the partner's seat in the worlds (base: the same as base)",
    ),
}


#: where each setting sits in the row of settings the kernel passes (``settings``: int64 codes, PARAMS order)
_WORLDS, _BASE, _PARTNER = positions(PARAMS, "worlds", "base", "partner")
_SETTINGS = len(PARAMS)


def kernel_arrays(rules, params: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Constant arrays the kernel passes after the settings: the rules vector and the match-value table."""
    return rules.to_array(), table_for(rules, BASE_POLICIES[params[_BASE]])


class WorldBatch(NamedTuple):
    """Which worlds :func:`evaluate_worlds` plays: worlds ``first .. first + count - 1`` of the decision ``key``."""

    key: np.uint64  # the decision's key: world w and its rollout stream are functions of (key, w)
    first: np.int64
    worlds: np.int64  # how many (``count`` would hide the tuple's own count method)
    base: np.int64  # the rollout policy's code (its index in BASE_POLICIES)
    use_lead: np.int64  # 1: the lead is evidence about the hidden doubles (see engine/worlds.py)
    partner: np.int64  # in partnerships, the code of the policy playing the partners' seats; -1: ``base``


def world_batch(key: Any, first: Any, count: Any, base: Any, use_lead: Any, partner: Any = -1) -> WorldBatch:
    """A :class:`WorldBatch` with the field types every caller must share (one compiled specialization)."""
    return WorldBatch(
        np.uint64(key), np.int64(first), np.int64(count), np.int64(base), np.int64(use_lead), np.int64(partner)
    )


class Moves(NamedTuple):
    """The legal moves of a decision, as the engine lists them (engine/layout.py, "Moves")."""

    tiles: np.ndarray
    ends: np.ndarray
    n: np.int64


class World(NamedTuple):
    """One world of a decision, as :func:`load_world` sets it up: the view's first ``used`` slots, hidden hands
    ``hands0`` and boneyard ``bone0[:n_bone]``, played on the scratch buffers ``b``."""

    rules: np.ndarray
    policy_view: np.ndarray  # the decision's view (a field named ``view`` is taken by Numba)
    used: np.int64
    b: HandBuffers
    hands0: np.ndarray
    bone0: np.ndarray
    n_bone: np.int64


class Rollout(NamedTuple):
    """How the rest of a hand is played out and valued: seat ``s`` by ``seat_bases[s]`` when given, else by
    ``base``, from the random stream ``roll_start`` (common random numbers), valued by ``table``."""

    base: np.int64
    seat_bases: np.ndarray
    roll_start: np.uint64
    roll_rng: np.ndarray
    table: np.ndarray


@njit(cache=True)
def seat_bases_for(rules, seat, base, partner):
    """The rollout policy of every seat: ``partner`` for ``seat``'s partners in partnerships, ``base`` for the rest
    (an empty array, which :func:`~bergen_sim.search.rollout.play_out_by_seat` reads as ``base`` everywhere, when
    ``partner`` is -1 or there are no partnerships)."""
    players = rules[L.R_PLAYERS]
    if partner < 0 or not rules[L.R_PARTNERSHIPS]:
        return np.zeros(0, dtype=np.int64)
    bases = np.full(players, base, dtype=np.int64)
    for s in range(players):
        if s != seat and side_of_seat(rules, s) == side_of_seat(rules, seat):
            bases[s] = partner
    return bases


@njit(cache=True)
def evaluate_worlds(rules, view, moves, batch, table, values, points, no_tiles, search):
    """Play every legal move (a :class:`Moves`) out in the worlds of ``batch`` (a :class:`WorldBatch`).

    World ``w`` and the rollout stream it uses are pure functions of
    ``(key, w)``: every move meets the same worlds and the same randomness,
    and a batch of worlds gives the same numbers whatever batches came
    before.  ``values[i, k]`` receives the deciding side's match-win
    probability after move ``k`` in world ``first + i``, ``points[i, k]``
    the points its side scored from the move to the end of the hand.
    Returns the number of consistent worlds (0: the view admits none and
    nothing was written).  ``no_tiles`` is the game's empty set (its width).
    ``search`` is None: pimc has no settings beyond the batch's (the
    analyzer calls ``reader``'s and ``ismcts``'s evaluation the same way,
    with theirs).
    """
    key, first, count, base = batch.key, batch.first, batch.worlds, batch.base
    spec, completions = prepare(view, rules, batch.use_lead, no_tiles)
    worlds = world_count(spec, completions)
    if worlds == 0.0:
        return worlds
    seat = view[L.V_SEAT]
    seat_bases = seat_bases_for(rules, seat, base, batch.partner)
    used = L.V_LOG + L.LOG_SIZE * view[L.V_LOG_N]  # the rest of the view is unused log space
    hands0 = np.zeros(L.MAX_SEATS * L.SET_WORDS, dtype=np.int64)
    bone0 = np.zeros(L.MAX_TILES, dtype=np.int64)
    hands = np.zeros(L.MAX_SEATS * L.SET_WORDS, dtype=np.int64)
    bone = np.zeros(L.MAX_TILES, dtype=np.int64)
    b = scratch_buffers(np.zeros(L.V_SIZE, dtype=np.int64), hands, bone, no_tiles)
    world_rng = np.zeros(1, dtype=np.uint64)
    roll_rng = np.zeros(1, dtype=np.uint64)
    for i in range(count):
        w = first + i
        world_rng[0] = stream_state(key, w, 0, 0)
        n_bone = sample_world(view, spec, completions, world_rng, hands0, bone0, no_tiles)
        dealt = World(rules, view, used, b, hands0, bone0, n_bone)
        rollout = Rollout(base, seat_bases, stream_state(key, w, 1, 0), roll_rng, table)
        for k in range(moves.n):
            values[i, k], points[i, k] = play_move_out(dealt, rollout, seat, moves.tiles[k], moves.ends[k])
    return worlds


@njit(cache=True, inline="always")
def load_world(rules, view, used, b, hands0, bone0, n_bone):
    """Set the scratch buffers ``b`` to a world: the view's first ``used`` slots, hands ``hands0``, boneyard ``bone0[:n_bone]``."""
    b.policy_view[:used] = view[:used]
    b.hands[:] = hands0
    b.tiles[:n_bone] = bone0[:n_bone]
    begin_turns(b, 0, n_bone - rules[L.R_RESERVE])


@njit(cache=True)
def play_move_out(world, rollout, seat, tile, end):
    """Play one move, then the rest of the hand as ``rollout`` (a :class:`Rollout`) says, in ``world`` (a
    :class:`World`); (win chance, points).

    The world is copied into its scratch buffers ``b`` first, so the
    caller's world stays intact for the next move.  The rollout stream
    restarts from ``roll_start`` (common random numbers).  Returns the
    deciding side's match-win probability at the end of the hand and the
    points it scored from the move on.  In a view with nothing on the table
    (a leader choosing its double under ``any-double``) the move is the lead
    of the double ``tile``, which scores as the engine's lead does.
    """
    rules, view, hands0, bone0 = (
        borrow(world.rules),
        borrow(world.policy_view),
        borrow(world.hands0),
        borrow(world.bone0),
    )
    roll_rng, table, seat_bases = borrow(rollout.roll_rng), borrow(rollout.table), borrow(rollout.seat_bases)
    b = borrowed(world.b)
    played = b.policy_view
    load_world(rules, view, world.used, b, hands0, bone0, world.n_bone)
    roll_rng[0] = rollout.roll_start
    side = view[L.V_SIDE]
    if view[L.V_OPEN_ENDS] == 0:  # nothing on the table (view_deal): the seat leads the double ``tile``
        b.hrow[L.H_LEADER] = seat
        over = lead(rules, b, view[L.V_HAND_NO], tile)
    else:
        over = play(rules, b, seat, tile, end)
    if not over:
        play_out_by_seat(rules, b, seat, rollout.base, seat_bases, roll_rng)
    return win_probability(table, rules, played, side), np.float64(played[L.V_SCORE + side] - view[L.V_SCORE + side])


@njit(cache=True)
def choose(view, move_tiles, move_ends, n_moves, rng, no_tiles, settings, rules, table):
    """The move with the best mean match-win probability over ``worlds`` sampled worlds (``settings``: the seat's
    row of settings, PARAMS order)."""
    worlds, base, partner = settings[_WORLDS], settings[_BASE], settings[_PARTNER]
    key = next_u64(rng)
    values = np.zeros((worlds, n_moves), dtype=np.float64)
    points = np.zeros((worlds, n_moves), dtype=np.float64)
    # typed arguments, not literals, so the analyzer's calls share this compiled specialization
    batch = WorldBatch(key, np.int64(0), np.int64(worlds), np.int64(base), np.int64(1), np.int64(partner - 1))
    evaluate_worlds(rules, view, Moves(move_tiles, move_ends, n_moves), batch, table, values, points, no_tiles, None)
    return best_total(values, points, n_moves)


@njit(cache=True)
def settings_row(worlds, base, partner):
    """The row of settings :func:`choose` reads, for callers that run pimc themselves (int64 codes)."""
    row = np.zeros(_SETTINGS, dtype=np.int64)
    row[_WORLDS] = worlds
    row[_BASE] = base
    row[_PARTNER] = partner
    return row


@njit(cache=True)
def best_total(values, points, n_moves):
    """pimc's verdict on ``values``/``points`` (worlds x moves): the move with the highest total win chance, ties
    to more points, then to the first listed."""
    best = 0
    best_value = -1.0
    best_points = -1.0
    for k in range(n_moves):
        value = values[:, k].sum()
        pts = points[:, k].sum()
        if value > best_value or (value == best_value and pts > best_points):
            best = k
            best_value = value
            best_points = pts
    return best


@njit(cache=True)
def choose_lead(view, move_tiles, move_ends, n_moves, rng, no_tiles, settings, rules, table):
    """The double to lead under ``any-double``: the rule ``expert`` leads by (base.LEAD_*)."""
    return lead_by(view, move_tiles, n_moves, LEAD_FOLLOW, no_tiles)
