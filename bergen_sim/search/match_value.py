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
least 64 per state; research/match-value/match_value.json has the measured build time).  The table holds
P(side 0 wins) for every score vector; the seats are symmetric under
rotation, so side ``s``'s chance is side 0's with the scores rotated to put
``s`` first.  Its sampling error is about 0.5 / sqrt(hands_per_state) per
state before the averaging of the backward pass (about 0.005 for two sides
to 15).

That exact table has target**sides entries; it is built whenever that is at
most ``MAX_STATES`` (two sides, and 3 to 5 sides at the default target).
Beyond it (6 to 8 players each for themselves) an *exchangeable* table takes
its place: one value per (side 0's score, multiset of the other sides'
scores), ``target * C(target + sides - 2, sides - 1)`` entries (114,400 for
8 sides to 10).  A lookup rotates the asked side first and ranks the others'
scores as a sorted multiset (:func:`_pooled_index`).  It is built by the same
backward pass, each simulated hand seating the other scores around side 0 in
a fresh random order, so an entry is the mean over seatings.  This is an
approximation: it forgets which opponent sits where relative to side 0.  It
is reasonable because every hand is dealt afresh and led by whoever holds
the lowest (highest) double, not by a fixed seat, so the seat order matters
only through the order of play within a hand, far less than the scores
themselves (tests/search/test_match_value.py checks it against the exact table
where both fit).  A target whose table is still too large is refused in one
line naming the largest target that fits.  Tables are cached under
``$BERGEN_SIM_CACHE_DIR/match_value`` keyed by the rules, the policy, the
table's kind and the source of the engine and policies.
"""

from __future__ import annotations

import hashlib
import io
from itertools import combinations_with_replacement
from math import comb
from pathlib import Path

import numpy as np
from numba import njit

from bergen_sim.core.compile_cache import notice, one_builder, read_checked, source_digest, subfolder, write_checked
from bergen_sim.core.errors import PolicyError
from bergen_sim.engine import layout as L
from bergen_sim.engine.hand import REDEAL, scratch_buffers, side_count, start_hand
from bergen_sim.engine.keyed_random import shuffle, shuffled_set, stream_state
from bergen_sim.engine.tileset import no_tiles_for
from bergen_sim.engine.view import view_start_match
from bergen_sim.model.rules import Rules
from bergen_sim.search.rollout import BASE_POLICIES, play_out

#: hands simulated per table, spread over the score states
HAND_BUDGET = 2_000_000
MIN_HANDS_PER_STATE = 64
#: largest table (score vectors) built; beyond it a target is too high for this model
MAX_STATES = 200_000
#: seed of the table's keyed deals (a table is a fixed function of rules and policy)
TABLE_SEED = 0x6D617463


@njit(cache=True, inline="always")
def _exact_fits(target, sides):
    """True when the exact table (target**sides score vectors) is at most MAX_STATES long."""
    states = 1
    for _ in range(sides):
        states *= target
        if states > MAX_STATES:
            return False
    return True


@njit(cache=True, inline="always")
def _choose(n, r):
    """The binomial coefficient C(n, r) (0 when r > n)."""
    if r < 0 or r > n:
        return 0
    c = 1
    for i in range(r):
        c = c * (n - i) // (i + 1)
    return c


@njit(cache=True, inline="always")
def _exact_index(scores, at, target, sides, side):
    """Index of the score vector ``scores[at : at + sides]`` rotated so that ``side`` comes first."""
    index = 0
    stride = 1
    for i in range(sides):
        s = side + i
        if s >= sides:
            s -= sides
        index += scores[at + s] * stride
        stride *= target
    return index


@njit(cache=True, inline="always")
def _pooled_index(scores, at, target, sides, side):
    """Index in the exchangeable table: ``side``'s score, then the rank of the other sides' scores as a multiset.

    The other scores sorted ascending, a_0 <= ... <= a_{m-1}, have the rank
    sum_i C(a_i + i, i + 1) (the combinatorial number system on the strictly
    increasing a_i + i): a bijection of the multisets onto 0 .. C(target + m - 1, m) - 1.
    Each score's place p in the sorted order is counted, not sorted into a
    buffer (no allocation in the search loop): ties go by seat order.
    """
    rank = 0
    for i in range(1, sides):
        a = side + i
        if a >= sides:
            a -= sides
        v = scores[at + a]
        p = 0
        for j in range(1, sides):
            if j != i:
                b = side + j
                if b >= sides:
                    b -= sides
                w = scores[at + b]
                if w < v or (w == v and j < i):
                    p += 1
        rank += _choose(v + p, p + 1)
    return scores[at + side] + target * rank


@njit(cache=True, inline="always")
def _match_over(view, target, sides, side):
    """1.0 if ``side`` has reached the target, 0.0 if another side has, -1.0 while the match goes on."""
    for s in range(sides):
        if view[L.V_SCORE + s] >= target:
            return 1.0 if s == side else 0.0
    return -1.0


@njit(cache=True)
def win_probability(table, rules, view, side):
    """Chance that ``side`` wins the match from the view's scores at the end of a hand.

    1 or 0 when a side has reached the target; otherwise the table's value
    with the scores rotated so that ``side`` comes first (exact table) or at
    ``side``'s score and the multiset of the other sides' scores (exchangeable
    table, when the exact one would exceed MAX_STATES).
    """
    target = rules[L.R_TARGET]
    sides = side_count(rules)
    over = _match_over(view, target, sides, side)
    if over >= 0.0:
        return over
    if _exact_fits(target, sides):
        return table[_exact_index(view, L.V_SCORE, target, sides, side)]
    return table[_pooled_index(view, L.V_SCORE, target, sides, side)]


@njit(cache=True, inline="always")
def _play_hand(rules, b, deal, deal_rng, rng, base, seed, index, j):
    """Play hand ``j`` of state ``index`` from the view's scores (keyed deal, redeals included) to its end."""
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


