"""Compiled half of the luck adjustment: per match, the zero-mean luck controls of every side.

:mod:`bergen_sim.services.luck` explains the method; this module replays kernel trace
rows (layout ``T_*``) and, at every chance event, adds to each side's
controls ``psi(state after the event) - E[psi(state after the event)]``, the
expectation taken over the event's outcome given everything before it:

- the deal of a hand (the hands as sets, given the scores): the expectation
  is an unbiased Monte Carlo average over ``deal_samples`` independent deals
  drawn from the same distribution (uniform, redealt until a hand holds a
  double), each used in every rotation of its hands around the table (the
  distribution is exchangeable over seats, so every rotation is a draw from
  it too); the samples come from a keyed stream of their own, never the
  match's;
- every draw: given the history, the next tile is uniform over the tiles
  still in the boneyard (its order is a uniform shuffle), so the
  expectation is computed exactly by enumerating them;
- every decision of a seat whose policy can be run here again (a built-in,
  or ``pimc`` on the adjustment's table; ``deciders``): a policy that
  draws random numbers (``random``, ``pimc``'s sampled worlds) adds luck
  of its own, which the value of the *full* position shows although the
  seat's view cannot (two moves ``pimc`` finds about equal over its worlds
  can differ a lot in the true one).  The expectation is over the policy's
  own choice: ``decision_runs`` independent runs of it on the same view,
  each with a keyed stream of its own, are draws from the same
  distribution as the move actually made, so ``psi(after the move made) -
  mean over the runs of psi(after the move run)`` has expectation exactly
  zero.  A deterministic policy's runs all make the move made: its term is
  0 and nothing is evaluated.

``psi`` are the value function's three basis functions for side ``j``
(``CONTROLS``, in this order):

- ``C_TABLE``: the match-win table value ``T_j`` at the scores (it moves at
  a deal, by the points of the lead);
- ``C_WIN``: the mean over play-outs of the hand of ``T_j`` at the scores
  where the hand ends (1 or 0 once a side reaches the target);
- ``C_POINTS``: the mean over the same play-outs of side ``j``'s points in
  the hand (those already scored in it included).

A play-out plays the rest of the hand from the full position (every hand
known) with each seat's own policy where it is a built-in, or its model (a
built-in, or a ``pimc`` search from the seat's view: ``_play_out``), and a boneyard
freshly shuffled for it: the actual order is the future's chance and is
never looked at.  Each control is a sum of terms whose conditional
expectation is zero, so its expectation is exactly zero, whatever the
coefficients later put on it; the play-outs' noise only costs precision.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from bergen_sim.engine import layout as L
from bergen_sim.engine.bits import borrow, read_shared
from bergen_sim.engine.hand import (
    HAND_OVER,
    MATCH_OVER,
    advance_on,
    begin_turns,
    borrowed,
    deal_hand,
    lead,
    play,
    play_on,
    scratch_buffers,
    side_count,
)
from bergen_sim.engine.keyed_random import shuffle, shuffled_set, stream_state
from bergen_sim.engine.play_rules import hand_moves, hand_of, set_hand
from bergen_sim.engine.sides import seat_side, side_total
from bergen_sim.engine.tileset import bit, both, double_tiles, drop_lowest, first_tiles, is_empty, lowest, minus, union
from bergen_sim.engine.view import ends_of, used_slots, view_draw, view_play, view_start_match, view_void_moment
from bergen_sim.search import pimc
from bergen_sim.search.match_value import win_probability
from bergen_sim.search.rollout import base_choose, base_move, turn_view

#: the controls of a side, in ``controls[..., c]`` order (float64; the module docstring defines them)
CONTROL = L.Vector(
    "C",
    [
        L.Field("table", meaning="the match-win table value at the scores"),
        L.Field("win", meaning="the mean over play-outs of the table value where the hand ends"),
        L.Field("points", meaning="the mean over the same play-outs of the side's points in the hand"),
    ],
    size_name="CONTROLS",
    title="luck controls of a side",
)
#: a row of ``deciders`` (one per seat): how to run the seat's own policy again at its decisions
DECIDER = L.Vector(
    "D",
    [
        L.Field(
            "code",
            meaning="the code of a built-in (BASE_POLICIES) or of pimc's base; -1: the policy cannot be run here, "
            "its decisions get no term",
        ),
        L.Field("worlds", meaning="pimc's worlds (0: the built-in decides)"),
        L.Field("partner", meaning="pimc's partner setting"),
    ],
    size_name="DECIDER_WIDTH",
    title="decider",
)
#: the layouts this module declares (tools/generate_constants.py writes their constants below)
LAYOUTS = (CONTROL, DECIDER)
# --- generated from the declarations above by tools/generate_constants.py; do not edit ---
C_TABLE = 0
C_WIN = 1
C_POINTS = 2
CONTROLS = 3
D_CODE = 0
D_WORLDS = 1
D_PARTNER = 2
DECIDER_WIDTH = 3
# --- end of generated constants ---
#: stream number (the last word of ``stream_state``) of a decision's first run; runs are numbered on from it,
#: above every play-out stream of the event (those stay below 2**40)
_RUN_STREAM = 1 << 40
#: key mixed into the seed of the samples' and play-outs' streams (kept apart from every engine stream)
SAMPLE_KEY = 0x6C75636B  # "luck"
#: stream key stride per hand (event numbers within a hand stay below it)
_HAND_STRIDE = 4096
#: numbers passed to compiled callees as int64s, not literals (each literal would compile its own copy)
_0, _ONE, _NONE = np.int64(0), np.int64(1), np.int64(-1)


class Valuation(NamedTuple):
    """How the positions of a replay are valued (``psi``): the models of the players the play-outs use and the
    buffers they play on (compiled code receives them as one argument)."""

    rules: np.ndarray
    table: np.ndarray  # the match-value table
    seat_bases: np.ndarray  # seat s plays the built-in with code seat_bases[s] ...
    search_worlds: np.ndarray  # ... or, where search_worlds[s] > 0, pimc with that many worlds
    rollouts: np.int64  # play-outs per position
    work_view: np.ndarray  # the play-outs' view ...
    work_hands: np.ndarray  # ... and hands
    rng: np.ndarray  # their random stream
    no_tiles: object  # the game's empty tile set (its width)


class Replay(NamedTuple):
    """How :func:`luck_controls` values the chance events of a trace (compiled code receives it as one argument;
    the numbers are int64 and the seed a uint64, so every caller shares one compiled specialization)."""

    rules: np.ndarray
    table: np.ndarray  # the match-value table
    sample_seed: np.uint64  # keys the sampled deals' and the play-outs' streams (never the match's)
    deal_samples: np.int64  # sampled deals per dealt hand, each used in every rotation of its hands
    rollouts: np.int64  # play-outs per evaluated position
    seat_bases: np.ndarray  # per seat, the code of the built-in that plays it in the play-outs ...
    search_worlds: np.ndarray  # ... or, where above 0, the worlds of the pimc search that does
    deciders: np.ndarray  # (MAX_SEATS, DECIDER_WIDTH): how to run each seat's own policy again (D_*)
    decision_runs: np.int64  # runs of it at each of its decisions (0: no decision terms)
    no_tiles: object  # the game's empty tile set (its width)


class Position(NamedTuple):
    """A full position of the replay: every hand known, the boneyard's tiles unordered."""

    policy_view: np.ndarray  # the position's view (a field named ``view`` is taken by Numba)
    hands: np.ndarray
    bone: np.ndarray  # the boneyard's tiles, ``n_bone`` of them, in no particular order
    n_bone: np.int64
    hand_points: np.ndarray  # each side's points in the hand so far


