"""An example policy plug-in: score when you can, otherwise leave no header to answer.

Run it from any folder once bergen-sim is installed (it ships in the package)::

    bergen-sim simulate --policy bergen_sim.examples.cautious:choose --policy random --matches 20000

or, from the repository's root, as ``--policy examples.cautious:choose``.

A policy is a Numba ``@njit`` function with this exact signature.  It is
called only when the seat has two or more legal moves and returns the index
``k < n_moves`` of the move it makes: tile ``move_tiles[k]`` on end
``move_ends[k]`` (0 = L, 1 = R, 2 = U, 3 = D: the spinner's arms).
``view`` is an ``int64`` vector of what the seat may know, indexed by the
``V_*`` names of ``bergen_sim.engine.layout`` (documented with a worked
example in docs/policies.md); ``rng`` is the seat's random stream, for
``bergen_sim.engine.keyed_random.below``; ``no_tiles`` is the empty set of
tiles of the game's width (one ``int64`` up to double-nine, three words
above), from which ``bergen_sim.engine.tileset`` builds and reads every set,
so the same source plays every domino set.  Keep it allocation-free: it runs
millions of times per run.  Without ``choose_lead`` a plug-in leads its
lowest double when ``lead = any-double`` lets it choose.
"""

from numba import njit

from bergen_sim.engine import layout as L
from bergen_sim.engine.play_rules import ends_header
from bergen_sim.engine.tileset import has, load, union
from bergen_sim.policies.base import ends_after


@njit(cache=True)
def choose(view, move_tiles, move_ends, n_moves, rng, no_tiles):
    """Score if you can; else leave ends whose closing tile no opponent can hold; else the first move."""
    seen = union(load(view, L.V_HAND, no_tiles), load(view, L.V_PLAYED, no_tiles))  # surely in no other hand
    safe = -1
    for k in range(n_moves):
        ends, doubles, counting, open_ends = ends_after(view, move_tiles[k], move_ends[k])
        if ends_header(ends, doubles, counting) > 0:
            return k  # a header: points now
        # on two counting ends the one tile that answers with a header shows both numbers
        if safe < 0 and counting == 3 and has(seen, L.TILE_AT[ends[0], ends[1]]):
            safe = k
    return safe if safe >= 0 else 0
