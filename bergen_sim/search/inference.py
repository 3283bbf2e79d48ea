"""How likely a sampled world makes the other seats' plays: inference from moves, not only from draws.

The world sampler (:mod:`bergen_sim.engine.worlds`) deals the hidden tiles
uniformly among the deals that break no void.  But the other seats' choices
say more: a seat that could have scored a header and did not probably
lacked the tile.  This module scores a world by the likelihood of every
play the other seats made this hand under a simple model of their play,
so that search can keep worlds in proportion to it (rejection sampling in
:mod:`bergen_sim.search.reader`).

Model ("seats take points"): at each of its plays a seat chose among its
legal moves of the moment; a move that makes a header worth ``v`` points
(2 or 3, before the near-target cut, which needs the score of the moment)
is preferred, and passing up ``d`` points of the best header available has
likelihood ``exp(-trust * d)``, relative to playing a best one.  With
``trust`` 0 every world is equally likely (plain uniform worlds).

What a seat held at one of its plays is known in a world only if it has
drawn nothing since: then it held its world hand plus every tile it played
from that play on.  Plays followed by a draw of the same seat are skipped
(the tiles drawn since are not told apart from the ones held before).
The play log of the view (``V_PLAYS``: seat, tile, end, draw/pass moments
before it) gives the order; nothing but the view and the world is read.

Sets have the game's width (``no_tiles``, :mod:`bergen_sim.engine.tileset`),
as everywhere in compiled code.  The model reads a line's two ends: with the spinner the likelihood is 1 (no
inference from plays; the draws and passes still count).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bergen_sim.engine import layout as L
from bergen_sim.engine.play_rules import hand_of, header_value, other_half
from bergen_sim.engine.tileset import bit, both, drop_lowest, is_empty, load, lowest, minus, number_tiles, store, union

__all__ = ["EVIDENCE_WIDTH", "drew_since", "evidence_buffer", "play_evidence", "replay_start", "world_log_likelihood"]

#: columns of one row of evidence (:func:`play_evidence`): the seat, the header value of its actual play,
#: the best header it surely could have made (with tiles it put down from then on), then two tile sets
#: (``SET_WORDS`` slots each): the tiles that would have made a triple-header, and a double-header
EV_SEAT, EV_VALUE, EV_KNOWN, EV_THREE = 0, 1, 2, 3
EV_TWO = EV_THREE + L.SET_WORDS
EVIDENCE_WIDTH = EV_TWO + L.SET_WORDS


@njit(cache=True)
def drew_since(view, seat, moment):
    """Whether ``seat`` drew a tile at a draw/pass moment numbered ``moment`` or later (a full log: yes)."""
    n = view[L.V_LOG_N]
    if n >= L.V_LOG_CAPACITY:
        return True
    for k in range(moment, n):
        at = L.V_LOG + L.LOG_SIZE * k
        if view[at + L.LOG_SEAT] == seat and view[at + L.LOG_DRAWN] > 0:
            return True
    return False


@njit(cache=True, inline="always")
def _header_after(ends, doubles, tile, end):
    """Header value (0, 2 or 3, uncut) of the line after ``tile`` goes on ``end``."""
    number = ends[end]
    saved_double = doubles[end]
    ends[end] = other_half(tile, number)
    doubles[end] = 1 if L.TILE_LO[tile] == L.TILE_HI[tile] else 0
    value = header_value(ends[L.END_L], ends[L.END_R], doubles[L.END_L], doubles[L.END_R])
    ends[end] = number
    doubles[end] = saved_double
    return value


@njit(cache=True)
def replay_start(view, n, line, no_tiles):
    """Set ``line`` to the lead of the hand; return the tiles each seat put down from the second play on.

    The returned sets (``SET_WORDS`` slots a seat) are built backwards over
    the ``n`` logged plays; a replay removes each play's tile from its seat's
    set as it passes it, so the set then holds what the seat put down from
    that play on.
    """
    lead_tile = view[L.V_PLAYS + L.PLAY_TILE]
    for e in range(L.N_ENDS):
        line[L.V_END + e] = L.TILE_LO[lead_tile]
        line[L.V_END_DOUBLE + e] = 1
    line[L.V_OPEN_ENDS] = 2
    later = np.zeros(L.MAX_SEATS * L.SET_WORDS, dtype=np.int64)
    for k in range(n - 1, 0, -1):
        at = L.V_PLAYS + L.PLAY_SIZE * k
        by = view[at + L.PLAY_SEAT] * L.SET_WORDS
        store(later, by, union(load(later, by, no_tiles), bit(view[at + L.PLAY_TILE], no_tiles)))
    return later


@njit(cache=True)
def evidence_buffer():
    """Rows for :func:`play_evidence`: one per entry of the play log."""
    return np.zeros((L.MAX_TILES, EVIDENCE_WIDTH), dtype=np.int64)


@njit(cache=True)
def play_evidence(view, evidence, line, no_tiles):
    """What the other seats' plays say, whatever the world: rows of ``evidence``; returns how many.

    The likelihood of a world needs, at each informative play (another
    seat's, with no draw of its own since), only the best header the seat
    could have made with what it held: its world hand plus every tile it put
    down from that play on.  Replaying the hand for every world would find
    the same line each time, so the hand is replayed once per decision here
    and each informative play becomes a row: its seat, the header value of
    the play made, the best value the tiles it put down from then on (the
    play's own tile among them) could have made, and the tiles that would
    have made a triple- and a double-header at that moment (on either end
    they fit).  :func:`world_log_likelihood` then scores a world from the rows
    alone, with a few set intersections per play.  No rows (0) where nothing
    is inferred: fewer than two plays, or the spinner.  ``line`` is a scratch
    view whose ends replay the hand.
    """
    n = min(view[L.V_PLAYS_N], L.MAX_TILES)
    me = view[L.V_SEAT]
    if n < 2 or view[L.V_SPINNER] >= 0:
        return 0
    ends = line[L.V_END : L.V_END + L.N_ENDS]
    doubles = line[L.V_END_DOUBLE : L.V_END_DOUBLE + L.N_ENDS]
    later = replay_start(view, n, line, no_tiles)
    rows = 0
    for k in range(1, n):
        at = L.V_PLAYS + L.PLAY_SIZE * k
        seat = view[at + L.PLAY_SEAT]
        tile = view[at + L.PLAY_TILE]
        end = view[at + L.PLAY_END]
        if seat != me and not drew_since(view, seat, view[at + L.PLAY_MOMENTS]):
            three = no_tiles
            two = no_tiles
            fitting = union(number_tiles(ends[L.END_L], no_tiles), number_tiles(ends[L.END_R], no_tiles))
            while not is_empty(fitting):
                t = lowest(fitting)
                fitting = drop_lowest(fitting)
                best = 0
                for e in (L.END_L, L.END_R):
                    if L.TILE_LO[t] == ends[e] or L.TILE_HI[t] == ends[e]:
                        best = max(best, _header_after(ends, doubles, t, e))
                if best == 3:
                    three = union(three, bit(t, no_tiles))
                elif best == 2:
                    two = union(two, bit(t, no_tiles))
            held = load(later, seat * L.SET_WORDS, no_tiles)
            known = 3 if not is_empty(both(held, three)) else 2 if not is_empty(both(held, two)) else 0
            evidence[rows, EV_SEAT] = seat
            evidence[rows, EV_VALUE] = _header_after(ends, doubles, tile, end)
            evidence[rows, EV_KNOWN] = known
            store(evidence[rows], EV_THREE, three)
            store(evidence[rows], EV_TWO, two)
            rows += 1
        store(later, seat * L.SET_WORDS, minus(load(later, seat * L.SET_WORDS, no_tiles), bit(tile, no_tiles)))
        ends[end] = other_half(tile, ends[end])
        doubles[end] = 1 if L.TILE_LO[tile] == L.TILE_HI[tile] else 0
    return rows


@njit(cache=True, inline="always")
def world_log_likelihood(evidence, rows, hands, trust, no_tiles):
    """Log-likelihood (<= 0) of the other seats' logged plays in the world ``hands`` (``SET_WORDS`` slots a seat).

    ``evidence[:rows]`` are the decision's :func:`play_evidence` rows; each
    adds ``-trust * (best - made)``, the header points passed up.  0.0 when
    nothing can be inferred (no rows, or ``trust`` 0).
    """
    total = 0.0
    if trust == 0.0:
        return total
    for r in range(rows):
        row = evidence[r]
        best = row[EV_KNOWN]
        if best < 3:
            hand = hand_of(hands, row[EV_SEAT], no_tiles)
            if not is_empty(both(hand, load(row, EV_THREE, no_tiles))):
                best = 3
            elif best < 2 and not is_empty(both(hand, load(row, EV_TWO, no_tiles))):
                best = 2
        total -= trust * (best - row[EV_VALUE])
    return total
