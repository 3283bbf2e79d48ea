"""The ``reader`` and ``ismcts`` search policies: the obvious move, only the view, inference from plays, matches.

Every test that plays them inside the engine uses one setting each
(``READER``, ``ISMCTS``: few worlds, the cheap ``first`` rollout policy), so
a fresh cache compiles one kernel per policy.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from bergen_sim.engine import layout as L
from bergen_sim.engine.keyed_random import stream_state
from bergen_sim.engine.play_rules import hand_moves, hand_of, other_half, set_hand
from bergen_sim.engine.tileset import (
    bit,
    first_tiles,
    from_words,
    has,
    load,
    minus,
    no_tiles_for,
    store,
    to_words,
    union,
)
from bergen_sim.engine.worlds import NARROW, prepare, sample_world
from bergen_sim.model.rules import Rules
from bergen_sim.policies.base import side_of
from bergen_sim.policies.expert import WEIGHTS, feature_table, move_features
from bergen_sim.runtime.registry import resolve
from bergen_sim.search import ismcts, reader
from bergen_sim.search.inference import (
    E_AFTER,
    E_KEPT,
    E_SHOWS,
    EPISODE_WIDTH,
    EV_EPISODE0,
    EV_EPISODES,
    EV_FINAL,
    EV_LATER,
    EV_SEAT,
    EVIDENCE_WIDTH,
    MODEL_EXPERT,
    MODEL_HISTORY,
    MODEL_POINTS,
    _draws_since,
    _header_after,
    _held_then,
    drew_since,
    evidence_buffer,
    play_evidence,
    replay_start,
    world_log_likelihood,
)
from bergen_sim.search.match_value import table_for
from bergen_sim.search.pimc import load_world, world_batch
from bergen_sim.search.position import Position, position_view
from bergen_sim.search.rollout import BASE_POLICIES
from bergen_sim.services.execution.jobs import engine_for
from bergen_sim.services.game import Game
from tests.engine.test_worlds import as_int, real_views, real_views_with_history


@njit
def _replayed_expert_gap(view, line, seat, held, sure, on_table, tile, end, scratch_tiles, scratch_ends, no_tiles):
    """The ``expert`` model at one play: the best expert score among the seat's legal moves with hand ``held``,
    minus the score of the play made.  Its unseen tiles are everything not on the table and not ``sure`` (surely
    held), except that a move's threat is 0 when the hand holds the answering tile."""
    line[L.V_SEAT] = seat
    line[L.V_SIDE] = side_of(line, seat)
    ends = line[L.V_END : L.V_END + L.N_ENDS]
    unseen = minus(first_tiles(view[L.V_N_TILES], no_tiles), union(on_table, sure))
    n_moves = hand_moves(held, line, scratch_tiles, scratch_ends)
    best = -np.inf
    made = np.nan
    for j in range(n_moves):
        t, e = scratch_tiles[j], scratch_ends[j]
        points, threatened, double, follow, block = move_features(line, line[L.V_SIDE], held, unseen, t, e, no_tiles)
        left = other_half(t, ends[e]) if e == L.END_L else ends[L.END_L]
        right = other_half(t, ends[e]) if e == L.END_R else ends[L.END_R]
        if has(minus(held, bit(t, no_tiles)), L.TILE_AT[left, right]):
            threatened = 0.0
        score = (
            WEIGHTS[0] * points
            + WEIGHTS[1] * threatened
            + WEIGHTS[2] * double
            + WEIGHTS[3] * follow
            + WEIGHTS[4] * block
        )
        best = max(best, score)
        if t == tile and e == end:
            made = score
    return best - made


