"""The scoring and legality rules as small compiled functions.

Shared by the match loop and by anything that plays positions out (search
policies, the position analyzer), so that each rule is written once.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bergen_sim.engine import layout as L
from bergen_sim.engine.bits import lowest_tile

TILE_LO = L.TILE_LO
TILE_HI = L.TILE_HI
TILE_PIPS = L.TILE_PIPS
NUMBER_MASK = L.NUMBER_MASK
DOUBLE_TILE = L.DOUBLE_TILE
DOUBLE_MASK = np.int64(L.DOUBLE_MASK)


@njit(cache=True, inline="always")
def cut_points(value, score, target, reduced):
    """A header's points after the near-target cut (RULES.md).

    ``need = target - score``: 1 point if need <= 2, at most 2 if need == 3.
    """
    if not reduced:
        return value
    need = target - score
    if need <= 2:
        return 1
    if need == 3 and value > 2:
        return 2
    return value


@njit(cache=True, inline="always")
def header_value(left, right, left_double, right_double):
    """Points of the layout's header before the cut: 0, 2 (double) or 3 (triple)."""
    if left != right:
        return 0
    if left_double or right_double:
        return 3
    return 2


@njit(cache=True, inline="always")
def legal_moves(hand, left, right, move_tiles, move_ends):
    """Fill the move arrays with the legal (tile, end) pairs; return how many.

    Ordered by tile index, L before R; a tile that fits both ends is listed
    twice even when both ends show the same number.
    """
    playable = hand & (NUMBER_MASK[left] | NUMBER_MASK[right])
    n = 0
    while playable:
        t = lowest_tile(playable)
        playable &= playable - 1
        if TILE_LO[t] == left or TILE_HI[t] == left:
            move_tiles[n] = t
            move_ends[n] = L.END_L
            n += 1
        if TILE_LO[t] == right or TILE_HI[t] == right:
            move_tiles[n] = t
            move_ends[n] = L.END_R
            n += 1
    return n


@njit(cache=True, inline="always")
def number_tiles(numbers):
    """The tiles showing any number in a 7-bit mask of numbers."""
    tiles = np.int64(0)
    for n in range(7):
        if numbers >> n & 1:
            tiles |= NUMBER_MASK[n]
    return tiles


@njit(cache=True, inline="always")
def other_half(tile, number):
    """The half of ``tile`` that is not ``number`` (the number itself for a double)."""
    if TILE_LO[tile] == number:
        return TILE_HI[tile]
    return TILE_LO[tile]


@njit(cache=True, inline="always")
def lead_double(hands, players, lead_highest):
    """(seat, number) of the double that leads: the lowest (or highest) one dealt.

    Returns (-1, -1) when no hand holds a double (the deal must be redone).
    """
    for k in range(7):
        n = 6 - k if lead_highest else k
        bit = np.int64(1) << DOUBLE_TILE[n]
        for s in range(players):
            if hands[s] & bit:
                return s, n
    return -1, -1


@njit(cache=True)
def side_holdings(hands, players, partnerships, doubles, pips, plain_pips):
    """Per side: doubles, pips and non-double pips left in its players' hands."""
    sides = 2 if partnerships else players
    for side in range(sides):
        doubles[side] = 0
        pips[side] = 0
        plain_pips[side] = 0
    for s in range(players):
        side = s % 2 if partnerships else s
        h = hands[s]
        while h:
            t = lowest_tile(h)
            h &= h - 1
            pips[side] += TILE_PIPS[t]
            if TILE_LO[t] == TILE_HI[t]:
                doubles[side] += 1
            else:
                plain_pips[side] += TILE_PIPS[t]


@njit(cache=True)
def _unique_best(values, group, wanted, sides):
    """The side with the strictly smallest value among sides whose ``group`` equals
    ``wanted`` (every side when ``wanted`` is -1), or -1 on a tie for best."""
    best = -1
    tied = False
    for side in range(sides):
        if wanted >= 0 and group[side] != wanted:
            continue
        if best < 0 or values[side] < values[best]:
            best = side
            tied = False
        elif values[side] == values[best]:
            tied = True
    if tied:
        return -1
    return best


@njit(cache=True)
def settle_blocked(settlement, doubles, pips, plain_pips, sides):
    """Winning side of a blocked hand under a settlement, or -1 when nobody wins.

    german: fewest doubles, then fewest pips among those tied on doubles.
    pips: fewest pips.  american: a side with no double beats every side with
    one (fewest pips among them); if all hold one, fewest non-double pips.
    A tie for best scores nobody in every settlement.
    """
    if settlement == L.SETTLE_PIPS:
        return _unique_best(pips, doubles, -1, sides)
    fewest = doubles[0]
    for side in range(1, sides):
        fewest = min(fewest, doubles[side])
    if settlement == L.SETTLE_GERMAN:
        return _unique_best(pips, doubles, fewest, sides)
    if fewest == 0:
        return _unique_best(pips, doubles, 0, sides)
    return _unique_best(plain_pips, doubles, -1, sides)
