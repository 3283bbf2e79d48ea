"""Sampling the hidden tiles: worlds consistent with what one seat knows.

A *world* completes a policy view (``V_*`` in layout.py) into a full hand
state: the other seats' hands and the boneyard's draw order.  Search (the
``pimc`` policy) and the position analyzer both play worlds out, so a world
must never contradict the view:

* the unseen tiles are all tiles minus the seat's own hand minus the tiles
  on the table; each other seat receives exactly its hand count of them and
  the boneyard the rest;
* a seat never receives a tile showing a number it is known to be void in
  (``V_VOID``: sound, "surely holds none of these numbers now");
* with ``use_lead``, the lead is evidence too: the leader led the lowest
  (highest) double dealt, so every lower (higher) double was in the
  boneyard at the deal, and a seat that has drawn nothing this hand (per the
  view's draw/pass log) cannot hold one; under ``any-double`` the lead went
  to the first seat from the opening seat that holds a double, so a seat it
  passed over that has drawn nothing holds no double.

Among all assignments that satisfy these constraints, worlds are drawn
*exactly uniformly* (no bias), for 2 to 8 seats and every set: tiles are grouped into classes by which seats may
hold them, a table counts the completions of every partial assignment (a
small dynamic programme over classes and remaining hand counts), and each
class's split is drawn with probability proportional to its number of
completions.  The boneyard order is then a uniform shuffle.  Knowledge the
constraints leave out (the exact moment a seat drew a tile it still holds,
what the other seats' choices of move suggest) is ignored, never
contradicted.

Set width.  Every function takes the game's empty set ``no_tiles``
(:mod:`bergen_sim.engine.tileset`): one word up to double-nine, three words
for double-twelve to double-eighteen, so the same source compiles to
one-word code for the standard game.  Masks in the ``spec`` vector take
``SET_WORDS`` slots each.  Counts are products of binomial coefficients
(a table up to ``MAX_TILES``), never factorials, which overflow a float
beyond 170 tiles; the largest count (every deal of double-eighteen's
unseen tiles among eight seats) is below 1e170, well inside a float.

Groups.  Other seats whose allowed sets are identical are interchangeable,
so with more than three other seats they are merged into one *group*: the
programme tracks the group's total remaining count, and the group's tiles
are then dealt to its seats by a uniform shuffle cut by their hand counts.
Every deal to the groups stands for the same number of worlds (a
multinomial per group), so this is exactly uniform too.  With up to three
other seats (2 to 4 players) every seat stays its own group and the
programme walks the splits in the same order as always, so a keyed stream
gives the same world as before groups existed.

Fallback.  The table is bounded (``MAX_CELLS`` floats, ``MAX_WORK`` splits
walked).  When the exact groups exceed it, some are merged, a merged group
allowed the union of its seats' sets: a relaxed problem whose worlds
include every consistent one, sampled exactly uniformly as above.  Of all
the ways to merge them whose table fits, the one expected to keep the most
proposals is used (:func:`_relax`).  A proposal is kept only if every seat's
hand lies in its own allowed set (rejection sampling from an exact
proposal: exactly uniform).  After ``MAX_PROPOSALS`` rejected proposals the
exact table is built whatever its size, so a world is always drawn, exactly,
in bounded time.  In the fallback :func:`world_count` gives the relaxed
problem's count, an upper bound.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from bergen_sim.engine import layout as L
from bergen_sim.engine.keyed_random import next_u64, shuffle
from bergen_sim.engine.play_rules import hand_of, numbers_tiles, set_hand
from bergen_sim.engine.tileset import (
    bit,
    both,
    count,
    differ,
    double_tiles,
    drop_lowest,
    has,
    is_empty,
    load,
    lowest,
    minus,
    store,
    union,
)
from bergen_sim.engine.view import played_by, unseen_tiles

DOUBLE_TILE = L.DOUBLE_TILE
#: the empty one-word set: the width of the standard game's worlds (tests and narrow-only callers)
NARROW = np.int64(0)
WORDS = L.SET_WORDS
MAX_OTHERS = L.MAX_SEATS - 1
#: with up to this many other seats (games of 2 to 4 players) every seat is its own group, as in the
#: original three-seat sampler, so a keyed stream gives the same world as it always did
SEAT_GROUPS = 3
#: largest table the exact programme builds: states x (classes + 1) floats (32 MB) ...
MAX_CELLS = 1 << 22
#: ... and most splits it walks while filling it; beyond either, the rejection fallback (see the module doc)
MAX_WORK = 1 << 25
#: the bounds as the float64s the exact fallback passes too (np.inf): one compiled programme for both
_MOST_CELLS = np.float64(MAX_CELLS)
_MOST_WORK = np.float64(MAX_WORK)
#: ``use_lead`` of :func:`prepare` as an int64 (a literal 1 is a type of its own and would compile another copy)
USE_LEAD = np.int64(1)
#: proposals the fallback draws for one world at most; then it builds the exact table whatever its size (which
#: can take minutes and gigabytes in eight-seat double-eighteen views, so the bound is set high: the worst kept
#: share measured there, about 1 in 20,000, runs out of 2**20 proposals with probability about e**-50)
MAX_PROPOSALS = 1 << 20


def _binomials(n_max: int) -> np.ndarray:
    """C(n, k) for 0 <= k <= n <= n_max as floats (Pascal's triangle; exact below 2**53, C(190, 95) ~ 1e56)."""
    table = np.zeros((n_max + 1, n_max + 1), dtype=np.float64)
    for n in range(n_max + 1):
        table[n, 0] = 1.0
        for k in range(1, n + 1):
            table[n, k] = table[n - 1, k - 1] + table[n - 1, k]
    return table


#: C(n, k) for n, k <= MAX_TILES: the multinomial weights of splits (completion counts exceed int64)
_BINOMIAL = _binomials(L.MAX_TILES)

#: the int64 ``spec`` vector that :func:`prepare` fills (constants ``W_*``)
MAX_CLASSES = 1 << MAX_OTHERS  # a class is a set of groups
WORLD_SPEC = L.Vector(
    "W",
    [
        L.Field("others", meaning="number of other seats m"),
        L.Field("seat", MAX_OTHERS, "seat of the j-th other seat", per="other seat"),
        L.Field("cap", MAX_OTHERS, "its hand count", per="other seat"),
        L.Field(
            "allowed", MAX_OTHERS * WORDS, "the unseen tiles it may hold (SET_WORDS words)", per="other seat and word"
        ),
        L.Field("group", MAX_OTHERS, "the group it belongs to", per="other seat"),
        L.Field("boneyard", meaning="tiles in the boneyard"),
        L.Field("unseen", WORDS, "the tiles the deciding seat cannot see", per="word"),
        L.Field("groups", meaning="number of groups G (other seats dealt to as one)"),
        L.Field("group_cap", MAX_OTHERS, "tiles the group holds (its seats' hand counts summed)", per="group"),
        L.Field("radix", MAX_OTHERS, "stride of remaining-count g in a state index", per="group"),
        L.Field("states", meaning="number of states (product of group_cap + 1)"),
        L.Field("classes", meaning="number of non-empty tile classes K"),
        L.Field("class_seats", MAX_CLASSES, "bit g set when group g may hold the class's tiles", per="class"),
        L.Field("class_tiles", MAX_CLASSES * WORDS, "the class's tiles (SET_WORDS words)", per="class and word"),
        L.Field("exact", meaning="1: groups are exact (identical allowed sets); 0: merged by union (fallback)"),
    ],
    title="world spec",
)
# --- generated from the declarations above by tools/generate_constants.py; do not edit ---
W_OTHERS = 0
W_SEAT = 1
W_CAP = 8
W_ALLOWED = 15
W_GROUP = 36
W_BONEYARD = 43
W_UNSEEN = 44
W_GROUPS = 47
W_GROUP_CAP = 48
W_RADIX = 55
W_STATES = 62
W_CLASSES = 63
W_CLASS_SEATS = 64
W_CLASS_TILES = 192
W_EXACT = 576
W_SIZE = 577
# --- end of generated constants ---


@njit(cache=True)
def undealt_doubles(view, lead_highest, no_tiles):
    """Doubles that the lead proves were in the boneyard when the hand was dealt.

    The leader led the lowest (highest) double in any hand, and that double is
    among the doubles the leader has played this hand; every double below the
    lowest (above the highest) of those was therefore not dealt to a hand.
    """
    leader = view[L.V_LEADER]
    out = no_tiles
    if leader < 0 or leader >= view[L.V_PLAYERS]:
        return out
    led = both(played_by(view, leader, no_tiles), double_tiles(no_tiles))
    if is_empty(led):
        return out
    if lead_highest:
        top = -1
        for n in range(view[L.V_MAX_NUMBER] + 1):
            if has(led, DOUBLE_TILE[n]):
                top = n
        for n in range(top + 1, view[L.V_MAX_NUMBER] + 1):
            out = union(out, bit(DOUBLE_TILE[n], no_tiles))
    else:
        for n in range(view[L.V_MAX_NUMBER] + 1):
            if has(led, DOUBLE_TILE[n]):
                break
            out = union(out, bit(DOUBLE_TILE[n], no_tiles))
    return out


@njit(cache=True)
def has_drawn(view, seat):
    """True unless the view's log shows the seat drew nothing this hand (a full log proves nothing)."""
    n = view[L.V_LOG_N]
    if n >= L.V_LOG_CAPACITY:
        return True
    for k in range(n):
        base = L.V_LOG + L.LOG_SIZE * k
        if view[base + L.LOG_SEAT] == seat and view[base + L.LOG_DRAWN] > 0:
            return True
    return False


@njit(cache=True)
def allowed_tiles(view, rules, use_lead, seat, no_tiles):
    """The unseen tiles ``seat`` may hold according to the view (voids and, if asked, the lead)."""
    allowed = minus(unseen_tiles(view, no_tiles), numbers_tiles(view[L.V_VOID + seat], view[L.V_MAX_NUMBER], no_tiles))
    if use_lead and not has_drawn(view, seat):
        if rules[L.R_LEAD] != L.LEAD_ANY_DOUBLE:
            allowed = minus(allowed, undealt_doubles(view, rules[L.R_LEAD] == L.LEAD_HIGHEST, no_tiles))
        elif passed_over(view, seat):
            allowed = minus(allowed, double_tiles(no_tiles))
    return allowed


@njit(cache=True)
def passed_over(view, seat):
    """Under ``any-double``: True if the lead passed ``seat`` over, so it was dealt no double.

    The leader is the first seat from the hand's opening seat, ``(hand_no -
    1) mod players``, that holds a double (RULES.md; engine/hand.py,
    ``deal_hand``), so every seat before it in that order holds none.
    """
    players = view[L.V_PLAYERS]
    leader = view[L.V_LEADER]
    if leader < 0 or leader >= players or view[L.V_HAND_NO] < 1:
        return False
    opening = (view[L.V_HAND_NO] - 1) % players
    return (seat - opening) % players < (leader - opening) % players


@njit(cache=True, inline="always")
def _allowed(spec, j, no_tiles):
    """The allowed set of the j-th other seat."""
    return load(spec, W_ALLOWED + j * WORDS, no_tiles)


@njit(cache=True, inline="always")
def _class_tiles(spec, k, no_tiles):
    """The tiles of class k."""
    return load(spec, W_CLASS_TILES + k * WORDS, no_tiles)


@njit(cache=True)
def prepare(view, rules, use_lead, no_tiles):
    """Count the worlds consistent with the view; returns (spec, completions).

    ``spec`` (layout ``W_*``) describes the other seats, their groups and the
    tile classes; ``completions[k * states + r]`` is the number of ways to
    deal classes ``k..K-1`` to the groups when they still need the counts
    encoded by ``r``.  :func:`world_count` turns ``completions[full]`` into
    the number of consistent worlds (boneyard order aside); it is 0 when the
    view admits none.  ``no_tiles`` is the game's empty set (its width).
    """
    spec = np.zeros(W_SIZE, dtype=np.int64)
    me = view[L.V_SEAT]
    m = 0
    for s in range(view[L.V_PLAYERS]):
        if s != me:
            spec[W_SEAT + m] = s
            spec[W_CAP + m] = view[L.V_HAND_COUNT + s]
            store(spec, W_ALLOWED + m * WORDS, allowed_tiles(view, rules, use_lead, s, no_tiles))
            m += 1
    spec[W_OTHERS] = m
    spec[W_BONEYARD] = view[L.V_BONEYARD]
    store(spec, W_UNSEEN, unseen_tiles(view, no_tiles))
    return spec, _programme(spec, _MOST_CELLS, _MOST_WORK, no_tiles)


@njit(cache=True)
def _programme(spec, max_cells, max_work, no_tiles):
    """Group the other seats, class the tiles and fill the completions table (see :func:`prepare`).

    Exact groups: every seat alone (few seats), else one group per distinct
    allowed set.  When their table would exceed ``max_cells`` cells or
    ``max_work`` splits walked, :func:`_relax` merges them into the relaxed
    proposal that keeps the most worlds (the fallback); one group always
    fits the real budget.
    """
    m = spec[W_OTHERS]
    n_groups = 0
    for j in range(m):
        g = n_groups
        if m > SEAT_GROUPS:
            for i in range(j):
                if is_empty(differ(_allowed(spec, i, no_tiles), _allowed(spec, j, no_tiles))):
                    g = spec[W_GROUP + i]
                    break
        spec[W_GROUP + j] = g
        if g == n_groups:
            n_groups += 1
    spec[W_GROUPS] = n_groups
    spec[W_EXACT] = 1
    unseen = load(spec, W_UNSEEN, no_tiles)
    group_allowed = np.zeros(MAX_OTHERS * WORDS, dtype=np.int64)
    _group_unions(spec, group_allowed, no_tiles)
    if not _set_classes(spec, unseen, group_allowed, max_cells, max_work, no_tiles):
        _relax(spec, unseen, group_allowed, max_cells, max_work, no_tiles)

    states = spec[W_STATES]
    n_classes = spec[W_CLASSES]
    completions = np.zeros((n_classes + 1) * states, dtype=np.float64)
    need = 0
    for j in range(m):
        need += spec[W_CAP + j]
    if need + spec[W_BONEYARD] != count(unseen):
        return completions  # the counts cannot be met: no world
    completions[n_classes * states + 0] = 1.0
    walk = _scratch()
    for k in range(n_classes - 1, -1, -1):
        size = count(_class_tiles(spec, k, no_tiles))
        cls = spec[W_CLASS_SEATS + k]
        for r in range(states):
            _decode(spec, r, walk.rem)
            completions[k * states + r] = _class_total(spec, completions, k + 1, states, r, cls, size, -1.0, walk)
    return completions


@njit(cache=True)
def _relax(spec, unseen, group_allowed, max_cells, max_work, no_tiles):
    """Merge the exact groups into the relaxed proposal whose table fits and whose worlds are most often kept.

    Every way to merge the exact groups (a set partition of them: at most
    877, for seven) is tried.  A merged group may hold the union ``U`` of
    its seats' allowed sets, and a proposal is kept only if each seat's hand
    lies in its own set ``A``; taking the seat's ``c`` tiles as a uniform
    draw from ``U``, that happens with probability about ``C(|A|, c) /
    C(|U|, c)``.  The partition that fits with the largest product of these
    over the seats is kept, so the rejection sampler wastes the fewest
    proposals (merging the groups that differ least, regardless of their
    counts, could merge a seat of sixteen tiles with seats void in other
    numbers and keep one proposal in tens of thousands).  When none fits,
    every seat is one group.  Leaves ``spec`` and ``group_allowed`` set for
    the partition kept; ``spec[W_EXACT]`` is 0.
    """
    m = spec[W_OTHERS]
    n = spec[W_GROUPS]
    exact = np.zeros(MAX_OTHERS, dtype=np.int64)
    for j in range(m):
        exact[j] = spec[W_GROUP + j]
    block = np.zeros(n, dtype=np.int64)  # the partition as a restricted growth string over the exact groups
    most = np.zeros(n, dtype=np.int64)  # most[i]: the largest block number among block[:i + 1]
    best = np.zeros(n, dtype=np.int64)
    best_score = -np.inf
    while True:
        for j in range(m):
            spec[W_GROUP + j] = block[exact[j]]
        spec[W_GROUPS] = most[n - 1] + 1
        if spec[W_GROUPS] < n:
            _group_unions(spec, group_allowed, no_tiles)
            score = _kept_share(spec, group_allowed, no_tiles)
            if score > best_score and _set_classes(spec, unseen, group_allowed, max_cells, max_work, no_tiles):
                best_score = score
                best[:] = block
        # the next partition: raise the last entry that may grow, zero the entries after it
        i = n - 1
        while i >= 1 and block[i] == most[i - 1] + 1:
            i -= 1
        if i < 1:
            break
        block[i] += 1
        most[i] = max(most[i - 1], block[i])
        for k in range(i + 1, n):
            block[k] = 0
            most[k] = most[i]
    if best_score == -np.inf:
        best[:] = 0  # nothing fits the budget given: one group
    groups = 0
    for j in range(m):
        spec[W_GROUP + j] = best[exact[j]]
        groups = max(groups, best[exact[j]] + 1)
    spec[W_GROUPS] = groups
    spec[W_EXACT] = 0
    _group_unions(spec, group_allowed, no_tiles)
    _set_classes(spec, unseen, group_allowed, max_cells, max_work, no_tiles)


class Splits(NamedTuple):
    """The per-group work arrays of a walk over the splits of a tile class (:func:`_class_total`)."""

    rem: np.ndarray  # the groups' remaining counts (the state being filled)
    x: np.ndarray  # the split being walked
    top: np.ndarray  # its bounds
    split: np.ndarray  # the split picked


@njit(cache=True, inline="always")
def _scratch():
    """A :class:`Splits` of zeros."""
    return Splits(
        np.zeros(MAX_OTHERS, dtype=np.int64),
        np.zeros(MAX_OTHERS, dtype=np.int64),
        np.zeros(MAX_OTHERS, dtype=np.int64),
        np.zeros(MAX_OTHERS, dtype=np.int64),
    )


@njit(cache=True)
def _set_classes(spec, unseen, group_allowed, max_cells, max_work, no_tiles):
    """Fill the groups' counts, the state radices and the tile classes from ``spec[W_GROUP + j]``.

    A group may hold the union of its seats' allowed sets (the same set for
    exact groups), which ``group_allowed`` must already hold
    (:func:`_group_unions`, ``SET_WORDS`` slots a group; the caller computes
    them once, as :func:`_relax` also scores them).  ``unseen`` is the unseen set, of the width of ``no_tiles``.  Returns
    False when the programme over these groups would exceed ``max_cells`` or
    ``max_work`` (then :func:`_relax` merges groups).
    """
    n_groups = spec[W_GROUPS]
    for g in range(MAX_OTHERS):
        spec[W_GROUP_CAP + g] = 0
        spec[W_RADIX + g] = 0
    for j in range(spec[W_OTHERS]):
        spec[W_GROUP_CAP + spec[W_GROUP + j]] += spec[W_CAP + j]
    states = 1
    for g in range(n_groups):
        spec[W_RADIX + g] = states
        states *= spec[W_GROUP_CAP + g] + 1
    spec[W_STATES] = states
    # tiles grouped by the set of groups allowed to hold them
    n_classes = 0
    work = 0.0
    for cls in range(1 << n_groups):
        tiles = unseen
        for g in range(n_groups):
            if cls & (1 << g):
                tiles = both(tiles, load(group_allowed, g * WORDS, no_tiles))
            else:
                tiles = minus(tiles, load(group_allowed, g * WORDS, no_tiles))
        if not is_empty(tiles):
            spec[W_CLASS_SEATS + n_classes] = cls
            store(spec, W_CLASS_TILES + n_classes * WORDS, tiles)
            n_classes += 1
            work += _splits_walked(spec, cls, count(tiles))
    spec[W_CLASSES] = n_classes
    return states * (n_classes + 1) <= max_cells and work <= max_work


@njit(cache=True)
def _group_unions(spec, group_allowed, no_tiles):
    """``group_allowed`` receives each group's allowed set: the union of its seats' (``SET_WORDS`` slots a group)."""
    group_allowed[:] = 0
    for j in range(spec[W_OTHERS]):
        g = spec[W_GROUP + j]
        store(group_allowed, g * WORDS, union(load(group_allowed, g * WORDS, no_tiles), _allowed(spec, j, no_tiles)))


@njit(cache=True)
def _kept_share(spec, group_allowed, no_tiles):
    """Log of the share of a relaxed proposal's worlds that the rejection keeps, about (see :func:`_relax`)."""
    share = 0.0
    for j in range(spec[W_OTHERS]):
        cap = spec[W_CAP + j]
        held = count(load(group_allowed, spec[W_GROUP + j] * WORDS, no_tiles))
        share += np.log(_BINOMIAL[count(_allowed(spec, j, no_tiles)), cap]) - np.log(_BINOMIAL[held, cap])
    return share


@njit(cache=True)
def _splits_walked(spec, cls, size):
    """Splits of a class of ``size`` tiles that the programme walks over all states, at most.

    A state's walk gives each allowed group up to min(its remaining count, size)
    tiles; the states are a grid of independent remaining counts, so the sum
    over states of the walk's size (the tiles' total left unbounded) is a
    product of per-group sums.
    """
    walked = 1.0
    for g in range(spec[W_GROUPS]):
        cap = spec[W_GROUP_CAP + g]
        if cls & (1 << g):
            per_group = 0.0
            for left in range(cap + 1):
                per_group += min(left, size) + 1
            walked *= per_group
        else:
            walked *= cap + 1
    return walked


@njit(cache=True, inline="always")
def _decode(spec, r, rem):
    """Remaining counts of the groups encoded by state index ``r``."""
    for g in range(spec[W_GROUPS]):
        rem[g] = (r // spec[W_RADIX + g]) % (spec[W_GROUP_CAP + g] + 1)


@njit(cache=True)
def _class_total(spec, completions, next_k, states, r, cls, size, pick, walk):
    """Sum, over the ways to split a class of ``size`` tiles among the allowed groups (``walk.rem`` tiles left to
    each; ``walk`` a :class:`Splits`)
    and the boneyard, of multinomial(size; split) x completions of the rest.

    The multinomial is a product of binomials (group 0 chooses from the
    class, group 1 from what is left, ...; the boneyard takes the rest).
    The splits are walked in lexicographic order (group 0's count outermost).
    With ``pick`` >= 0 the walk stops at the first split where the running sum
    exceeds ``pick`` and leaves it in ``split``: a split drawn with probability
    proportional to its weight when ``pick`` is uniform below the full sum.
    """
    rem, x, top, split = walk
    n_groups = spec[W_GROUPS]
    for g in range(n_groups):
        x[g] = 0
        top[g] = min(rem[g], size) if cls & (1 << g) else 0
    total = 0.0
    used = 0
    rest = r
    while True:
        ways = completions[next_k * states + rest]
        if ways != 0.0:
            multinomial = 1.0
            left = size
            for g in range(n_groups):
                multinomial *= _BINOMIAL[left, x[g]]
                left -= x[g]
            total += multinomial * ways
            if pick >= 0.0:
                for g in range(n_groups):
                    split[g] = x[g]
                if total > pick:
                    return total
        # the next split: raise the last count that may grow, zero the counts after it
        g = n_groups - 1
        while g >= 0:
            if x[g] < top[g] and used < size:
                x[g] += 1
                used += 1
                rest -= spec[W_RADIX + g]
                break
            used -= x[g]
            rest += x[g] * spec[W_RADIX + g]
            x[g] = 0
            g -= 1
        if g < 0:
            return total


@njit(cache=True)
def world_count(spec, completions):
    """Number of consistent deals of the unseen tiles (boneyard order aside); 0 if none.

    The programme counts deals to groups; a group's tiles can go to its seats
    in multinomial(group count; seat counts) ways, all consistent when the
    group is exact.  With merged (fallback) groups this is the number of
    deals of the relaxed proposal, an upper bound.
    """
    full = 0
    for g in range(spec[W_GROUPS]):
        full += spec[W_GROUP_CAP + g] * spec[W_RADIX + g]
    total = completions[full]
    for g in range(spec[W_GROUPS]):
        left = spec[W_GROUP_CAP + g]
        for j in range(spec[W_OTHERS]):
            if spec[W_GROUP + j] == g:
                total *= _BINOMIAL[left, spec[W_CAP + j]]
                left -= spec[W_CAP + j]
    return total


@njit(cache=True, inline="always")
def _uniform(rng):
    """A uniform float in [0, 1) from 53 random bits."""
    return np.float64(next_u64(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def sample_world(view, spec, completions, rng, hands, bone, no_tiles):
    """Draw one world uniformly: fill ``hands`` (every seat, own hand included)
    and ``bone`` (boneyard in draw order); return the boneyard size.

    ``spec`` and ``completions`` come from :func:`prepare` for the same view
    and width ``no_tiles``, and must admit at least one world.  With exact
    groups one proposal is the world; with merged groups (the fallback)
    proposals are drawn until one respects every seat's own allowed set, at
    most ``MAX_PROPOSALS``.
    """
    hands[:] = 0
    set_hand(hands, view[L.V_SEAT], load(view, L.V_HAND, no_tiles))
    tiles = np.zeros(L.MAX_TILES, dtype=np.int64)
    group_tiles = np.zeros(MAX_OTHERS * WORDS, dtype=np.int64)
    walk = _scratch()
    for _ in range(MAX_PROPOSALS):
        n_bone = _propose(spec, completions, rng, hands, bone, tiles, group_tiles, walk, no_tiles)
        if spec[W_EXACT] or _respects_seats(spec, hands, no_tiles):
            return n_bone
    # no proposal kept: the exact programme after all, whatever its size (slow, but finite and exact)
    exact = spec.copy()
    return _propose(
        exact,
        _programme(exact, np.inf, np.inf, no_tiles),
        rng,
        hands,
        bone,
        tiles,
        group_tiles,
        walk,
        no_tiles,
    )


@njit(cache=True)
def _respects_seats(spec, hands, no_tiles):
    """True when every other seat's hand lies in its own allowed set (a fallback proposal is kept)."""
    for j in range(spec[W_OTHERS]):
        if not is_empty(minus(hand_of(hands, spec[W_SEAT + j], no_tiles), _allowed(spec, j, no_tiles))):
            return False
    return True


@njit(cache=True)
def _propose(spec, completions, rng, hands, bone, tiles, group_tiles, walk, no_tiles):
    """One draw, uniform over the deals to the groups: each class split by the
    programme's weights, its tiles in a uniform order cut into that split,
    then each group's tiles dealt to its seats and the boneyard shuffled.
    Fills the other seats' hands and ``bone``; returns the boneyard size.
    """
    n_groups = spec[W_GROUPS]
    states = spec[W_STATES]
    r = np.int64(0)  # not a literal 0: one compiled _class_total for both callers
    group_tiles[:] = 0
    for g in range(n_groups):
        r += spec[W_GROUP_CAP + g] * spec[W_RADIX + g]
    n_bone = 0
    for k in range(spec[W_CLASSES]):
        _decode(spec, r, walk.rem)
        cls = spec[W_CLASS_SEATS + k]
        size = _tile_list(_class_tiles(spec, k, no_tiles), tiles)
        total = completions[k * states + r]
        _class_total(spec, completions, k + 1, states, r, cls, size, _uniform(rng) * total, walk)
        shuffle(rng, tiles, size)
        at = 0
        for g in range(n_groups):
            mask = load(group_tiles, g * WORDS, no_tiles)
            for _ in range(walk.split[g]):
                mask = union(mask, bit(tiles[at], no_tiles))
                at += 1
            store(group_tiles, g * WORDS, mask)
            r -= walk.split[g] * spec[W_RADIX + g]
        while at < size:
            bone[n_bone] = tiles[at]
            n_bone += 1
            at += 1
    for g in range(n_groups):
        _deal_group(spec, g, load(group_tiles, g * WORDS, no_tiles), rng, hands, tiles, no_tiles)
    shuffle(rng, bone, n_bone)
    return n_bone


@njit(cache=True, inline="always")
def _tile_list(mask, tiles):
    """Write the tiles of ``mask`` to ``tiles`` in increasing order; returns how many."""
    size = 0
    while not is_empty(mask):
        tiles[size] = lowest(mask)
        mask = drop_lowest(mask)
        size += 1
    return size


@njit(cache=True)
def _deal_group(spec, g, mask, rng, hands, tiles, no_tiles):
    """Deal group ``g``'s tiles to its seats: a uniform order cut by their hand counts.

    Every split of the group's tiles among its seats is equally likely this
    way, which is what uniform worlds need when the seats are interchangeable.
    A seat alone takes the whole set and draws no random number (the streams
    of games of 2 to 4 players stay those of the one-seat-per-group sampler).
    """
    seats = 0
    last = 0
    for j in range(spec[W_OTHERS]):
        if spec[W_GROUP + j] == g:
            seats += 1
            last = j
    if seats == 1:
        set_hand(hands, spec[W_SEAT + last], mask)
        return
    size = _tile_list(mask, tiles)
    shuffle(rng, tiles, size)
    at = 0
    for j in range(spec[W_OTHERS]):
        if spec[W_GROUP + j] == g:
            hand = no_tiles
            for _ in range(spec[W_CAP + j]):
                hand = union(hand, bit(tiles[at], no_tiles))
                at += 1
            set_hand(hands, spec[W_SEAT + j], hand)
