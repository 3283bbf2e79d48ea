"""The kernels' forms of :func:`layout.seat_side` and :func:`layout.side_total` (one definition, two forms)."""

from numba import njit

from bergen_sim.engine import layout as L

seat_side = njit(cache=True, inline="always")(L.seat_side)
side_total = njit(cache=True, inline="always")(L.side_total)
