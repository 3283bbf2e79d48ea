"""Compiled features of a move that the built-in policies share.

A policy is an ``@njit`` function ``choose(view, move_tiles, move_ends,
n_moves, rng, no_tiles) -> int`` that returns the index ``k < n_moves`` of
the legal move ``(move_tiles[k], move_ends[k])`` it makes, and
``choose_lead(view, move_tiles, move_ends, n_moves, rng, no_tiles)`` that
returns which of the listed doubles it leads under ``lead = any-double`` (see
docs/policies.md for the view, layout ``V_*`` in
:mod:`bergen_sim.engine.layout`; ``no_tiles`` is the empty tile set of the
game's width, :mod:`bergen_sim.engine.tileset`).  The policies differ only
in how they rank moves; what a move *does* (the ends it leaves, its points,
the chance that the next seat answers with a header) is computed here once,
from the view alone, so every policy measures it the same way and a rule
lives only in :mod:`bergen_sim.engine.play_rules`.

Everything is scalar and allocation-free: policies run in the hot loop, once
per decision, and a NumPy allocation there would cost more than the choice.

Why every helper here is ``inline="always"`` and the built-ins' ``choose``
and ``choose_lead`` are compiled with ``_nrt=False``: a compiled call that
passes arrays makes Numba count references to them (a call into its runtime
for each array, at entry and at exit of every call), and with the helpers
as calls those counts took about a fifth of ``greedy``'s time.  Inlined
helpers and entry points without reference counting (they allocate nothing,
which Numba then checks) played ``greedy`` 1.6x and ``expert`` 1.4x as many
hands per second (2 players, one core, interleaved runs of both trees), at
about 2 s more compile time for a kernel with ``expert``.  ``_nrt`` is
Numba's own switch for code that needs no runtime; the built-ins get it from
:data:`policy_entry`, and a plug-in need not use it.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from numba import njit

from bergen_sim.engine import layout as L
from bergen_sim.engine.ends import counting_mask, end_doubles, end_numbers, moved, open_count
from bergen_sim.engine.play_rules import cut_points, ends_header, numbers_tiles
from bergen_sim.engine.sides import seat_side
from bergen_sim.engine.tileset import bit, both, count, has, load, minus, number_tiles, union
from bergen_sim.engine.view import (
    ends_of,
    unseen_tiles,  # noqa: F401 (part of the policies' toolkit)
)

#: how the built-ins' ``choose`` and ``choose_lead`` are compiled: without reference counting (module note)
policy_entry = njit(cache=True, _nrt=False)

TILE_LO = L.TILE_LO
TILE_HI = L.TILE_HI
TILE_PIPS = L.TILE_PIPS
TILE_AT = L.TILE_AT


class Setting(NamedTuple):
    """One setting of a built-in policy (``name:KEY=VALUE``), declared once in its module's ``PARAMS``.

    ``allowed`` is a ``range`` of whole numbers or a tuple of names (a name
    reaches compiled code as its index); ``meaning`` is the help that
    ``bergen-sim policies`` and the refusal of a bad value print.
    """

    default: Any
    allowed: range | tuple[str, ...]
    meaning: str


def positions(params: dict[str, Setting], *names: str) -> tuple[int, ...]:
    """Where the named settings sit in a seat's row of settings (``params``' order), for compiled code reading it."""
    order = list(params)
    return tuple(order.index(name) for name in names)


@njit(cache=True, inline="always")
def is_double(tile):
    """1 for a double, 0 otherwise."""
    return L.TILE_IS_DOUBLE[tile]


@njit(cache=True, inline="always")
def side_of(view, seat):
    """The side a seat scores for."""
    return seat_side(seat, view[L.V_PARTNERSHIPS])


@njit(cache=True, inline="always")
def next_seat(view):
    """The seat that plays after the deciding one (an opponent unless partners sit next to each other)."""
    seat = view[L.V_SEAT] + 1
    return 0 if seat == view[L.V_PLAYERS] else seat


@njit(cache=True, inline="always")
def own_hand(view, no_tiles):
    """The deciding seat's hand."""
    return load(view, L.V_HAND, no_tiles)


