"""``expert``: a weighted sum of the shared move features, weights tuned by simulation.

Idea: each simple policy is right about one thing (points now, the answer
it allows, doubles for a blocked hand, keeping playable tiles), so
score every move by all of them at once and play the best score.

Features (bergen_sim.policies.base), one weight each (WEIGHTS, same order):

======== =========================================================== ======
feature  meaning                                                     weight
======== =========================================================== ======
points   header points of the move after the near-target cut          1
threat   expected points of the next seat's header answer            -1.25
double   1 if the tile is a double                                    0.5
follow   own tiles left that fit the new ends                         0.2
block    1 if the next seat is known void in both new ends            0.125
======== =========================================================== ======

The weights come from ``tools/tune_expert.py --deal-sets 10000 --seed
20240601 --rounds 3``: a coordinate search on duplicate deals against
greedy, defensive, doubles-first and heavy-first (method, numbers and the
features that were tried and dropped in research/expert-weights/README.md).  ``points`` is
fixed at 1 because scaling every weight alike changes no choice.

The larger games were checked for weights of their own: the same search on
4-player double-nine with the spinner (``tools/tune_expert.py --players 4
--set domino_set=double-nine --deal-sets 10000 --rounds 3 --start expert``)
moved ``threat`` to -0.375 and ``block`` to 0.625 (``SPINNER_WEIGHTS``), but
head to head on fresh deals (``research/expert-weights/measure.py``, the table
in research/expert-weights/README.md) those weights won less than a point of match-win share
more than these in spinner games, nothing measurable in most, and lost
clearly in the standard game; so every game plays ``WEIGHTS``, and
``expert:weights=spinner`` plays the re-tuned set for study.

Tie-breaks: the first listed move (lower tile index, L before R) among equal
scores.
"""

import numpy as np
from numba import njit

from bergen_sim.engine import layout as L
from bergen_sim.policies.base import (
    LEAD_FOLLOW,
    Setting,
    blocks_next,
    ends_after,
    header_points,
    is_double,
    lead_by,
    own_hand,
    playable_after,
    policy_entry,
    threat,
    unseen_tiles,
)

NAME = "expert"

#: settings (see bergen_sim.runtime.registry): which double it leads under lead = any-double (base.LEAD_*)
LEAD_RULES = ("lowest", "highest", "follow")
#: which weights it plays by: WEIGHTS (``line``, tuned on the standard game) or SPINNER_WEIGHTS
WEIGHT_CHOICES = ("line", "spinner")
PARAMS = {
    "lead": Setting(
        "follow",
        LEAD_RULES,
        "the double it leads under lead = any-double: its lowest, its highest, or the one its weights score best",
    ),
    "weights": Setting(
        "line",
        WEIGHT_CHOICES,
        "the weights it plays by: tuned on the standard game (line) or on the spinner game (spinner)",
    ),
}
WEIGHTS_LINE, WEIGHTS_SPINNER = range(len(WEIGHT_CHOICES))

FEATURES = ("points", "threat", "double", "follow", "block")
#: one weight per feature, in FEATURES order (the table above, as printed by tools/tune_expert.py)
WEIGHTS = np.array([1.0, -1.25, 0.5, 0.2, 0.125])
#: the same re-tuned on 4-player double-nine with the spinner (see the module note; not the default)
SPINNER_WEIGHTS = np.array([1.0, -0.375, 0.5, 0.15, 0.625])


@njit(cache=True, inline="always")
def move_features(view, side, hand, unseen, tile, end, no_tiles):
    """The FEATURES of one move, in order (``side``, ``hand`` and ``unseen`` are the view's, read once per
    decision by the caller): the one definition :func:`best_move` and :func:`feature_table` share."""
    ends, doubles, counting, open_ends = ends_after(view, tile, end)
    return (
        header_points(view, side, ends, doubles, counting),
        threat(view, ends, doubles, counting, open_ends, unseen, no_tiles),
        is_double(tile),
        playable_after(hand, tile, ends, open_ends, no_tiles),
        blocks_next(view, ends, open_ends),
    )


@njit(cache=True, inline="always")
def move_score(view, side, hand, unseen, tile, end, weights, no_tiles):
    """One move's weighted feature sum: what :func:`best_move` ranks by, and what the tree search's steering of
    the other seats' replies weighs them by (:func:`bergen_sim.search.ismcts._model_odds`)."""
    points, threatened, double, follow, block = move_features(view, side, hand, unseen, tile, end, no_tiles)
    return (
        weights[0] * points + weights[1] * threatened + weights[2] * double + weights[3] * follow + weights[4] * block
    )


@njit(cache=True, inline="always")
def best_move(view, move_tiles, move_ends, n_moves, weights, no_tiles):
    """Index of the first move with the highest weighted feature sum."""
    side = view[L.V_SIDE]
    hand = own_hand(view, no_tiles)
    unseen = unseen_tiles(view, no_tiles)
    best = 0
    best_value = -np.inf
    for k in range(n_moves):
        value = move_score(view, side, hand, unseen, move_tiles[k], move_ends[k], weights, no_tiles)
        if value > best_value:
            best = k
            best_value = value
    return best


@njit(cache=True)
def feature_table(view, move_tiles, move_ends, n_moves, no_tiles, out):
    """Every listed move's FEATURES into ``out[k, :]``: what ``expert`` weighs, for fitting weights to another
    player's choices (``research/imitation/measure.py``)."""
    side = view[L.V_SIDE]
    hand = own_hand(view, no_tiles)
    unseen = unseen_tiles(view, no_tiles)
    for k in range(n_moves):
        out[k, 0], out[k, 1], out[k, 2], out[k, 3], out[k, 4] = move_features(
            view, side, hand, unseen, move_tiles[k], move_ends[k], no_tiles
        )


@policy_entry
def choose(view, move_tiles, move_ends, n_moves, rng, no_tiles, lead=LEAD_FOLLOW, weights=WEIGHTS_LINE):
    """The move with the highest weighted feature sum (the ``weights`` setting's vector)."""
    return best_move(
        view, move_tiles, move_ends, n_moves, SPINNER_WEIGHTS if weights == WEIGHTS_SPINNER else WEIGHTS, no_tiles
    )


@policy_entry
def choose_lead(view, move_tiles, move_ends, n_moves, rng, no_tiles, lead=LEAD_FOLLOW, weights=WEIGHTS_LINE):
    """The double to lead under ``lead = any-double``: the ``lead`` setting's rule (measured in research/lead-choice/README.md)."""
    return lead_by(view, move_tiles, n_moves, lead, no_tiles)
