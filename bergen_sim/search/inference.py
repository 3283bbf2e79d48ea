"""How likely a sampled world makes the other seats' plays: inference from moves, not only from draws.

The world sampler (:mod:`bergen_sim.engine.worlds`) deals the hidden tiles
uniformly among the deals that break no void.  But the other seats' choices
say more: a seat that could have scored a header and did not probably
lacked the tile.  This module scores a world by the likelihood of every
play the other seats made this hand under a simple model of their play,
so that search can keep worlds in proportion to it (rejection sampling in
:mod:`bergen_sim.search.reader`).

Three models (the searchers' ``model`` setting), all of the form "a seat
plays a best move by some score, and passing up ``d`` points of that score
has likelihood ``exp(-trust * d)``, relative to playing a best one"; with
``trust`` 0 every world is equally likely (plain uniform worlds):

- ``points`` ("seats take points", the default): the score is the header
  value of the move (2 or 3, before the near-target cut, which needs the
  score of the moment).
- ``expert`` ("seats play like expert"): the score is ``expert``'s weighted
  sum of its features (:mod:`bergen_sim.policies.expert`: points, the
  threat of the next seat's header answer, doubles, own tiles that still
  fit, a known-void next seat), computed with what the seat could see at
  that play.  So a seat that left an open header answer probably held the
  answering tile itself, one that kept a double probably had no other good
  move, and so on.  Three approximations keep it cheap, each a small error
  in a model that is only a model: for the threat, the seat's unseen tiles
  are everything not on the table and not surely held (the rest of its
  world hand counts as unseen, except the answering tile itself), and the
  hand counts, voids and scores are those of the decision, not of the play.
  Measured (research/imitation/README.md): the true world ranks above more uniform
  worlds under this model than under ``points``, and ``ismcts`` wins more
  with it.
- ``history`` (``expert`` read through the draws): ``expert``'s score, and
  the plays a seat made before it drew are read too (below).

What a seat held at one of its plays is known in a world only if it has
drawn nothing since: then it held its world hand plus every tile it played
from that play on.  Plays followed by a draw of the same seat are skipped
by ``points`` and ``expert`` (the tiles drawn since are not told apart from
the ones held before).  ``history`` reads them too, about half of the other
seats' plays in 2-player games: the view tells how many tiles the seat
drew at each draw since, which one it drew last and played at once, and
the numbers the ends showed (the tiles it kept show none of them); which
of its tiles it drew is guessed, uniformly among those that fit, once per
world, and the play is scored with the hand that guess leaves
(:func:`_held_then`).
The play log of the view (``V_PLAYS``: seat, tile, end, draw/pass moments
before it) gives the order; nothing but the view and the world is read.

Sets have the game's width (``no_tiles``, :mod:`bergen_sim.engine.tileset`),
as everywhere in compiled code.  The model reads a line's two ends: with the spinner the likelihood is 1 (no
inference from plays; the draws and passes still count).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from bergen_sim.engine import layout as L
from bergen_sim.engine.keyed_random import below, mix64, stream_state
from bergen_sim.engine.play_rules import hand_of, header_value, numbers_tiles, other_half
from bergen_sim.engine.tileset import (
    bit,
    both,
    count,
    drop_lowest,
    first_tiles,
    has,
    is_empty,
    load,
    lowest,
    minus,
    number_tiles,
    store,
    union,
)
from bergen_sim.engine.view import used_slots
from bergen_sim.policies.base import ends_after, open_tiles, side_of
from bergen_sim.policies.expert import WEIGHTS, move_features

__all__ = ["EVIDENCE_WIDTH", "drew_since", "evidence_buffer", "play_evidence", "replay_start", "world_log_likelihood"]

#: most candidates of a play: every tile showing either end's number, on each end
MAX_PAIRS = 2 * (L.MAX_NUMBER + 1)
#: draws since a play that the ``history`` model reads through (a row with more is skipped)
MAX_EPISODES = 4
#: a candidate move of a play (a tile not yet on the table that fits an end, on that end), for the ``expert``
#: model; scores in SCORE_UNITs
PAIR = L.Vector(
    "P",
    [
        L.Field("tile"),
        L.Field("answer", meaning="the tile that would answer it with a header (the one showing both new ends)"),
        L.Field("static", meaning="expert's score of the move without the world-dependent terms"),
        L.Field("threat", meaning="expert's threat term"),
        L.Field("fit", L.SET_WORDS, "the tiles that fit the ends after it (for follow)", per="word"),
    ],
    size_name="PAIR_WIDTH",
    title="candidate move",
)
#: a draw of a seat after its play, for the ``history`` model
EPISODE = L.Vector(
    "E",
    [
        L.Field("kept", meaning="how many drawn tiles it kept"),
        L.Field(
            "shows", L.SET_WORDS, "the tiles showing an open end's number then (a kept tile shows none)", per="word"
        ),
        L.Field(
            "after",
            L.SET_WORDS,
            "the tiles it put down after that draw (a kept tile is one of them or still in its hand)",
            per="word",
        ),
    ],
    size_name="EPISODE_WIDTH",
    title="draw episode",
)
#: one row of evidence (:func:`play_evidence`): a play of another seat
EVIDENCE = L.Vector(
    "EV",
    [
        L.Field("seat"),
        L.Field("value", meaning="the header value of its actual play"),
        L.Field("known", meaning="the best header it surely could have made (with tiles it put down from then on)"),
        L.Field("three", L.SET_WORDS, "the tiles that would have made a triple-header", per="word"),
        L.Field("two", L.SET_WORDS, "the tiles that would have made a double-header", per="word"),
        L.Field(
            "later",
            L.SET_WORDS,
            "expert model: the tiles it put down from the play on (the play's own among them)",
            per="word",
        ),
        L.Field("actual", meaning="expert model: which candidate is the play made"),
        L.Field("pairs", meaning="expert model: how many candidates"),
        L.Field(
            "pair0", MAX_PAIRS * PAIR.size, "expert model: the candidates (PAIR_WIDTH slots each)", per="candidate"
        ),
        L.Field("episodes", meaning="history model, a seat that drew after the play: how many of its draws since"),
        L.Field(
            "final",
            L.SET_WORDS,
            "history model: the tiles it drew last in a draw and put down at once (surely drawn)",
            per="word",
        ),
        L.Field(
            "episode0", MAX_EPISODES * EPISODE.size, "history model: per draw (EPISODE_WIDTH slots each)", per="draw"
        ),
    ],
    size_name="EVIDENCE_WIDTH",
    title="evidence row",
)
#: the layouts this module declares (tools/generate_constants.py writes their constants below)
LAYOUTS = (PAIR, EPISODE, EVIDENCE)
# --- generated from the declarations above by tools/generate_constants.py; do not edit ---
P_TILE = 0
P_ANSWER = 1
P_STATIC = 2
P_THREAT = 3
P_FIT = 4
PAIR_WIDTH = 7
E_KEPT = 0
E_SHOWS = 1
E_AFTER = 4
EPISODE_WIDTH = 7
EV_SEAT = 0
EV_VALUE = 1
EV_KNOWN = 2
EV_THREE = 3
EV_TWO = 6
EV_LATER = 9
EV_ACTUAL = 12
EV_PAIRS = 13
EV_PAIR0 = 14
EV_EPISODES = 280
EV_FINAL = 281
EV_EPISODE0 = 284
EVIDENCE_WIDTH = 312
# --- end of generated constants ---
#: guesses of which tiles a seat drew (``_held_then``) tried before the numbers shown at the draws are ignored
GUESS_TRIES = 4
#: scores are stored as whole millionths of a point in the int64 rows
SCORE_UNIT = 1_000_000
#: the models of the other seats' play (the searchers' ``model`` setting): header points only, expert's score, or
#: expert's score read through the seats' draws too
MODELS = ("points", "expert", "history")
MODEL_POINTS, MODEL_EXPERT, MODEL_HISTORY = range(len(MODELS))
#: the reading of the other seats' plays that measured best (research/imitation/README.md): expert's
#: model at trust 20 (in tenths), the same settings in ``ismcts.STRONGEST`` and ``reader.STRONGEST``; ``analyze``
#: reads a game's plays with it
READING: dict[str, Any] = {"model": "expert", "trust": 20}
READING_SETTINGS = "".join(f":{k}={v}" for k, v in READING.items())


@njit(cache=True)
def drew_since(view, seat, moment):
    """Whether ``seat`` drew a tile at a draw/pass moment numbered ``moment`` or later (a full log: yes)."""
    n = view[L.V_LOG_N]
    if n >= L.V_LOG_CAPACITY:
        return True
    for k in range(moment, n):
        at = L.V_LOG + L.LOG_SIZE * k
        if view[at + L.LOG_SEAT] == seat and view[at + L.LOG_DRAWN] > 0:
            return True
    return False


@njit(cache=True, inline="always")
def _header_after(ends, doubles, tile, end):
    """Header value (0, 2 or 3, uncut) of the line after ``tile`` goes on ``end``."""
    number = ends[end]
    saved_double = doubles[end]
    ends[end] = other_half(tile, number)
    doubles[end] = L.TILE_IS_DOUBLE[tile]
    value = header_value(ends[L.END_L], ends[L.END_R], doubles[L.END_L], doubles[L.END_R])
    ends[end] = number
    doubles[end] = saved_double
    return value


@njit(cache=True)
def replay_start(view, n, line, no_tiles):
    """Set ``line`` to the lead of the hand; return the tiles each seat put down from the second play on.

    The returned sets (``SET_WORDS`` slots a seat) are built backwards over
    the ``n`` logged plays; a replay removes each play's tile from its seat's
    set as it passes it, so the set then holds what the seat put down from
    that play on.
    """
    lead_tile = view[L.V_PLAYS + L.PLAY_TILE]
    for e in range(L.N_ENDS):
        line[L.V_END + e] = L.TILE_LO[lead_tile]
        line[L.V_END_DOUBLE + e] = 1
    line[L.V_OPEN_ENDS] = 2
    later = np.zeros(L.MAX_SEATS * L.SET_WORDS, dtype=np.int64)
    for k in range(n - 1, 0, -1):
        at = L.V_PLAYS + L.PLAY_SIZE * k
        by = view[at + L.PLAY_SEAT] * L.SET_WORDS
        store(later, by, union(load(later, by, no_tiles), bit(view[at + L.PLAY_TILE], no_tiles)))
    return later


@njit(cache=True)
def evidence_buffer():
    """Rows for :func:`play_evidence`: one per entry of the play log."""
    return np.zeros((L.MAX_TILES, EVIDENCE_WIDTH), dtype=np.int64)


@njit(cache=True)
def play_evidence(view, evidence, line, no_tiles, model=MODEL_POINTS):
    """What the other seats' plays say, whatever the world: rows of ``evidence``; returns how many.

    The likelihood of a world needs, at each informative play (another
    seat's, with no draw of its own since), only the best header the seat
    could have made with what it held: its world hand plus every tile it put
    down from that play on.  Replaying the hand for every world would find
    the same line each time, so the hand is replayed once per decision here
    and each informative play becomes a row: its seat, the header value of
    the play made, the best value the tiles it put down from then on (the
    play's own tile among them) could have made, and the tiles that would
    have made a triple- and a double-header at that moment (on either end
    they fit).  :func:`world_log_likelihood` then scores a world from the rows
    alone, with a few set intersections per play.  No rows (0) where nothing
    is inferred: fewer than two plays, or the spinner.  ``line`` is a scratch
    view whose ends replay the hand (with ``MODEL_EXPERT``, a copy of ``view``).

    With ``model`` ``MODEL_EXPERT`` a row also lists the seat's candidate
    moves of the moment (:func:`_candidates`), for :func:`world_log_likelihood`'s
    expert model.
    """
    n = min(view[L.V_PLAYS_N], L.MAX_TILES)
    me = view[L.V_SEAT]
    if n < 2 or view[L.V_SPINNER] >= 0:
        return 0
    if model != MODEL_POINTS:  # expert's features read the rest of the view too
        used = used_slots(view)
        line[:used] = view[:used]
    ends = line[L.V_END : L.V_END + L.N_ENDS]
    doubles = line[L.V_END_DOUBLE : L.V_END_DOUBLE + L.N_ENDS]
    later = replay_start(view, n, line, no_tiles)
    on_table = bit(view[L.V_PLAYS + L.PLAY_TILE], no_tiles)
    rows = 0
    for k in range(1, n):
        at = L.V_PLAYS + L.PLAY_SIZE * k
        seat = view[at + L.PLAY_SEAT]
        tile = view[at + L.PLAY_TILE]
        end = view[at + L.PLAY_END]
        drew = drew_since(view, seat, view[at + L.PLAY_MOMENTS])
        if seat != me and (not drew or model == MODEL_HISTORY and _draws_since(view, n, k, evidence[rows], no_tiles)):
            three = no_tiles
            two = no_tiles
            fitting = union(number_tiles(ends[L.END_L], no_tiles), number_tiles(ends[L.END_R], no_tiles))
            while not is_empty(fitting):
                t = lowest(fitting)
                fitting = drop_lowest(fitting)
                best = 0
                for e in (L.END_L, L.END_R):
                    if L.TILE_LO[t] == ends[e] or L.TILE_HI[t] == ends[e]:
                        best = max(best, _header_after(ends, doubles, t, e))
                if best == 3:
                    three = union(three, bit(t, no_tiles))
                elif best == 2:
                    two = union(two, bit(t, no_tiles))
            held = load(later, seat * L.SET_WORDS, no_tiles)
            known = 3 if not is_empty(both(held, three)) else 2 if not is_empty(both(held, two)) else 0
            evidence[rows, EV_SEAT] = seat
            evidence[rows, EV_VALUE] = _header_after(ends, doubles, tile, end)
            evidence[rows, EV_KNOWN] = known
            store(evidence[rows], EV_THREE, three)
            store(evidence[rows], EV_TWO, two)
            if model != MODEL_POINTS:
                _candidates(line, seat, held, on_table, tile, end, evidence[rows], no_tiles)
            if not drew:
                evidence[rows, EV_EPISODES] = 0
            rows += 1
        store(later, seat * L.SET_WORDS, minus(load(later, seat * L.SET_WORDS, no_tiles), bit(tile, no_tiles)))
        on_table = union(on_table, bit(tile, no_tiles))
        ends[end] = other_half(tile, ends[end])
        doubles[end] = L.TILE_IS_DOUBLE[tile]
    return rows


@njit(cache=True)
def _draws_since(view, n, k, row, no_tiles):
    """Fill ``row``'s draws of the seat of play ``k`` since it (``history`` model); False if it cannot be read.

    A draw (a logged moment with tiles drawn) ended in a play when the next
    play of the hand is the seat's, right after it: that tile was drawn
    last and put down at once.  The others it drew (all of them, when it
    passed) it kept: each showed none of the open ends' numbers then, and
    is still in its hand or among the tiles it put down after the draw.
    False (skip the play) with more than ``MAX_EPISODES`` draws, or a full log.
    """
    seat = view[L.V_PLAYS + L.PLAY_SIZE * k + L.PLAY_SEAT]
    logged = view[L.V_LOG_N]
    if logged >= L.V_LOG_CAPACITY:
        return False
    final = no_tiles
    episodes = 0
    for m in range(view[L.V_PLAYS + L.PLAY_SIZE * k + L.PLAY_MOMENTS], logged):
        entry = L.V_LOG + L.LOG_SIZE * m
        drawn = view[entry + L.LOG_DRAWN]
        if view[entry + L.LOG_SEAT] != seat or drawn == 0:
            continue
        if episodes == MAX_EPISODES:
            return False
        kept = drawn
        first = _first_after(view, n, m)
        if (
            first < n
            and view[L.V_PLAYS + L.PLAY_SIZE * first + L.PLAY_MOMENTS] == m + 1
            and view[L.V_PLAYS + L.PLAY_SIZE * first + L.PLAY_SEAT] == seat
        ):
            final = union(final, bit(view[L.V_PLAYS + L.PLAY_SIZE * first + L.PLAY_TILE], no_tiles))
            kept = drawn - 1  # drawn last and played at once
            first += 1
        after = no_tiles
        for j in range(first, n):  # the seat's later plays
            at = L.V_PLAYS + L.PLAY_SIZE * j
            if view[at + L.PLAY_SEAT] == seat:
                after = union(after, bit(view[at + L.PLAY_TILE], no_tiles))
        at = EV_EPISODE0 + episodes * EPISODE_WIDTH
        row[at + E_KEPT] = kept
        store(row, at + E_SHOWS, numbers_tiles(view[entry + L.LOG_NUMBERS], view[L.V_MAX_NUMBER], no_tiles))
        store(row, at + E_AFTER, after)
        episodes += 1
    row[EV_EPISODES] = episodes
    store(row, EV_FINAL, final)
    return True


@njit(cache=True, inline="always")
def _first_after(view, n, m):
    """The index of the first play of the hand made after logged moment ``m`` (``n`` if none)."""
    for j in range(n):
        if view[L.V_PLAYS + L.PLAY_SIZE * j + L.PLAY_MOMENTS] > m:
            return j
    return n


@njit(cache=True)
def _candidates(line, seat, held, on_table, tile, end, row, no_tiles):
    """Fill ``row``'s candidates: every move ``seat`` could have made with some world's hand at this play.

    ``line`` shows the ends of the moment; ``held`` are the tiles the seat
    surely held (those it put down from this play on), ``on_table`` the
    tiles on the table before the play.  Each candidate's ``expert``
    features (:func:`bergen_sim.policies.expert.move_features`) are
    computed here with what the seat could see then, except the two that
    depend on the rest of its hand: ``follow`` (kept as the tiles that fit
    the new ends) and whether it held the tile that answers the move with a
    header (then its ``threat`` is 0; kept as that tile).  Approximations
    (the model is a model): the seat's unseen tiles are taken as everything
    not on the table and not surely held, and the hand counts, voids and
    scores as they are now.
    """
    line[L.V_SEAT] = seat
    side = side_of(line, seat)
    line[L.V_SIDE] = side
    unseen = minus(first_tiles(line[L.V_N_TILES], no_tiles), union(on_table, held))
    fitting = minus(
        union(number_tiles(line[L.V_END + L.END_L], no_tiles), number_tiles(line[L.V_END + L.END_R], no_tiles)),
        on_table,
    )
    same = (
        line[L.V_END + L.END_L] == line[L.V_END + L.END_R]
        and line[L.V_END_DOUBLE + L.END_L] == line[L.V_END_DOUBLE + L.END_R]
    )
    pairs = 0
    while not is_empty(fitting):
        t = lowest(fitting)
        fitting = drop_lowest(fitting)
        for e in (L.END_L, L.END_R):
            if L.TILE_LO[t] != line[L.V_END + e] and L.TILE_HI[t] != line[L.V_END + e]:
                continue
            if e == L.END_R and same:
                continue  # two identical ends: the same move twice
            points, threatened, double, _follow, block = move_features(line, side, held, unseen, t, e, no_tiles)
            after, _doubles, _counting, open_ends = ends_after(line, t, e)
            left, right = after[0], after[1]
            at = EV_PAIR0 + pairs * PAIR_WIDTH
            row[at + P_TILE] = t
            row[at + P_ANSWER] = L.TILE_AT[left, right]
            row[at + P_STATIC] = round(SCORE_UNIT * (WEIGHTS[0] * points + WEIGHTS[2] * double + WEIGHTS[4] * block))
            row[at + P_THREAT] = round(SCORE_UNIT * WEIGHTS[1] * threatened)
            store(row, at + P_FIT, open_tiles(after, open_ends, no_tiles))
            if t == tile and (e == end or same):
                row[EV_ACTUAL] = pairs
            pairs += 1
    row[EV_PAIRS] = pairs
    store(row, EV_LATER, held)


@njit(cache=True, inline="always")
def _nth(tiles, i):
    """The ``i``-th lowest tile of a set (0-based)."""
    for _ in range(i):
        tiles = drop_lowest(tiles)
    return lowest(tiles)


@njit(cache=True)
def _held_then(row, hands, rng, no_tiles):
    """What the seat of ``row`` held at the play in the world ``hands``; after draws, one guess of which it drew.

    With no draws since: its world hand and every tile it put down from
    then on.  With draws (``history`` model) the tiles drawn since are
    among those, and are taken out: the ones it drew last and played at
    once, and, for each draw in turn, as many as it kept, drawn uniformly
    (from ``rng``) among the tiles that could be them (in its world hand
    or put down after that draw, showing no open number of the moment).
    Averaged over the guesses the likelihood is the one under that
    uniform guess of the draws, so rejection sampling on one guess per
    world still draws worlds in proportion to it.  A guess that runs out of
    candidates (an earlier pick was the only fit of a later draw) is drawn
    again, ``GUESS_TRIES`` times at most; then the numbers shown are
    ignored (a world the draws make unlikely keeps a guess of the right size).
    """
    mine = hand_of(hands, row[EV_SEAT], no_tiles)
    hand = union(mine, load(row, EV_LATER, no_tiles))
    if row[EV_EPISODES] == 0:
        return hand
    final = load(row, EV_FINAL, no_tiles)
    taken = final
    for attempt in range(GUESS_TRIES + 1):
        taken = final
        short = False
        for e in range(row[EV_EPISODES] - 1, -1, -1):  # the latest draw first: it has the fewest candidates
            at = EV_EPISODE0 + e * EPISODE_WIDTH
            could = minus(union(mine, load(row, at + E_AFTER, no_tiles)), taken)
            if attempt < GUESS_TRIES:
                could = minus(could, load(row, at + E_SHOWS, no_tiles))
            for _ in range(row[at + E_KEPT]):
                c = count(could)
                if c == 0:
                    short = True
                    break
                t = _nth(could, below(rng, c))
                taken = union(taken, bit(t, no_tiles))
                could = minus(could, bit(t, no_tiles))
        if not short:
            break
    return minus(hand, taken)


@njit(cache=True, inline="always")
def _expert_log_likelihood(row, hands, trust, no_tiles, rng):
    """``-trust`` times the expert score the seat of ``row`` passed up in the world ``hands``."""
    hand = _held_then(row, hands, rng, no_tiles)
    best = -np.inf
    made = 0.0
    for p in range(row[EV_PAIRS]):
        at = EV_PAIR0 + p * PAIR_WIDTH
        t = row[at + P_TILE]
        if not has(hand, t):
            continue
        rest = minus(hand, bit(t, no_tiles))
        score = row[at + P_STATIC] / SCORE_UNIT + WEIGHTS[3] * count(both(rest, load(row, at + P_FIT, no_tiles)))
        if not has(rest, row[at + P_ANSWER]):  # else nobody else can answer
            score += row[at + P_THREAT] / SCORE_UNIT
        best = max(best, score)
        if p == row[EV_ACTUAL]:
            made = score
    return -trust * (best - made)


@njit(cache=True, inline="always")
def world_log_likelihood(evidence, rows, hands, trust, no_tiles, model=MODEL_POINTS):
    """Log-likelihood (<= 0) of the other seats' logged plays in the world ``hands`` (``SET_WORDS`` slots a seat).

    ``evidence[:rows]`` are the decision's :func:`play_evidence` rows (made
    with the same ``model``); each adds ``-trust * (best - made)``, the
    model's score passed up: header points, or expert's score (``history``:
    with the hand of one guess of the seat's draws, :func:`_held_then`, from
    a stream keyed by the world, so a world always scores the same).  0.0
    when nothing can be inferred (no rows, or ``trust`` 0).
    """
    total = 0.0
    if trust == 0.0:
        return total
    rng = np.zeros(1, dtype=np.uint64)
    seeded = False
    for r in range(rows):
        row = evidence[r]
        if row[EV_EPISODES] > 0 and not seeded:  # the guess of the draws: a function of the world, its own stream
            z = np.uint64(0)
            for i in range(hands.size):
                z = mix64(z ^ np.uint64(hands[i]))
            rng[0] = stream_state(z, 0, 0, 0)
            seeded = True
        if model != MODEL_POINTS:
            total += _expert_log_likelihood(row, hands, trust, no_tiles, rng)
            continue
        best = row[EV_KNOWN]
        if best < 3:
            hand = hand_of(hands, row[EV_SEAT], no_tiles)
            if not is_empty(both(hand, load(row, EV_THREE, no_tiles))):
                best = 3
            elif best < 2 and not is_empty(both(hand, load(row, EV_TWO, no_tiles))):
                best = 2
        total -= trust * (best - row[EV_VALUE])
    return total