@njit
def replayed_log_likelihood(view, hands, trust, scratch_tiles, scratch_ends, line, no_tiles, model=0):
    """The inference models stated directly (the reference for play_evidence + world_log_likelihood): log-likelihood
    (<= 0) of the other seats' logged plays in the world ``hands``, replaying the hand for this world.

    At each informative play (another seat's, no draw of its own since) the
    seat's hand is its world hand plus every tile it put down from then on,
    and the play adds ``-trust`` times the score it passed up among its legal
    moves: header points (``points``, model 0) or expert's score
    (:func:`_replayed_expert_gap`).  ``scratch_tiles`` / ``scratch_ends`` are
    move buffers of length ``MAX_MOVES`` and ``line`` a scratch view
    (``V_SIZE``) whose ends replay the hand.  Returns 0.0 when nothing can be
    inferred.
    """
    n = min(view[L.V_PLAYS_N], L.MAX_TILES)
    me = view[L.V_SEAT]
    if n < 2 or trust == 0.0 or view[L.V_SPINNER] >= 0:
        return 0.0
    line[:] = view
    ends = line[L.V_END : L.V_END + L.N_ENDS]
    doubles = line[L.V_END_DOUBLE : L.V_END_DOUBLE + L.N_ENDS]
    later = replay_start(view, n, line, no_tiles)
    on_table = bit(view[L.V_PLAYS + L.PLAY_TILE], no_tiles)
    total = 0.0
    for k in range(1, n):
        at = L.V_PLAYS + L.PLAY_SIZE * k
        seat = view[at + L.PLAY_SEAT]
        tile = view[at + L.PLAY_TILE]
        end = view[at + L.PLAY_END]
        if seat != me and not drew_since(view, seat, view[at + L.PLAY_MOMENTS]):
            sure = load(later, seat * L.SET_WORDS, no_tiles)
            held = union(hand_of(hands, seat, no_tiles), sure)
            if model == MODEL_EXPERT:
                total -= trust * _replayed_expert_gap(
                    view, line, seat, held, sure, on_table, tile, end, scratch_tiles, scratch_ends, no_tiles
                )
            else:
                n_moves = hand_moves(held, line, scratch_tiles, scratch_ends)
                if n_moves > 1:
                    best = 0
                    for j in range(n_moves):
                        best = max(best, _header_after(ends, doubles, scratch_tiles[j], scratch_ends[j]))
                    total -= trust * (best - _header_after(ends, doubles, tile, end))
        store(later, seat * L.SET_WORDS, minus(load(later, seat * L.SET_WORDS, no_tiles), bit(tile, no_tiles)))
        on_table = union(on_table, bit(tile, no_tiles))
        ends[end] = other_half(tile, ends[end])
        doubles[end] = 1 if L.TILE_LO[tile] == L.TILE_HI[tile] else 0
    return total


@njit
def _fast_log_likelihood(view, hands, trust, line, no_tiles):
    evidence = evidence_buffer()
    return world_log_likelihood(evidence, play_evidence(view, evidence, line, no_tiles), hands, trust, no_tiles)


def play_log_likelihood(view, hands, trust, scratch_tiles, scratch_ends, line, no_tiles):
    """The package's likelihood (evidence once per decision, then per world), checked against the reference."""
    fast = _fast_log_likelihood(view, hands, trust, line, no_tiles)
    assert fast == replayed_log_likelihood(view, hands, trust, scratch_tiles, scratch_ends, line, no_tiles)
    return fast


@njit
def _fast_expert_log_likelihood(view, hands, trust, line, no_tiles):
    evidence = evidence_buffer()
    rows = play_evidence(view, evidence, line, no_tiles, MODEL_EXPERT)
    return world_log_likelihood(evidence, rows, hands, trust, no_tiles, MODEL_EXPERT)


READER = "reader:worlds=32:base=first"
ISMCTS = "ismcts:iterations=60:base=first"
TWO = Rules.make(players=2)
FIRST = np.int64(BASE_POLICIES.index("first"))


def _moves(view):
    tiles = np.zeros(L.MAX_MOVES, dtype=np.int64)
    ends = np.zeros(L.MAX_MOVES, dtype=np.int64)
    n = hand_moves(view[L.V_HAND], view, tiles, ends)
    return tiles, ends, n


def _decide(view, rules, worlds=64, trust=1.0, key=7):
    tiles, ends, n = _moves(view)
    values = np.zeros((worlds, n))
    points = np.zeros((worlds, n))
    move, used = reader.decide(
        view,
        ismcts.Moves(tiles, ends, np.int64(n)),
        world_batch(key, 0, worlds, FIRST, 1),
        reader.ReadingModel(trust, np.int64(MODEL_POINTS)),
        rules.to_array(),
        table_for(rules, "first"),
        values,
        points,
        NARROW,
    )
    return tiles, ends, n, move, used, values


#: at 14-13 of 15 any header wins the match; only the two 5-6 moves make one (neither is listed first)
WINNING = {
    "hand": "5-6,1-6,0-5,3-4",
    "ends": "6,5d",
    "played": "2-2,2-5,2-6,5-5",
    "counts": "4,6",
    "boneyard": 14,
    "scores": "14,13",
    "voids": {1: [5, 6]},
}


