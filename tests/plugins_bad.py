"""Misbehaving plug-in policies for tests/policies/test_plugins.py and tests/cli/test_hostile.py (never for real use).

Run from the project root as ``--policy tests.plugins_bad:illegal`` or
``--policy tests.plugins_bad:raises``; the engine must stop with a one-line
error naming the policy, the seat and the position.
"""

import numpy as np
from numba import njit


@njit(cache=True)
def illegal(view, move_tiles, move_ends, n_moves, rng):
    """Returns one past the last legal move."""
    return n_moves


@njit(cache=True)
def raises(view, move_tiles, move_ends, n_moves, rng):
    """Raises at its first decision (a policy is only called with two or more moves)."""
    if n_moves > 1:
        raise ValueError("this plug-in always fails")
    return 0


@njit(cache=True)
def writes_moves(view, move_tiles, move_ends, n_moves, rng):
    """Overwrites its move list with a tile nobody holds, then picks the first move."""
    for k in range(n_moves):
        move_tiles[k] = 27
        move_ends[k] = 1 - move_ends[k]
    return 0


@njit(cache=True)
def writes_view(view, move_tiles, move_ends, n_moves, rng):
    """Scribbles over the whole view it was given, then picks the first move."""
    for k in range(view.shape[0]):
        view[k] = -1
    return 0


@njit(cache=True)
def returns_float(view, move_tiles, move_ends, n_moves, rng):
    """Returns a float rather than the integer index of a move."""
    return 0.5 * n_moves


@njit(cache=True)
def returns_unsigned(view, move_tiles, move_ends, n_moves, rng):
    """Returns an unsigned integer, which Numba unifies with the built-ins' int64 as a float."""
    return np.uint64(n_moves - 1)


@njit(cache=True)
def always_raises(view, move_tiles, move_ends, n_moves, rng):
    """Raises at every call, so Numba infers that it returns nothing."""
    raise ValueError("this plug-in never chooses")


@njit(cache=True)
def wrong_arguments(view, move_tiles):
    """Takes two of the five arguments a policy is called with."""
    return 0
