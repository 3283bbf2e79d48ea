"""Compiled writers for the kernel's trace rows (layout: ``T_*`` in layout.py).

A trace buffer is an ``int64`` array of shape (capacity, T_WIDTH); ``ctr[C_TRACE]``
counts rows.  Rows past the capacity are counted but not written, so the
caller can see the buffer was too small and run again with a larger one.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from bergen_sim.engine import layout as L

C_SCRIPT = L.C_SCRIPT  # counters of a kernel call: layout COUNTERS
C_TRACE = L.C_TRACE
C_DEAL = L.C_DEAL
C_SIZE = L.C_SIZE


class Head(NamedTuple):
    """The event fields of a trace row, ``T_TYPE`` to ``T_WINNER`` (every one an ``int64``)."""

    ev: np.int64  # the event type, EV_*
    match: np.int64
    hand: np.int64
    seat: np.int64
    tile: np.int64
    end: np.int64
    points: np.int64
    winner: np.int64


@njit(cache=True)
def record(trace, ctr, head, scores, sides):
    """Append one event row: ``head`` (a :class:`Head`) and the scores of the ``sides`` sides.

    Callers build ``head`` from ``int64`` numbers only (``np.int64(0)``, not
    ``0``): Numba compiles a function once per combination of argument types,
    and a literal such as ``0`` or ``-1`` is a type of its own, so call sites
    with different constants would each compile a copy of this function.
    """
    i = ctr[C_TRACE]
    ctr[C_TRACE] = i + 1
    if i >= trace.shape[0]:
        return
    row = trace[i]
    row[:] = 0
    row[L.T_TYPE] = head.ev
    row[L.T_MATCH] = head.match
    row[L.T_HAND] = head.hand
    row[L.T_SEAT] = head.seat
    row[L.T_TILE] = head.tile
    row[L.T_END] = head.end
    row[L.T_POINTS] = head.points
    row[L.T_WINNER] = head.winner
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