@njit(cache=True)
def _play_out(rules, b, seat, seat_bases, search_worlds, table, rng):
    """Play a hand out (``seat`` has just moved) as the match is played: seat ``s`` by the built-in with code
    ``seat_bases[s]``, or, where ``search_worlds[s] > 0``, by ``pimc`` with that many worlds (its play-outs
    by ``seat_bases[s]``, its leaves valued by ``table``).  Returns 1 if the match ended in the hand.

    Why a loop of its own rather than :func:`~bergen_sim.search.rollout.play_out_by_seat`: ``pimc``'s
    own play-outs are that function, and a play-out that could call ``pimc`` from inside it would be
    recursive, which the compiler cannot type.  A search seat in the luck's play-outs is what lets the
    value function follow a search player's play (``docs/compare.md``, "Models of the players").
    """
    b = borrowed(b)
    rules, seat_bases, search_worlds, table, rng = (
        borrow(rules),
        borrow(seat_bases),
        borrow(search_worlds),
        borrow(table),
        borrow(rng),
    )
    pos = b.turn[L.TURN_BONE_START]
    ends = ends_of(b.policy_view)  # held in a local from play to play, as the match loop does (engine/ends.py)
    while True:
        n, seat, pos = advance_on(rules, b, seat, pos, ends)
        if n == HAND_OVER:
            return 0
        if n == MATCH_OVER:
            return 1
        if n > 1 and search_worlds[seat] > 0:
            k = pimc.choose(
                turn_view(b, seat),
                b.move_tiles,
                b.move_ends,
                n,
                rng,
                b.no_tiles,
                pimc.settings_row(search_worlds[seat], seat_bases[seat], _0),
                rules,
                table,
            )
        else:
            k = base_move(b, seat, n, seat_bases[seat], rng)
        ended, ends = play_on(rules, b, seat, b.move_tiles[k], b.move_ends[k], ends)
        if ended:
            return 1


