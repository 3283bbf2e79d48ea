"""The open ends of the line of play as one value: what the rules read and change at every play.

A hand's turn loop holds an :class:`Ends` in local variables, so the
compiled code can keep it in registers from one play to the next; the policy
view (``V_END`` .. ``V_SPINNER``) is a copy of it, written only for policies
that read the view (:func:`bergen_sim.engine.view.store_end`).

Every rule about the ends is here once: what an end shows after a tile is
laid on it, when the spinner's arms open, which ends count for headers and
what a header is worth.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from bergen_sim.engine import layout as L
from bergen_sim.engine.bits import slot
from bergen_sim.engine.tileset import number_tiles, union


class Ends(NamedTuple):
    """The four ends (End order: L, R, U, D) packed into one word, so that compiled code holds them in one
    register even in a function as large as the match loop.

    ``line``: bits ``5e .. 5e+4`` the number end ``e`` shows; bit ``20+e``
    1 if a double lies at end ``e``; bit 24 set once the spinner's arms (U
    and D) are open; bits ``25+e`` end ``e`` counts for headers; bit 29 the
    lead was the spinner; bit ``30+e`` a tile lies on end ``e`` (how many is
    the view's business: ``V_END_TILES``).
    """

    line: int


_NUMBER_BITS = 5
_DOUBLE_AT = 20
_OPEN_BIT = 24
_COUNTING_AT = 25
_SPINNER_BIT = 29
_TILE_AT = 30


@njit(cache=True, inline="always")
def ends_led(number, spinner):
    """The ends right after ``number-number`` was led: every end shows it as a double end; L and R are open and
    count.  ``spinner``: whether the lead is the spinner."""
    n = np.int64(number)
    line = n | n << _NUMBER_BITS | n << (2 * _NUMBER_BITS) | n << (3 * _NUMBER_BITS)
    line |= np.int64(15) << _DOUBLE_AT
    line |= np.int64((1 << L.END_L) | (1 << L.END_R)) << _COUNTING_AT
    if spinner:
        line |= np.int64(1) << _SPINNER_BIT
    return Ends(line)


@njit(cache=True, inline="always")
def packed(numbers, doubles, tiles, open_ends, counting, spinner):
    """Ends from their parts: four numbers, four double flags and four tile counts (End order), how many ends
    are open, the counting mask and the spinner's number (-1: none)."""
    line = np.int64(0)
    for e in range(L.N_ENDS):
        line |= np.int64(numbers[e]) << (_NUMBER_BITS * e)
        line |= np.int64(1 if doubles[e] else 0) << (_DOUBLE_AT + e)
        line |= np.int64(1 if tiles[e] > 0 else 0) << (_TILE_AT + e)
    if open_ends > 2:
        line |= np.int64(1) << _OPEN_BIT
    line |= np.int64(counting) << _COUNTING_AT
    if spinner >= 0:
        line |= np.int64(1) << _SPINNER_BIT
    return Ends(line)


@njit(cache=True, inline="always")
def number_at(ends, e):
    """The number end ``e`` shows."""
    return (ends.line >> (_NUMBER_BITS * e)) & 31


@njit(cache=True, inline="always")
def double_at(ends, e):
    """1 if a double lies at end ``e``."""
    return (ends.line >> (_DOUBLE_AT + e)) & 1


@njit(cache=True, inline="always")
def holds_tile(ends, e):
    """1 if a tile lies on end ``e`` (the led double lies on none)."""
    return (ends.line >> (_TILE_AT + e)) & 1


@njit(cache=True, inline="always")
def open_count(ends):
    """How many ends are open: 2, or 4 once the spinner's arms are."""
    return 4 if (ends.line >> _OPEN_BIT) & 1 else 2


@njit(cache=True, inline="always")
def counting_mask(ends):
    """The mask of the ends that count for headers (bit e: end e)."""
    return (ends.line >> _COUNTING_AT) & 15


@njit(cache=True, inline="always")
def end_numbers(ends):
    """The four ends' numbers as a tuple (End order)."""
    return (number_at(ends, 0), number_at(ends, 1), number_at(ends, 2), number_at(ends, 3))


@njit(cache=True, inline="always")
def end_doubles(ends):
    """The four ends' double flags as a tuple (End order)."""
    return (double_at(ends, 0), double_at(ends, 1), double_at(ends, 2), double_at(ends, 3))


@njit(cache=True, inline="always")
def other_half(tile, number):
    """The half of ``tile`` that is not ``number``, one of its halves (the number itself for a double): its pips
    less ``number``, one load and no comparison on the way from a move to the end it leaves."""
    return L.TILE_PIPS[slot(tile)] - number


@njit(cache=True, inline="always")
def moved(ends, end, tile):
    """The ends after ``tile`` is laid on ``end``: that end shows the tile's other half, is a double end if the
    tile is a double, and counts; with the spinner, U and D open (showing the spinner, not yet counting) the
    moment L and R both hold a tile."""
    number = np.int64(other_half(tile, number_at(ends, end)))
    dbl = np.int64(L.TILE_IS_DOUBLE[slot(tile)])
    at = _NUMBER_BITS * end
    line = ends.line & ~(np.int64(31) << at) & ~(np.int64(1) << (_DOUBLE_AT + end))
    line |= number << at | dbl << (_DOUBLE_AT + end) | np.int64(1) << (_COUNTING_AT + end)
    line |= np.int64(1) << (_TILE_AT + end)
    if (line >> _SPINNER_BIT) & 1 and (line >> _TILE_AT) & 3 == 3:
        line |= np.int64(1) << _OPEN_BIT
    return Ends(line)


@njit(cache=True, inline="always")
def header_value(left, right, left_double, right_double):
    """Points of a two-end header before the cut: 0, 2 (double) or 3 (triple)."""
    if left != right:
        return 0
    if left_double or right_double:
        return 3
    return 2


@njit(cache=True, inline="always")
def ends_header(ends, doubles, counting):
    """Points of the header the counting ends make (bit e of ``counting``): 0, 2 or 3.

    ``ends`` and ``doubles``: the four ends' numbers and double flags (a
    tuple or an array).  Every counting end must show the same number; one
    double end among them makes it a triple-header.  With L and R only this
    is :func:`header_value`.
    """
    if counting == 3:
        return header_value(ends[0], ends[1], doubles[0], doubles[1])
    number = ends[0]
    triple = False
    for e in range(L.N_ENDS):
        if counting >> e & 1:
            if ends[e] != number:
                return 0
            if doubles[e]:
                triple = True
    return 3 if triple else 2


@njit(cache=True, inline="always")
def header(ends):
    """Points of the header these ends make, before the cut: 0, 2 or 3."""
    if counting_mask(ends) == 3:
        return header_value(number_at(ends, 0), number_at(ends, 1), double_at(ends, 0), double_at(ends, 1))
    return ends_header(end_numbers(ends), end_doubles(ends), counting_mask(ends))


@njit(cache=True, inline="always")
def open_tiles(ends, no_tiles):
    """The tiles that fit some open end."""
    tiles = union(number_tiles(number_at(ends, 0), no_tiles), number_tiles(number_at(ends, 1), no_tiles))
    if open_count(ends) > 2:
        tiles = union(
            tiles, union(number_tiles(number_at(ends, 2), no_tiles), number_tiles(number_at(ends, 3), no_tiles))
        )
    return tiles


@njit(cache=True, inline="always")
def open_numbers(ends):
    """Mask of the numbers the open ends show (bit n for number n)."""
    shown = (1 << number_at(ends, 0)) | (1 << number_at(ends, 1))
    if open_count(ends) > 2:
        shown |= (1 << number_at(ends, 2)) | (1 << number_at(ends, 3))
    return shown
