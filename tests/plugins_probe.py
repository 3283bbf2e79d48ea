"""A recording plug-in policy for tests/policies/test_policies.py: what exactly does a policy receive?

``record`` copies every view and move list it is handed into ``CALLS`` (through
Numba's object mode, slow but exact) and then plays uniformly at random, so
the test can compare each view with what the seat may know.
"""

import numpy as np
from numba import njit, objmode

from bergen_sim.engine.keyed_random import below

#: one (view, move_tiles, move_ends) copy per call, in call order
CALLS = []


def _keep(view, move_tiles, move_ends, n_moves):
    CALLS.append((np.array(view), np.array(move_tiles[:n_moves]), np.array(move_ends[:n_moves])))


@njit(cache=True)
def record(view, move_tiles, move_ends, n_moves, rng, no_tiles):
    """Record the call, then a uniform legal move (any set: it takes no_tiles)."""
    with objmode():
        _keep(view, move_tiles, move_ends, n_moves)
    return below(rng, n_moves)
