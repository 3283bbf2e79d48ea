"""Compiled writers for the kernel's trace rows (layout: ``T_*`` in layout.py).

A trace buffer is an ``int64`` array of shape (capacity, T_WIDTH); ``ctr[C_TRACE]``
counts rows.  Rows past the capacity are counted but not written, so the
caller can see the buffer was too small and run again with a larger one.
"""

from __future__ import annotations

from numba import njit

from bergen_sim.engine import layout as L

C_SCRIPT = L.C_SCRIPT  # counters of a kernel call: layout COUNTERS
C_TRACE = L.C_TRACE
C_DEAL = L.C_DEAL
C_SIZE = L.C_SIZE


@njit(cache=True)
def record(trace, ctr, ev, match, hand, seat, tile, end, points, winner, scores, sides):
    """Append one event row.

    Callers pass every number as an ``int64`` (``np.int64(0)``, not ``0``):
    Numba compiles a function once per combination of argument types, and a
    literal such as ``0`` or ``-1`` is a type of its own, so the ten call
    sites with their different constants compiled ten copies of this
    function (a tenth of a cold compile of the match loop, measured).
    """
    i = ctr[C_TRACE]
    ctr[C_TRACE] = i + 1
    if i >= trace.shape[0]:
        return
    row = trace[i]
    row[:] = 0
    row[L.T_TYPE] = ev
    row[L.T_MATCH] = match
    row[L.T_HAND] = hand
    row[L.T_SEAT] = seat
    row[L.T_TILE] = tile
    row[L.T_END] = end
    row[L.T_POINTS] = points
    row[L.T_WINNER] = winner
    for side in range(sides):
        row[L.T_SCORE + side] = scores[side]


@njit(cache=True)
def record_deal(trace, ctr, match, hand, deal, n_tiles):
    """Append a deal row carrying the whole deal (``n_tiles`` tiles)."""
    i = ctr[C_TRACE]
    ctr[C_TRACE] = i + 1
    if i >= trace.shape[0]:
        return
    row = trace[i]
    row[:] = 0
    row[L.T_TYPE] = L.EV_DEAL
    row[L.T_MATCH] = match
    row[L.T_HAND] = hand
    for k in range(n_tiles):
        row[L.T_DEAL + k] = deal[k]