@njit(cache=True)
def _evaluate(valuation, position, exclude, seat, key, out, move_tile, move_end):
    """``psi`` of a full position (a :class:`Position`) for every side into ``out[j, :]`` (``seat`` has just
    moved), valued as ``valuation`` (a :class:`Valuation`) says.

    ``bone[:n_bone]`` holds the boneyard's tiles and ``exclude`` (when not
    -1); each play-out shuffles them from the stream keyed ``key`` and drops
    ``exclude``, so the positions after each possible tile of a draw, evaluated
    with the same key, see the other tiles in the same order and the same
    policy random numbers.  With ``move_tile`` (not -1) the position is the
    one after ``seat`` plays it on ``move_end`` (``seat`` is to move in
    ``view``): the moves of a decision, evaluated with the same key, meet the
    same boneyards and random numbers too.
    """
    rules, table, seat_bases, search_worlds = (
        borrow(valuation.rules),
        borrow(valuation.table),
        borrow(valuation.seat_bases),
        borrow(valuation.search_worlds),
    )
    work_view, work_hands, rng = borrow(valuation.work_view), borrow(valuation.work_hands), borrow(valuation.rng)
    view, hands, bone, hand_points = (
        borrow(position.policy_view),
        borrow(position.hands),
        borrow(position.bone),
        borrow(position.hand_points),
    )
    key, out = borrow(key), borrow(out)
    rollouts, n_bone, no_tiles = valuation.rollouts, position.n_bone, valuation.no_tiles
    sides = side_count(rules)
    for j in range(sides):
        out[j, C_TABLE] = win_probability(table, rules, view, j)
        out[j, C_WIN] = 0.0
        out[j, C_POINTS] = 0.0
    if rollouts == 0:
        return
    shuffled = np.empty(n_bone, dtype=np.int64)
    order = np.empty(n_bone, dtype=np.int64)
    b = scratch_buffers(work_view, work_hands, order, no_tiles)
    used = used_slots(view)  # the rest of the view is log space nobody reads
    for r in range(rollouts):
        rng[0] = stream_state(key[0], key[1], key[2], key[3] + np.uint64(r))
        shuffled[:] = bone[:n_bone]
        shuffle(rng, shuffled, n_bone)
        n = 0
        for i in range(n_bone):
            if shuffled[i] != exclude:
                order[n] = shuffled[i]
                n += 1
        work_view[:used] = view[:used]
        work_hands[:] = hands
        begin_turns(b, 0, n - rules[L.R_RESERVE])
        ended = 0
        if move_tile >= 0:
            ended = play(rules, b, seat, move_tile, move_end)
            if r == 0:  # the table moves by the move's points (the same in every play-out)
                for j in range(sides):
                    out[j, C_TABLE] = win_probability(table, rules, work_view, j)
        if ended == 0:
            _play_out(rules, b, seat, seat_bases, search_worlds, table, rng)
        for j in range(sides):
            out[j, C_WIN] += win_probability(table, rules, work_view, j) / rollouts
            out[j, C_POINTS] += (hand_points[j] + work_view[L.V_SCORE + j] - view[L.V_SCORE + j]) / rollouts


