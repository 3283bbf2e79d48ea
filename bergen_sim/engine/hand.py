"""One hand of Bergen in steps: the lead, the turns between choices, a play, the settlement.

The match loop (:mod:`bergen_sim.engine.match_loop`) and search's rollouts
(:mod:`bergen_sim.search.rollout`) both play hands with these functions, so
every rule of a hand (who leads, going out, drawing until a tile fits,
passing, blocking, headers and the near-target cut) is written once.  They
differ only in who chooses a move, which is why a hand is split at the
choice: :func:`advance` moves play on until some seat has legal moves (or
the hand ends), the caller picks one of them its own way, and :func:`play`
makes it.  The match loop calls :func:`advance_on` and :func:`play_on`,
which take and return the open ends (:class:`~bergen_sim.engine.ends.Ends`)
so that it holds them in a local from play to play; ``advance`` and ``play``
read and write the view's copy, for callers that keep the ends only there.

State lives in a :class:`HandBuffers` bundle: the policy view (ends, scores,
hand counts, voids: the public state of the hand), the hidden hands, the
tile source to draw from, the boneyard's bounds and tracing (layout ``TURN``), the hand's
statistics (``H_*``), the run totals (``S_*``) and the trace.  A rollout gets
scratch statistics and no trace (:func:`scratch_buffers`); the few extra
additions cost nothing next to a policy's choice.

When no policy of a run reads the view (``random``, ``first``), ``TURN_RULES_VIEW``
asks the steps to keep only the view's slots the rules themselves read: the
rest (played tiles, hand counts, voids, the logs) was most of the work of a
random play, and nobody would read it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from bergen_sim.engine import layout as L
from bergen_sim.engine.bits import borrow, slot
from bergen_sim.engine.ends import header, moved, open_tiles
from bergen_sim.engine.play_rules import (
    LEAD_CHOICE,
    TILE_LO,
    any_double_leader,
    cut_points,
    hand_of,
    lead_double,
    legal_moves,
    set_hand,
    settle_blocked,
    side_holdings,
)
from bergen_sim.engine.recording import C_SIZE, Head, record
from bergen_sim.engine.sides import seat_side, side_total
from bergen_sim.engine.tileset import bit, both, double_tiles, drop_lowest, has, is_empty, lowest, minus, union
from bergen_sim.engine.view import (
    ends_of,
    store_end,
    view_deal,
    view_draw,
    view_lay_lead,
    view_note_play,
    view_start_hand,
    view_void_moment,
)

#: :func:`advance` results that are not a number of legal moves
HAND_OVER = -1  # the hand ended and the match goes on
MATCH_OVER = -2  # the hand ended the match
#: :func:`deal_hand` / :func:`start_hand` result when no hand holds a double (the deal must be redone)
REDEAL = -1


class HandBuffers(NamedTuple):
    """The arrays one hand is played on (compiled code receives them as one argument)."""

    policy_view: np.ndarray  # V_*: the public state of the hand, which policies read (``view`` is taken by Numba)
    hands: np.ndarray  # (MAX_SEATS * SET_WORDS,) each seat's tiles (play_rules.hand_of)
    tiles: np.ndarray  # the deal (hands in seat order, then the boneyard) or a boneyard, in draw order
    turn: np.ndarray  # TURN_*: where the boneyard starts and stops, match, tracing
    hrow: np.ndarray  # H_*: the hand's statistics
    totals: np.ndarray  # S_*: run totals
    trace: np.ndarray  # (capacity, T_WIDTH) trace rows
    ctr: np.ndarray  # C_*: trace rows counted, script and deal positions
    move_tiles: np.ndarray  # (MAX_MOVES,) the legal moves :func:`advance` listed
    move_ends: np.ndarray
    no_tiles: object  # the empty tile set of the game's width (engine/tileset.py): int64 or a tuple of words


@njit(cache=True)
def scratch_buffers(view, hands, tiles, no_tiles):
    """Buffers for hands whose statistics nobody reads and that are not traced (rollouts)."""
    return HandBuffers(
        view,
        hands,
        tiles,
        np.zeros(L.TURN_SIZE, dtype=np.int64),
        np.zeros(L.H_WIDTH, dtype=np.int64),
        np.zeros(L.S_SIZE, dtype=np.int64),
        np.zeros((0, L.T_WIDTH), dtype=np.int64),
        np.zeros(C_SIZE, dtype=np.int64),
        np.zeros(L.MAX_MOVES, dtype=np.int64),
        np.zeros(L.MAX_MOVES, dtype=np.int64),
        no_tiles,
    )


@njit(cache=True, inline="always")
def borrowed(b):
    """``b`` with every array borrowed (engine/bits.py), for a compiled function that plays hands on buffers it
    was given (search's play-outs).

    Numba cannot see that arrays passed in are already borrowed, so without
    this every field read calls the reference counter, and the calls keep the
    optimiser from holding the view in registers: pimc's play-outs ran at a
    third of the match loop's speed until they borrowed.  Only arguments may
    be borrowed this way (their caller owns them for the whole call), never an
    array the function itself allocated.
    """
    return HandBuffers(
        borrow(b.policy_view),
        borrow(b.hands),
        borrow(b.tiles),
        borrow(b.turn),
        borrow(b.hrow),
        borrow(b.totals),
        borrow(b.trace),
        borrow(b.ctr),
        borrow(b.move_tiles),
        borrow(b.move_ends),
        b.no_tiles,
    )


@njit(cache=True, inline="always")
def side_of_seat(rules, seat):
    """The side a seat scores for."""
    return seat_side(seat, rules[L.R_PARTNERSHIPS])


@njit(cache=True, inline="always")
def side_count(rules):
    """How many sides score: two in partnerships, else one per seat."""
    return side_total(rules[L.R_PLAYERS], rules[L.R_PARTNERSHIPS])


@njit(cache=True, inline="always")
def _record(b, ev, seat, tile, end, points, winner, rules):
    # int64 casts: one compiled record() for every call (recording.record says why)
    head = Head(
        np.int64(ev),
        b.turn[L.TURN_MATCH],
        b.policy_view[L.V_HAND_NO],
        np.int64(seat),
        np.int64(tile),
        np.int64(end),
        np.int64(points),
        np.int64(winner),
    )
    record(b.trace, b.ctr, head, b.policy_view[L.V_SCORE : L.V_SCORE + L.MAX_SEATS], side_count(rules))


@njit(cache=True, inline="always")
def deal_hand(rules, b, hand_no):
    """Deal ``b.tiles`` (a whole deal) into the hands and find who leads; the rest of the deal is the boneyard.

    Returns :data:`REDEAL` when no hand holds a double (nothing else changed
    but the hands), else the number of doubles the leader may lead, listed in
    ``b.move_tiles`` (with end ``LEAD_CHOICE``): one with the lowest- and
    highest-double leads, every double the leader holds with ``any-double``
    (the leader is the first seat from the opening seat, ``(hand_no - 1) mod
    players``, that holds one).  The leader is then ``b.hrow[H_LEADER]``;
    :func:`lead` plays the chosen double.
    """
    players = rules[L.R_PLAYERS]
    hand_size = rules[L.R_HAND_SIZE]
    no_tiles = b.no_tiles
    held = no_tiles
    for s in range(players):
        h = no_tiles
        for k in range(hand_size):
            h = union(h, bit(b.tiles[s * hand_size + k], no_tiles))
        set_hand(b.hands, s, h)
        held = union(held, h)
    dealt_doubles = both(held, double_tiles(no_tiles))
    if is_empty(dealt_doubles):
        return REDEAL
    b.turn[L.TURN_BONE_START] = players * hand_size
    b.turn[L.TURN_BONE_STOP] = rules[L.R_N_TILES] - rules[L.R_RESERVE]
    max_number = rules[L.R_MAX_NUMBER]
    if rules[L.R_LEAD] == L.LEAD_ANY_DOUBLE:
        leader = any_double_leader(b.hands, players, (hand_no - 1) % players, max_number, no_tiles)
        view_deal(
            b.policy_view, players, hand_size, rules[L.R_N_TILES] - players * hand_size, hand_no, leader, no_tiles
        )
        doubles = both(hand_of(b.hands, leader, no_tiles), double_tiles(no_tiles))
        n = 0
        while not is_empty(doubles):
            b.move_tiles[n] = lowest(doubles)
            b.move_ends[n] = LEAD_CHOICE
            doubles = drop_lowest(doubles)
            n += 1
    else:
        leader, tile = lead_double(b.hands, players, dealt_doubles, rules[L.R_LEAD] == L.LEAD_HIGHEST, no_tiles)
        b.move_tiles[0] = tile
        b.move_ends[0] = LEAD_CHOICE
        n = 1
    b.hrow[L.H_LEADER] = leader
    return n


@njit(cache=True, inline="always")
def start_hand(rules, b, hand_no):
    """Deal and lead, for callers that do not model the lead choice: the leader leads its lowest double.

    Returns :data:`REDEAL` when no hand holds a double, 1 when the lead's
    points end the match, else 0.  (With ``any-double`` the match loop asks
    the leader's policy instead: :func:`deal_hand`, then :func:`lead`.)
    """
    n = deal_hand(rules, b, hand_no)
    if n == REDEAL:
        return REDEAL
    return lead(rules, b, hand_no, b.move_tiles[0])


@njit(cache=True, inline="always")
def lead(rules, b, hand_no, tile):
    """The leader (``b.hrow[H_LEADER]``) leads the double ``tile`` and scores it; 1 if that ends the match."""
    players = rules[L.R_PLAYERS]
    view = b.policy_view
    hrow = b.hrow
    leader = hrow[L.H_LEADER]
    number = TILE_LO[tile]
    hrow[L.H_LED_DOUBLE] = number
    hrow[L.H_WINNER] = -1
    set_hand(b.hands, leader, minus(hand_of(b.hands, leader, b.no_tiles), bit(tile, b.no_tiles)))
    if b.turn[L.TURN_RULES_VIEW]:
        view_lay_lead(view, hand_no, number, rules[L.R_SPINNER])
    else:
        boneyard = b.turn[L.TURN_BONE_STOP] - b.turn[L.TURN_BONE_START] + rules[L.R_RESERVE]
        view_start_hand(
            view, players, rules[L.R_HAND_SIZE], boneyard, hand_no, leader, number, rules[L.R_SPINNER], b.no_tiles
        )
    side = side_of_seat(rules, leader)
    pts = cut_points(2, view[L.V_SCORE + side], rules[L.R_TARGET], rules[L.R_REDUCED])
    view[L.V_SCORE + side] += pts
    hrow[L.H_SEAT_POINTS + leader] += pts
    b.totals[L.S_POINTS_LEAD] += pts
    if b.turn[L.TURN_TRACING]:
        _record(b, L.EV_LEAD, leader, tile, 0, pts, -1, rules)
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
    """:func:`advance_on` the view's ends (for callers that keep the ends in the view only)."""
    return advance_on(rules, b, seat, pos, ends_of(b.policy_view))


@njit(cache=True, inline="always")
def advance_on(rules, b, seat, pos, ends):
    """Play on from ``seat``'s play (or lead) until a seat must choose; ``pos``: the next boneyard tile;
    ``ends``: the open ends (:class:`~bergen_sim.engine.ends.Ends`), which draws and passes leave as they are.

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
    no_tiles = b.no_tiles
    turn = b.turn
    hrow = b.hrow
    tracing = turn[L.TURN_TRACING]
    policy_view = turn[L.TURN_RULES_VIEW] == 0
    passes = 0  # passes in a row: a play ends every run of passes, and advance starts after a play
    stop = turn[L.TURN_BONE_STOP]
    while True:
        if is_empty(hand_of(hands, seat, no_tiles)):
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
        fits = open_tiles(ends, no_tiles)
        hand = hand_of(hands, seat, no_tiles)
        playable = both(hand, fits)
        if is_empty(playable):
            drawn = 0
            while pos < stop:
                t = b.tiles[pos]
                pos += 1
                drawn += 1
                hand = union(hand, bit(t, no_tiles))
                if policy_view:
                    view_draw(view, seat)
                if tracing:
                    _record(b, L.EV_DRAW, seat, t, 0, 0, -1, rules)
                if has(fits, t):
                    playable = bit(t, no_tiles)
                    break
            set_hand(hands, seat, hand)
            hrow[L.H_DRAWS] += drawn
            if policy_view:
                view_void_moment(view, seat, drawn, drawn - 1 if not is_empty(playable) else drawn)
            if is_empty(playable):
                hrow[L.H_PASSES] += 1
                if tracing:
                    _record(b, L.EV_PASS, seat, 0, 0, 0, -1, rules)
                passes += 1
                if passes == players:
                    return (MATCH_OVER if settle(rules, b) else HAND_OVER), seat, pos
                continue
        return legal_moves(playable, ends, b.move_tiles, b.move_ends), seat, pos


@njit(cache=True, inline="always")
def play(rules, b, seat, tile, end):
    """:func:`play_on` the view's ends, which it then updates (for callers that keep the ends in the view only)."""
    ended, ends = play_on(rules, b, seat, tile, end, ends_of(b.policy_view))
    if b.turn[L.TURN_RULES_VIEW]:  # else play_on updated the view
        store_end(b.policy_view, ends, end)
    return ended


@njit(cache=True, inline="always")
def play_on(rules, b, seat, tile, end, ends):
    """``seat`` plays ``tile`` on ``end`` of ``ends``: the ends move and a header scores.

    Returns ``(1 if the match ended else 0, the ends after the play)``.  The
    view's copy of the ends is updated unless no policy of the run reads the
    view (``TURN_RULES_VIEW``): then only the caller holds the ends.
    """
    view = b.policy_view
    hrow = b.hrow
    set_hand(b.hands, seat, minus(hand_of(b.hands, seat, b.no_tiles), bit(tile, b.no_tiles)))
    ends = moved(ends, end, tile)
    if not b.turn[L.TURN_RULES_VIEW]:
        view_note_play(view, seat, tile, end, b.no_tiles)
        store_end(view, ends, end)
    hrow[L.H_PLAYS] += 1
    value = header(ends)
    pts = 0
    score = 0
    if value > 0:
        side = side_of_seat(rules, seat)
        pts = cut_points(value, view[slot(L.V_SCORE + side)], rules[L.R_TARGET], rules[L.R_REDUCED])
        score = view[slot(L.V_SCORE + side)] + pts
        view[slot(L.V_SCORE + side)] = score
        hrow[slot(L.H_SEAT_POINTS + seat)] += pts
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
        return 1, ends
    return 0, ends


@njit(cache=True)
def settle(rules, b):
    """Settle a blocked hand; returns 1 if the winner's points end the match."""
    players = rules[L.R_PLAYERS]
    partners = rules[L.R_PARTNERSHIPS]
    sides = side_total(players, partners)
    hrow = b.hrow
    doubles = hrow[L.H_SIDE_DOUBLES : L.H_SIDE_DOUBLES + L.MAX_SEATS]
    pips = hrow[L.H_SIDE_PIPS : L.H_SIDE_PIPS + L.MAX_SEATS]
    plain = hrow[L.H_SIDE_PLAIN_PIPS : L.H_SIDE_PLAIN_PIPS + L.MAX_SEATS]
    side_holdings(b.hands, players, partners, b.no_tiles, doubles, pips, plain)
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
