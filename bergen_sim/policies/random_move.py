"""``random``: uniform over the legal (tile, end) pairs.

A tile that fits both ends counts twice, even when both give the same layout,
so this is the plain "pick a listed move" baseline every strategy is measured
against.
"""

from numba import njit

from bergen_sim.engine.keyed_random import below


NAME = "random"


@njit(cache=True, _nrt=False)
def choose(view, move_tiles, move_ends, n_moves, rng, no_tiles):
    """Uniform over the legal (tile, end) pairs."""
    return below(rng, n_moves)


@njit(cache=True, _nrt=False)
def choose_lead(view, move_tiles, move_ends, n_moves, rng, no_tiles):
    """Uniform over the doubles it may lead (RULES.md: the uniform-random policy)."""
    return below(rng, n_moves)
