"""Exact play of a hand's end in one world, once no tile can be drawn any more.

When the boneyard is down to the reserve (RULES.md: its last tiles are never
drawn) nothing is left to chance in a dealt world: every seat can only play
or pass, and the hand ends when a seat goes out or every seat has passed.
:func:`solve` then finds the value of best play for both sides by
alpha-beta search (minimax of the match-win probability at the end of the
hand, :mod:`bergen_sim.search.match_value`), in place of a play-out by a
base policy.  It is exact only with two sides (two players, or
partnerships), where one side's gain is the other's loss; callers use it
there only.

The search plays the engine's own steps (:func:`~bergen_sim.engine.hand.advance`
and :func:`~bergen_sim.engine.hand.play` on the hand buffers), so every rule
(headers, the spinner's arms, going out, passing, the settlement of a blocked
hand, the near-target cut) is the engine's, written once.  Before trying
each move at a node it restores the node's state from a stack of saved
copies: the used part of the view and the hands (the statistics rows the
steps also write are not read by the search).

A node budget bounds the work: a hand with many tiles left can have a tree
far too large for a decision's time limit, and then :func:`solve` gives up
(returns :data:`OVER_BUDGET`) and :func:`play_out_solved` lets its base
policy play the hand out instead.

Used by ``ismcts:leaves=N`` (off by default): its play-outs end in a solve
of at most ``N`` nodes once nothing can be drawn; its strength and cost are
measured in research/search-strength/README.md.
``tests/search/test_endgame.py`` checks every value against plain minimax over the
Python game (:class:`bergen_sim.Game`, which shares no rule code with the compiled engine).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bergen_sim.engine import layout as L
from bergen_sim.engine.hand import HAND_OVER, MATCH_OVER, advance, play, side_of_seat
from bergen_sim.engine.view import played_slots, used_slots
from bergen_sim.search.match_value import win_probability
from bergen_sim.search.rollout import base_move

#: what :func:`solve` returns when its node budget ran out
OVER_BUDGET = -1.0


# _copy_state skips only the unused end of the play log: the layout must keep the draw/pass log right after it
assert L.V_LOG_N == L.V_PLAYS + L.PLAY_SIZE * L.MAX_TILES and L.V_LOG == L.V_LOG_N + 1


@njit(cache=True, inline="always")
def _copy_state(dst, src, head, used):
    """Copy the slots of a view that hold state (``[:head]`` and ``[V_LOG_N:used]``, see :func:`played_slots`)."""
    dst[:head] = src[:head]
    dst[L.V_LOG_N : used] = src[L.V_LOG_N : used]


#: columns of a node's integer row: legal moves, the seat moving, the next move to try, the view slots saved
#: (:func:`_copy_state`'s ``used`` and ``head``), 1 when the moving seat is on the solving side (it maximizes)
I_MOVES, I_MOVER, I_NEXT, I_USED, I_MAX, I_HEAD = 0, 1, 2, 3, 4, 5
I_SIZE = 6
#: columns of a node's float row: the alpha-beta window and the best value found so far
B_ALPHA, B_BETA, B_BEST = 0, 1, 2
B_SIZE = 3
#: what :func:`_enter` returns for a node whose moves are still to be searched
PENDING = -2.0


@njit(cache=True)
def stack_buffers(depth):
    """A search stack up to ``depth`` plies deep: saved views, hands, move lists, and the rows above."""
    return (
        np.zeros((depth, L.V_SIZE), dtype=np.int64),
        np.zeros((depth, L.MAX_SEATS * L.SET_WORDS), dtype=np.int64),
        np.zeros((depth, L.MAX_MOVES), dtype=np.int64),
        np.zeros((depth, L.MAX_MOVES), dtype=np.int64),
        np.zeros((depth, I_SIZE), dtype=np.int64),
        np.zeros((depth, B_SIZE), dtype=np.float64),
    )


@njit(cache=True)
def _save(rules, b, n, mover, side, alpha, beta, stack, depth):
    """Keep the decision in ``b`` (``mover`` to choose among ``n`` listed moves) as node ``depth`` of the stack."""
    views, hands, tiles, ends, ints, bounds = stack
    view = b.policy_view
    used = used_slots(view)
    head = played_slots(view)
    _copy_state(views[depth], view, head, used)
    hands[depth, :] = b.hands
    tiles[depth, :n] = b.move_tiles[:n]
    ends[depth, :n] = b.move_ends[:n]
    maximize = 1 if side_of_seat(rules, mover) == side else 0
    ints[depth, I_MOVES] = n
    ints[depth, I_MOVER] = mover
    ints[depth, I_NEXT] = 0
    ints[depth, I_USED] = used
    ints[depth, I_HEAD] = head
    ints[depth, I_MAX] = maximize
    bounds[depth, B_ALPHA] = alpha
    bounds[depth, B_BETA] = beta
    bounds[depth, B_BEST] = -1.0 if maximize else 2.0


@njit(cache=True)
def restore(b, stack, depth):
    """Put node ``depth``'s decision back into ``b`` (its state and its list of moves)."""
    views, hands, tiles, ends, ints, _ = stack
    n = ints[depth, I_MOVES]
    _copy_state(b.policy_view, views[depth], ints[depth, I_HEAD], ints[depth, I_USED])
    b.hands[:] = hands[depth, :]
    b.move_tiles[:n] = tiles[depth, :n]
    b.move_ends[:n] = ends[depth, :n]