def test_finds_the_header_that_wins_the_match():
    """The reader plays a 5-6, which wins in every world."""
    view = position_view(Position.from_mapping(WINNING), TWO)
    tiles, ends, n, move, used, values = _decide(view, TWO)
    assert n == 4
    assert L.TILE_NAMES[tiles[move]] == "5-6"
    assert values[:used, move].min() == 1.0  # the match is won in every world


def _search(view, rules, iterations=200, key=7, expand=1, leaves=0, settled_stop=False, model=0, race=False, prior=0.0):
    tiles, ends, n = _moves(view)
    nodes = np.zeros((iterations + 1, ismcts.N_INT), dtype=np.int64)
    stats = np.zeros((iterations + 1, ismcts.N_FLOAT))
    walks = ismcts.Walks(0.5, np.int64(expand), 1.0, np.int64(model), prior)
    settings = ismcts.TreeSearch(np.int64(iterations), walks, FIRST, np.int64(leaves), settled_stop, race)
    move = ismcts.search(
        view,
        ismcts.Moves(tiles, ends, np.int64(n)),
        np.uint64(key),
        settings,
        rules.to_array(),
        table_for(rules, "first"),
        nodes,
        stats,
        NARROW,
    )
    return tiles, move, nodes, stats


def _root_visits(nodes, stats):
    visits = []
    c = nodes[0, ismcts.N_CHILD]
    while c >= 0:
        visits.append(stats[c, ismcts.N_VISITS])
        c = nodes[c, ismcts.N_SIBLING]
    return visits


def test_the_named_configurations_resolve_to_their_settings():
    """STRONGEST, AT_TIME_LIMIT and STEERED are players the registry accepts, with the settings their notes give."""
    expert = BASE_POLICIES.index("expert")
    assert resolve(ismcts.STRONGEST).params == (1000, 5, 8, 20, expert, 0, MODEL_EXPERT, 1, 0, 0)
    assert resolve(ismcts.AT_TIME_LIMIT).params == (4000, 3, 8, 20, expert, 0, MODEL_EXPERT, 1, 1, 0)
    assert resolve(ismcts.STEERED).params == (4000, 3, 8, 20, expert, 0, MODEL_EXPERT, 1, 1, 5)
    assert resolve("ismcts:model=history:settle=0:race=1:prior=5").params == (
        1000,
        5,
        8,
        10,
        expert,
        0,
        MODEL_HISTORY,
        0,
        1,
        5,
    )


def test_ismcts_stops_once_the_root_move_is_settled():
    """Stopping when no root move can catch up plays the move of the full budget, in fewer iterations overall."""
    run, full = 0, 0
    for i, (view, _, _) in enumerate(real_views(TWO, matches=4)):
        if _moves(view)[2] < 2:
            continue
        whole = _search(view, TWO, iterations=300, key=i, expand=8, model=MODEL_EXPERT)
        early = _search(view, TWO, iterations=300, key=i, expand=8, model=MODEL_EXPERT, settled_stop=True)
        assert early[1] == whole[1]
        visits = _root_visits(early[2], early[3])
        assert sum(_root_visits(whole[2], whole[3])) == 300 and sum(visits) <= 300
        if sum(visits) < 300:  # stopped: the leader was out of reach of every other root move
            ahead = sorted(visits)[-1] - (sorted(visits)[-2] if len(visits) > 1 else 0.0)
            assert ahead > 300 - sum(visits)
        run, full = run + sum(visits), full + 300
    assert full >= 20 * 300 and run < 0.9 * full


@pytest.mark.parametrize("expand,leaves", [(1, 0), (8, 0), (8, 50)])
def test_ismcts_finds_the_header_that_wins_the_match(expand, leaves):
    """The same position: the tree's most visited root move is a 5-6, and its mean is a sure win."""
    view = position_view(Position.from_mapping(WINNING), TWO)
    tiles, move, nodes, stats = _search(view, TWO, expand=expand, leaves=leaves)
    assert L.TILE_NAMES[tiles[move]] == "5-6"
    roots = []
    c = nodes[0, ismcts.N_CHILD]
    while c >= 0:
        roots.append(c)
        c = nodes[c, ismcts.N_SIBLING]
    assert len(roots) == 4 and stats[roots, ismcts.N_VISITS].sum() == 200
    won = [c for c in roots if L.TILE_NAMES[nodes[c, ismcts.N_TILE]] == "5-6"]
    assert all(stats[c, ismcts.N_VALUE] == stats[c, ismcts.N_VISITS] for c in won)


