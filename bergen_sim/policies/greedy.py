"""``greedy``: the most points now; ties shed a double, then the heaviest tile.

Idea: headers are where most of a match's points come from, so take the
biggest one on offer and never look further than this play.

Features (bergen_sim.policies.base): the header points of each move after
the near-target cut, whether the tile is a double, its pips
(``move_rank`` with ``RANK_GREEDY``).

Tie-breaks, in order: more points; a double (doubles are the hardest tiles to
get rid of and lose a blocked hand under the german settlement); more pips;
then the first listed move (lower tile index, L before R).
"""

from bergen_sim.policies.base import LEAD_FOLLOW, RANK_GREEDY, best_ranked, lead_by, policy_entry

#: which double it leads under lead = any-double (base.LEAD_*)
LEAD_RULE = LEAD_FOLLOW

NAME = "greedy"


@policy_entry
def choose(view, move_tiles, move_ends, n_moves, rng, no_tiles):
    """Most immediate points; ties: a double, then more pips, then the first listed."""
    return best_ranked(view, move_tiles, move_ends, n_moves, RANK_GREEDY, no_tiles)


@policy_entry
def choose_lead(view, move_tiles, move_ends, n_moves, rng, no_tiles):
    """The double to lead: LEAD_RULE (measured in research/lead-choice/README.md)."""
    return lead_by(view, move_tiles, n_moves, LEAD_RULE, no_tiles)
