"""One hand of Bergen in steps: the lead, the turns between choices, a play, the settlement.

The match loop (:mod:`bergen_sim.engine.match_loop`) and search's rollouts
(:mod:`bergen_sim.search.rollout`) both play hands with these functions, so
every rule of a hand (who leads, going out, drawing until a tile fits,
passing, blocking, headers and the near-target cut) is written once.  They
differ only in who chooses a move, which is why a hand is split at the
choice: :func:`advance` moves play on until some seat has legal moves (or
the hand ends), the caller picks one of them its own way, and :func:`play`
makes it.

State lives in a :class:`HandBuffers` bundle: the policy view (ends, scores,
hand counts, voids: the public state of the hand), the hidden hands, the
tile source to draw from, the boneyard's bounds and tracing (layout ``TURN``), the hand's
statistics (``H_*``), the run totals (``S_*``) and the trace.  A rollout gets
scratch statistics and no trace (:func:`scratch_buffers`); the few extra
additions cost nothing next to a policy's choice.
"""

from __future__ import annotations

from typing import NamedTuple

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
from bergen_sim.engine.recording import C_SIZE, record
from bergen_sim.engine.view import view_draw, view_play, view_start_hand, view_void_moment

#: :func:`advance` results that are not a number of legal moves
HAND_OVER = -1  # the hand ended and the match goes on
MATCH_OVER = -2  # the hand ended the match
#: :func:`start_hand` result when no hand holds a double (the deal must be redone)
REDEAL = -1


class HandBuffers(NamedTuple):
    """The arrays one hand is played on (compiled code receives them as one argument)."""

    policy_view: np.ndarray  # V_*: the public state of the hand, which policies read (``view`` is taken by Numba)
    hands: np.ndarray  # (MAX_SEATS,) bitmask of each seat's tiles
    tiles: np.ndarray  # the deal (hands in seat order, then the boneyard) or a boneyard, in draw order
    turn: np.ndarray  # TURN_*: where the boneyard starts and stops, match, tracing
    hrow: np.ndarray  # H_*: the hand's statistics
    totals: np.ndarray  # S_*: run totals
    trace: np.ndarray  # (capacity, T_WIDTH) trace rows
    ctr: np.ndarray  # C_*: trace rows counted, script and deal positions
    move_tiles: np.ndarray  # (MAX_MOVES,) the legal moves :func:`advance` listed
    move_ends: np.ndarray


@njit(cache=True)
def scratch_buffers(view, hands, tiles):
    """Buffers for hands whose statistics nobody reads and that are not traced (rollouts)."""
    return HandBuffers(view, hands, tiles, np.zeros(L.TURN_SIZE, dtype=np.int64),
                       np.zeros(L.H_WIDTH, dtype=np.int64), np.zeros(L.S_SIZE, dtype=np.int64),
                       np.zeros((0, L.T_WIDTH), dtype=np.int64), np.zeros(C_SIZE, dtype=np.int64),
                       np.zeros(L.MAX_MOVES, dtype=np.int64), np.zeros(L.MAX_MOVES, dtype=np.int64))


@njit(cache=True, inline="always")
def side_of_seat(rules, seat):
    """The side a seat scores for."""
    return seat % 2 if rules[L.R_PARTNERSHIPS] else seat


@njit(cache=True, inline="always")
def _record(b, ev, seat, tile, end, points, winner, rules):
    sides = 2 if rules[L.R_PARTNERSHIPS] else rules[L.R_PLAYERS]
    record(b.trace, b.ctr, ev, b.turn[L.TURN_MATCH], b.policy_view[L.V_HAND_NO], seat, tile, end, points, winner,
           b.policy_view[L.V_SCORE : L.V_SCORE + L.MAX_SEATS], sides)


@njit(cache=True, inline="always")
def start_hand(rules, b, hand_no):
    """Deal ``b.tiles`` (a whole deal) into the hands and lead; the rest of the deal is the boneyard.

    Returns :data:`REDEAL` when no hand holds a double (nothing else
    changed but the hands), 1 when the lead's points end the match, else 0.
    The leader is then ``b.hrow[H_LEADER]`` and the boneyard starts at
    ``b.turn[TURN_BONE_START]``.
    """
    players = rules[L.R_PLAYERS]
    hand_size = rules[L.R_HAND_SIZE]
    hands = b.hands
    held = np.int64(0)
    for s in range(players):
        hands[s] = 0
        for k in range(hand_size):
            hands[s] |= np.int64(1) << b.tiles[s * hand_size + k]
        held |= hands[s]
    if held & DOUBLE_MASK == 0:
        return REDEAL
    b.turn[L.TURN_BONE_START] = players * hand_size
    b.turn[L.TURN_BONE_STOP] = L.N_TILES - rules[L.R_RESERVE]
    return lead(rules, b, hand_no)


