"""A plug-in whose move choice keeps the contract and whose choice of the double to lead does not.

``--policy tests.plugins_bad_lead:choose`` under ``lead=any-double``: the engine must stop with the
one-line contract message naming ``choose_lead``, not Numba's typing error.
"""

from numba import njit


@njit(cache=True)
def choose(view, move_tiles, move_ends, n_moves, rng):
    """The first listed move."""
    return 0


@njit(cache=True)
def choose_lead(view, move_tiles, move_ends, n_moves, rng):
    """Raises at every call, so Numba infers that it returns nothing."""
    raise ValueError("this plug-in never leads")
