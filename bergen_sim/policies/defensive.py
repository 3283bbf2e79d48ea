"""``defensive``: leave the next seat the smallest chance to score; ties: greedy's order.

Idea: on ends ``a|b`` exactly one tile makes a header (the one showing both
numbers; the double when they are equal), so each move can be judged by how
likely the next seat, always an opponent, holds that tile.  It cannot if the
tile is in our hand or on the table, and probably does not if a draw or a pass
showed it void in one of the tile's numbers.

Features (bergen_sim.policies.base): ``threat`` = estimated probability that
the next seat holds the closing tile (unseen tiles, the void masks
``V_VOID`` and the draw/pass log ``V_LOG``) times the points it would score
after the near-target cut; then greedy's ranking (``RANK_GREEDY``).

Tie-breaks, in order: smaller threat; more points; a double; more pips; then
the first listed move.
"""

from bergen_sim.policies.base import (
    LEAD_FOLLOW,
    RANK_GREEDY,
    ends_after,
    lead_by,
    move_rank,
    policy_entry,
    threat,
    unseen_tiles,
)

#: which double it leads under lead = any-double (base.LEAD_*)
LEAD_RULE = LEAD_FOLLOW

NAME = "defensive"


@policy_entry
def choose(view, move_tiles, move_ends, n_moves, rng, no_tiles):
    """Smallest expected answer by the next seat; ties: more points, a double, more pips, the first listed."""
    unseen = unseen_tiles(view, no_tiles)
    best = 0
    best_risk = 0.0
    best_rank = -1
    for k in range(n_moves):
        tile = move_tiles[k]
        end = move_ends[k]
        ends, doubles, counting, open_ends = ends_after(view, tile, end)
        risk = threat(view, ends, doubles, counting, open_ends, unseen, no_tiles)
        rank = move_rank(view, tile, end, RANK_GREEDY, no_tiles)
        if k == 0 or risk < best_risk or (risk == best_risk and rank > best_rank):
            best = k
            best_risk = risk
            best_rank = rank
    return best


@policy_entry
def choose_lead(view, move_tiles, move_ends, n_moves, rng, no_tiles):
    """The double to lead: LEAD_RULE (measured in research/lead-choice/README.md)."""
    return lead_by(view, move_tiles, n_moves, LEAD_RULE, no_tiles)
