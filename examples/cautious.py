"""An example policy plug-in: score when you can, otherwise leave no header to answer.

Run it from any folder once bergen-sim is installed (it ships in the package)::

    bergen-sim simulate --policy bergen_sim.examples.cautious:choose --policy random --matches 20000

or, from the repository's root, as ``--policy examples.cautious:choose``.

A policy is a Numba ``@njit`` function with this exact signature.  It is
called only when the seat has two or more legal moves and returns the index
``k < n_moves`` of the move it makes: tile ``move_tiles[k]`` on end
``move_ends[k]`` (0 = left, 1 = right).  ``view`` is an ``int64`` vector of
what the seat may know, indexed by the ``V_*`` names of
``bergen_sim.engine.layout`` (documented with a worked example in
docs/policies.md); ``rng`` is the seat's random stream, for
``bergen_sim.engine.keyed_random.below``.  Keep it allocation-free: it runs
millions of times per run.
"""

from numba import njit

from bergen_sim.engine import layout as L
from bergen_sim.engine.play_rules import header_value, other_half


@njit(cache=True)
def choose(view, move_tiles, move_ends, n_moves, rng):
    """Score if you can; else leave ends whose closing tile no opponent can hold; else the first move."""
    seen = view[L.V_HAND] | view[L.V_PLAYED]  # tiles that are surely in no other hand
    safe = -1
    for k in range(n_moves):
        tile = move_tiles[k]
        left = view[L.V_LEFT]
        right = view[L.V_RIGHT]
        left_double = view[L.V_LEFT_DOUBLE]
        right_double = view[L.V_RIGHT_DOUBLE]
        double = 1 if L.TILE_LO[tile] == L.TILE_HI[tile] else 0
        if move_ends[k] == L.END_L:
            left = other_half(tile, left)
            left_double = double
        else:
            right = other_half(tile, right)
            right_double = double
        if header_value(left, right, left_double, right_double) > 0:
            return k  # a header: points now
        # the one tile that answers ends left|right with a header shows both numbers
        closing = L.NUMBER_MASK[left] & L.NUMBER_MASK[right]
        if left == right:
            closing = 1 << L.DOUBLE_TILE[left]
        if safe < 0 and closing & ~seen == 0:
            safe = k
    return safe if safe >= 0 else 0
