"""Compiled upkeep of the policy view (layout: ``V_*`` in layout.py).

The kernel keeps one view vector per match and updates it as public events
happen; before a policy is called it writes the deciding seat and that seat's
own hand into it.  Nothing here ever reads another seat's hand, which is what
makes the view safe to hand to a policy.

Sets of tiles in the view take ``SET_WORDS`` slots each; ``no_tiles`` (see
:mod:`bergen_sim.engine.tileset`) says how many of them a game uses.
"""

from __future__ import annotations

from numba import njit

from bergen_sim.engine import layout as L
from bergen_sim.engine.bits import slot
from bergen_sim.engine.ends import counting_mask, double_at, ends_led, moved, number_at, open_count, packed
from bergen_sim.engine.ends import open_numbers as ends_open_numbers
from bergen_sim.engine.tileset import bit, first_tiles, load, load_split, minus, store, store_split, union


@njit(cache=True, inline="always")
def played_by(view, seat, no_tiles):
    """The tiles ``seat`` has played this hand (word 0 at ``V_PLAYED_BY + seat``, as with one-word sets)."""
    return load_split(view, L.V_PLAYED_BY + seat, L.V_PLAYED_BY_HIGH + seat * (L.SET_WORDS - 1), no_tiles)


@njit(cache=True, inline="always")
def store_played_by(view, seat, tiles):
    store_split(view, L.V_PLAYED_BY + seat, L.V_PLAYED_BY_HIGH + seat * (L.SET_WORDS - 1), tiles)


@njit(cache=True, inline="always")
def unseen_tiles(view, no_tiles):
    """Tiles the deciding seat cannot see: other hands and the boneyard."""
    tiles = first_tiles(view[L.V_N_TILES], no_tiles)
    return minus(minus(tiles, load(view, L.V_HAND, no_tiles)), load(view, L.V_PLAYED, no_tiles))


@njit(cache=True, inline="always")
def used_slots(view):
    """The view's slots that hold state: everything before the draw/pass log, and the log's entries so far
    (the rest is log space nobody reads, all zero: what a copy of a view needs to copy)."""
    return L.V_LOG + L.LOG_SIZE * view[L.V_LOG_N]


@njit(cache=True, inline="always")
def played_slots(view):
    """The view's slots up to the end of the play log's entries so far (the rest of the play log is unused)."""
    return L.V_PLAYS + L.PLAY_SIZE * view[L.V_PLAYS_N]


@njit(cache=True, inline="always")
def _clear_logs(view):
    """Zero the play-log and draw/pass-log entries the last hand wrote (its counters say how many), and the counters.

    Every hand starts with empty logs (the leader choosing its double reads
    this view).  Entries are only ever appended below their counters
    (:func:`view_log_play`, :func:`view_void_moment`), so every slot beyond a
    counter is already zero in a view that started zeroed, and clearing what
    the counters cover gives the same all-zero logs as clearing the whole view
    (1,615 slots, most of them logs) would, at each hand's cost rather than
    the view's.
    """
    view[L.V_PLAYS : played_slots(view)] = 0
    view[L.V_LOG : used_slots(view)] = 0
    view[L.V_PLAYS_N] = 0
    view[L.V_LOG_N] = 0


@njit(cache=True)
def view_start_match(view, rules):
    """Clear the view (a zeroed one, or one only these functions wrote) and copy the rules a policy may consult."""
    _clear_logs(view)
    view[: L.V_PLAYS] = 0
    view[L.V_PLAYERS] = rules[L.R_PLAYERS]
    view[L.V_PARTNERSHIPS] = rules[L.R_PARTNERSHIPS]
    view[L.V_TARGET] = rules[L.R_TARGET]
    view[L.V_RESERVE] = rules[L.R_RESERVE]
    view[L.V_OUT_POINTS] = rules[L.R_OUT_POINTS]
    view[L.V_BLOCKED_POINTS] = rules[L.R_BLOCKED_POINTS]
    view[L.V_SETTLEMENT] = rules[L.R_SETTLEMENT]
    view[L.V_REDUCED] = rules[L.R_REDUCED]
    view[L.V_MAX_NUMBER] = rules[L.R_MAX_NUMBER]
    view[L.V_N_TILES] = rules[L.R_N_TILES]
    view[L.V_SPINNER] = -1


@njit(cache=True, inline="always")
def view_deal(view, players, hand_size, boneyard, hand_no, leader, no_tiles):
    """Reset the per-hand part of the view for a new deal, before the lead: nothing on the table, no end open.

    This is what a leader choosing its double (``lead = any-double``) sees:
    empty play and draw/pass logs, as on an empty table.
    """
    _clear_logs(view)
    view[L.V_HAND_NO] = hand_no
    view[L.V_LEADER] = leader
    view[L.V_PLAY_NO] = 0
    view[L.V_BONEYARD] = boneyard
    view[L.V_OPEN_ENDS] = 0
    view[L.V_COUNTING] = 0
    view[L.V_SPINNER] = -1
    store(view, L.V_PLAYED, no_tiles)
    for s in range(players):  # seats beyond the table's stay as view_start_match cleared them
        store_played_by(view, s, no_tiles)
        view[L.V_HAND_COUNT + s] = hand_size
        view[L.V_VOID + s] = 0


