"""Compiled features of a move that the built-in strategies share.

A policy is an ``@njit`` function ``choose(view, move_tiles, move_ends,
n_moves, rng) -> int`` that returns the index ``k < n_moves`` of the legal
move ``(move_tiles[k], move_ends[k])`` it makes (see docs/policies.md for the
view, layout ``V_*`` in :mod:`bergen_sim.engine.layout`).  The strategies
differ only in how they rank moves; what a move *does* (the ends it leaves,
its points, the chance that the next seat answers with a header) is computed
here once, from the view alone, so every strategy measures it the same way
and a rule lives only in :mod:`bergen_sim.engine.play_rules`.

Everything is scalar and allocation-free: policies run in the hot loop, once
per decision, and a NumPy allocation there would cost more than the choice.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bergen_sim.engine import layout as L
from bergen_sim.engine.bits import popcount
from bergen_sim.engine.play_rules import cut_points, header_value, number_tiles, other_half
from bergen_sim.engine.view import unseen_tiles  # noqa: F401 (part of the policies' toolkit)

TILE_LO = L.TILE_LO
TILE_HI = L.TILE_HI
TILE_PIPS = L.TILE_PIPS
NUMBER_MASK = L.NUMBER_MASK
#: TILE_AT[a, b]: index of the tile showing a and b (either order)
TILE_AT = np.array([[L.TILE_INDEX[f"{min(a, b)}-{max(a, b)}"] for b in range(7)] for a in range(7)], dtype=np.int64)


@njit(cache=True, inline="always")
def is_double(tile):
    """1 for a double, 0 otherwise."""
    return 1 if TILE_LO[tile] == TILE_HI[tile] else 0


@njit(cache=True, inline="always")
def side_of(view, seat):
    """The side a seat scores for."""
    return seat % 2 if view[L.V_PARTNERSHIPS] else seat


@njit(cache=True, inline="always")
def next_seat(view):
    """The seat that plays after the deciding one (always an opponent)."""
    seat = view[L.V_SEAT] + 1
    return 0 if seat == view[L.V_PLAYERS] else seat


@njit(cache=True, inline="always")
def ends_after(view, tile, end):
    """The layout after playing ``tile`` on ``end``: (left, right, left_double, right_double)."""
    left = view[L.V_LEFT]
    right = view[L.V_RIGHT]
    if end == L.END_L:
        return other_half(tile, left), right, is_double(tile), view[L.V_RIGHT_DOUBLE]
    return left, other_half(tile, right), view[L.V_LEFT_DOUBLE], is_double(tile)


@njit(cache=True, inline="always")
def header_points(view, side, left, right, left_double, right_double):
    """Points ``side`` scores for the header these ends make, after the near-target cut."""
    value = header_value(left, right, left_double, right_double)
    if value == 0:
        return 0
    return cut_points(value, view[L.V_SCORE + side], view[L.V_TARGET], view[L.V_REDUCED])


@njit(cache=True)
def could_hold(view, seat, tile):
    """How many of ``seat``'s hidden tiles could be ``tile``, by what its draws and passes showed.

    A draw/pass moment (``V_LOG``) proves the seat then held no tile showing
    either end; so if some moment's ends included a number of ``tile``, only
    tiles the seat drew after the last such moment can be ``tile``.  With no
    such moment it is any of the seat's tiles.  (``V_VOID`` is the summary of
    the same log for the case "no draw since"; the log also counts the draws.)
    """
    numbers = (1 << TILE_LO[tile]) | (1 << TILE_HI[tile])
    held = view[L.V_HAND_COUNT + seat]
    drawn_since = 0
    for k in range(view[L.V_LOG_N] - 1, -1, -1):
        at = L.V_LOG + L.LOG_SIZE * k
        if view[at + L.LOG_SEAT] != seat:
            continue
        if ((1 << view[at + L.LOG_LEFT]) | (1 << view[at + L.LOG_RIGHT])) & numbers:
            return min(drawn_since, held)
        drawn_since += view[at + L.LOG_DRAWN]
    return held


@njit(cache=True)
def holding_probability(view, seat, tile, unseen):
    """Estimated chance that ``seat`` holds ``tile``, treating unseen tiles as equally likely.

    The seat's candidate tiles (:func:`could_hold`) are spread over the unseen
    tiles it may hold (those not showing a number it is known void in).
    """
    if not unseen >> tile & 1:
        return 0.0
    candidates = could_hold(view, seat, tile)
    if candidates == 0:
        return 0.0
    pool = popcount(unseen & ~number_tiles(view[L.V_VOID + seat]))
    return min(1.0, candidates / pool)


@njit(cache=True)
def threat(view, left, right, left_double, right_double, unseen):
    """Expected header points the next seat scores at once on this layout.

    Exactly one tile makes a header on ends ``left|right``: the tile showing
    both numbers (the double when they are equal).  Played, it makes a
    triple-header when the end it does not cover is a double end, or when it
    is itself the double; the next seat's side gets the cut value of that.
    """
    seat = next_seat(view)
    p = holding_probability(view, seat, TILE_AT[left, right], unseen)
    if p == 0.0:
        return 0.0
    value = 3 if left == right or left_double or right_double else 2
    score = view[L.V_SCORE + side_of(view, seat)]
    return p * cut_points(value, score, view[L.V_TARGET], view[L.V_REDUCED])


@njit(cache=True, inline="always")
def playable_after(hand, tile, left, right):
    """How many tiles of ``hand`` without ``tile`` fit the ends ``left|right``."""
    rest = hand & ~(np.int64(1) << tile)
    return popcount(rest & (NUMBER_MASK[left] | NUMBER_MASK[right]))


@njit(cache=True, inline="always")
def blocks_next(view, left, right):
    """1 when the next seat is known to hold nothing for ``left|right`` (it must draw or pass)."""
    void = view[L.V_VOID + next_seat(view)]
    return 1 if void >> left & 1 and void >> right & 1 else 0



# --- lexicographic rankings of the simple strategies --------------------------
#: more points, then a double, then more pips (greedy; defensive's tie-break)
RANK_GREEDY = 0
#: keeps a tile for the new ends, then more pips, then a double, then more points (heavy-first)
RANK_SHEDDING = 1
#: a double, then RANK_SHEDDING (doubles-first)
RANK_DOUBLES = 2


@njit(cache=True)
def move_rank(view, tile, end, order):
    """A move's rank under one of the RANK_* orders, packed into one integer (larger is better).

    The "keeps a tile" guard of the shedding orders exists because of a
    measurement: the plain heaviest tile lost to ``random`` (48.8% of 2-player
    matches on duplicate deals) by opening ends that the lighter tiles left
    in hand cannot follow, which costs draws and passes.
    """
    left, right, left_double, right_double = ends_after(view, tile, end)
    points = header_points(view, view[L.V_SIDE], left, right, left_double, right_double)
    double = is_double(tile)
    if order == RANK_GREEDY:
        return points * 32 + double * 16 + TILE_PIPS[tile]  # points 0..3, pips 0..12 < 16
    keeps = 1 if playable_after(view[L.V_HAND], tile, left, right) > 0 else 0
    rank = keeps * 128 + TILE_PIPS[tile] * 8 + double * 4 + points  # 12*8 + 4 + 3 < 128
    if order == RANK_DOUBLES:
        rank += double * 256
    return rank


@njit(cache=True)
def best_ranked(view, move_tiles, move_ends, n_moves, order):
    """Index of the first listed move with the highest :func:`move_rank`."""
    best = 0
    best_rank = -1
    for k in range(n_moves):
        rank = move_rank(view, move_tiles[k], move_ends[k], order)
        if rank > best_rank:
            best = k
            best_rank = rank
    return best
