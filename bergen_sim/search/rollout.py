"""Playing a hand out from a full state: the engine of search and match-value tables.

A *rollout* continues a hand from a complete world (every hand, the
boneyard order, the ends and the scores, all held in a policy view plus the
hidden hands and boneyard) to the end of the hand, with a fast built-in
policy choosing for every seat.  The ``pimc`` policy and the position
analyzer roll out sampled worlds; :mod:`bergen_sim.search.match_value` rolls out
freshly dealt hands from every score to estimate match-win probabilities.

A rollout plays the hand with the same steps as the match loop
(:mod:`bergen_sim.engine.hand`: :func:`start_hand`, ``advance_on``,
``play_on``), so it plays exactly the game of the match loop
(``tests/search/test_pimc.py`` replays whole matches through these functions and
compares them with the engine); only the chooser differs.  The
view is the state: ends, double flags, scores, hand counts and voids live
in it, which is also what lets the base policy be called directly.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bergen_sim.engine import layout as L
from bergen_sim.engine.bits import borrow
from bergen_sim.engine.hand import (
    HAND_OVER,
    MATCH_OVER,
    advance_on,
    begin_turns,
    borrowed,
    play,
    play_on,
    scratch_buffers,
    start_hand,
)
from bergen_sim.engine.play_rules import hand_of
from bergen_sim.engine.tileset import store
from bergen_sim.engine.view import ends_of
from bergen_sim.policies import defensive, doubles_first, expert, first_move, greedy, heavy_first, random_move
from bergen_sim.policies.base import side_of

__all__ = [
    "BASE_POLICIES",
    "EVERY_SEAT",
    "base_choose",
    "base_move",
    "begin_turns",
    "play",
    "play_out",
    "play_out_by_seat",
    "scratch_buffers",
    "start_hand",
    "turn_view",
]

#: built-in policies a rollout can use, in the order of their ``base`` codes
BASE_POLICIES = tuple(m.NAME for m in (random_move, first_move, greedy, defensive, doubles_first, heavy_first, expert))


@njit(cache=True)
def base_choose(base, view, move_tiles, move_ends, n_moves, rng, no_tiles):
    """Call the built-in policy with code ``base`` (its index in ``BASE_POLICIES``).

    The policies are globals here, not arguments, for the same reason as in
    the match loop: Numba's disk cache then serves every later process.
    """
    if base == 0:
        return random_move.choose(view, move_tiles, move_ends, n_moves, rng, no_tiles)
    if base == 1:
        return first_move.choose(view, move_tiles, move_ends, n_moves, rng, no_tiles)
    if base == 2:
        return greedy.choose(view, move_tiles, move_ends, n_moves, rng, no_tiles)
    if base == 3:
        return defensive.choose(view, move_tiles, move_ends, n_moves, rng, no_tiles)
    if base == 4:
        return doubles_first.choose(view, move_tiles, move_ends, n_moves, rng, no_tiles)
    if base == 5:
        return heavy_first.choose(view, move_tiles, move_ends, n_moves, rng, no_tiles)
    # its default settings as int64s, as the match loop's kernels pass them: one compiled expert for both
    return expert.choose(
        view, move_tiles, move_ends, n_moves, rng, no_tiles, np.int64(expert.LEAD_FOLLOW), np.int64(expert.WEIGHTS_LINE)
    )


@njit(cache=True, inline="always")
def base_move(b, seat, n, base, rng):
    """The index of the move the built-in ``base`` makes for ``seat`` among the ``n`` moves listed in ``b``
    (0 when forced: no call); the view is turned to the seat (its seat, side and hand) before the call."""
    if n < 2:
        return 0
    return base_choose(base, turn_view(b, seat), b.move_tiles, b.move_ends, n, rng, b.no_tiles)


@njit(cache=True, inline="always")
def turn_view(b, seat):
    """The play-out's view turned to ``seat`` (its seat, side and hand), as that seat's policy must see it."""
    view = b.policy_view
    view[L.V_SEAT] = seat
    view[L.V_SIDE] = side_of(view, seat)
    store(view, L.V_HAND, hand_of(b.hands, seat, b.no_tiles))
    return view


#: ``seat_bases`` of a play-out where every seat plays the one base policy
EVERY_SEAT = np.zeros(0, dtype=np.int64)


@njit(cache=True)
def play_out(rules, b, seat, base, rng):
    """Play a hand (engine/hand.py buffers ``b``) to its end; ``seat`` has just played (or led).

    The boneyard is ``b.tiles`` from ``b.turn[TURN_BONE_START]`` (set by
    ``start_hand`` or ``begin_turns``).  Every choice with more than one legal move is the base policy's (code
    ``base``).  Returns 1 if the match ended in this hand, 0 otherwise; the
    view holds the final scores.
    """
    # borrowed: typed as the luck controls' own seat_bases are (a plain C array), so one play-out compiles for both
    return play_out_by_seat(rules, b, seat, base, borrow(EVERY_SEAT), rng)


@njit(cache=True)
def play_out_by_seat(rules, b, seat, base, seat_bases, rng):
    """:func:`play_out` where seat ``s`` plays the built-in with code ``seat_bases[s]`` (when given).

    The luck adjustment (:mod:`bergen_sim.services.luck`) plays each seat's own policy
    where it is a built-in, so its values are the expectations of the match
    actually being played.
    """
    b = borrowed(b)
    rules = borrow(rules)
    seat_bases = borrow(seat_bases)
    rng = borrow(rng)
    pos = b.turn[L.TURN_BONE_START]
    ends = ends_of(b.policy_view)  # held in a local from play to play, as the match loop does (engine/ends.py)
    while True:
        n, seat, pos = advance_on(rules, b, seat, pos, ends)
        if n == HAND_OVER:
            return 0
        if n == MATCH_OVER:
            return 1
        k = base_move(b, seat, n, seat_bases[seat] if seat_bases.shape[0] > 0 else base, rng)
        ended, ends = play_on(rules, b, seat, b.move_tiles[k], b.move_ends[k], ends)
        if ended:
            return 1
