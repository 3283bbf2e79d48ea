"""Compiled upkeep of the policy view (layout: ``V_*`` in layout.py).

The kernel keeps one view vector per match and updates it as public events
happen; before a policy is called it writes the deciding seat and that seat's
own hand into it.  Nothing here ever reads another seat's hand, which is what
makes the view safe to hand to a policy.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bergen_sim.engine import layout as L

FULL_SET = np.int64(L.FULL_SET)


@njit(cache=True, inline="always")
def unseen_tiles(view):
    """Tiles the deciding seat cannot see: other hands and the boneyard."""
    return FULL_SET & ~view[L.V_HAND] & ~view[L.V_PLAYED]


@njit(cache=True)
def view_start_match(view, rules):
    """Clear the view and copy the rules a policy may consult."""
    view[:] = 0
    view[L.V_PLAYERS] = rules[L.R_PLAYERS]
    view[L.V_PARTNERSHIPS] = rules[L.R_PARTNERSHIPS]
    view[L.V_TARGET] = rules[L.R_TARGET]
    view[L.V_RESERVE] = rules[L.R_RESERVE]
    view[L.V_OUT_POINTS] = rules[L.R_OUT_POINTS]
    view[L.V_BLOCKED_POINTS] = rules[L.R_BLOCKED_POINTS]
    view[L.V_SETTLEMENT] = rules[L.R_SETTLEMENT]
    view[L.V_REDUCED] = rules[L.R_REDUCED]


@njit(cache=True, inline="always")
def view_start_hand(view, players, hand_size, boneyard, hand_no, leader, number):
    """Reset the per-hand part of the view right after ``leader`` led ``number-number``."""
    view[L.V_HAND_NO] = hand_no
    view[L.V_LEADER] = leader
    view[L.V_PLAY_NO] = 0
    view[L.V_BONEYARD] = boneyard
    view[L.V_LOG_N] = 0
    view[L.V_LEFT] = number
    view[L.V_RIGHT] = number
    view[L.V_LEFT_DOUBLE] = 1
    view[L.V_RIGHT_DOUBLE] = 1
    lead_bit = 1 << L.DOUBLE_TILE[number]
    view[L.V_PLAYED] = lead_bit
    for s in range(L.MAX_SEATS):
        view[L.V_PLAYED_BY + s] = 0
        view[L.V_HAND_COUNT + s] = hand_size if s < players else 0
        view[L.V_VOID + s] = 0
    view[L.V_PLAYED_BY + leader] = lead_bit
    view[L.V_HAND_COUNT + leader] = hand_size - 1
    view[L.V_PLAYS_N] = 0
    view_log_play(view, leader, L.DOUBLE_TILE[number], L.END_L)


@njit(cache=True, inline="always")
def view_log_play(view, seat, tile, end):
    """Append a tile put down (the lead or a play) to the view's play log."""
    k = view[L.V_PLAYS_N]
    if k < L.N_TILES:
        at = L.V_PLAYS + L.PLAY_SIZE * k
        view[at + L.PLAY_SEAT] = seat
        view[at + L.PLAY_TILE] = tile
        view[at + L.PLAY_END] = end
        view[at + L.PLAY_MOMENTS] = view[L.V_LOG_N]
        view[L.V_PLAYS_N] = k + 1


@njit(cache=True, inline="always")
def view_play(view, seat, tile, end, new_number, is_double):
    """A seat played ``tile`` on ``end``, which now shows ``new_number``."""
    bit = 1 << tile
    view[L.V_PLAYED] |= bit
    view[L.V_PLAYED_BY + seat] |= bit
    view[L.V_HAND_COUNT + seat] -= 1
    view[L.V_PLAY_NO] += 1
    view_log_play(view, seat, tile, end)
    if end == L.END_L:
        view[L.V_LEFT] = new_number
        view[L.V_LEFT_DOUBLE] = is_double
    else:
        view[L.V_RIGHT] = new_number
        view[L.V_RIGHT_DOUBLE] = is_double


@njit(cache=True, inline="always")
def view_draw(view, seat):
    """A seat drew one tile (its face stays hidden)."""
    view[L.V_HAND_COUNT + seat] += 1
    view[L.V_BONEYARD] -= 1


@njit(cache=True, inline="always")
def view_void_moment(view, seat, drawn, kept):
    """A seat had no tile for the ends: log it and update what it is known to lack.

    It held no tile showing either end number, and every tile it drew and kept
    doesn't show them either.  If it kept a drawn tile, earlier voids no longer
    hold (the kept tiles are unseen), so the void mask restarts from these two.
    """
    left = view[L.V_LEFT]
    right = view[L.V_RIGHT]
    both = (1 << left) | (1 << right)
    if kept > 0:
        view[L.V_VOID + seat] = both
    else:
        view[L.V_VOID + seat] |= both
    k = view[L.V_LOG_N]
    if k < L.V_LOG_CAPACITY:
        base = L.V_LOG + L.LOG_SIZE * k
        view[base + L.LOG_SEAT] = seat
        view[base + L.LOG_LEFT] = left
        view[base + L.LOG_RIGHT] = right
        view[base + L.LOG_DRAWN] = drawn
        view[L.V_LOG_N] = k + 1