@njit(cache=True, inline="always")
def lead(rules, b, hand_no):
    """The holder of the lowest (highest) double leads it and scores it; 1 if that ends the match."""
    players = rules[L.R_PLAYERS]
    view = b.policy_view
    hrow = b.hrow
    leader, number = lead_double(b.hands, players, rules[L.R_LEAD] == L.LEAD_HIGHEST)
    hrow[L.H_LEADER] = leader
    hrow[L.H_LED_DOUBLE] = number
    hrow[L.H_WINNER] = -1
    b.hands[leader] &= ~(np.int64(1) << L.DOUBLE_TILE[number])
    boneyard = b.turn[L.TURN_BONE_STOP] - b.turn[L.TURN_BONE_START] + rules[L.R_RESERVE]
    view_start_hand(view, players, rules[L.R_HAND_SIZE], boneyard, hand_no, leader, number)
    side = side_of_seat(rules, leader)
    pts = cut_points(2, view[L.V_SCORE + side], rules[L.R_TARGET], rules[L.R_REDUCED])
    view[L.V_SCORE + side] += pts
    hrow[L.H_SEAT_POINTS + leader] += pts
    b.totals[L.S_POINTS_LEAD] += pts
    if b.turn[L.TURN_TRACING]:
        _record(b, L.EV_LEAD, leader, L.DOUBLE_TILE[number], 0, pts, -1, rules)
    if view[L.V_SCORE + side] >= rules[L.R_TARGET]:
        hrow[L.H_END] = L.HAND_CUT
        return 1
    return 0


@njit(cache=True, inline="always")
def begin_turns(b, bone_start, bone_stop):
    """Continue a hand from a given state: the boneyard is ``b.tiles[bone_start:bone_stop]``."""
    b.turn[L.TURN_BONE_START] = bone_start
    b.turn[L.TURN_BONE_STOP] = bone_stop


@njit(cache=True, inline="always")
def advance(rules, b, seat, pos):
    """Play on from ``seat``'s play (or lead) until a seat must choose; ``pos``: the next boneyard tile.

    The seat that just played goes out if its hand is empty; otherwise the
    next seat draws until a tile fits (or the boneyard is down to the
    reserve) and passes if none does; when every seat has passed in a row
    the hand is settled.  Returns ``(n, seat, pos)``: the number of legal
    moves of the seat now to move (listed in ``b.move_tiles`` /
    ``b.move_ends``) or :data:`HAND_OVER` / :data:`MATCH_OVER`, that seat and
    the next boneyard position.
    """
    players = rules[L.R_PLAYERS]
    view = b.policy_view
    hands = b.hands
    turn = b.turn
    hrow = b.hrow
    tracing = turn[L.TURN_TRACING]
    passes = 0  # passes in a row: a play ends every run of passes, and advance starts after a play
    stop = turn[L.TURN_BONE_STOP]
    while True:
        if hands[seat] == 0:
            # the seat just emptied its hand (the lead counts): it goes out
            side = side_of_seat(rules, seat)
            out = rules[L.R_OUT_POINTS]
            view[L.V_SCORE + side] += out
            hrow[L.H_SEAT_POINTS + seat] += out
            hrow[L.H_END] = L.HAND_OUT
            hrow[L.H_WINNER] = side
            b.totals[L.S_POINTS_OUT] += out
            if tracing:
                _record(b, L.EV_OUT, seat, 0, 0, out, -1, rules)
            return (MATCH_OVER if view[L.V_SCORE + side] >= rules[L.R_TARGET] else HAND_OVER), seat, pos
        seat = seat + 1 if seat + 1 < players else 0
        left = view[L.V_LEFT]
        right = view[L.V_RIGHT]
        ends = NUMBER_MASK[left] | NUMBER_MASK[right]
        playable = hands[seat] & ends
        if playable == 0:
            drawn = 0
            while pos < stop:
                t = b.tiles[pos]
                pos += 1
                drawn += 1
                hands[seat] |= np.int64(1) << t
                view_draw(view, seat)
                if tracing:
                    _record(b, L.EV_DRAW, seat, t, 0, 0, -1, rules)
                if (np.int64(1) << t) & ends:
                    playable = np.int64(1) << t
                    break
            hrow[L.H_DRAWS] += drawn
            view_void_moment(view, seat, drawn, drawn - 1 if playable else drawn)
            if playable == 0:
                hrow[L.H_PASSES] += 1
                if tracing:
                    _record(b, L.EV_PASS, seat, 0, 0, 0, -1, rules)
                passes += 1
                if passes == players:
                    return (MATCH_OVER if settle(rules, b) else HAND_OVER), seat, pos
                continue
        return legal_moves(playable, left, right, b.move_tiles, b.move_ends), seat, pos


