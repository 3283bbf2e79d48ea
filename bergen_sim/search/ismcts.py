"""``ismcts``: information-set Monte Carlo tree search over the rest of the hand.

Idea (single-observer ISMCTS: Cowling, Powley and Whitehouse, "Information
Set Monte Carlo Tree Search", IEEE TCIAIG 2012): one tree of moves is grown
over many worlds instead of one evaluation per world.  Each iteration deals
the hidden tiles anew (the ``reader``'s worlds: consistent with the view and
kept in proportion to the other seats' plays, :mod:`bergen_sim.search.reader`),
walks down the tree from the decision, at every turn choosing among the
moves legal *in this world* by UCB1 with availability counts (a move's
exploration term counts the iterations in which it was legal, not the
parent's visits), adds one new node, plays the rest of the hand with the
``base`` policy (:mod:`bergen_sim.search.rollout`) and credits every node on
the path with the match-win probability at the end of the hand
(:mod:`bergen_sim.search.match_value`) of the side that made that node's
move.  Draws happen inside a turn, from the world's boneyard; a node is
identified by the moves that lead to it, so the other seats' moves are
branches too (their hidden draws are averaged over).

Compared with ``pimc`` this gives the later decisions of every seat, the
deciding one's included, a search of their own instead of the base policy,
and never lets a later choice depend on a world the chooser could not tell
apart (no strategy fusion).  The move played is the root move
visited most (ties: higher mean, then the first listed).  The search stops
before its budget once that move is settled: when it leads every other
root move by more visits than the iterations left, so that no budget could
change the move, only the cost (measured in research/time-limit/README.md).

Settings (``ismcts:iterations=2000:explore=3``) are declared once, with their defaults and meanings, in :data:`PARAMS`;
``bergen-sim policies --settings`` lists them.

Why the defaults: with ``expand=1`` a fresh node's moves are first tried once each, so the other
seats' replies are at first modelled as uniformly random, a worse model of a player than ``base``; 8 did
best of the values tried.  Racing the root moves (``race=1``) and steering the other seats' replies
(``prior``) are measured in research/time-limit/.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from bergen_sim.engine import layout as L
from bergen_sim.engine.bits import borrow
from bergen_sim.engine.hand import (
    HAND_OVER,
    MATCH_OVER,
    HandBuffers,
    advance,
    begin_turns,
    borrowed,
    play,
    side_count,
    side_of_seat,
)
from bergen_sim.engine.keyed_random import next_u64, stream_state
from bergen_sim.engine.view import unseen_tiles, used_slots
from bergen_sim.engine.worlds import USE_LEAD, prepare, world_count
from bergen_sim.policies.base import LEAD_FOLLOW, Setting, lead_by, own_hand, positions
from bergen_sim.policies.expert import WEIGHTS, move_score
from bergen_sim.search.endgame import play_out_solved, stack_buffers, stack_for
from bergen_sim.search.inference import MODELS, READING_SETTINGS, play_evidence
from bergen_sim.search.match_value import table_for, win_probability
from bergen_sim.search.pimc import Moves, load_world
from bergen_sim.search.reader import BATCH, Reading, draw_world, leader, world_buffers
from bergen_sim.search.reader import race as race_moves
from bergen_sim.search.rollout import BASE_POLICIES, play_out, turn_view

NAME = "ismcts"

#: settings: name -> (default, allowed values); see bergen_sim.runtime.registry
PARAMS = {
    "iterations": Setting(
        1000,
        range(1, 100_001),
        "worlds dealt at most, each one walk down the tree and one rollout; the cost is linear in the walks run",
    ),
    "explore": Setting(5, range(0, 101), "the UCB1 constant in tenths (values are match-win probabilities)"),
    "expand": Setting(
        8,
        range(1, 100_001),
        "visits a node needs before the moves after it are searched; until then the base policy plays on from it",
    ),
    "trust": Setting(
        10,
        range(0, 101),
        "in tenths, how strongly the other seats' plays are believed (0: uniform "
        "worlds); a world loses exp(-trust/10) per point of the model's score its plays passed up",
    ),
    "base": Setting("expert", BASE_POLICIES, "the built-in that plays the rollouts"),
    "leaves": Setting(
        0,
        range(0, 100_001),
        "0 (off) or a node budget: a rollout with nothing left to draw ends in "
        "an exact solve of the rest of the hand (two sides only)",
    ),
    "model": Setting(
        "points", MODELS, "the model of the other seats' play that weighs the worlds (bergen_sim.search.inference)"
    ),
    "settle": Setting(
        1, range(0, 2), "1 stops the search once no budget could change the move; 0 runs every iteration"
    ),
    "race": Setting(0, range(0, 2), "1 races the root moves on common worlds, as reader does, instead of UCB1"),
    "prior": Setting(
        0,
        range(0, 101),
        "0 (off) or, in hundredths, how much the other seats' moves in the tree "
        "are steered toward what expert's model says each would play with its hand in this world",
    ),
}

#: the configuration that measured best against ``pimc`` at the default budget (research/imitation/README.md):
#: ``ismcts:model=expert:trust=20``
STRONGEST = NAME + READING_SETTINGS
#: the raced configuration within 5 ms per decision (the time a player may take), the base of STEERED below: STRONGEST
#: with a smaller exploration constant, the root moves raced on common worlds, and the iterations that fit; as strong as
#: UCB1 at the root with the iterations that fit (2800), at less time per decision (research/time-limit/README.md, "Racing the
#: root moves")
TIME_LIMIT_SETTINGS = {"iterations": 4000, "explore": 3, "race": 1}
AT_TIME_LIMIT = STRONGEST + "".join(f":{name}={value}" for name, value in TIME_LIMIT_SETTINGS.items())
#: the configuration that measured best against ``pimc`` within 5 ms per decision: AT_TIME_LIMIT with the other
#: seats' replies in the tree steered by the model of their play
#: (``prior``), at the weight the exploratory runs chose and its check on fresh deals confirmed (research/time-limit/README.md,
#: "Steering the other seats' replies"); ``analyze``'s tree search steers as it does
STEERING_SETTINGS = {"prior": 5}
STEERED = AT_TIME_LIMIT + "".join(f":{name}={value}" for name, value in STEERING_SETTINGS.items())


#: where each setting sits in the row of settings the kernel passes (``settings``: int64 codes, PARAMS order)
_ITERATIONS, _EXPLORE, _EXPAND, _TRUST, _BASE, _LEAVES, _MODEL, _SETTLE, _RACE, _PRIOR = positions(
    PARAMS, "iterations", "explore", "expand", "trust", "base", "leaves", "model", "settle", "race", "prior"
)


def kernel_arrays(rules, params: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Constant arrays the kernel passes after the settings: the rules vector and the match-value table."""
    return rules.to_array(), table_for(rules, BASE_POLICIES[params[_BASE]])