@njit(cache=True, inline="always")
def ends_after(view, tile, end):
    """The layout after playing ``tile`` on ``end``: ``(ends, doubles, counting, open_ends)``.

    ``ends`` and ``doubles`` are the four ends' numbers and double flags (End
    order), ``counting`` the mask of ends that count for headers and
    ``open_ends`` how many ends are open, all after the move
    (:func:`bergen_sim.engine.ends.moved`: with the spinner, U and D open
    when this play gives the second of L and R its first tile).
    """
    after = moved(ends_of(view), end, tile)
    return end_numbers(after), end_doubles(after), counting_mask(after), open_count(after)


@njit(cache=True, inline="always")
def header_points(view, side, ends, doubles, counting):
    """Points ``side`` scores for the header these ends make, after the near-target cut."""
    value = ends_header(ends, doubles, counting)
    if value == 0:
        return 0
    return cut_points(value, view[L.V_SCORE + side], view[L.V_TARGET], view[L.V_REDUCED])


@njit(cache=True, inline="always")
def open_tiles(ends, open_ends, no_tiles):
    """The tiles that fit one of the open ends."""
    tiles = union(number_tiles(ends[0], no_tiles), number_tiles(ends[1], no_tiles))
    if open_ends > 2:
        tiles = union(tiles, union(number_tiles(ends[2], no_tiles), number_tiles(ends[3], no_tiles)))
    return tiles


@njit(cache=True, inline="always")
def could_hold(view, seat, tile):
    """How many of ``seat``'s hidden tiles could be ``tile``, by what its draws and passes showed.

    A draw/pass moment (``V_LOG``) proves the seat then held no tile showing
    an open end's number; so if some moment's numbers included a number of
    ``tile``, only tiles the seat drew after the last such moment can be
    ``tile``.  With no such moment it is any of the seat's tiles.
    (``V_VOID`` is the summary of the same log for the case "no draw since";
    the log also counts the draws.)
    """
    numbers = (1 << TILE_LO[tile]) | (1 << TILE_HI[tile])
    held = view[L.V_HAND_COUNT + seat]
    drawn_since = 0
    for k in range(view[L.V_LOG_N] - 1, -1, -1):
        at = L.V_LOG + L.LOG_SIZE * k
        if view[at + L.LOG_SEAT] != seat:
            continue
        if view[at + L.LOG_NUMBERS] & numbers:
            return min(drawn_since, held)
        drawn_since += view[at + L.LOG_DRAWN]
    return held


@njit(cache=True, inline="always")
def holding_probability(view, seat, tile, unseen, no_tiles):
    """Estimated chance that ``seat`` holds ``tile``, treating unseen tiles as equally likely.

    The seat's candidate tiles (:func:`could_hold`) are spread over the unseen
    tiles it may hold (those not showing a number it is known void in).
    """
    if not has(unseen, tile):
        return 0.0
    candidates = could_hold(view, seat, tile)
    if candidates == 0:
        return 0.0
    pool = count(minus(unseen, numbers_tiles(view[L.V_VOID + seat], view[L.V_MAX_NUMBER], no_tiles)))
    return min(1.0, candidates / pool)


@njit(cache=True, inline="always")
def threat(view, ends, doubles, counting, open_ends, unseen, no_tiles):
    """Expected header points the next seat scores at once on this layout.

    On two counting ends ``a|b`` exactly one tile makes a header: the tile
    showing both numbers (the double when they are equal); played, it makes
    a triple-header when the end it does not cover is a double end, or when
    it is itself the double.  With the spinner's arms, an answer on end ``f``
    makes a header when the other counting ends all show one number ``v``:
    the tile showing ``f``'s number and ``v``; the most valuable such answer
    counts.  The next seat's side gets the cut value.
    """
    seat = next_seat(view)
    score = view[L.V_SCORE + side_of(view, seat)]
    if counting == 3 and open_ends == 2:
        left = ends[0]
        right = ends[1]
        p = holding_probability(view, seat, TILE_AT[left, right], unseen, no_tiles)
        if p == 0.0:
            return 0.0
        value = 3 if left == right or doubles[0] or doubles[1] else 2
        return p * cut_points(value, score, view[L.V_TARGET], view[L.V_REDUCED])
    best = 0.0
    for f in range(open_ends):
        number = -1
        triple = False
        same = True
        for e in range(L.N_ENDS):
            if e == f or not (counting >> e & 1):
                continue
            if number < 0:
                number = ends[e]
            elif ends[e] != number:
                same = False
            if doubles[e]:
                triple = True
        if not same or number < 0:
            continue
        tile = TILE_AT[ends[f], number]
        p = holding_probability(view, seat, tile, unseen, no_tiles)
        if p == 0.0:
            continue
        value = 3 if triple or is_double(tile) else 2
        expected = p * cut_points(value, score, view[L.V_TARGET], view[L.V_REDUCED])
        best = max(best, expected)
    return best


