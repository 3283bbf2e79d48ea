"""``reader``: pimc that reads the other seats' plays and spends its worlds on the close moves.

Idea: ``pimc`` (:mod:`bergen_sim.search.pimc`) deals the hidden tiles
uniformly among the deals that break no void and gives every legal move the
same number of worlds.  ``reader`` changes two things and keeps the rest
(the same rollouts, common random numbers and match-win values at the end of
the hand):

1. **Worlds weighted by the other seats' plays.**  A candidate world is
   kept with probability equal to the likelihood of the plays the other
   seats made this hand, had they held what the world gives them
   (:mod:`bergen_sim.search.inference`: with the default model a seat that
   passed up a header it could have made loses ``exp(-trust/10 * points)``).
   Kept worlds are thus drawn from the posterior (uniform prior times that likelihood: exact
   rejection sampling).  After ``MAX_TRIES`` candidates for one world the
   last is kept unweighted, so an unexpected opponent cannot stall a decision.
2. **Racing the moves.**  Worlds come in batches of 32; after each batch a
   move whose paired difference to the leading move (one per world, common
   random numbers) is below zero by more than ``RACE_Z`` standard errors is
   dropped, as is a move equal to the leader in every world so far (a
   mirror image, or both win at once).  The budget left goes to the moves
   still in the race, up to ``worlds`` worlds.

The move played is the one with the highest mean match-win probability over
the worlds it met (ties: more expected hand points, then the first listed),
among those still in the race.

Settings (``reader:worlds=512:trust=0``) are declared once, with their defaults and meanings, in :data:`PARAMS`;
``bergen-sim policies --settings`` lists them.

Its strength against ``pimc`` (2 players, 3 players, partnerships) and its
cost per decision are measured in research/search-strength/README.md (``research/search-strength/measure.py``,
``benchmarks/search_cost.py``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from bergen_sim.engine import layout as L
from bergen_sim.engine.bits import borrow
from bergen_sim.engine.hand import scratch_buffers
from bergen_sim.engine.keyed_random import below, next_u64, stream_state
from bergen_sim.engine.view import used_slots
from bergen_sim.engine.worlds import USE_LEAD, prepare, sample_world, world_count
from bergen_sim.policies.base import LEAD_FOLLOW, Setting, lead_by, positions
from bergen_sim.search.inference import (
    MODELS,
    READING_SETTINGS,
    evidence_buffer,
    play_evidence,
    world_log_likelihood,
)
from bergen_sim.search.match_value import table_for
from bergen_sim.search.pimc import Moves, Rollout, World, WorldBatch, play_move_out
from bergen_sim.search.rollout import BASE_POLICIES, EVERY_SEAT

NAME = "reader"

#: settings: name -> (default, allowed values); see bergen_sim.runtime.registry
PARAMS = {
    "worlds": Setting(
        256,
        range(32, 100_001),
        "most worlds per decision; the cost grows less than linearly, since clear losers stop early",
    ),
    "trust": Setting(
        10,
        range(0, 101),
        "in tenths, how strongly the other seats' plays are believed to follow the model (0: uniform worlds)",
    ),
    "base": Setting("expert", BASE_POLICIES, "the built-in playing every seat in the rollouts"),
    "model": Setting(
        "points", MODELS, "the model of the other seats' play that weighs the worlds (bergen_sim.search.inference)"
    ),
}

#: ``reader:model=expert:trust=20``: it won 51.7% [50.7, 52.8] of 4,000 matches head to head against the default
#: (research/imitation/reader_model_head_to_head.json)
STRONGEST = NAME + READING_SETTINGS


#: where each setting sits in the row of settings the kernel passes (``settings``: int64 codes, PARAMS order)
_WORLDS, _TRUST, _BASE, _MODEL = positions(PARAMS, "worlds", "trust", "base", "model")


def kernel_arrays(rules, params: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Constant arrays the kernel passes after the settings: the rules vector and the match-value table."""
    return rules.to_array(), table_for(rules, BASE_POLICIES[params[_BASE]])


#: worlds added to the race at a time
BATCH = 32
#: a move this many standard errors behind the leader leaves the race
RACE_Z = 2.5
#: candidate worlds tried for one world before the last is kept unweighted
MAX_TRIES = 16
#: 2**-30: turns 30 random bits into a uniform number
_UNIT = 1.0 / (1 << 30)