#: the int64 node table: a row per node of the tree, row 0 the decision itself
NODE = L.Vector(
    "N",
    [
        L.Field("tile", meaning="the move that leads to the node: its tile ..."),
        L.Field("end", meaning="... and its end"),
        L.Field("mover", meaning="the seat that made the move (-1: the decision)"),
        L.Field("child", meaning="the node's first child (-1: none)"),
        L.Field("sibling", meaning="the next child of the node's parent (-1: none)"),
    ],
    size_name="N_INT",
    title="tree node",
)
#: the float64 node table, row for row with the int64 one
NODE_STATS = L.Vector(
    "N",
    [
        L.Field("visits", meaning="walks through the node"),
        L.Field("value", meaning="their values summed (the mover's side's match-win probability)"),
        L.Field("avail", meaning="walks in which the node's move was legal (UCB1's availability count)"),
    ],
    size_name="N_FLOAT",
    title="tree node statistics",
)
#: the layouts this module declares (tools/generate_constants.py writes their constants below)
LAYOUTS = (NODE, NODE_STATS)
# --- generated from the declarations above by tools/generate_constants.py; do not edit ---
N_TILE = 0
N_END = 1
N_MOVER = 2
N_CHILD = 3
N_SIBLING = 4
N_INT = 5
N_VISITS = 0
N_VALUE = 1
N_AVAIL = 2
N_FLOAT = 3
# --- end of generated constants ---


@njit(cache=True, inline="always")
def _child(nodes, parent, tile, end):
    """The child of ``parent`` reached by (tile, end), or -1."""
    c = nodes[parent, N_CHILD]
    while c >= 0:
        if nodes[c, N_TILE] == tile and nodes[c, N_END] == end:
            return c
        c = nodes[c, N_SIBLING]
    return -1