@njit(cache=True, inline="always")
def playable_after(hand, tile, ends, open_ends, no_tiles):
    """How many tiles of ``hand`` without ``tile`` fit the open ends after the move."""
    rest = minus(hand, bit(tile, no_tiles))
    return count(both(rest, open_tiles(ends, open_ends, no_tiles)))


@njit(cache=True, inline="always")
def blocks_next(view, ends, open_ends):
    """1 when the next seat is known to hold nothing for the open ends (it must draw or pass)."""
    void = view[L.V_VOID + next_seat(view)]
    for e in range(open_ends):
        if not void >> ends[e] & 1:
            return 0
    return 1


# --- which double to lead (lead = any-double) ----------------------------------
#: the lowest double
LEAD_LOWEST = 0
#: the highest double (sheds the most pips at once)
LEAD_HIGHEST = 1
#: the double whose number the rest of the hand shows most often (ties: the higher double)
LEAD_FOLLOW = 2


@njit(cache=True, inline="always")
def lead_by(view, move_tiles, n_moves, rule, no_tiles):
    """Index of the double to lead under one of the LEAD_* rules (the doubles are listed lowest first)."""
    if rule == LEAD_LOWEST:
        return 0
    if rule == LEAD_HIGHEST:
        return n_moves - 1
    hand = own_hand(view, no_tiles)
    best = 0
    best_count = -1
    for k in range(n_moves):
        tile = move_tiles[k]
        followers = count(minus(both(hand, number_tiles(TILE_LO[tile], no_tiles)), bit(tile, no_tiles)))
        if followers >= best_count:
            best = k
            best_count = followers
    return best


# --- lexicographic rankings of the simple policies --------------------------
#: more points, then a double, then more pips (greedy; defensive's tie-break)
RANK_GREEDY = 0
#: keeps a tile for the new ends, then more pips, then a double, then more points (heavy-first)
RANK_SHEDDING = 1
#: a double, then RANK_SHEDDING (doubles-first)
RANK_DOUBLES = 2


@njit(cache=True, inline="always")
def move_rank(view, tile, end, order, no_tiles):
    """A move's rank under one of the RANK_* orders, packed into one integer (larger is better).

    The "keeps a tile" guard of the shedding orders exists because of a
    measurement: the plain heaviest tile lost to ``random`` (48.8% of 2-player
    matches on duplicate deals) by opening ends that the lighter tiles left
    in hand cannot follow, which costs draws and passes.
    """
    ends, doubles, counting, open_ends = ends_after(view, tile, end)
    points = header_points(view, view[L.V_SIDE], ends, doubles, counting)
    double = is_double(tile)
    if order == RANK_GREEDY:
        return points * 128 + double * 64 + TILE_PIPS[tile]  # points 0..3, pips 0..36 < 64
    keeps = 1 if playable_after(own_hand(view, no_tiles), tile, ends, open_ends, no_tiles) > 0 else 0
    rank = keeps * 512 + TILE_PIPS[tile] * 8 + double * 4 + points  # 36*8 + 4 + 3 < 512
    if order == RANK_DOUBLES:
        rank += double * 1024
    return rank


@njit(cache=True, inline="always")
def best_ranked(view, move_tiles, move_ends, n_moves, order, no_tiles):
    """Index of the first listed move with the highest :func:`move_rank`."""
    best = 0
    best_rank = -1
    for k in range(n_moves):
        rank = move_rank(view, move_tiles[k], move_ends[k], order, no_tiles)
        if rank > best_rank:
            best = k
            best_rank = rank
    return best
