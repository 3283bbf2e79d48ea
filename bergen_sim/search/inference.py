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
from bergen_sim.engine.play_rules import hand_of, header_value, legal_moves, open_end_tiles, other_half
from bergen_sim.engine.tileset import bit, both, load, minus, store, union

__all__ = ["drew_since", "play_log_likelihood"]


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
def play_log_likelihood(view, hands, trust, scratch_tiles, scratch_ends, line, no_tiles):
    """Log-likelihood (<= 0) of the other seats' logged plays in the world ``hands`` (``SET_WORDS`` slots a seat).

    ``scratch_tiles`` / ``scratch_ends`` are move buffers of length
    ``MAX_MOVES`` and ``line`` a scratch view (``V_SIZE``) whose ends replay
    the hand.  Returns 0.0 when nothing can be inferred.
    """
    n = min(view[L.V_PLAYS_N], L.MAX_TILES)
    me = view[L.V_SEAT]
    if n < 2 or trust == 0.0 or view[L.V_SPINNER] >= 0:
        return 0.0
    ends = line[L.V_END : L.V_END + L.N_ENDS]
    doubles = line[L.V_END_DOUBLE : L.V_END_DOUBLE + L.N_ENDS]
    line[L.V_OPEN_ENDS] = 2
    lead_tile = view[L.V_PLAYS + L.PLAY_TILE]
    for e in range(L.N_ENDS):
        ends[e] = L.TILE_LO[lead_tile]
        doubles[e] = 1
    # tiles each seat put down from entry k on, built backwards (SET_WORDS slots a seat)
    later = np.zeros(L.MAX_SEATS * L.SET_WORDS, dtype=np.int64)
    for k in range(n - 1, 0, -1):
        at = L.V_PLAYS + L.PLAY_SIZE * k
        by = view[at + L.PLAY_SEAT] * L.SET_WORDS
        store(later, by, union(load(later, by, no_tiles), bit(view[at + L.PLAY_TILE], no_tiles)))
    total = 0.0
    for k in range(1, n):
        at = L.V_PLAYS + L.PLAY_SIZE * k
        seat = view[at + L.PLAY_SEAT]
        tile = view[at + L.PLAY_TILE]
        end = view[at + L.PLAY_END]
        if seat != me and not drew_since(view, seat, view[at + L.PLAY_MOMENTS]):
            held = union(hand_of(hands, seat, no_tiles), load(later, seat * L.SET_WORDS, no_tiles))
            n_moves = legal_moves(both(held, open_end_tiles(line, no_tiles)), line, scratch_tiles, scratch_ends)
            if n_moves > 1:
                best = 0
                for j in range(n_moves):
                    best = max(best, _header_after(ends, doubles, scratch_tiles[j], scratch_ends[j]))
                total -= trust * (best - _header_after(ends, doubles, tile, end))
        store(later, seat * L.SET_WORDS, minus(load(later, seat * L.SET_WORDS, no_tiles), bit(tile, no_tiles)))
        ends[end] = other_half(tile, ends[end])
        doubles[end] = 1 if L.TILE_LO[tile] == L.TILE_HI[tile] else 0
    return total
