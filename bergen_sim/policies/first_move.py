"""``first``: the lowest tile index, L before R.

Deterministic and trivial, which makes it the policy of choice for exact
comparisons (the compiled engine against the reference engine).
"""

from numba import njit


NAME = "first"


@njit(cache=True, _nrt=False)
def choose(view, move_tiles, move_ends, n_moves, rng, no_tiles):
    """Lowest tile index, L before R (the first listed move)."""
    return 0


@njit(cache=True, _nrt=False)
def choose_lead(view, move_tiles, move_ends, n_moves, rng, no_tiles):
    """The lowest double (the first listed)."""
    return 0