@njit(cache=True)
def _decision(valuation, position, seat, tile, end, deciders, runs, key, psi, controls):
    """Add the terms of ``seat``'s decision (it played ``tile`` on ``end`` in ``position``) to ``controls[j, c]``.

    ``runs`` runs of the seat's own policy (``deciders``' row) on the view it decided on, each from a stream
    keyed by the event and the run, estimate its distribution over the moves; the term is ``psi`` after the
    move made minus that distribution's mean of ``psi`` (the module docstring says why its expectation is 0).
    Returns 0, or -1 when the move made is not among the legal ones (not a trace of the engine's).
    """
    rules, table, no_tiles = valuation.rules, valuation.table, valuation.no_tiles
    view, hands, bone = position.policy_view, position.hands, position.bone
    code = deciders[seat, D_CODE]
    if code < 0 or runs == 0 or valuation.rollouts == 0:
        return 0
    decide_view = view.copy()  # the runs' policies see (and may scribble on) a copy, never the replayed view
    b = scratch_buffers(decide_view, hands.copy(), bone, no_tiles)
    n = hand_moves(hand_of(hands, seat, no_tiles), decide_view, b.move_tiles, b.move_ends)
    made = -1
    for i in range(n):
        if b.move_tiles[i] == tile and b.move_ends[i] == end:
            made = i
    if made < 0:
        return -1
    if n < 2:
        return 0
    picks = np.zeros(n, dtype=np.float64)
    rng = np.zeros(1, dtype=np.uint64)
    search_settings = pimc.settings_row(deciders[seat, D_WORLDS], code, deciders[seat, D_PARTNER])
    for k in range(runs):
        rng[0] = stream_state(key[0], key[1], key[2], np.uint64(_RUN_STREAM + k))
        if deciders[seat, D_WORLDS] > 0:
            i = pimc.choose(
                turn_view(b, seat),
                b.move_tiles,
                b.move_ends,
                n,
                rng,
                no_tiles,
                search_settings,
                rules,
                table,
            )
        else:
            i = base_choose(code, turn_view(b, seat), b.move_tiles, b.move_ends, n, rng, no_tiles)
        picks[i] += 1.0
    if picks[made] == runs:  # every run made the move made (a deterministic policy always does): no luck here
        return 0
    sides = side_count(rules)
    for i in range(n):
        weight = (1.0 if i == made else 0.0) - picks[i] / runs
        if weight == 0.0:
            continue
        _evaluate(valuation, position, _NONE, seat, key, psi, b.move_tiles[i], b.move_ends[i])
        for j in range(sides):
            for c in range(CONTROLS):
                controls[j, c] += weight * psi[j, c]
    return 0