@njit(cache=True)
def _enter(rules, b, seat, table, side, alpha, beta, stack, depth, budget):
    """Play on after ``seat``'s play: the hand's value if it ended, else save the node at ``depth`` (PENDING)."""
    n, mover, _ = advance(rules, b, seat, b.turn[L.TURN_BONE_STOP])  # nothing left to draw
    if n == HAND_OVER or n == MATCH_OVER:
        return win_probability(table, rules, b.policy_view, side)
    budget[0] -= 1
    if budget[0] < 0 or depth >= stack[0].shape[0]:
        return OVER_BUDGET
    _save(rules, b, n, mover, side, alpha, beta, stack, depth)
    return PENDING


@njit(cache=True)
def solve(rules, b, seat, table, side, alpha, beta, stack, budget):
    """Value for ``side`` of the world in the buffers ``b`` after ``seat``'s play, under best play by every seat.

    The world must have no drawable tile (its boneyard down to the reserve).
    The value is the match-win probability of ``side`` at the
    end of the hand, within the alpha-beta window ``(alpha, beta)``: exact
    inside it, a bound outside.  ``stack`` (:func:`stack_buffers`) keeps each
    node's state while its moves are tried (an explicit stack: Numba's disk
    cache cannot hold a recursive function); ``budget[0]`` counts down the
    nodes still allowed.  Returns :data:`OVER_BUDGET` once it reaches zero
    or the stack is too shallow.  ``b`` is left in some state of the search.
    """
    value = _enter(rules, b, seat, table, side, alpha, beta, stack, 0, budget)
    if value != PENDING:
        return value
    return _search(rules, b, table, side, stack, budget)


@njit(cache=True)
def solve_decision(rules, b, n, mover, table, side, stack, budget):
    """:func:`solve` from a decision: ``mover`` chooses among the ``n`` moves listed in ``b`` (full window).

    On :data:`OVER_BUDGET` :func:`restore` with depth 0 puts the decision back.
    """
    budget[0] -= 1
    if budget[0] < 0:
        return OVER_BUDGET
    _save(rules, b, n, mover, side, -1.0, 2.0, stack, 0)
    return _search(rules, b, table, side, stack, budget)


@njit(cache=True)
def _search(rules, b, table, side, stack, budget):
    """Alpha-beta from the node saved at depth 0 of ``stack`` to its value (or OVER_BUDGET)."""
    views, hands, tiles, ends, ints, bounds = stack
    view = b.policy_view
    value = PENDING
    d = 0
    while True:
        if value == OVER_BUDGET:
            return OVER_BUDGET
        if value != PENDING:  # the value of node d's move I_NEXT
            if ints[d, I_MAX]:
                if value > bounds[d, B_BEST]:
                    bounds[d, B_BEST] = value
                if bounds[d, B_BEST] > bounds[d, B_ALPHA]:
                    bounds[d, B_ALPHA] = bounds[d, B_BEST]
            else:
                if value < bounds[d, B_BEST]:
                    bounds[d, B_BEST] = value
                if bounds[d, B_BEST] < bounds[d, B_BETA]:
                    bounds[d, B_BETA] = bounds[d, B_BEST]
            ints[d, I_NEXT] += 1
            if bounds[d, B_ALPHA] >= bounds[d, B_BETA] or ints[d, I_NEXT] == ints[d, I_MOVES]:
                value = bounds[d, B_BEST]
                if d == 0:
                    return value
                d -= 1
                continue
        k = ints[d, I_NEXT]
        if k > 0:  # the first move starts from the state just saved
            _copy_state(view, views[d], ints[d, I_HEAD], ints[d, I_USED])
            b.hands[:] = hands[d, :]
        mover = ints[d, I_MOVER]
        if play(rules, b, mover, tiles[d, k], ends[d, k]):
            value = win_probability(table, rules, view, side)
            continue
        value = _enter(rules, b, mover, table, side, bounds[d, B_ALPHA], bounds[d, B_BETA], stack, d + 1, budget)
        if value == PENDING:
            d += 1


@njit(cache=True)
def play_out_solved(rules, b, seat, base, rng, table, stack, budget, nodes):
    """Side 0's match-win value of a play-out from ``seat``'s play: ``base`` plays until nothing can be drawn,
    then the rest of the hand is solved (two sides only).

    The solve at the first decision with nothing left to draw gets ``nodes``
    nodes; if they run out, ``base`` plays the hand out from there.  Like
    :func:`~bergen_sim.search.rollout.play_out`, the boneyard is ``b.tiles``
    from ``b.turn[TURN_BONE_START]``.
    """
    view = b.policy_view
    pos = b.turn[L.TURN_BONE_START]
    stop = b.turn[L.TURN_BONE_STOP]
    solving = nodes > 0
    while True:
        n, seat, pos = advance(rules, b, seat, pos)
        if n == HAND_OVER or n == MATCH_OVER:
            return win_probability(table, rules, view, 0)
        if n > 1 and solving and pos >= stop:
            budget[0] = nodes
            value = solve_decision(rules, b, n, seat, table, 0, stack, budget)
            if value != OVER_BUDGET:
                return value
            restore(b, stack, 0)
            solving = False
        k = base_move(b, seat, n, base, rng)
        if play(rules, b, seat, b.move_tiles[k], b.move_ends[k]):
            return win_probability(table, rules, view, 0)


@njit(cache=True, inline="always")
def tiles_in_hands(view, rules):
    """Tiles left in all the hands, which sets the size of a solve's tree."""
    tiles = 0
    for s in range(rules[L.R_PLAYERS]):
        tiles += view[L.V_HAND_COUNT + s]
    return tiles


@njit(cache=True)
def stack_for(view, rules):
    """A search stack deep enough for a solve anywhere in the rest of the view's hand.

    Every node but the last is followed by a play, so a solve is at most one
    node deeper than the tiles in the hands, which draws in a play-out can
    take up to every tile of the boneyard.
    """
    return stack_buffers(1 + view[L.V_BONEYARD] + tiles_in_hands(view, rules))
