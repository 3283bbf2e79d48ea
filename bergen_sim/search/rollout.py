"""Playing a hand out from a full state: the engine of search and match-value tables.

A *rollout* continues a hand from a complete world (every hand, the
boneyard order, the ends and the scores, all held in a policy view plus the
hidden hands and boneyard) to the end of the hand, with a fast built-in
policy choosing for every seat.  The ``pimc`` policy and the position
analyzer roll out sampled worlds; :mod:`bergen_sim.search.match_value` rolls out
freshly dealt hands from every score to estimate match-win probabilities.

Every rule comes from :mod:`bergen_sim.engine.play_rules` and every change of
public state goes through :mod:`bergen_sim.engine.view`, so a rollout plays
exactly the game of the match loop (``tests/test_pimc.py`` replays whole
matches through these functions and compares them with the engine).  The
view is the state: ends, double flags, scores, hand counts and voids live
in it, which is also what lets the base policy be called directly.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bergen_sim.engine import layout as L
from bergen_sim.engine.play_rules import (
    DOUBLE_MASK,
    NUMBER_MASK,
    TILE_HI,
    TILE_LO,
    cut_points,
    header_value,
    lead_double,
    legal_moves,
    other_half,
    settle_blocked,
    side_holdings,
)
from bergen_sim.engine.view import view_draw, view_play, view_start_hand, view_void_moment
from bergen_sim.policies import defensive, doubles_first, expert, first_move, greedy, heavy_first, random_move
from bergen_sim.policies.base import side_of

#: built-in policies a rollout can use, in the order of their ``base`` codes
BASE_POLICIES = tuple(m.NAME for m in (random_move, first_move, greedy, defensive, doubles_first, heavy_first, expert))


@njit(cache=True)
def base_choose(base, view, move_tiles, move_ends, n_moves, rng):
    """Call the built-in policy with code ``base`` (its index in ``BASE_POLICIES``).

    The policies are globals here, not arguments, for the same reason as in
    the match loop: Numba's disk cache then serves every later process.
    """
    if base == 0:
        return random_move.choose(view, move_tiles, move_ends, n_moves, rng)
    if base == 1:
        return first_move.choose(view, move_tiles, move_ends, n_moves, rng)
    if base == 2:
        return greedy.choose(view, move_tiles, move_ends, n_moves, rng)
    if base == 3:
        return defensive.choose(view, move_tiles, move_ends, n_moves, rng)
    if base == 4:
        return doubles_first.choose(view, move_tiles, move_ends, n_moves, rng)
    if base == 5:
        return heavy_first.choose(view, move_tiles, move_ends, n_moves, rng)
    return expert.choose(view, move_tiles, move_ends, n_moves, rng)


@njit(cache=True, inline="always")
def _score(rules, view, side, points):
    """Add points to a side; returns 1 when the side reaches the target (the match ends)."""
    view[L.V_SCORE + side] += points
    return 1 if view[L.V_SCORE + side] >= rules[L.R_TARGET] else 0


@njit(cache=True)
def apply_play(rules, view, hands, seat, tile, end):
    """``seat`` plays ``tile`` on ``end``: update ends, hand, counts and any header's points.

    Returns 1 if the header ends the match, 0 otherwise.
    """
    hands[seat] &= ~(np.int64(1) << tile)
    is_double = 1 if TILE_LO[tile] == TILE_HI[tile] else 0
    if end == L.END_L:
        view_play(view, seat, tile, end, other_half(tile, view[L.V_LEFT]), is_double)
    else:
        view_play(view, seat, tile, end, other_half(tile, view[L.V_RIGHT]), is_double)
    value = header_value(view[L.V_LEFT], view[L.V_RIGHT], view[L.V_LEFT_DOUBLE], view[L.V_RIGHT_DOUBLE])
    if value == 0:
        return 0
    side = side_of(view, seat)
    return _score(rules, view, side, cut_points(value, view[L.V_SCORE + side], rules[L.R_TARGET], rules[L.R_REDUCED]))


@njit(cache=True)
def _settle(rules, view, hands):
    """Settle a blocked hand; returns 1 if the winner's points end the match."""
    players = rules[L.R_PLAYERS]
    doubles = np.zeros(L.MAX_SEATS, dtype=np.int64)
    pips = np.zeros(L.MAX_SEATS, dtype=np.int64)
    plain = np.zeros(L.MAX_SEATS, dtype=np.int64)
    side_holdings(hands, players, rules[L.R_PARTNERSHIPS], doubles, pips, plain)
    sides = 2 if rules[L.R_PARTNERSHIPS] else players
    winner = settle_blocked(rules[L.R_SETTLEMENT], doubles, pips, plain, sides)
    if winner < 0:
        return 0
    return _score(rules, view, winner, rules[L.R_BLOCKED_POINTS])