@njit(cache=True)
def _deal(rules, deal, shift, hand_no, position, rotated, led, no_tiles):
    """Deal ``deal`` with seat ``s``'s hand given to seat ``s + shift``, and lead: the double ``led``
    when it is among the leader's choices (the actual deal), else the leader's lowest (a sampled deal).

    Fills ``position`` (a :class:`Position`): the hands (the led double
    removed), the boneyard's tiles, the points of the hand so far and the
    view's hand part and scores; returns the leader, or -1 when no hand
    holds a double.
    """
    view, hands, bone, hand_points = position.policy_view, position.hands, position.bone, position.hand_points
    players = rules[L.R_PLAYERS]
    size = rules[L.R_HAND_SIZE]
    rotated[:] = deal
    for s in range(players):
        seat = (s + shift) % players
        rotated[seat * size : (seat + 1) * size] = deal[s * size : (s + 1) * size]
    for s in range(L.MAX_SEATS):
        hand_points[s] = view[L.V_SCORE + s]
    b = scratch_buffers(view, hands, rotated, no_tiles)
    n = deal_hand(rules, b, hand_no)
    k = 0
    for i in range(n):
        if b.move_tiles[i] == led:
            k = i
    lead(rules, b, hand_no, b.move_tiles[k])
    dealt = players * size
    bone[: rules[L.R_N_TILES] - dealt] = rotated[dealt : rules[L.R_N_TILES]]
    for s in range(L.MAX_SEATS):
        hand_points[s] = view[L.V_SCORE + s] - hand_points[s]
    return b.hrow[L.H_LEADER]


@njit(cache=True)
def _mask_tiles(mask, out):
    """Write the tiles of a bitmask into ``out`` in index order; returns how many."""
    n = 0
    while not is_empty(mask):
        out[n] = lowest(mask)
        mask = drop_lowest(mask)
        n += 1
    return n


