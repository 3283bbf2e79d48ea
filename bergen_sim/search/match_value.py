"""Match-win probability from the scores: what a point is worth at this score.

Search must compare moves by what they do to the chance of winning the match,
not by hand points: near the target a header is cut to 1 or 2 points, a
side at 13 of 15 needs only one good hand, and two points for a side far
behind matter less than two for a side about to win.

Model: a match is a Markov chain over the scores at the start of each hand.
Every hand is dealt afresh (the leader is whoever holds the lowest or
highest double), so the chance of winning depends only on the scores, the
rules and how the players play.  Every hand gives at least one point (the
led double), so scores only grow and the chain can be solved backwards,
from the states nearest the target to 0-0:

    P(s) = mean over simulated hands from s of
           [1 if side 0 reached the target in the hand, 0 if another side did,
            else P(scores after the hand)]

The hands are played by the compiled rollout engine with one built-in policy
for every seat (by default the ``pimc`` base policy), ``hands_per_state``
of them from every score (a budget of about two million hands in all, at
least 64 per state; docs/match_value.json has the measured build time).  The table holds
P(side 0 wins) for every score vector; the seats are symmetric under
rotation, so side ``s``'s chance is side 0's with the scores rotated to put
``s`` first.  Its sampling error is about 0.5 / sqrt(hands_per_state) per
state before the averaging of the backward pass (about 0.005 for two sides
to 15).  Tables are cached under ``$BERGEN_SIM_CACHE_DIR/match_value`` keyed
by the rules, the policy and the source of the engine and policies.
"""

from __future__ import annotations

import hashlib
import os

import numpy as np
from numba import njit

from bergen_sim.engine import layout as L
from bergen_sim.engine.keyed_random import shuffled_set, stream_state
from bergen_sim.compile_cache import cache_dir, source_digest
from bergen_sim.engine.tileset import no_tiles_for
from bergen_sim.engine.hand import REDEAL, scratch_buffers, start_hand
from bergen_sim.search.rollout import BASE_POLICIES, play_out
from bergen_sim.engine.view import view_start_match
from bergen_sim.errors import PolicyError
from bergen_sim.rules import Rules

#: hands simulated per table, spread over the score states
HAND_BUDGET = 2_000_000
MIN_HANDS_PER_STATE = 64
#: largest table (score vectors) built; beyond it a target is too high for this model
MAX_STATES = 200_000
#: seed of the table's keyed deals (a table is a fixed function of rules and policy)
TABLE_SEED = 0x6D617463


@njit(cache=True)
def win_probability(table, rules, view, side):
    """Chance that ``side`` wins the match from the view's scores at the end of a hand.

    1 or 0 when a side has reached the target; otherwise the table's value
    with the scores rotated so that ``side`` comes first.
    """
    target = rules[L.R_TARGET]
    sides = 2 if rules[L.R_PARTNERSHIPS] else rules[L.R_PLAYERS]
    for s in range(sides):
        if view[L.V_SCORE + s] >= target:
            return 1.0 if s == side else 0.0
    index = 0
    stride = 1
    for i in range(sides):
        s = side + i
        if s >= sides:
            s -= sides
        index += view[L.V_SCORE + s] * stride
        stride *= target
    return table[index]


@njit(cache=True)
def _estimate(rules, base, seed, hands_per_state, table, no_tiles):
    """Fill ``table`` (P(side 0 wins) per score vector) by the backward pass of the module note."""
    target = rules[L.R_TARGET]
    sides = 2 if rules[L.R_PARTNERSHIPS] else rules[L.R_PLAYERS]
    view = np.zeros(L.V_SIZE, dtype=np.int64)
    hands = np.zeros(L.MAX_SEATS * L.SET_WORDS, dtype=np.int64)
    deal = np.zeros(L.MAX_TILES, dtype=np.int64)
    b = scratch_buffers(view, hands, deal, no_tiles)
    scores = np.zeros(L.MAX_SEATS, dtype=np.int64)
    deal_rng = np.zeros(1, dtype=np.uint64)
    rng = np.zeros(1, dtype=np.uint64)
    view_start_match(view, rules)
    # a hand only raises scores, so every successor has a larger index: go downwards
    for index in range(table.shape[0] - 1, -1, -1):
        rest = index
        for s in range(sides):
            scores[s] = rest % target
            rest //= target
        total = 0.0
        for j in range(hands_per_state):
            for s in range(sides):
                view[L.V_SCORE + s] = scores[s]
            rng[0] = stream_state(seed, index, j, 1 << 40)
            attempt = 0
            while True:
                deal_rng[0] = stream_state(seed, index, j, attempt)
                shuffled_set(deal_rng, deal, rules[L.R_N_TILES])
                ended = start_hand(rules, b, 1)
                if ended != REDEAL:
                    break
                attempt += 1
            if not ended:
                play_out(rules, b, b.hrow[L.H_LEADER], base, rng)
            total += win_probability(table, rules, view, 0)
        table[index] = total / hands_per_state


def _table_key(rules: Rules, base: str, hands_per_state: int) -> str:
    """Cache key: the rules, the policy, the budget and the source the numbers depend on."""
    digest = hashlib.sha256(repr((sorted(rules.to_dict().items()), base, hands_per_state, TABLE_SEED)).encode())
    digest.update(source_digest().encode())  # the engine, policies and search (this module included)
    return digest.hexdigest()[:20]


def _normalized(table: np.ndarray, target: int, sides: int) -> np.ndarray:
    """Scale each score vector's chances so that its sides' chances sum to 1.

    Exactly one side wins a match, so P(side 0 | s) summed over the rotations
    of ``s`` (one per side) is 1; the estimates miss that only by sampling
    error, and dividing by their sum removes part of it.
    """
    grid = table.reshape((target,) * sides)  # axis i of the reshaped table is the score of side sides-1-i
    total = np.zeros_like(grid)
    for shift in range(sides):
        # side `shift` first: its chance at s is table[rotate(s, shift)]
        total += np.transpose(grid, [(i + shift) % sides for i in range(sides)])
    return (grid / total).reshape(-1)


def table_for(rules: Rules, base: str = "greedy") -> np.ndarray:
    """The win-probability table for these rules with ``base`` playing every seat (built once, then cached).

    Index of a score vector ``(s_0, ..., s_{k-1})``: ``sum s_i * target**i``.
    """
    if base not in BASE_POLICIES:
        raise PolicyError(f"match value: unknown base policy {base!r}; choose one of {', '.join(BASE_POLICIES)}")
    states = rules.target ** rules.sides
    if states > MAX_STATES:
        raise PolicyError(
            f"match value: target {rules.target} with {rules.sides} sides gives {states:,} score states; "
            f"at most {MAX_STATES:,} are supported"
        )
    hands_per_state = max(MIN_HANDS_PER_STATE, HAND_BUDGET // states)
    folder = cache_dir() / "match_value"
    path = folder / f"table_{_table_key(rules, base, hands_per_state)}.npy"
    if path.exists():
        return np.load(path)
    table = np.zeros(states, dtype=np.float64)
    _estimate(rules.to_array(), BASE_POLICIES.index(base), np.uint64(TABLE_SEED), hands_per_state, table,
              no_tiles_for(rules.n_tiles))
    table = _normalized(table, rules.target, rules.sides)
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{path.name}.{os.getpid()}.tmp"
    with open(tmp, "wb") as fh:
        np.save(fh, table)
    os.replace(tmp, path)  # atomic: concurrent workers never read half a table
    return table
