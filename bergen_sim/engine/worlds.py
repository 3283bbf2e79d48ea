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
  view's draw/pass log) cannot hold one.

Among all assignments that satisfy these constraints, worlds are drawn
*exactly uniformly* (no rejection, no bias): tiles are grouped into classes
by which seats may hold them, a table counts the completions of every
partial assignment (a small dynamic programme over classes and remaining
hand counts), and each class's split between the seats is drawn with
probability proportional to its number of completions.  The boneyard order
is then a uniform shuffle.  Knowledge the constraints leave out (the exact
moment a seat drew a tile it still holds, what the other seats' choices of
move suggest) is ignored, never contradicted.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bergen_sim.engine import layout as L
from bergen_sim.engine.bits import lowest_tile, popcount
from bergen_sim.engine.keyed_random import below, next_u64
from bergen_sim.engine.play_rules import numbers_tiles, set_hand
from bergen_sim.engine.tileset import NARROW_TILES, double_tiles
from bergen_sim.engine.view import unseen_tiles

DOUBLE_TILE = L.DOUBLE_TILE
#: worlds are sampled for games with one-word tile sets (up to double-nine) ...
NARROW = np.int64(0)
#: ... and up to four seats (the dynamic programme below enumerates three other seats)
WORLD_SEATS = 4


def samples_worlds_for(players: int, n_tiles: int) -> bool:
    """Whether worlds can be sampled for a game: up to WORLD_SEATS seats and one-word tile sets."""
    return players <= WORLD_SEATS and n_tiles <= NARROW_TILES

#: n! for n = 0..64, as floats (completion counts exceed int64)
_FACTORIAL = np.array([float(np.prod(np.arange(1, n + 1, dtype=np.float64))) for n in range(NARROW_TILES + 1)])

#: the int64 ``spec`` vector that :func:`prepare` fills (constants ``W_*``)
OTHERS = WORLD_SEATS - 1
MAX_CLASSES = 1 << OTHERS  # a class is the set of other seats that may hold its tiles
WORLD_SPEC = L.Vector("W", [
    L.Field("others", meaning="number of other seats m"),
    L.Field("seat", OTHERS, "seat of the j-th other seat", per="other seat"),
    L.Field("cap", OTHERS, "its hand count", per="other seat"),
    L.Field("boneyard", meaning="tiles in the boneyard"),
    L.Field("radix", OTHERS, "stride of remaining-count j in a state index", per="other seat"),
    L.Field("states", meaning="number of states (product of cap + 1)"),
    L.Field("classes", meaning="number of non-empty tile classes K"),
    L.Field("class_seats", MAX_CLASSES, "bit j set when other seat j may hold the class's tiles", per="class"),
    L.Field("class_tiles", MAX_CLASSES, "bitmask of the class's tiles", per="class"),
], title="world spec")
globals().update(WORLD_SPEC.constants())


@njit(cache=True)
def undealt_doubles(view, lead_highest):
    """Doubles that the lead proves were in the boneyard when the hand was dealt.

    The leader led the lowest (highest) double in any hand, and that double is
    among the doubles the leader has played this hand; every double below the
    lowest (above the highest) of those was therefore not dealt to a hand.
    """
    leader = view[L.V_LEADER]
    if leader < 0 or leader >= view[L.V_PLAYERS]:
        return np.int64(0)
    led = view[L.V_PLAYED_BY + leader] & double_tiles(NARROW)
    if led == 0:
        return np.int64(0)
    out = np.int64(0)
    if lead_highest:
        top = -1
        for n in range(view[L.V_MAX_NUMBER] + 1):
            if led & (np.int64(1) << DOUBLE_TILE[n]):
                top = n
        for n in range(top + 1, view[L.V_MAX_NUMBER] + 1):
            out |= np.int64(1) << DOUBLE_TILE[n]
    else:
        for n in range(view[L.V_MAX_NUMBER] + 1):
            if led & (np.int64(1) << DOUBLE_TILE[n]):
                break
            out |= np.int64(1) << DOUBLE_TILE[n]
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
def allowed_tiles(view, rules, use_lead, seat):
    """The unseen tiles ``seat`` may hold according to the view (voids and, if asked, the lead)."""
    allowed = unseen_tiles(view, NARROW) & ~numbers_tiles(view[L.V_VOID + seat], view[L.V_MAX_NUMBER], NARROW)
    if use_lead and rules[L.R_LEAD] != L.LEAD_ANY_DOUBLE and not has_drawn(view, seat):
        allowed &= ~undealt_doubles(view, rules[L.R_LEAD] == L.LEAD_HIGHEST)
    return allowed