@njit(cache=True)
def _hand_buffers(rules, no_tiles):
    """A view at the start of a match, the deal buffer and the hand scratch over them, for :func:`_play_hand`."""
    view = np.zeros(L.V_SIZE, dtype=np.int64)
    hands = np.zeros(L.MAX_SEATS * L.SET_WORDS, dtype=np.int64)
    deal = np.zeros(L.MAX_TILES, dtype=np.int64)
    b = scratch_buffers(view, hands, deal, no_tiles)
    view_start_match(view, rules)
    return view, deal, b


@njit(cache=True)
def _estimate(rules, base, seed, hands_per_state, table, no_tiles):
    """Fill ``table`` (P(side 0 wins) per score vector) by the backward pass of the module note."""
    target = rules[L.R_TARGET]
    sides = side_count(rules)
    view, deal, b = _hand_buffers(rules, no_tiles)
    scores = np.zeros(L.MAX_SEATS, dtype=np.int64)
    deal_rng = np.zeros(1, dtype=np.uint64)
    rng = np.zeros(1, dtype=np.uint64)
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
            _play_hand(rules, b, deal, deal_rng, rng, base, seed, index, j)
            total += win_probability(table, rules, view, np.int64(0))  # int64: one compiled copy
        table[index] = total / hands_per_state


@njit(cache=True)
def _estimate_pooled(rules, base, seed, hands_per_state, table, no_tiles, order, reps):
    """Fill the exchangeable ``table`` by the backward pass, entries in ``order`` (successors first).

    ``reps[e]`` is a score vector of entry ``e`` (side 0's score, then the
    others' sorted); every hand deals the others' scores to sides 1 .. k-1 in
    a fresh uniformly random order, so the entry is the mean over seatings.
    """
    target = rules[L.R_TARGET]
    sides = side_count(rules)
    view, deal, b = _hand_buffers(rules, no_tiles)
    others = np.zeros(L.MAX_SEATS, dtype=np.int64)
    deal_rng = np.zeros(1, dtype=np.uint64)
    rng = np.zeros(1, dtype=np.uint64)
    seat_rng = np.zeros(1, dtype=np.uint64)
    for k in range(order.shape[0]):
        index = order[k]
        total = 0.0
        for j in range(hands_per_state):
            for s in range(sides - 1):
                others[s] = reps[index, s + 1]
            seat_rng[0] = stream_state(seed, index, j, 1 << 41)
            shuffle(seat_rng, others, sides - 1)
            view[L.V_SCORE] = reps[index, 0]
            for s in range(1, sides):
                view[L.V_SCORE + s] = others[s - 1]
            _play_hand(rules, b, deal, deal_rng, rng, base, seed, index, j)
            value = _match_over(view, target, sides, 0)
            if value < 0.0:  # the pooled index whatever the sizes (tests build both kinds where both fit)
                value = table[_pooled_index(view, L.V_SCORE, target, sides, 0)]
            total += value
        table[index] = total / hands_per_state


def table_kind(target: int, sides: int) -> tuple[str, int]:
    """``("exact", target**sides)`` when the exact table fits MAX_STATES, else ``("exchangeable", entries)``.

    The exchangeable table has ``target * C(target + sides - 2, sides - 1)``
    entries: side 0's score times the multisets of the other sides' scores.
    """
    exact = target**sides
    if exact <= MAX_STATES or sides <= 2:  # two sides: the pooled table would be the exact one
        return "exact", exact
    return "exchangeable", target * comb(target + sides - 2, sides - 1)


def _largest_target(sides: int) -> int:
    """The largest target whose table (either kind) fits MAX_STATES with ``sides`` sides."""
    target = 2
    while table_kind(target + 1, sides)[1] <= MAX_STATES:
        target += 1
    return target