def test_a_raced_root_meets_every_world_with_every_move_in_the_race():
    """``race=1``: every root move walks once in each world of the first batch, the clear losers leave the race
    then, and the 5-6, which wins in every world, is played."""
    view = position_view(Position.from_mapping(WINNING), TWO)
    tiles, ends, _ = _moves(view)
    _, move, nodes, stats = _search(view, TWO, race=True)
    assert L.TILE_NAMES[tiles[move]] == "5-6"
    visits = _root_visits(nodes, stats)
    assert len(visits) == 4 and min(visits) == reader.BATCH and sum(visits) <= 200
    assert stats[ismcts._child(nodes, 0, tiles[move], ends[move]), ismcts.N_VISITS] == max(visits)


def test_a_raced_root_with_fewer_walks_than_moves_spends_them_by_ucb1():
    """Four root moves and three walks: not one world could meet every move, so the walks go to UCB1 (they are not
    left unspent, which would play the first move listed without a search)."""
    view = position_view(Position.from_mapping(WINNING), TWO)
    _, raced, raced_nodes, raced_stats = _search(view, TWO, iterations=3, race=True)
    _, ucb, ucb_nodes, ucb_stats = _search(view, TWO, iterations=3)
    assert raced == ucb and sum(_root_visits(raced_nodes, raced_stats)) == 3
    assert np.array_equal(raced_nodes, ucb_nodes) and np.array_equal(raced_stats, ucb_stats)


def test_a_raced_root_plays_the_leader_of_its_paired_values():
    """On real positions the raced search plays a legal move, and its walks stay within the budget: the root's
    visits sum to the walks, every move still in the race at the end has met the most worlds."""
    checked = 0
    for i, (view, _, _) in enumerate(real_views(TWO, matches=3)):
        tiles, ends, n = _moves(view)
        if n < 2:
            continue
        _, move, nodes, stats = _search(view, TWO, iterations=300, key=i, expand=8, model=MODEL_EXPERT, race=True)
        visits = _root_visits(nodes, stats)
        assert 0 <= move < n and len(visits) == n and sum(visits) <= 300
        c = ismcts._child(nodes, 0, tiles[move], ends[move])
        assert stats[c, ismcts.N_VISITS] == max(visits)
        checked += 1
    assert checked > 10


@pytest.mark.parametrize("rules", [TWO, Rules.make(players=4, partnerships=True)], ids=["2 players", "partnerships"])
def test_the_steering_odds_are_experts_model_in_the_walks_world(rules):
    """``prior``'s odds for the seat to move, computed in a world loaded from another seat's view (as a walk of
    that seat's search meets it), are ``expert``'s scores of that seat's moves from its own true view, each move
    ``exp(trust * (score - best))`` as likely, normalized: its hand in the world decides, not the searcher's view."""
    no_tiles = no_tiles_for(rules.n_tiles)
    trust = 2.0
    checked = 0
    for match in range(6):
        game = Game(rules, seed=11, match=match)
        while not game.is_over and game.hand_number == 1:
            moves = game.legal_moves()
            seat = game.to_move
            if len(moves) >= 2 and not game.choosing_lead:
                searcher = (seat + 1) % rules.players
                hands0, bone, _evidence, _line, b = reader.world_buffers(no_tiles)
                for s in range(rules.players):
                    set_hand(hands0, s, np.int64(sum(1 << L.TILE_INDEX[t] for t in game.hand(s))))
                load_world(
                    rules.to_array(), game.view(searcher).array, L.V_SIZE, b, hands0, bone, rules.boneyard_reserve
                )
                n = len(moves)
                for k, move in enumerate(moves):
                    b.move_tiles[k], b.move_ends[k] = move.tile.index, int(move.end)
                odds = np.zeros(L.MAX_MOVES)
                ismcts._model_odds(b, np.int64(seat), np.int64(n), trust, odds)
                features = np.zeros((L.MAX_MOVES, len(WEIGHTS)))
                feature_table(game.view(seat).array, b.move_tiles, b.move_ends, np.int64(n), no_tiles, features)
                scores = features[:n] @ WEIGHTS
                expected = np.exp(trust * (scores - scores.max()))
                assert np.allclose(odds[:n], expected / expected.sum())
                checked += 1
            game.play(moves[match % len(moves)])
    assert checked >= 20