@njit(cache=True)
def play_out(rules, view, hands, bone, n_bone, seat, base, rng, move_tiles, move_ends):
    """Play a hand to its end; ``seat`` has just played (or led) and play passes on.

    ``bone[0:n_bone]`` is the boneyard in draw order.  Every later choice
    with more than one legal move is the base policy's (code ``base``).
    Returns 1 if the match ended in this hand, 0 otherwise; the view holds
    the final scores.
    """
    players = rules[L.R_PLAYERS]
    bone_stop = n_bone - rules[L.R_RESERVE]
    bone_pos = 0
    passes = 0
    while True:
        if hands[seat] == 0:
            return _score(rules, view, side_of(view, seat), rules[L.R_OUT_POINTS])
        seat = seat + 1 if seat + 1 < players else 0
        ends = NUMBER_MASK[view[L.V_LEFT]] | NUMBER_MASK[view[L.V_RIGHT]]
        playable = hands[seat] & ends
        if playable == 0:
            drawn = 0
            while bone_pos < bone_stop:
                t = bone[bone_pos]
                bone_pos += 1
                drawn += 1
                hands[seat] |= np.int64(1) << t
                view_draw(view, seat)
                if (np.int64(1) << t) & ends:
                    playable = np.int64(1) << t
                    break
            view_void_moment(view, seat, drawn, drawn - 1 if playable else drawn)
            if playable == 0:
                passes += 1
                if passes == players:
                    return _settle(rules, view, hands)
                continue
        passes = 0
        n = legal_moves(playable, view[L.V_LEFT], view[L.V_RIGHT], move_tiles, move_ends)
        k = 0
        if n > 1:
            view[L.V_SEAT] = seat
            view[L.V_SIDE] = side_of(view, seat)
            view[L.V_HAND] = hands[seat]
            k = base_choose(base, view, move_tiles, move_ends, n, rng)
        if apply_play(rules, view, hands, seat, move_tiles[k], move_ends[k]):
            return 1


@njit(cache=True)
def start_hand(rules, view, deal, hand_no, hands, bone):
    """Deal ``deal`` (28 tiles: hands in seat order, then the boneyard) and lead.

    Fills ``hands`` and ``bone``, resets the view's hand part and scores the
    led double.  Returns (leader, boneyard size, 1 if the lead ended the
    match); leader -1 when no hand holds a double (the deal must be redone).
    """
    players = rules[L.R_PLAYERS]
    hand_size = rules[L.R_HAND_SIZE]
    held = np.int64(0)
    for s in range(L.MAX_SEATS):
        hands[s] = 0
    for s in range(players):
        for k in range(hand_size):
            hands[s] |= np.int64(1) << deal[s * hand_size + k]
        held |= hands[s]
    n_bone = L.N_TILES - players * hand_size
    for k in range(n_bone):
        bone[k] = deal[players * hand_size + k]
    if held & DOUBLE_MASK == 0:
        return -1, n_bone, 0
    leader, number = lead_double(hands, players, rules[L.R_LEAD] == L.LEAD_HIGHEST)
    hands[leader] &= ~(np.int64(1) << L.DOUBLE_TILE[number])
    view_start_hand(view, players, hand_size, n_bone, hand_no, leader, number)
    side = side_of(view, leader)
    ended = _score(rules, view, side, cut_points(2, view[L.V_SCORE + side], rules[L.R_TARGET], rules[L.R_REDUCED]))
    return leader, n_bone, ended