def _pooled_layout(target: int, sides: int) -> tuple[np.ndarray, np.ndarray]:
    """Each entry's score vector (side 0, then the others sorted) and the entries in backward-pass order.

    Every hand raises the total score, so the entries go by total score,
    highest first: each hand's successors are filled before it.
    """
    m = sides - 1
    reps = np.zeros((target * comb(target + m - 1, m), sides), dtype=np.int64)
    for others in combinations_with_replacement(range(target), m):
        rank = sum(comb(a + i, i + 1) for i, a in enumerate(others))
        for own in range(target):
            reps[own + target * rank] = (own, *others)
    order = np.argsort(-reps.sum(axis=1), kind="stable").astype(np.int64)
    return reps, order


def _pooled_normalized(table: np.ndarray, target: int, sides: int) -> np.ndarray:
    """Scale the exchangeable table so that the chances of the sides of every score multiset sum to 1.

    An entry (own, others) belongs to the multiset S = others + {own}; the
    sides holding ``own`` in S (as many as S holds it) each have the entry's chance.
    """
    reps, _ = _pooled_layout(target, sides)
    full = np.sort(reps, axis=1)
    ranks = sum(np.array([comb(int(a) + i, i + 1) for a in full[:, i]], dtype=np.int64) for i in range(sides))
    weight = (full == reps[:, :1]).sum(axis=1)  # sides of S with side 0's score
    total = np.bincount(ranks, weights=weight * table)
    return table / total[ranks]


def _table_key(rules: Rules, base: str, hands_per_state: int, kind: str = "exact") -> str:
    """Cache key: the rules, the policy, the budget, the table's kind and the source the numbers depend on."""
    digest = hashlib.sha256(repr((sorted(rules.to_dict().items()), base, hands_per_state, TABLE_SEED, kind)).encode())
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


def build_table(rules: Rules, base: str, kind: str, hands_per_state: int) -> np.ndarray:
    """Build (no cache) the ``kind`` table, ``"exact"`` or ``"exchangeable"``, with ``hands_per_state`` hands per entry."""
    arrays = (rules.to_array(), BASE_POLICIES.index(base), np.uint64(TABLE_SEED), hands_per_state)
    no_tiles = no_tiles_for(rules.n_tiles)
    if kind == "exact":
        table = np.zeros(rules.target**rules.sides, dtype=np.float64)
        _estimate(*arrays, table, no_tiles)
        return _normalized(table, rules.target, rules.sides)
    reps, order = _pooled_layout(rules.target, rules.sides)
    table = np.zeros(reps.shape[0], dtype=np.float64)
    _estimate_pooled(*arrays, table, no_tiles, order, reps)
    return _pooled_normalized(table, rules.target, rules.sides)


def table_for(rules: Rules, base: str = "greedy") -> np.ndarray:
    """The win-probability table for these rules with ``base`` playing every seat (built once, then cached).

    Exact table (when target**sides <= MAX_STATES): index of a score vector
    ``(s_0, ..., s_{k-1})`` is ``sum s_i * target**i``.  Exchangeable table
    (otherwise): index ``s_0 + target * rank(sorted(s_1 .. s_{k-1}))``, the
    rank of :func:`_pooled_index`.
    """
    if base not in BASE_POLICIES:
        raise PolicyError(f"match value: unknown base policy {base!r}; choose one of {', '.join(BASE_POLICIES)}")
    kind, states = table_kind(rules.target, rules.sides)
    if states > MAX_STATES:
        pooled = " even pooling the other sides' scores" if kind == "exchangeable" else ""
        raise PolicyError(
            f"match value: target {rules.target} with {rules.sides} sides needs {states:,} table entries{pooled} "
            f"(at most {MAX_STATES:,}); "
            f"use a target of {_largest_target(rules.sides)} or less (--set target=...)"
        )
    hands_per_state = max(MIN_HANDS_PER_STATE, HAND_BUDGET // states)
    path = subfolder("match_value") / f"table_{_table_key(rules, base, hands_per_state, kind)}.npy"
    table = _cached_table(path, states)
    if table is not None:
        return table
    with one_builder(str(path)):  # processes starting together build it once; the others wait, then load it
        table = _cached_table(path, states, quiet=True)  # said above, if damaged
        if table is not None:
            return table
        table = build_table(rules, base, kind, hands_per_state)
        saved = io.BytesIO()
        np.save(saved, table)
        write_checked(path, saved.getvalue())  # whole, with its hash: a damaged table is known and built again
    return table


def _cached_table(path: Path, entries: int, quiet: bool = False) -> np.ndarray | None:
    """The table saved at ``path`` if it is whole (its hash checks) and of its ``entries`` chances, else None."""
    data = read_checked(path, quiet)
    if data is None:
        return None
    try:
        table = np.load(io.BytesIO(data), allow_pickle=False)
    except ValueError:
        table = None
    if table is None or table.dtype != np.float64 or table.shape != (entries,):
        if not quiet:
            notice(f"{path} in the cache is not a table of {entries:,} chances; building it again")
        return None
    return table