def test_a_steered_search_still_plays_its_own_best_move():
    """With ``prior`` the deciding seat's search still finds the match-winning 5-6 (its own moves are not
    steered), and on real positions the steered search plays a legal move with its walks within the budget, and
    is not the unsteered search under another name: some of its trees differ."""
    view = position_view(Position.from_mapping(WINNING), TWO)
    tiles, move, _, _ = _search(view, TWO, expand=8, prior=1.0)
    assert L.TILE_NAMES[tiles[move]] == "5-6"
    differs = 0
    for i, (view, _, _) in enumerate(real_views(TWO, matches=2)):
        tiles, ends, n = _moves(view)
        if n < 2:
            continue
        _, plain, plain_nodes, plain_stats = _search(view, TWO, iterations=300, key=i, expand=2, model=MODEL_EXPERT)
        _, move, nodes, stats = _search(view, TWO, iterations=300, key=i, expand=2, model=MODEL_EXPERT, prior=0.5)
        assert 0 <= move < n and sum(_root_visits(nodes, stats)) == 300
        differs += not np.array_equal(stats, plain_stats)
    assert differs > 0


def test_reads_only_the_live_part_of_the_view():
    """Log slots past V_LOG_N and play-log slots past V_PLAYS_N are leftovers: scrambling them changes nothing."""
    gen = np.random.default_rng(5)
    checked = 0
    for i, (view, _, _) in enumerate(real_views(TWO, matches=3)):
        tiles, ends, n = _moves(view)
        if n < 2:
            continue
        scrambled = view.copy()
        log_end = L.V_LOG + L.LOG_SIZE * view[L.V_LOG_N]
        scrambled[log_end:] = gen.integers(0, 7, L.V_SIZE - log_end)
        plays_end = L.V_PLAYS + L.PLAY_SIZE * view[L.V_PLAYS_N]
        scrambled[plays_end : L.V_PLAYS + L.PLAY_SIZE * L.MAX_TILES] = gen.integers(
            0, 2, L.V_PLAYS + L.PLAY_SIZE * L.MAX_TILES - plays_end
        )
        a = _decide(view, TWO, worlds=32, key=i)
        b = _decide(scrambled, TWO, worlds=32, key=i)
        assert a[3] == b[3] and np.array_equal(a[5], b[5])
        if checked < 8:
            one = _search(view, TWO, iterations=40, key=i)
            two = _search(scrambled, TWO, iterations=40, key=i)
            assert one[1] == two[1] and np.array_equal(one[3], two[3])
        checked += 1
    assert checked > 10


def test_a_missed_header_costs_trust_times_points():
    """Ends 5|4 with seat 1 to play: 4-5 on L makes 4|4 (a double-header, 2 points); it played 0-5 instead."""
    view = np.zeros(L.V_SIZE, dtype=np.int64)
    log = [(0, "3-3", L.END_L), (1, "3-5", L.END_L), (0, "3-4", L.END_R), (1, "0-5", L.END_L)]
    for k, (seat, tile, end) in enumerate(log):
        at = L.V_PLAYS + L.PLAY_SIZE * k
        view[at + L.PLAY_SEAT], view[at + L.PLAY_TILE], view[at + L.PLAY_END] = seat, L.TILE_INDEX[tile], end
    view[L.V_PLAYS_N] = len(log)
    view[L.V_SEAT] = 0
    view[L.V_SPINNER] = -1
    scratch = (
        np.zeros(L.MAX_MOVES, dtype=np.int64),
        np.zeros(L.MAX_MOVES, dtype=np.int64),
        np.zeros(L.V_SIZE, dtype=np.int64),
    )
    hands = np.zeros(L.MAX_SEATS * L.SET_WORDS, dtype=np.int64)
    seat_1 = L.SET_WORDS
    hands[seat_1] = L.tile_mask(["1-2", "6-6"])  # nothing else fitted 5|4 then: no evidence
    assert play_log_likelihood(view, hands, 1.5, *scratch, NARROW) == 0.0
    hands[seat_1] = L.tile_mask(["4-5", "6-6"])  # it held the header tile 4-5 and played 0-5: 2 points passed up
    assert play_log_likelihood(view, hands, 1.5, *scratch, NARROW) == pytest.approx(-3.0)
    assert play_log_likelihood(view, hands, 0.0, *scratch, NARROW) == 0.0
    # a draw by seat 1 after that play: its hand then is not known, the play is not evidence
    view[L.V_LOG_N] = 1
    view[L.V_LOG + L.LOG_SEAT], view[L.V_LOG + L.LOG_DRAWN] = 1, 2
    assert play_log_likelihood(view, hands, 1.5, *scratch, NARROW) == 0.0