@njit(cache=True)
def world_buffers(no_tiles):
    """Scratch arrays for worlds and rollouts: (hands, boneyard, evidence rows, a line view, hand buffers)."""
    b = scratch_buffers(
        np.zeros(L.V_SIZE, dtype=np.int64),
        np.zeros(L.MAX_SEATS * L.SET_WORDS, dtype=np.int64),
        np.zeros(L.MAX_TILES, dtype=np.int64),
        no_tiles,
    )
    return (
        np.zeros(L.MAX_SEATS * L.SET_WORDS, dtype=np.int64),
        np.zeros(L.MAX_TILES, dtype=np.int64),
        evidence_buffer(),
        np.zeros(L.V_SIZE, dtype=np.int64),
        b,
    )


class Reading(NamedTuple):
    """The worlds of one decision as :func:`draw_world` deals them: the deals the view allows, and the evidence of
    the other seats' plays that weighs them (compiled code receives them as one argument)."""

    spec: np.ndarray  # W_*: the deals that break no void (bergen_sim.engine.worlds.prepare)
    completions: np.ndarray  # their counts by state (prepare)
    evidence: np.ndarray  # rows of evidence of the other seats' plays (inference.play_evidence) ...
    rows: np.int64  # ... and how many of them hold it
    trust: float  # a world loses exp(-trust) per point of the model's score its plays passed up
    model: np.int64  # the model of their play (an index into inference.MODELS)
    no_tiles: object  # the game's empty tile set (its width)


@njit(cache=True)
def draw_world(view, reading, key, w, hands, bone):
    """Fill ``hands``/``bone`` with world ``w`` of the decision ``key``; returns the boneyard size.

    Candidates come from the keyed streams ``(key, w, 0, j)``, ``j = 0, 1,
    ...``; candidate ``j`` is kept with probability equal to the likelihood of
    the other seats' plays in it (rejection sampling from the posterior),
    scored from the decision's evidence (``reading``, a :class:`Reading`).
    After ``MAX_TRIES`` candidates the last one is kept whatever its
    likelihood.  World ``w`` is thus a pure function of ``(key, w)``, like
    pimc's, whatever batches it is drawn in.
    """
    rng = np.zeros(1, dtype=np.uint64)
    n_bone = 0
    for j in range(MAX_TRIES):
        rng[0] = stream_state(key, w, 0, j)
        n_bone = sample_world(view, reading.spec, reading.completions, rng, hands, bone, reading.no_tiles)
        loglik = world_log_likelihood(
            reading.evidence, reading.rows, hands, reading.trust, reading.no_tiles, reading.model
        )
        if loglik >= 0.0 or below(rng, 1 << 30) * _UNIT < np.exp(loglik):
            break
    return n_bone


class ReadingModel(NamedTuple):
    """How the reader reads the other seats' plays (compiled code receives it as one argument)."""

    trust: float  # a world loses exp(-trust) per point of the model's score its plays passed up
    model: np.int64  # the model of their play (an index into inference.MODELS)


@njit(cache=True)
def evaluate_worlds(rules, view, moves, batch, table, values, points, no_tiles, search):
    """Every move in the worlds of ``batch`` (rows ``0 .. batch.worlds - 1`` of ``values``/``points``).

    The analyzer's entry point: like :func:`bergen_sim.search.pimc.evaluate_worlds`
    with the reader's worlds, read as ``search`` (a :class:`ReadingModel`)
    says.  Returns the number of consistent deals of the unseen tiles (0:
    none, nothing written).
    """
    spec, completions = prepare(view, rules, batch.use_lead, no_tiles)
    consistent = world_count(spec, completions)
    if consistent == 0.0:
        return consistent
    hands, bone, evidence, line, b = world_buffers(no_tiles)
    rows = play_evidence(view, evidence, line, no_tiles, search.model)
    reading = Reading(spec, completions, evidence, rows, search.trust, search.model, no_tiles)
    roll_rng = np.zeros(1, dtype=np.uint64)
    every_seat = borrow(EVERY_SEAT)  # base plays every seat
    used = used_slots(view)
    for i in range(batch.worlds):
        w = batch.first + i
        world = World(rules, view, used, b, hands, bone, draw_world(view, reading, batch.key, w, hands, bone))
        rollout = Rollout(batch.base, every_seat, stream_state(batch.key, w, 1, 0), roll_rng, table)
        for k in range(moves.n):
            values[i, k], points[i, k] = play_move_out(world, rollout, view[L.V_SEAT], moves.tiles[k], moves.ends[k])
    return consistent


@njit(cache=True)
def leader(values, points, n_worlds, active, n_moves):
    """The active move with the highest total win chance (ties: points, then first listed)."""
    best = -1
    best_value = -1.0
    best_points = -1e18
    for k in range(n_moves):
        if not active[k]:
            continue
        value = values[:n_worlds, k].sum()
        pts = points[:n_worlds, k].sum()
        if best < 0 or value > best_value or (value == best_value and pts > best_points):
            best = k
            best_value = value
            best_points = pts
    return best


