"""``doubles-first``: shed doubles early, heaviest first; otherwise play like heavy-first.

Idea: a double only fits one number, so it is the tile most likely to be
stranded, and a blocked hand is lost by the side holding more doubles under
the german settlement (under the american one, holding none wins).  Get them
out while they still fit; a double leaves the end's number unchanged, so it
never opens an end the hand cannot follow.

Features (bergen_sim.policies.base, ``move_rank`` with ``RANK_DOUBLES``):
whether the tile is a double, then heavy-first's features (a tile left in
hand fits the new ends, pips, points).

Tie-breaks, in order: a double; keeps a playable tile; more pips (the
heaviest double first); more points (this separates the two ends for the
same tile); then the first listed move.
"""

from bergen_sim.policies.base import LEAD_FOLLOW, RANK_DOUBLES, best_ranked, lead_by, policy_entry

#: which double it leads under lead = any-double (base.LEAD_*)
LEAD_RULE = LEAD_FOLLOW

NAME = "doubles-first"


@policy_entry
def choose(view, move_tiles, move_ends, n_moves, rng, no_tiles):
    """A double if any, else heavy-first's choice; ties: more pips, more points, the first listed."""
    return best_ranked(view, move_tiles, move_ends, n_moves, RANK_DOUBLES, no_tiles)


@policy_entry
def choose_lead(view, move_tiles, move_ends, n_moves, rng, no_tiles):
    """The double to lead: LEAD_RULE (measured in research/lead-choice/README.md)."""
    return lead_by(view, move_tiles, n_moves, LEAD_RULE, no_tiles)