def test_worlds_follow_the_evidence_on_real_views():
    """Kept worlds hold a passed-up header tile less often than uniform ones (trust 3 vs 0), and are consistent."""
    rules_vec = TWO.to_array()
    scratch = (
        np.zeros(L.MAX_MOVES, dtype=np.int64),
        np.zeros(L.MAX_MOVES, dtype=np.int64),
        np.zeros(L.V_SIZE, dtype=np.int64),
    )
    hands = np.zeros(L.MAX_SEATS * L.SET_WORDS, dtype=np.int64)
    bone = np.zeros(L.MAX_TILES, dtype=np.int64)
    uniform = weighted = 0.0
    for i, (view, _, _) in enumerate(real_views(TWO, matches=4)):
        spec, completions = prepare(view, rules_vec, 1, NARROW)
        for w in range(40):
            for trust in (0.0, 3.0):
                evidence = evidence_buffer()
                rows = play_evidence(view, evidence, scratch[2], NARROW)
                reading = reader.Reading(spec, completions, evidence, rows, trust, MODEL_POINTS, NARROW)
                reader.draw_world(view, reading, np.uint64(i), w, hands, bone)
                assert hands[view[L.V_SEAT] * L.SET_WORDS] == view[L.V_HAND]
                assert not (hands[(1 - view[L.V_SEAT]) * L.SET_WORDS] & (view[L.V_PLAYED] | view[L.V_HAND]))
                loglik = play_log_likelihood(view, hands, 1.0, *scratch, NARROW)
                if trust:
                    weighted += loglik
                else:
                    uniform += loglik
    assert weighted > uniform  # kept worlds explain the plays better


# each compiles a kernel with its search inlined (about a minute, cold): the slow tier; the default tier
# calls both searches directly (the tests above and below), and test_pimc plays pimc's kernel
@pytest.mark.slow
@pytest.mark.parametrize(
    "policy",
    [READER, ISMCTS, ISMCTS + ":leaves=50", ISMCTS + ":model=expert", ISMCTS + ":race=1", ISMCTS + ":race=1:prior=20"],
)
def test_plays_matches_legally_and_reproducibly(policy):
    """Inside the engine, which stops on any illegal choice; the same seed gives the same matches."""
    assert resolve("reader").params == (256, 10, BASE_POLICIES.index("expert"), 0)
    assert resolve("ismcts").params == (1000, 5, 8, 10, BASE_POLICIES.index("expert"), 0, 0, 1, 0, 0)
    assert resolve(ismcts.STRONGEST).params == (1000, 5, 8, 20, BASE_POLICIES.index("expert"), 0, MODEL_EXPERT, 1, 0, 0)
    engine = engine_for(TWO, (policy, "greedy"))
    first = engine.play(seed=3, first_match=0, n_matches=12)
    again = engine.play(seed=3, first_match=0, n_matches=12)
    assert first.totals[L.S_MATCHES] == 12 and first.totals[L.S_POLICY_CALLS] > 40
    assert np.array_equal(first.match_rows, again.match_rows)


@pytest.mark.parametrize(
    "rules",
    [
        TWO,
        Rules.make(players=3),
        Rules.make(players=4, partnerships=True),
        Rules.make(players=3, domino_set="double-nine", spinner=False),
        pytest.param(Rules.make(players=4, domino_set="double-twelve", spinner=False), marks=pytest.mark.slow),
    ],
    ids=[
        "2 players",
        "3 players",
        "partnerships",
        "3 players double-nine line",
        "4 players double-twelve line (three-word sets)",
    ],
)
def test_the_evidence_scores_every_world_as_the_replay_does(rules):
    """play_evidence + world_log_likelihood equal the replayed model exactly, on real views and uniform worlds."""
    no_tiles = no_tiles_for(rules.n_tiles)
    scratch = (
        np.zeros(L.MAX_MOVES, dtype=np.int64),
        np.zeros(L.MAX_MOVES, dtype=np.int64),
        np.zeros(L.V_SIZE, dtype=np.int64),
    )
    informative = 0
    for view, hands in uniform_worlds(rules, worlds=12):
        for trust in (0.0, 0.7, 1.0):
            informative += play_log_likelihood(view, hands, trust, *scratch, no_tiles) < 0.0
    assert informative > 20  # the check met worlds where plays tell something


