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

from numba import njit

from bergen_sim.policies.base import RANK_GREEDY, best_ranked

NAME = "greedy"


@njit(cache=True)
def choose(view, move_tiles, move_ends, n_moves, rng):
    """Most immediate points; ties: a double, then more pips, then the first listed."""
    return best_ranked(view, move_tiles, move_ends, n_moves, RANK_GREEDY)