@njit(cache=True, inline="always")
def view_start_hand(view, players, hand_size, boneyard, hand_no, leader, number, spinner, no_tiles):
    """Reset the per-hand part of the view right after ``leader`` led ``number-number``.

    Both ends (and, with the spinner, its two closed arms) show the double and
    are double ends; only L and R are open and count.
    """
    view_deal(view, players, hand_size, boneyard, hand_no, leader, no_tiles)
    view_lay_lead(view, hand_no, number, spinner)
    lead = bit(L.DOUBLE_TILE[number], no_tiles)
    store(view, L.V_PLAYED, lead)
    store_played_by(view, leader, lead)
    view[L.V_HAND_COUNT + leader] = hand_size - 1
    view_log_play(view, leader, L.DOUBLE_TILE[number], L.END_L)


@njit(cache=True, inline="always")
def ends_of(view):
    """The view's copy of the open ends (:class:`~bergen_sim.engine.ends.Ends`)."""
    return packed(
        view[L.V_END : L.V_END + L.N_ENDS],
        view[L.V_END_DOUBLE : L.V_END_DOUBLE + L.N_ENDS],
        view[L.V_END_TILES : L.V_END_TILES + L.N_ENDS],
        view[L.V_OPEN_ENDS],
        view[L.V_COUNTING],
        view[L.V_SPINNER],
    )


@njit(cache=True, inline="always")
def store_end(view, ends, end):
    """Copy into the view what a play on ``end`` changed: ``ends`` after it (that end, how many are open, which
    count), and one more tile on that end."""
    view[slot(L.V_END + end)] = number_at(ends, end)
    view[slot(L.V_END_DOUBLE + end)] = double_at(ends, end)
    view[slot(L.V_END_TILES + end)] += 1
    view[L.V_OPEN_ENDS] = open_count(ends)
    view[L.V_COUNTING] = counting_mask(ends)


@njit(cache=True, inline="always")
def view_lay_lead(view, hand_no, number, spinner):
    """The slots the rules read after ``number-number`` was led (all that a run whose policies read no view keeps):
    the hand number, and the ends (:func:`bergen_sim.engine.ends.ends_led`)."""
    view[L.V_HAND_NO] = hand_no
    ends = ends_led(number, spinner)
    for e in range(L.N_ENDS):
        view[L.V_END + e] = number_at(ends, e)
        view[L.V_END_DOUBLE + e] = double_at(ends, e)
        view[L.V_END_TILES + e] = 0
    view[L.V_OPEN_ENDS] = open_count(ends)
    view[L.V_COUNTING] = counting_mask(ends)
    view[L.V_SPINNER] = number if spinner else -1


@njit(cache=True, inline="always")
def view_log_play(view, seat, tile, end):
    """Append a tile put down (the lead or a play) to the view's play log."""
    k = view[L.V_PLAYS_N]
    if k < L.MAX_TILES:
        at = L.V_PLAYS + L.PLAY_SIZE * k
        view[slot(at + L.PLAY_SEAT)] = seat
        view[slot(at + L.PLAY_TILE)] = tile
        view[slot(at + L.PLAY_END)] = end
        view[slot(at + L.PLAY_MOMENTS)] = view[L.V_LOG_N]
        view[L.V_PLAYS_N] = k + 1


@njit(cache=True, inline="always")
def view_play(view, seat, tile, end, no_tiles):
    """A seat played ``tile`` on ``end`` (:func:`bergen_sim.engine.ends.moved` says what the ends do)."""
    view_note_play(view, seat, tile, end, no_tiles)
    store_end(view, moved(ends_of(view), end, tile), end)


@njit(cache=True, inline="always")
def view_note_play(view, seat, tile, end, no_tiles):
    """The part of :func:`view_play` only policies read: the tiles played, by whom, hand counts and the play log."""
    t = bit(tile, no_tiles)
    store(view, L.V_PLAYED, union(load(view, L.V_PLAYED, no_tiles), t))
    store_played_by(view, seat, union(played_by(view, seat, no_tiles), t))
    view[slot(L.V_HAND_COUNT + seat)] -= 1
    view[L.V_PLAY_NO] += 1
    view_log_play(view, seat, tile, end)


@njit(cache=True, inline="always")
def view_draw(view, seat):
    """A seat drew one tile (its face stays hidden)."""
    view[slot(L.V_HAND_COUNT + seat)] += 1
    view[L.V_BONEYARD] -= 1


@njit(cache=True, inline="always")
def open_numbers(view):
    """Mask of the numbers the view's open ends show (bit n for number n)."""
    return ends_open_numbers(ends_of(view))


@njit(cache=True, inline="always")
def view_void_moment(view, seat, drawn, kept):
    """A seat had no tile for the open ends: log it and update what it is known to lack.

    It held no tile showing an open end's number, and every tile it drew and
    kept doesn't show them either.  If it kept a drawn tile, earlier voids no
    longer hold (the kept tiles are unseen), so the void mask restarts from
    these numbers.
    """
    numbers = open_numbers(view)
    if kept > 0:
        view[slot(L.V_VOID + seat)] = numbers
    else:
        view[slot(L.V_VOID + seat)] |= numbers
    k = view[L.V_LOG_N]
    if k < L.V_LOG_CAPACITY:
        base = L.V_LOG + L.LOG_SIZE * k
        view[slot(base + L.LOG_SEAT)] = seat
        view[slot(base + L.LOG_NUMBERS)] = numbers
        view[slot(base + L.LOG_DRAWN)] = drawn
        view[L.V_LOG_N] = k + 1