def uniform_worlds(rules, worlds):
    """(view, world hands) for ``worlds`` uniform worlds of every view of three traced matches (the hands array is
    reused: read it before the next)."""
    rules_vec = rules.to_array()
    no_tiles = no_tiles_for(rules.n_tiles)
    hands = np.zeros(L.MAX_SEATS * L.SET_WORDS, dtype=np.int64)
    bone = np.zeros(L.MAX_TILES, dtype=np.int64)
    rng = np.zeros(1, dtype=np.uint64)
    for i, (view, _, _) in enumerate(real_views(rules, matches=3)):
        spec, completions = prepare(view, rules_vec, 1, no_tiles)
        for w in range(worlds):
            rng[0] = stream_state(i, w, 0, 0)
            sample_world(view, spec, completions, rng, hands, bone, no_tiles)
            yield view, hands


@pytest.mark.parametrize(
    "rules",
    [
        TWO,
        Rules.make(players=3),
        Rules.make(players=4, partnerships=True),
        Rules.make(players=3, domino_set="double-nine", spinner=False),
    ],
    ids=["2 players", "3 players", "partnerships", "3 players double-nine line"],
)
def test_the_expert_model_scores_every_world_as_the_replay_does(rules):
    """With MODEL_EXPERT, play_evidence + world_log_likelihood equal the model replayed for each world (to the
    millionth of a point the rows store scores in), on real views and uniform worlds; never above 0."""
    no_tiles = no_tiles_for(rules.n_tiles)
    tiles, ends = np.zeros(L.MAX_MOVES, dtype=np.int64), np.zeros(L.MAX_MOVES, dtype=np.int64)
    line, ref_line = np.zeros(L.V_SIZE, dtype=np.int64), np.zeros(L.V_SIZE, dtype=np.int64)
    informative = 0
    for view, hands in uniform_worlds(rules, worlds=8):
        for trust in (0.0, 2.0):
            fast = _fast_expert_log_likelihood(view, hands, trust, line, no_tiles)
            reference = replayed_log_likelihood(view, hands, trust, tiles, ends, ref_line, no_tiles, MODEL_EXPERT)
            assert fast == pytest.approx(reference, abs=1e-4) and fast <= 0.0
            informative += fast < -1e-4
    assert informative > 20  # the check met worlds where plays tell something


def test_the_expert_model_reads_more_than_header_points():
    """On real 2-player views (pimc-like play: expert in every seat), the true world is more likely under the
    expert model than most uniform worlds, and more often so than under the header-points model; read through
    the draws too (history), more often still."""
    rules_vec = TWO.to_array()
    line = np.zeros(L.V_SIZE, dtype=np.int64)
    hands = np.zeros(L.MAX_SEATS * L.SET_WORDS, dtype=np.int64)
    true = np.zeros(L.MAX_SEATS * L.SET_WORDS, dtype=np.int64)
    bone = np.zeros(L.MAX_TILES, dtype=np.int64)
    rng = np.zeros(1, dtype=np.uint64)
    ranks = {0: [], MODEL_EXPERT: [], MODEL_HISTORY: []}  # per view; 0.5 (a tie with every world) if no rows
    informative = []  # the views where the expert model has rows
    for i, (view, true_hands, _) in enumerate(real_views(TWO, matches=20, policy="expert")):
        for s, hand in enumerate(true_hands):
            true[s * L.SET_WORDS : (s + 1) * L.SET_WORDS] = to_words(hand)
        spec, completions = prepare(view, rules_vec, 1, NARROW)
        for model in ranks:
            evidence = evidence_buffer()
            rows = play_evidence(view, evidence, line, NARROW, model)
            if model == MODEL_EXPERT:
                informative.append(rows > 0)
            if rows == 0:
                ranks[model].append(0.5)
                continue
            truth = world_log_likelihood(evidence, rows, true, 2.0, NARROW, model)
            worlds = []
            for w in range(50):
                rng[0] = stream_state(i, w, 0, 0)
                sample_world(view, spec, completions, rng, hands, bone, NARROW)
                worlds.append(world_log_likelihood(evidence, rows, hands, 2.0, NARROW, model))
            worlds = np.array(worlds)
            ranks[model].append((worlds < truth).mean() + 0.5 * (worlds == truth).mean())
    ranks = {model: np.array(r) for model, r in ranks.items()}
    read = np.array(informative)
    assert read.sum() > 100
    assert ranks[MODEL_EXPERT][read].mean() > 0.6 and ranks[MODEL_EXPERT][read].mean() > ranks[0][read].mean() + 0.05
    assert ranks[MODEL_HISTORY].mean() > ranks[MODEL_EXPERT].mean() + 0.01  # on every view


