"""``heavy-first``: shed the heaviest tile that still leaves one for the new ends.

Idea: every settlement counts the pips left in hand (german between sides
tied on doubles, pips and american directly), so unload weight while plays
are still possible and keep light tiles for the end.  The heaviest tile alone
is not enough: it tends to open high ends that the lighter tiles kept in hand
cannot follow (the pure rule lost to ``random``, 48.8% of 2-player matches),
so moves after which the hand can still play on the new ends come first.

Features (bergen_sim.policies.base, ``move_rank`` with ``RANK_SHEDDING``):
whether a tile left in hand fits the new ends, the tile's pips, whether it is
a double, the header points of the move after the near-target cut.

Tie-breaks, in order: keeps a playable tile; more pips; a double (of equal
weight, the tile harder to place later); more points (this separates the two
ends for the same tile); then the first listed move.
"""

from bergen_sim.policies.base import LEAD_FOLLOW, RANK_SHEDDING, best_ranked, lead_by, policy_entry

#: which double it leads under lead = any-double (base.LEAD_*)
LEAD_RULE = LEAD_FOLLOW

NAME = "heavy-first"


@policy_entry
def choose(view, move_tiles, move_ends, n_moves, rng, no_tiles):
    """Keeps a playable tile, then most pips, a double, more points, the first listed."""
    return best_ranked(view, move_tiles, move_ends, n_moves, RANK_SHEDDING, no_tiles)


@policy_entry
def choose_lead(view, move_tiles, move_ends, n_moves, rng, no_tiles):
    """The double to lead: LEAD_RULE (measured in research/lead-choice/README.md)."""
    return lead_by(view, move_tiles, n_moves, LEAD_RULE, no_tiles)