@njit(cache=True)
def _model_odds(b, seat, n, trust, out):
    """The reading model's chance of each of the ``n`` moves listed in ``b`` for ``seat`` in this world, into
    ``out[:n]``: ``expert``'s score of each move with the seat's own hand of this world, and a move passing up
    ``d`` points of the best score ``exp(-trust * d)`` times as likely (the model that weighs the worlds,
    :mod:`bergen_sim.search.inference`, normalized over the moves).

    Called, not inlined: the walk it serves is inlined into two loops (:func:`_grow`, :func:`evaluate_worlds`),
    and an inlined copy of ``expert``'s features in each cost a cold compile about three times what the call
    costs it (``benchmarks/search_compile.py``, against the tree before ``prior``)."""
    view = turn_view(b, seat)
    side = view[L.V_SIDE]
    hand = own_hand(view, b.no_tiles)
    unseen = unseen_tiles(view, b.no_tiles)
    top = -np.inf
    for j in range(n):
        out[j] = move_score(view, side, hand, unseen, b.move_tiles[j], b.move_ends[j], WEIGHTS, b.no_tiles)
        top = max(top, out[j])
    total = 0.0
    for j in range(n):
        out[j] = np.exp(trust * (out[j] - top))
        total += out[j]
    for j in range(n):
        out[j] /= total


class Walks(NamedTuple):
    """How the walks down a tree choose and grow (compiled code receives them as one argument)."""

    explore: float  # the UCB1 constant (values are match-win probabilities)
    expand: np.int64  # visits a node needs before the moves after it are searched
    trust: float  # a world loses exp(-trust) per point of the model's score its plays passed up
    model: np.int64  # the model of the other seats' play (an index into inference.MODELS)
    prior: float  # 0, or how much the other seats' moves are steered toward the model's odds of them


class TreeSearch(NamedTuple):
    """The settings of one :func:`search` (compiled code receives them as one argument)."""

    iterations: np.int64  # walks at most, each in a world of its own (a raced root: each root move's walk in a world)
    walks: Walks
    base: np.int64  # the rollout policy's code (its index in BASE_POLICIES)
    leaves: np.int64  # 0, or the node budget of an exact solve at a rollout's end with nothing left to draw
    settled_stop: bool  # stop once no budget could change the move
    race: bool  # race the root moves on common worlds instead of UCB1


class Tree(NamedTuple):
    """The tree a search grows and the scratch arrays of its walks."""

    nodes: np.ndarray  # (rows, N_INT): the moves, row 0 the decision itself
    stats: np.ndarray  # (rows, N_FLOAT): visits, summed values, availability
    path: np.ndarray  # the nodes of the current walk, from the root
    odds: np.ndarray  # the model's odds of the moves at a steered turn (Walks.prior)


class Playing(NamedTuple):
    """What a walk plays its world on, and how it plays the hand out from the tree's frontier."""

    rules: np.ndarray
    table: np.ndarray  # the match-value table the hand's end is valued by
    hands: np.ndarray  # the world dealt (reader.draw_world), loaded into ``b`` before each walk
    bone: np.ndarray
    b: HandBuffers  # the world a walk plays in
    roll_rng: np.ndarray  # the play-out's random stream
    stack: tuple  # the exact solve's search stack (endgame.stack_buffers; empty without ``leaves``)
    budget: np.ndarray  # the solve's nodes left
    base: np.int64  # the rollout policy's code (its index in BASE_POLICIES)
    leaves: np.int64  # 0, or the solve's node budget


@njit(cache=True, inline="always")
def _playing(rules, table, hands, bone, b, stack, base, leaves):
    """A :class:`Playing` on these buffers, with a fresh play-out stream and solve budget."""
    return Playing(
        rules, table, hands, bone, b, np.zeros(1, dtype=np.uint64), stack, np.zeros(1, dtype=np.int64), base, leaves
    )


@njit(cache=True, inline="always")
def _play_out(p, seat):
    """Play the hand out from ``seat``'s play: side 0's solved value (``leaves`` > 0), else -1 (read the world)."""
    if p.leaves > 0:
        return play_out_solved(p.rules, p.b, seat, p.base, p.roll_rng, p.table, p.stack, p.budget, p.leaves)
    play_out(p.rules, p.b, seat, p.base, p.roll_rng)
    return -1.0


