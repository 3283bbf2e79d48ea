"""``first``: the lowest tile index, L before R.

Deterministic and trivial, which makes it the policy of choice for exact
comparisons (the compiled engine against the tests' oracle and the Python game).
"""

from bergen_sim.policies.base import policy_entry

NAME = "first"
#: it chooses from the legal moves alone, so a run of such policies keeps no view (engine/hand.py)
READS_VIEW = False


@policy_entry
def choose(view, move_tiles, move_ends, n_moves, rng, no_tiles):
    """Lowest tile index, L before R (the first listed move)."""
    return 0


@policy_entry
def choose_lead(view, move_tiles, move_ends, n_moves, rng, no_tiles):
    """The lowest double (the first listed)."""
    return 0