@njit(cache=True, inline="always")
def play(rules, b, seat, tile, end):
    """``seat`` plays ``tile`` on ``end``: the ends move and a header scores.  Returns 1 if the match ended."""
    view = b.policy_view
    hrow = b.hrow
    b.hands[seat] &= ~(np.int64(1) << tile)
    is_double = 1 if TILE_LO[tile] == TILE_HI[tile] else 0
    if end == L.END_L:
        view_play(view, seat, tile, L.END_L, other_half(tile, view[L.V_LEFT]), is_double)
    else:
        view_play(view, seat, tile, L.END_R, other_half(tile, view[L.V_RIGHT]), is_double)
    hrow[L.H_PLAYS] += 1
    value = header_value(view[L.V_LEFT], view[L.V_RIGHT], view[L.V_LEFT_DOUBLE], view[L.V_RIGHT_DOUBLE])
    pts = 0
    score = 0
    if value > 0:
        side = side_of_seat(rules, seat)
        pts = cut_points(value, view[L.V_SCORE + side], rules[L.R_TARGET], rules[L.R_REDUCED])
        score = view[L.V_SCORE + side] + pts
        view[L.V_SCORE + side] = score
        hrow[L.H_SEAT_POINTS + seat] += pts
        b.totals[L.S_POINTS_HEADER] += pts
        play_no = min(hrow[L.H_PLAYS], L.MAX_PLAY_NO)
        if value == 3:
            hrow[L.H_TRIPLE_HEADERS] += 1
            b.totals[L.S_HEADERS_BY_PLAY + 2 * play_no + 1] += 1
        else:
            hrow[L.H_DOUBLE_HEADERS] += 1
            b.totals[L.S_HEADERS_BY_PLAY + 2 * play_no] += 1
    if b.turn[L.TURN_TRACING]:
        _record(b, L.EV_PLAY, seat, tile, end, pts, -1, rules)
    # every score was below the target before this play, so only a header can end the match here
    if pts > 0 and score >= rules[L.R_TARGET]:
        hrow[L.H_END] = L.HAND_CUT
        return 1
    return 0


@njit(cache=True)
def settle(rules, b):
    """Settle a blocked hand; returns 1 if the winner's points end the match."""
    players = rules[L.R_PLAYERS]
    partners = rules[L.R_PARTNERSHIPS]
    sides = 2 if partners else players
    hrow = b.hrow
    doubles = hrow[L.H_SIDE_DOUBLES : L.H_SIDE_DOUBLES + L.MAX_SEATS]
    pips = hrow[L.H_SIDE_PIPS : L.H_SIDE_PIPS + L.MAX_SEATS]
    plain = hrow[L.H_SIDE_PLAIN_PIPS : L.H_SIDE_PLAIN_PIPS + L.MAX_SEATS]
    side_holdings(b.hands, players, partners, doubles, pips, plain)
    winner = settle_blocked(rules[L.R_SETTLEMENT], doubles, pips, plain, sides)
    hrow[L.H_END] = L.HAND_BLOCKED
    hrow[L.H_WINNER] = winner
    pts = 0
    if winner >= 0:
        pts = rules[L.R_BLOCKED_POINTS]
        b.policy_view[L.V_SCORE + winner] += pts
        b.totals[L.S_POINTS_BLOCKED] += pts
    if b.turn[L.TURN_TRACING]:
        _record(b, L.EV_BLOCKED, -1, 0, 0, pts, winner, rules)
    return 1 if winner >= 0 and b.policy_view[L.V_SCORE + winner] >= rules[L.R_TARGET] else 0