@njit(cache=True)
def prepare(view, rules, use_lead):
    """Count the worlds consistent with the view; returns (spec, completions).

    ``spec`` (layout ``W_*``) describes the other seats and the tile classes;
    ``completions[k * states + r]`` is the number of ways to deal classes
    ``k..K-1`` when the other seats still need the counts encoded by ``r``.
    ``completions[0 * states + full]`` is the number of consistent worlds
    (boneyard order aside); it is 0 when the view admits none.
    """
    spec = np.zeros(W_SIZE, dtype=np.int64)
    me = view[L.V_SEAT]
    players = view[L.V_PLAYERS]
    m = 0
    allowed = np.zeros(3, dtype=np.int64)
    for s in range(players):
        if s != me:
            spec[W_SEAT + m] = s
            spec[W_CAP + m] = view[L.V_HAND_COUNT + s]
            allowed[m] = allowed_tiles(view, rules, use_lead, s)
            m += 1
    spec[W_OTHERS] = m
    spec[W_BONEYARD] = view[L.V_BONEYARD]
    states = 1
    for j in range(3):
        spec[W_RADIX + j] = states
        if j < m:
            states *= spec[W_CAP + j] + 1
    spec[W_STATES] = states

    # tiles grouped by the set of other seats allowed to hold them
    unseen = unseen_tiles(view, NARROW)
    n_classes = 0
    for cls in range(1 << m):
        tiles = unseen
        for j in range(m):
            if cls & (1 << j):
                tiles &= allowed[j]
            else:
                tiles &= ~allowed[j]
        if tiles:
            spec[W_CLASS_SEATS + n_classes] = cls
            spec[W_CLASS_TILES + n_classes] = tiles
            n_classes += 1
    spec[W_CLASSES] = n_classes

    completions = np.zeros((n_classes + 1) * states, dtype=np.float64)
    need = 0
    for j in range(m):
        need += spec[W_CAP + j]
    if need + spec[W_BONEYARD] != popcount(unseen):
        return spec, completions  # the counts cannot be met: no world
    completions[n_classes * states + 0] = 1.0
    rem = np.zeros(3, dtype=np.int64)
    split = np.zeros(3, dtype=np.int64)
    for k in range(n_classes - 1, -1, -1):
        size = popcount(spec[W_CLASS_TILES + k])
        cls = spec[W_CLASS_SEATS + k]
        for r in range(states):
            _decode(spec, r, rem)
            completions[k * states + r] = _class_total(spec, completions, k + 1, states, r, rem, cls, size, -1.0,
                                                       split)
    return spec, completions


@njit(cache=True, inline="always")
def _decode(spec, r, rem):
    """Remaining counts of the other seats encoded by state index ``r``."""
    for j in range(3):
        if j < spec[W_OTHERS]:
            rem[j] = (r // spec[W_RADIX + j]) % (spec[W_CAP + j] + 1)
        else:
            rem[j] = 0


@njit(cache=True)
def _class_total(spec, completions, next_k, states, r, rem, cls, size, pick, split):
    """Sum, over the ways to split a class of ``size`` tiles among the allowed seats
    and the boneyard, of multinomial(size; split) x completions of the rest.

    With ``pick`` >= 0 the walk stops at the first split where the running sum
    exceeds ``pick`` and leaves it in ``split``: a split drawn with probability
    proportional to its weight when ``pick`` is uniform below the full sum.
    """
    top0 = min(rem[0], size) if cls & 1 else 0
    top1 = min(rem[1], size) if cls & 2 else 0
    top2 = min(rem[2], size) if cls & 4 else 0
    total = 0.0
    for x0 in range(top0 + 1):
        for x1 in range(min(top1, size - x0) + 1):
            for x2 in range(min(top2, size - x0 - x1) + 1):
                rest = r - x0 * spec[W_RADIX] - x1 * spec[W_RADIX + 1] - x2 * spec[W_RADIX + 2]
                ways = completions[next_k * states + rest]
                if ways == 0.0:
                    continue
                weight = _FACTORIAL[size] / (
                    _FACTORIAL[x0] * _FACTORIAL[x1] * _FACTORIAL[x2] * _FACTORIAL[size - x0 - x1 - x2]
                )
                total += weight * ways
                if pick >= 0.0:
                    split[0] = x0
                    split[1] = x1
                    split[2] = x2
                    if total > pick:
                        return total
    return total


@njit(cache=True)
def world_count(spec, completions):
    """Number of consistent deals of the unseen tiles (boneyard order aside); 0 if none."""
    full = 0
    for j in range(spec[W_OTHERS]):
        full += spec[W_CAP + j] * spec[W_RADIX + j]
    return completions[full]


@njit(cache=True, inline="always")
def _uniform(rng):
    """A uniform float in [0, 1) from 53 random bits."""
    return np.float64(next_u64(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def sample_world(view, spec, completions, rng, hands, bone):
    """Draw one world uniformly: fill ``hands`` (every seat, own hand included)
    and ``bone`` (boneyard in draw order); return the boneyard size.

    ``spec`` and ``completions`` come from :func:`prepare` for the same view
    and must admit at least one world.
    """
    m = spec[W_OTHERS]
    states = spec[W_STATES]
    n_classes = spec[W_CLASSES]
    hands[:] = 0
    set_hand(hands, view[L.V_SEAT], view[L.V_HAND])
    rem = np.zeros(3, dtype=np.int64)
    split = np.zeros(3, dtype=np.int64)
    tiles = np.zeros(NARROW_TILES, dtype=np.int64)
    r = 0
    for j in range(m):
        r += spec[W_CAP + j] * spec[W_RADIX + j]
    n_bone = 0
    for k in range(n_classes):
        _decode(spec, r, rem)
        cls = spec[W_CLASS_SEATS + k]
        mask = spec[W_CLASS_TILES + k]
        size = 0
        while mask:
            tiles[size] = lowest_tile(mask)
            mask &= mask - 1
            size += 1
        total = completions[k * states + r]
        _class_total(spec, completions, k + 1, states, r, rem, cls, size, _uniform(rng) * total, split)
        # a uniform random order of the class's tiles, cut into the chosen split
        for i in range(size - 1, 0, -1):
            j = below(rng, i + 1)
            tmp = tiles[i]
            tiles[i] = tiles[j]
            tiles[j] = tmp
        at = 0
        for j in range(m):
            seat = spec[W_SEAT + j]
            for _ in range(split[j]):
                hands[seat * L.SET_WORDS] |= np.int64(1) << tiles[at]
                at += 1
            r -= split[j] * spec[W_RADIX + j]
        while at < size:
            bone[n_bone] = tiles[at]
            n_bone += 1
            at += 1
    for i in range(n_bone - 1, 0, -1):
        j = below(rng, i + 1)
        tmp = bone[i]
        bone[i] = bone[j]
        bone[j] = tmp
    return n_bone