@njit(cache=True)
def reading_for(view, rules, use_lead, trust, model, no_tiles):
    """The worlds of the decision in ``view`` (``use_lead``: as engine/worlds.py's :func:`prepare`) (a :class:`~bergen_sim.search.reader.Reading`), the number of deals
    consistent with it, and the buffers a world is dealt into and played on: ``(reading, consistent, hands,
    bone, b)``."""
    spec, completions = prepare(view, rules, use_lead, no_tiles)
    hands, bone, evidence, line, b = world_buffers(no_tiles)
    rows = play_evidence(view, evidence, line, no_tiles, model)
    return (
        Reading(spec, completions, evidence, rows, trust, model, no_tiles),
        world_count(spec, completions),
        hands,
        bone,
        b,
    )


@njit(cache=True)
def search(view, moves, key, settings, rules, table, nodes, stats, no_tiles):
    """Grow the tree for at most ``settings.iterations`` worlds; returns the index of the root move to play.

    ``moves`` is a :class:`Moves`, ``settings`` a :class:`TreeSearch`.
    ``nodes`` (``iterations + 1`` rows of ``N_INT``) and ``stats`` (of
    ``N_FLOAT``) receive the tree; row 0 is the decision itself.  With
    ``settled_stop`` the search ends as soon as the most visited root move
    leads every other by more visits than the iterations left: the move
    played is then the one the full budget would play (each iteration adds
    one visit to one root move, so nothing can catch up), at a fraction of
    the cost in clear decisions.  The visits of the root moves sum to the
    iterations run.  With ``race`` the root moves race on common worlds
    instead (:func:`_grow`).
    """
    walks = settings.walks
    reading, consistent, hands, bone, b = reading_for(view, rules, USE_LEAD, walks.trust, walks.model, no_tiles)
    if consistent == 0.0:
        return 0  # no world fits the view (cannot happen for a real one): any move is as good
    solve_leaves = settings.leaves if side_count(rules) == 2 else np.int64(0)
    stack = stack_for(view, rules) if solve_leaves > 0 else stack_buffers(0)  # a few hundred kB: only when used
    playing = _playing(rules, table, hands, bone, b, stack, settings.base, solve_leaves)
    path = np.zeros(settings.iterations + 2, dtype=np.int64)
    tree = Tree(nodes, stats, path, np.zeros(b.move_tiles.shape[0], dtype=np.float64))
    return _grow(view, moves, key, settings, tree, reading, playing)


@njit(cache=True, inline="always")
def _borrowed_tree(t):
    """``t`` with every array borrowed (engine/bits.py says why)."""
    return Tree(borrow(t.nodes), borrow(t.stats), borrow(t.path), borrow(t.odds))


@njit(cache=True, inline="always")
def _borrowed_playing(p):
    """``p`` with every array borrowed (engine/bits.py says why): the struct is copied into every inlined walk,
    and an array with a reference count would be counted at each copy."""
    stack = p.stack
    return Playing(
        borrow(p.rules),
        borrow(p.table),
        borrow(p.hands),
        borrow(p.bone),
        borrowed(p.b),
        borrow(p.roll_rng),
        (borrow(stack[0]), borrow(stack[1]), borrow(stack[2]), borrow(stack[3]), borrow(stack[4]), borrow(stack[5])),
        borrow(p.budget),
        p.base,
        p.leaves,
    )


@njit(cache=True, inline="always")
def _settled(nodes, stats, remaining):
    """Whether the most visited root move leads every other by more than ``remaining`` visits."""
    first = 0.0
    second = 0.0
    c = nodes[0, N_CHILD]
    while c >= 0:
        visits = stats[c, N_VISITS]
        if visits > first:
            second = first
            first = visits
        elif visits > second:
            second = visits
        c = nodes[c, N_SIBLING]
    return first - second > remaining


