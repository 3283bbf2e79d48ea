"""The arrays one kernel call reads and fills, bundled so the kernel takes them as one argument."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class RunBuffers(NamedTuple):
    """Inputs and outputs of :func:`run_matches` (layouts in :mod:`bergen_sim.engine.layout`)."""

    given_deals: np.ndarray  # (K, MAX_TILES): deals to replay in order; K = 0 deals from the keyed streams
    script: np.ndarray  # (P, 2): (tile, end) of every play to replay; P = 0 lets the policies choose
    trace: np.ndarray  # (capacity, T_WIDTH): trace rows, when tracing
    totals: np.ndarray  # (S_SIZE,): run totals, added to
    match_rows: np.ndarray  # (matches or 1, M_WIDTH): one row per match (1 row: scratch)
    hand_rows: np.ndarray  # (capacity, H_WIDTH): one row per hand, when it has rows
    err: np.ndarray  # (E_SIZE,): why the call stopped early
    #: (1,): another thread sets it non-zero to have the call return after the match it is playing (Ctrl-C
    #: of a run whose chunks play in threads, bergen_sim.services.execution.parallel); read with engine.bits.read_shared
    halt: np.ndarray


class Seats(NamedTuple):
    """Who decides at each seat and with what, as the match loop's deciding code receives it (one argument)."""

    policy: np.ndarray  # (seats,): each seat's policy code, its index in the kernel's ENTRIES
    params: np.ndarray  # (seats, K): each seat's settings
    tables: np.ndarray  # (seats, N): each seat's match-value table
    rngs: np.ndarray  # (MAX_SEATS,): each seat's policy stream
    script: np.ndarray  # RunBuffers.script: plays to replay instead of asking the policies
    err: np.ndarray  # RunBuffers.err: where a failed decision is described
