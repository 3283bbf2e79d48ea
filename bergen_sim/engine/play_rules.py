"""The scoring and legality rules as small compiled functions.

Shared by the match loop and by anything that plays positions out (search
policies, the position analyzer), so that each rule is written once.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bergen_sim.engine import layout as L
from bergen_sim.engine.bits import lowest_tile as lowest_bit
from bergen_sim.engine.bits import slot
from bergen_sim.engine.ends import ends_header, header_value, number_at, open_count, open_tiles, other_half  # noqa: F401 (re-exported)
from bergen_sim.engine.sides import seat_side, side_total
from bergen_sim.engine.tileset import (
    bit,
    both,
    drop_lowest,
    has,
    is_empty,
    load,
    lowest,
    minus,
    number_tiles,
    store,
    union,
)
from bergen_sim.engine.view import ends_of

TILE_LO = L.TILE_LO
TILE_HI = L.TILE_HI
TILE_PIPS = L.TILE_PIPS
DOUBLE_TILE = L.DOUBLE_TILE
#: a lead choice in the move arrays: the tile is a double the leader may lead, on no end
LEAD_CHOICE = -1


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
def hand_of(hands, seat, no_tiles):
    """A seat's hand from the hands array (``SET_WORDS`` slots per seat, the width of ``no_tiles`` used)."""
    return load(hands, seat * L.SET_WORDS, no_tiles)


@njit(cache=True, inline="always")
def set_hand(hands, seat, tiles):
    store(hands, seat * L.SET_WORDS, tiles)


@njit(cache=True, inline="always")
def open_end_tiles(view, no_tiles):
    """The tiles that fit some open end of the view."""
    return open_tiles(ends_of(view), no_tiles)


@njit(cache=True, inline="always")
def legal_moves(playable, ends, move_tiles, move_ends):
    """Fill the move arrays with the legal (tile, end) pairs of the tiles ``playable`` on the open
    :class:`~bergen_sim.engine.ends.Ends`; return how many.

    Ordered by tile index, then by end (L, R, U, D); a tile that fits two
    ends is listed once per end even when they show the same number.

    Branch-free: every (tile, end) candidate is written at the next slot and
    the count grows only when the tile fits that end, so the slot is
    overwritten otherwise.  Which end a random tile fits is unpredictable,
    and with a branch per candidate the mispredictions made this function
    over a third of a double-nine hand's time.  The last write may fall one
    slot past the moves: that is within ``MAX_MOVES`` (layout.py says why).
    """
    no_tiles = minus(playable, playable)  # the empty set of playable's width
    fits_left = number_tiles(number_at(ends, L.END_L), no_tiles)
    fits_right = number_tiles(number_at(ends, L.END_R), no_tiles)
    n = 0
    if open_count(ends) > 2:
        fits_up = number_tiles(number_at(ends, L.END_U), no_tiles)
        fits_down = number_tiles(number_at(ends, L.END_D), no_tiles)
        while not is_empty(playable):
            t = lowest(playable)
            playable = drop_lowest(playable)
            n = _list_if_fits(move_tiles, move_ends, n, t, L.END_L, fits_left)
            n = _list_if_fits(move_tiles, move_ends, n, t, L.END_R, fits_right)
            n = _list_if_fits(move_tiles, move_ends, n, t, L.END_U, fits_up)
            n = _list_if_fits(move_tiles, move_ends, n, t, L.END_D, fits_down)
        return n
    while not is_empty(playable):  # a loop of its own: the test of four ends stays out of it
        t = lowest(playable)
        playable = drop_lowest(playable)
        n = _list_if_fits(move_tiles, move_ends, n, t, L.END_L, fits_left)
        n = _list_if_fits(move_tiles, move_ends, n, t, L.END_R, fits_right)
    return n


@njit(cache=True, inline="always")
def _list_if_fits(move_tiles, move_ends, n, tile, end, fits):
    """Write (``tile``, ``end``) at slot ``n``; the count after it: ``n + 1`` if the tile is in ``fits``, else ``n``."""
    move_tiles[slot(n)] = tile
    move_ends[slot(n)] = end
    return n + has(fits, tile)


