"""``random``: uniform over the legal (tile, end) pairs.

A tile that fits both ends counts twice, even when both give the same layout,
so this is the plain "pick a listed move" baseline every policy is measured
against.
"""

from bergen_sim.engine.keyed_random import below
from bergen_sim.policies.base import policy_entry

NAME = "random"
#: it chooses from the legal moves alone, so a run of such policies keeps no view (engine/hand.py)
READS_VIEW = False


@policy_entry
def choose(view, move_tiles, move_ends, n_moves, rng, no_tiles):
    """Uniform over the legal (tile, end) pairs."""
    return below(rng, n_moves)


@policy_entry
def choose_lead(view, move_tiles, move_ends, n_moves, rng, no_tiles):
    """Uniform over the doubles it may lead (RULES.md: the uniform-random policy)."""
    return below(rng, n_moves)