@pytest.mark.parametrize(
    "rules",
    [
        TWO,
        Rules.make(players=3),
        Rules.make(players=4, partnerships=True),
        pytest.param(Rules.make(players=4, domino_set="double-twelve", spinner=False), marks=pytest.mark.slow),
    ],
    ids=["2 players", "3 players", "partnerships", "4 players double-twelve line (three-word sets)"],
)
def test_the_history_model_reads_the_draws_as_they_happened(rules):
    """On real views, what ``_draws_since`` reads of a seat's draws after one of its plays is true of the trace:
    how many drawn tiles it kept at each draw, which it drew last and played at once; every kept tile lies where
    the row says it may (in the hand now or put down after that draw, showing no open number of that moment);
    so the hand the play was made from is among the guesses of ``_held_then``, which always have its size."""
    no_tiles = no_tiles_for(rules.n_tiles)
    row = np.zeros(EVIDENCE_WIDTH, dtype=np.int64)
    hands = np.zeros(L.MAX_SEATS * L.SET_WORDS, dtype=np.int64)
    rng = np.zeros(1, dtype=np.uint64)
    checked = 0
    for view, true_hands, _, history in real_views_with_history(rules, matches=6, policy="expert"):
        n = int(view[L.V_PLAYS_N])
        for s, hand in enumerate(true_hands):
            hands[s * L.SET_WORDS : (s + 1) * L.SET_WORDS] = to_words(hand)
        for k in range(1, n):
            at = L.V_PLAYS + L.PLAY_SIZE * k
            seat, moments = int(view[at + L.PLAY_SEAT]), int(view[at + L.PLAY_MOMENTS])
            draws = [d for d in history["draws"] if d[1] == seat and d[0] >= moments]
            if seat == view[L.V_SEAT] or not draws or not _draws_since(view, n, k, row, no_tiles):
                continue
            later = 0
            for j in range(k, n):
                if view[L.V_PLAYS + L.PLAY_SIZE * j + L.PLAY_SEAT] == seat:
                    later |= 1 << int(view[L.V_PLAYS + L.PLAY_SIZE * j + L.PLAY_TILE])
            assert row[EV_EPISODES] == len(draws)
            final, kept = 0, 0
            for e, (_, _, tiles, played) in enumerate(draws):
                start = EV_EPISODE0 + e * EPISODE_WIDTH
                assert row[start + E_KEPT] == len(tiles) - played
                after = from_words(row[start + E_AFTER : start + E_AFTER + L.SET_WORDS])
                shows = from_words(row[start + E_SHOWS : start + E_SHOWS + L.SET_WORDS])
                could = (true_hands[seat] | after) & ~shows
                for t in tiles[: len(tiles) - played]:
                    assert could >> t & 1
                    kept |= 1 << t
                if played:
                    final |= 1 << tiles[-1]
            assert from_words(row[EV_FINAL : EV_FINAL + L.SET_WORDS]) == final
            assert history["held"][k] == (true_hands[seat] | later) & ~final & ~kept
            row[EV_SEAT] = seat
            row[EV_LATER : EV_LATER + L.SET_WORDS] = to_words(later)
            for guess in range(3):
                rng[0] = stream_state(k, guess, 0, 0)
                then = as_int(_held_then(row, hands, rng, no_tiles))
                assert then & ~(true_hands[seat] | later) == 0 and then & final == 0
                assert bin(then).count("1") == bin(history["held"][k]).count("1")
            checked += 1
    assert checked > 20