@njit(cache=True, nogil=True)  # a run's threads replay their chunks at once (bergen_sim.services.execution.parallel)
def luck_controls(replay, trace, controls, match_rows, halt):
    """Replay trace rows of whole matches; per match, every side's luck controls and its result.

    ``replay`` (a :class:`Replay`) says how the chance events are valued.
    ``controls`` (matches, MAX_SEATS, CONTROLS) receives the sums over
    the match's chance events; ``match_rows`` (matches, M_WIDTH) the match
    index, winner, scores and hands (layout ``M_*``).  The possible tiles
    of a draw share their play-outs' random numbers, so their differences
    are not drowned in noise, and so do the moves of a decision.  ``halt``
    is the run's stop flag (``bergen_sim.runtime.runner.halt_flag``), read
    before every match as the match loop reads it: once another thread sets
    it, the replay returns before the next match.  Returns the number of
    matches read.
    """
    rules, table, no_tiles = replay.rules, replay.table, replay.no_tiles
    sample_seed, deal_samples, rollouts = replay.sample_seed, replay.deal_samples, replay.rollouts
    seat_bases, search_worlds = replay.seat_bases, replay.search_worlds
    deciders, decision_runs = replay.deciders, replay.decision_runs
    players = rules[L.R_PLAYERS]
    partners = rules[L.R_PARTNERSHIPS]
    sides = side_total(players, partners)
    dealt = players * rules[L.R_HAND_SIZE]
    n_tiles = rules[L.R_N_TILES]
    hands = np.zeros(L.MAX_SEATS * L.SET_WORDS, dtype=np.int64)
    alt_hands = np.zeros(L.MAX_SEATS * L.SET_WORDS, dtype=np.int64)
    work_hands = np.zeros(L.MAX_SEATS * L.SET_WORDS, dtype=np.int64)
    hand_points = np.zeros(L.MAX_SEATS, dtype=np.int64)
    alt_points = np.zeros(L.MAX_SEATS, dtype=np.int64)
    drawn_run = np.zeros(L.MAX_SEATS, dtype=np.int64)
    deal = np.zeros(L.MAX_TILES, dtype=np.int64)
    sample = np.zeros(L.MAX_TILES, dtype=np.int64)
    rotated = np.zeros(L.MAX_TILES, dtype=np.int64)
    tiles = np.zeros(L.MAX_TILES, dtype=np.int64)
    bone = np.zeros(L.MAX_TILES, dtype=np.int64)
    view = np.zeros(L.V_SIZE, dtype=np.int64)
    alt_view = np.zeros(L.V_SIZE, dtype=np.int64)
    work_view = np.zeros(L.V_SIZE, dtype=np.int64)
    actual = np.zeros((L.MAX_SEATS, CONTROLS), dtype=np.float64)
    psi = np.zeros((L.MAX_SEATS, CONTROLS), dtype=np.float64)
    expected = np.zeros((L.MAX_SEATS, CONTROLS), dtype=np.float64)
    per_tile = np.zeros((L.MAX_TILES, L.MAX_SEATS, CONTROLS), dtype=np.float64)
    rng = np.zeros(1, dtype=np.uint64)
    roll_rng = np.zeros(1, dtype=np.uint64)
    key = np.zeros(4, dtype=np.uint64)
    valuation = Valuation(rules, table, seat_bases, search_worlds, rollouts, work_view, work_hands, roll_rng, no_tiles)
    one_rollout = Valuation(rules, table, seat_bases, search_worlds, _ONE, work_view, work_hands, roll_rng, no_tiles)
    dealt_alt = Position(alt_view, alt_hands, bone, n_tiles - dealt, alt_points)  # a deal sampled or valued
    dealt_actual = Position(view, hands, bone, n_tiles - dealt, hand_points)  # the deal replayed
    m = -1
    played = no_tiles
    event = 0
    for i in range(trace.shape[0]):
        row = trace[i]
        ev = row[L.T_TYPE]
        match = row[L.T_MATCH]
        hand_no = row[L.T_HAND]
        event += 1
        key[0] = sample_seed
        key[1] = match
        key[2] = hand_no * _HAND_STRIDE + event
        key[3] = 0
        if ev == L.EV_MATCH:
            if read_shared(halt) != 0:
                return m + 1
            m += 1
            controls[m, :, :] = 0.0
            match_rows[m, :] = 0
            match_rows[m, L.M_MATCH] = match
            view_start_match(view, rules)
            event = 0
        elif ev == L.EV_DEAL:
            deal[:n_tiles] = row[L.T_DEAL : L.T_DEAL + n_tiles]
        elif ev == L.EV_LEAD:
            # the actual deal, against sampled deals each in every rotation around the table
            expected[:, :] = 0.0
            rng[0] = stream_state(sample_seed, match, hand_no, 0)
            for n_sample in range(deal_samples):
                while True:
                    shuffled_set(rng, sample, n_tiles)
                    held = no_tiles
                    for k in range(dealt):
                        held = union(held, bit(sample[k], no_tiles))
                    if not is_empty(both(held, double_tiles(no_tiles))):
                        break
                for shift in range(players):
                    alt_view[:] = view
                    leader = _deal(rules, sample, shift, hand_no, dealt_alt, rotated, _NONE, no_tiles)
                    key[3] = (n_sample * players + shift + 1) << 20  # each its own play-out stream
                    _evaluate(one_rollout, dealt_alt, _NONE, leader, key, psi, _NONE, _NONE)
                    expected[:sides] += psi[:sides]
            # the actual deal valued by the same function of the deal as the samples (its leader leading
            # the lowest double it holds): under any-double the double actually led is the leader's
            # decision, skill rather than luck, and valuing it here would bias the control
            key[3] = 0
            alt_view[:] = view
            leader = _deal(rules, deal, _0, hand_no, dealt_alt, rotated, _NONE, no_tiles)
            _evaluate(valuation, dealt_alt, _NONE, leader, key, actual, _NONE, _NONE)
            _deal(rules, deal, _0, hand_no, dealt_actual, rotated, row[L.T_TILE], no_tiles)
            weight = 1.0 / (deal_samples * players)
            for j in range(sides):
                for c in range(CONTROLS):
                    controls[m, j, c] += actual[j, c] - weight * expected[j, c]
            played = bit(row[L.T_TILE], no_tiles)
            for s in range(L.MAX_SEATS):
                drawn_run[s] = 0
        elif ev == L.EV_DRAW:
            # the draw: every tile still in the boneyard, each as likely as the drawn one; the
            # play-outs restart the seat's turn holding it, its draws logged as a moment without a
            # tile for these ends, so the view stays true for every seat's policy
            seat = row[L.T_SEAT]
            tile = row[L.T_TILE]
            held = no_tiles
            for s in range(players):
                held = union(held, hand_of(hands, s, no_tiles))
            options = _mask_tiles(minus(first_tiles(n_tiles, no_tiles), union(held, played)), tiles)
            mine = hand_of(hands, seat, no_tiles)
            alt_view[:] = view
            view_draw(alt_view, seat)
            view_void_moment(alt_view, seat, drawn_run[seat] + 1, drawn_run[seat] + 1)
            before = seat - 1 if seat > 0 else players - 1
            drawn_at = -1
            for a in range(options):
                set_hand(hands, seat, union(mine, bit(tiles[a], no_tiles)))
                drawn = Position(alt_view, hands, tiles, options, hand_points)
                _evaluate(valuation, drawn, tiles[a], before, key, per_tile[a], _NONE, _NONE)
                if tiles[a] == tile:
                    drawn_at = a
            if drawn_at < 0:
                return -1  # a trace whose draw is not in the boneyard: not one of the engine's
            for j in range(sides):
                for c in range(CONTROLS):
                    total = 0.0
                    for a in range(options):
                        total += per_tile[a, j, c]
                    controls[m, j, c] += per_tile[drawn_at, j, c] - total / options
            set_hand(hands, seat, union(mine, bit(tile, no_tiles)))
            drawn_run[seat] += 1
            view_draw(view, seat)
        elif ev == L.EV_PLAY:
            seat = row[L.T_SEAT]
            tile = row[L.T_TILE]
            if drawn_run[seat] > 0:
                view_void_moment(view, seat, drawn_run[seat], drawn_run[seat] - 1)
                drawn_run[seat] = 0
            if deciders[seat, D_CODE] >= 0 and decision_runs > 0:
                held = no_tiles
                for s in range(players):
                    held = union(held, hand_of(hands, s, no_tiles))
                n_bone = _mask_tiles(minus(first_tiles(n_tiles, no_tiles), union(held, played)), tiles)
                if (
                    _decision(
                        valuation,
                        Position(view, hands, tiles, n_bone, hand_points),
                        seat,
                        tile,
                        row[L.T_END],
                        deciders,
                        decision_runs,
                        key,
                        psi,
                        controls[m],
                    )
                    < 0
                ):
                    return -1  # a play the engine could not have made
            set_hand(hands, seat, minus(hand_of(hands, seat, no_tiles), bit(tile, no_tiles)))
            played = union(played, bit(tile, no_tiles))
            view_play(view, seat, tile, row[L.T_END], no_tiles)
            hand_points[seat_side(seat, partners)] += row[L.T_POINTS]
            for s in range(sides):
                view[L.V_SCORE + s] = row[L.T_SCORE + s]
        elif ev == L.EV_PASS:
            seat = row[L.T_SEAT]
            view_void_moment(view, seat, drawn_run[seat], drawn_run[seat])
            drawn_run[seat] = 0
        elif ev == L.EV_OUT or ev == L.EV_BLOCKED:
            for s in range(sides):
                view[L.V_SCORE + s] = row[L.T_SCORE + s]
        elif ev == L.EV_MATCH_END:
            match_rows[m, L.M_WINNER] = row[L.T_WINNER]
            for s in range(L.MAX_SEATS):
                match_rows[m, L.M_SCORE + s] = row[L.T_SCORE + s] if s < sides else -1
            match_rows[m, L.M_HANDS] = hand_no
    return m + 1