@njit(cache=True)
def hand_moves(hand, view, move_tiles, move_ends):
    """:func:`legal_moves` of a whole ``hand`` on the view's open ends (for callers outside the hand loop)."""
    no_tiles = minus(hand, hand)  # the empty set of the hand's width
    ends = ends_of(view)
    return legal_moves(both(hand, open_tiles(ends, no_tiles)), ends, move_tiles, move_ends)


@njit(cache=True, inline="always")
def numbers_tiles(numbers, max_number, no_tiles):
    """The tiles showing any number in a mask of numbers (bit n for number n, n <= max_number).

    Walks the set bits only: a void mask holds a few numbers, and this runs
    once per move a policy weighs.
    """
    tiles = no_tiles
    numbers &= (np.int64(2) << max_number) - 1
    while numbers:
        n = lowest_bit(numbers)
        numbers &= numbers - 1
        tiles = union(tiles, number_tiles(n, no_tiles))
    return tiles


@njit(cache=True, inline="always")
def doubles_of(tiles, max_number, no_tiles):
    """The doubles among ``tiles``."""
    out = no_tiles
    for n in range(max_number + 1):
        if has(tiles, DOUBLE_TILE[n]):
            out = union(out, bit(DOUBLE_TILE[n], no_tiles))
    return out


@njit(cache=True, inline="always")
def lead_double(hands, players, dealt_doubles, lead_highest, no_tiles):
    """(seat, tile) of the double that leads: the lowest (or highest) of ``dealt_doubles``, the doubles
    the hands hold (not empty: otherwise the deal is redone).

    Doubles are numbered in tile order (``n-n`` closes the tiles whose high
    half is ``n``), so the lowest double is the set's lowest tile.
    """
    tile = lowest(dealt_doubles)
    if lead_highest:  # the last of them
        rest = drop_lowest(dealt_doubles)
        while not is_empty(rest):
            tile = lowest(rest)
            rest = drop_lowest(rest)
    for s in range(players):
        if has(hand_of(hands, s, no_tiles), tile):
            return s, tile
    return -1, -1


@njit(cache=True, inline="always")
def any_double_leader(hands, players, opening, max_number, no_tiles):
    """The seat that leads with ``lead = any-double``: the first from ``opening`` holding a double (-1: none)."""
    for k in range(players):
        s = opening + k
        if s >= players:
            s -= players
        if not is_empty(doubles_of(hand_of(hands, s, no_tiles), max_number, no_tiles)):
            return s
    return -1


@njit(cache=True)
def side_holdings(hands, players, partnerships, no_tiles, doubles, pips, plain_pips):
    """Per side: doubles, pips and non-double pips left in its players' hands."""
    sides = side_total(players, partnerships)
    for side in range(sides):
        doubles[side] = 0
        pips[side] = 0
        plain_pips[side] = 0
    for s in range(players):
        side = seat_side(s, partnerships)
        h = hand_of(hands, s, no_tiles)
        while not is_empty(h):
            t = lowest(h)
            h = drop_lowest(h)
            pips[side] += TILE_PIPS[t]
            if L.TILE_IS_DOUBLE[t]:
                doubles[side] += 1
            else:
                plain_pips[side] += TILE_PIPS[t]


#: ``wanted`` of :func:`_unique_best` as int64 constants, not literals: one compiled copy for the four calls
_EVERY = np.int64(-1)
_NONE_HELD = np.int64(0)


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
        return _unique_best(pips, doubles, _EVERY, sides)
    fewest = doubles[0]
    for side in range(1, sides):
        fewest = min(fewest, doubles[side])
    if settlement == L.SETTLE_GERMAN:
        return _unique_best(pips, doubles, fewest, sides)
    if fewest == 0:
        return _unique_best(pips, doubles, _NONE_HELD, sides)
    return _unique_best(plain_pips, doubles, _EVERY, sides)