@njit(cache=True)
def _grow(view, moves, key, settings, tree, reading, playing):
    """The body of :func:`search`, on borrowed views of its arrays, which :func:`search` owns
    (engine/hand.py, :func:`~bergen_sim.engine.hand.borrowed`, says why).

    Both root rules run in this one loop of walks, so that the walk
    (:func:`_iterate`, inlined for speed) is compiled once, not once per
    rule: a second inlined copy added about 40 s to a cold compile.

    - UCB1 (``race`` False): walk ``i`` meets world ``i`` and chooses the
      root move like every other move; the move played is the most visited
      (ties: higher mean, then the first listed).
    - The raced root (``race`` True): world ``w`` is dealt once and every root
      move still in the race walks its own subtree in it with the same
      play-out stream (common random numbers), so a root move's difference
      to the leader is free of the luck of the world; after every
      ``BATCH`` worlds the moves race on their paired values as ``reader``'s
      do (:func:`bergen_sim.search.reader.race`) and the move played is the
      leader.  A world is begun only if every move in the race can meet it
      within the budget of ``iterations`` walks; with fewer walks than root
      moves not one world could, and UCB1 spends them instead.
    """
    view = borrow(view)
    moves = Moves(borrow(moves.tiles), borrow(moves.ends), moves.n)
    tree, playing = _borrowed_tree(tree), _borrowed_playing(playing)
    reading = Reading(
        borrow(reading.spec),
        borrow(reading.completions),
        borrow(reading.evidence),
        reading.rows,
        reading.trust,
        reading.model,
        reading.no_tiles,
    )
    nodes, stats, b = tree.nodes, tree.stats, playing.b
    n_moves, iterations = moves.n, settings.iterations
    used = used_slots(view)
    nodes[0, N_CHILD] = -1
    nodes[0, N_MOVER] = -1
    # fewer walks than root moves: no world could meet them all; UCB1 uses them
    race = settings.race and n_moves <= iterations
    worlds = max(iterations // 2, 1) if race else 1  # the race's books: a row per world, a column per root move
    values = np.zeros((worlds, n_moves), dtype=np.float64)
    points = np.zeros((worlds, n_moves), dtype=np.float64)
    active = np.ones(n_moves, dtype=np.bool_)
    n_racing = n_moves
    n_worlds = 0  # worlds every move in the race has met (race)
    n_nodes = 1
    walks = 0
    forced = _next_racer(active, -1, n_moves) if race else -1  # the root move that walks next (race)
    deal = True  # the next walk begins a world
    n_bone = 0
    roll_start = np.uint64(0)
    while True:
        w = n_worlds if race else walks
        if deal:
            n_bone = draw_world(view, reading, key, w, playing.hands, playing.bone)
            roll_start = stream_state(key, w, 1, 0)
            deal = not race
        load_world(playing.rules, view, used, b, playing.hands, playing.bone, n_bone)
        playing.roll_rng[0] = roll_start
        n_nodes, value, gained = _iterate(
            view, moves, forced, settings.walks, settings.walks.expand, tree, playing, n_nodes
        )
        walks += 1
        if not race:
            if walks == iterations or (settings.settled_stop and _settled(nodes, stats, iterations - walks)):
                break
            continue
        values[w, forced] = value
        points[w, forced] = gained
        forced = _next_racer(active, forced, n_moves)
        if forced < n_moves:
            continue
        n_worlds += 1  # every move in the race has met world w
        if n_worlds % BATCH == 0:
            n_racing = race_moves(values, points, n_worlds, active, n_moves)
            if n_racing == 1:
                break
        if n_worlds == worlds or walks + n_racing > iterations:
            break
        forced = _next_racer(active, -1, n_moves)
        deal = True
    if race:
        return leader(values, points, n_worlds, active, n_moves)
    return _most_visited(nodes, stats, moves)


#: most tree nodes the analyzer's engine keeps (:func:`evaluate_worlds`; 64 bytes each): past it the walks stop
#: growing the tree and play on from its frontier
ANALYZER_NODES = 1 << 18
#: an ``expand`` no node reaches: no node's moves are searched any more (the tree is full)
_NO_EXPAND = 1 << 62


class AnalyzerTree(NamedTuple):
    """The analyzer's tree search (:func:`evaluate_worlds`): its walks, and the tree it keeps from one batch of
    worlds to the next (:func:`analyzer_tree`)."""

    walks: Walks
    nodes: np.ndarray
    stats: np.ndarray
    used: np.ndarray  # (1,): rows of ``nodes`` in use (1: the decision alone)


def analyzer_tree(walks: Walks, worlds: int, n_moves: int) -> AnalyzerTree:
    """The tree search of :func:`evaluate_worlds` for up to ``worlds`` worlds of ``n_moves`` root moves."""
    rows = min(worlds * n_moves, ANALYZER_NODES) + 1
    nodes = np.zeros((rows, N_INT), dtype=np.int64)
    return AnalyzerTree(walks, nodes, np.zeros((rows, N_FLOAT), dtype=np.float64), np.ones(1, dtype=np.int64))


@njit(cache=True)
def evaluate_worlds(rules, view, moves, batch, table, values, points, no_tiles, search):
    """Every root move in the worlds of ``batch`` (rows ``0 .. batch.worlds - 1`` of ``values``/``points``).

    The analyzer's entry point (:func:`bergen_sim.search.position.analyze`
    with ``player="ismcts"``): the raced root's walks without the race, so
    every move meets every world with the same play-out stream and has a
    value per world, the analyzer's paired unit.  ``search`` (an
    :class:`AnalyzerTree`) holds the walks, which explore and steer the other
    seats' replies as the player's settings do, and the tree, which carries
    over from one call to the next; once it is full the walks play on from
    its frontier.  Returns the
    number of consistent deals (0: none, nothing is written).
    """
    walks = search.walks
    reading, consistent, hands, bone, b = reading_for(view, rules, batch.use_lead, walks.trust, walks.model, no_tiles)
    if consistent == 0.0:
        return consistent
    playing = _playing(rules, table, hands, bone, b, stack_buffers(0), batch.base, np.int64(0))
    path = np.zeros(L.MAX_TILES + 2, dtype=np.int64)  # a walk's depth: at most the plays left in the hand
    walk_tree = Tree(search.nodes, search.stats, path, np.zeros(b.move_tiles.shape[0], dtype=np.float64))
    used = used_slots(view)
    n_nodes = search.used[0]
    if n_nodes == 1:
        search.nodes[0, N_CHILD] = -1
        search.nodes[0, N_MOVER] = -1
    capacity = search.nodes.shape[0]
    for i in range(batch.worlds):
        w = batch.first + i
        n_bone = draw_world(view, reading, batch.key, w, hands, bone)
        roll_start = stream_state(batch.key, w, 1, 0)
        grow = walks.expand if n_nodes + moves.n <= capacity else _NO_EXPAND  # a walk adds at most one node
        for k in range(moves.n):
            load_world(rules, view, used, b, hands, bone, n_bone)
            playing.roll_rng[0] = roll_start
            n_nodes, values[i, k], points[i, k] = _iterate(view, moves, k, walks, grow, walk_tree, playing, n_nodes)
    search.used[0] = n_nodes
    return consistent


@njit(cache=True, inline="always")
def _next_racer(active, after, n_moves):
    """The first root move after ``after`` still in the race, or ``n_moves``."""
    k = after + 1
    while k < n_moves and not active[k]:
        k += 1
    return k


@njit(cache=True)
def _most_visited(nodes, stats, moves):
    """The root move visited most (ties: higher mean, then the first listed)."""
    best = 0
    best_visits = -1.0
    best_mean = -1.0
    for k in range(moves.n):
        c = _child(nodes, 0, moves.tiles[k], moves.ends[k])
        if c < 0:
            continue
        visits = stats[c, N_VISITS]
        mean = stats[c, N_VALUE] / visits
        if visits > best_visits or (visits == best_visits and mean > best_mean):
            best = k
            best_visits = visits
            best_mean = mean
    return best


@njit(cache=True, inline="always")
def _iterate(view, moves, forced, walks, expand, tree, playing, n_nodes):
    """One walk down the tree in the world loaded in ``b``, a play-out and the credit along the path.

    From the decision (row 0) each turn takes an untried move of this world
    if there is one (a new node: the last of the walk), else the move with the
    best UCB1 score with availability counts; root move ``forced`` (>= 0) is
    taken at the decision instead.  Returns ``(nodes used, the deciding
    side's value, the points it scored from the decision on)``.
    """
    nodes, stats, path, odds = tree
    rules, b, table = playing.rules, playing.b, playing.table
    move_tiles, move_ends, n_moves = moves
    explore, prior, trust = walks.explore, walks.prior, walks.trust
    me = view[L.V_SEAT]
    world = b.policy_view
    pos = 0
    node = 0
    seat = me
    n = n_moves
    b.move_tiles[:n] = move_tiles[:n]
    b.move_ends[:n] = move_ends[:n]
    depth = 0
    leaf0 = -1.0  # side 0's value when a play-out solved the hand's end; else read from the world
    while True:
        untried = -1
        best = -1
        if depth == 0 and forced >= 0:
            best = _child(nodes, 0, move_tiles[forced], move_ends[forced])
            if best < 0:
                untried = forced
            else:
                stats[best, N_AVAIL] += 1.0
        else:
            for j in range(n):
                c = _child(nodes, node, b.move_tiles[j], b.move_ends[j])
                if c < 0:
                    if untried < 0:
                        untried = j
                else:
                    stats[c, N_AVAIL] += 1.0
        if untried >= 0:
            c = n_nodes
            n_nodes += 1
            nodes[c, N_TILE] = b.move_tiles[untried]
            nodes[c, N_END] = b.move_ends[untried]
            nodes[c, N_MOVER] = seat
            nodes[c, N_CHILD] = -1
            nodes[c, N_SIBLING] = nodes[node, N_CHILD]
            nodes[node, N_CHILD] = c
            stats[c, N_AVAIL] = 1.0
            path[depth] = c
            depth += 1
            if not play(rules, b, seat, nodes[c, N_TILE], nodes[c, N_END]):
                begin_turns(b, pos, b.turn[L.TURN_BONE_STOP])
                leaf0 = _play_out(playing, seat)
            break
        if best < 0:
            biased = prior > 0.0 and seat != me
            if biased:
                _model_odds(b, seat, n, trust, odds)
            best_score = -np.inf
            for j in range(n):
                c = _child(nodes, node, b.move_tiles[j], b.move_ends[j])
                score = stats[c, N_VALUE] / stats[c, N_VISITS] + explore * np.sqrt(
                    np.log(stats[c, N_AVAIL]) / stats[c, N_VISITS]
                )
                if biased:
                    score += prior * odds[j]
                if score > best_score:
                    best = c
                    best_score = score
        path[depth] = best
        depth += 1
        if play(rules, b, seat, nodes[best, N_TILE], nodes[best, N_END]):
            break
        if stats[best, N_VISITS] < expand:
            begin_turns(b, pos, b.turn[L.TURN_BONE_STOP])  # too few visits to search its moves yet
            leaf0 = _play_out(playing, seat)
            break
        n, seat, pos = advance(rules, b, seat, pos)
        if n == HAND_OVER or n == MATCH_OVER:
            break
        node = best
    mine = 0.0
    for d in range(depth):
        c = path[d]
        stats[c, N_VISITS] += 1.0
        mover_side = side_of_seat(rules, nodes[c, N_MOVER])
        if leaf0 >= 0.0:  # two sides: the other side's chance is the rest
            value = leaf0 if mover_side == 0 else 1.0 - leaf0
        else:
            value = win_probability(table, rules, world, mover_side)
        stats[c, N_VALUE] += value
        if d == 0:
            mine = value
    side = view[L.V_SIDE]
    return n_nodes, mine, np.float64(world[L.V_SCORE + side] - view[L.V_SCORE + side])


@njit(cache=True)
def choose(view, move_tiles, move_ends, n_moves, rng, no_tiles, settings, rules, table):
    """Information-set MCTS over the rest of the hand (``settings``: the seat's row of settings, PARAMS order)."""
    iterations = settings[_ITERATIONS]
    tree = np.zeros((iterations + 1, N_INT), dtype=np.int64)
    stats = np.zeros((iterations + 1, N_FLOAT), dtype=np.float64)
    walks = Walks(
        settings[_EXPLORE] / 10.0,
        settings[_EXPAND],
        settings[_TRUST] / 10.0,
        settings[_MODEL],
        settings[_PRIOR] / 100.0,
    )
    tree_search = TreeSearch(
        iterations, walks, settings[_BASE], settings[_LEAVES], settings[_SETTLE] == 1, settings[_RACE] == 1
    )
    moves = Moves(move_tiles, move_ends, n_moves)
    return search(view, moves, next_u64(rng), tree_search, rules, table, tree, stats, no_tiles)


@njit(cache=True)
def choose_lead(view, move_tiles, move_ends, n_moves, rng, no_tiles, settings, rules, table):
    """The double to lead under ``any-double``: the rule ``expert`` leads by (base.LEAD_FOLLOW)."""
    return lead_by(view, move_tiles, n_moves, LEAD_FOLLOW, no_tiles)