@njit(cache=True)
def race(values, points, n_worlds, active, n_moves):
    """Drop the moves clearly behind the leader (or equal to it in every world); returns how many remain."""
    lead = leader(values, points, n_worlds, active, n_moves)
    left = 0
    for k in range(n_moves):
        if not active[k] or k == lead:
            continue
        diff = values[:n_worlds, lead] - values[:n_worlds, k]
        pts = points[:n_worlds, lead] - points[:n_worlds, k]
        if np.all(diff == 0.0) and np.all(pts >= 0.0):
            active[k] = False  # never better than the leader in any world: the leader wins its ties
            continue
        mean = diff.mean()
        spread = diff.std() * np.sqrt(n_worlds / (n_worlds - 1.0))
        if mean > RACE_Z * spread / np.sqrt(n_worlds):
            active[k] = False
            continue
        left += 1
    return left + 1


@njit(cache=True)
def decide(view, moves, budget, search, rules, table, values, points, no_tiles):
    """The reader's move for a view; ``values``/``points`` (``worlds x n_moves``) receive what was played.

    ``budget`` (a :class:`~bergen_sim.search.pimc.WorldBatch`) gives the
    decision's key, the most worlds, the rollout policy and how the lead is
    read; ``search`` (a :class:`ReadingModel`) how the other seats' plays are
    read.  Returns ``(move, worlds used)``; rows past the worlds used, and
    the columns of moves dropped early, are left as they were.
    """
    n_moves, worlds = moves.n, budget.worlds
    active = np.ones(n_moves, dtype=np.bool_)
    racing = np.zeros(n_moves, dtype=np.int64)  # indices of the moves still in the race
    race_tiles = np.zeros(n_moves, dtype=np.int64)
    race_ends = np.zeros(n_moves, dtype=np.int64)
    batch_values = np.zeros((BATCH, n_moves), dtype=np.float64)
    batch_points = np.zeros((BATCH, n_moves), dtype=np.float64)
    n_worlds = np.int64(0)  # int64 from the start (not a literal 0): one compiled evaluate_worlds
    while n_worlds < worlds:
        count = min(BATCH, worlds - n_worlds)
        n_racing = np.int64(0)
        for k in range(n_moves):
            if active[k]:
                racing[n_racing] = k
                race_tiles[n_racing] = moves.tiles[k]
                race_ends[n_racing] = moves.ends[k]
                n_racing += 1
        batch = WorldBatch(budget.key, n_worlds, count, budget.base, budget.use_lead, budget.partner)
        race_moves = Moves(race_tiles, race_ends, n_racing)
        if evaluate_worlds(rules, view, race_moves, batch, table, batch_values, batch_points, no_tiles, search) == 0.0:
            return 0, 0  # no world fits the view (cannot happen for a real one): any move is as good
        for i in range(count):
            for j in range(n_racing):
                values[n_worlds + i, racing[j]] = batch_values[i, j]
                points[n_worlds + i, racing[j]] = batch_points[i, j]
        n_worlds += count
        if race(values, points, n_worlds, active, n_moves) == 1:
            break
    return leader(values, points, n_worlds, active, n_moves), n_worlds


@njit(cache=True)
def choose(view, move_tiles, move_ends, n_moves, rng, no_tiles, settings, rules, table):
    """pimc on worlds weighted by the other seats' plays, racing the moves (``settings``: the seat's row of
    settings, PARAMS order: worlds, trust, base, model)."""
    worlds, trust, base, model = settings[_WORLDS], settings[_TRUST], settings[_BASE], settings[_MODEL]
    values = np.zeros((worlds, n_moves), dtype=np.float64)
    points = np.zeros((worlds, n_moves), dtype=np.float64)
    budget = WorldBatch(next_u64(rng), np.int64(0), worlds, base, USE_LEAD, np.int64(-1))
    search = ReadingModel(trust / 10.0, model)
    move, _ = decide(
        view, Moves(move_tiles, move_ends, n_moves), budget, search, rules, table, values, points, no_tiles
    )
    return move


@njit(cache=True)
def choose_lead(view, move_tiles, move_ends, n_moves, rng, no_tiles, settings, rules, table):
    """The double to lead under ``any-double``: the rule ``expert`` leads by (base.LEAD_FOLLOW)."""
    return lead_by(view, move_tiles, n_moves, LEAD_FOLLOW, no_tiles)
