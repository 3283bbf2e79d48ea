"""TEMPLATE of the compiled match loop; never imported on its own.

:mod:`bergen_sim.runtime.kernel_build` writes this source into a generated
module below a ``choose_move(policy_id, view, move_tiles, move_ends, n_moves,
rng)`` dispatcher that calls the run's policies directly.  The policies are
therefore globals of the compiled loop, not arguments, so Numba's disk cache
serves the second run of the same policy combination (an njit function passed
as an argument misses the cache in every new process).

One call of :func:`run_matches` plays whole matches: deals and redeals from
keyed random streams (or from given deals when replaying), the lead, draws,
passes, headers with the near-target cut, going out and blocked settlement,
and stops a match the moment a side reaches the target.  Array layouts are in
:mod:`bergen_sim.engine.layout`.
"""

import numpy as np
from numba import njit

from bergen_sim.engine import layout as L
from bergen_sim.engine.bits import borrow
from bergen_sim.engine.keyed_random import STREAM_POLICY, shuffled_set, stream_state
from bergen_sim.engine.play_rules import (
    DOUBLE_MASK,
    NUMBER_MASK,
    TILE_HI,
    TILE_LO,
    cut_points,
    header_value,
    lead_double,
    legal_moves,
    other_half,
    settle_blocked,
    side_holdings,
)
from bergen_sim.engine.recording import C_DEAL, C_SCRIPT, C_SIZE, C_TRACE, record, record_deal
from bergen_sim.engine.view import view_draw, view_play, view_start_hand, view_start_match, view_void_moment


@njit(cache=True)
def _fail(err, code, choice, n_moves, hand, left, right):
    """Note why the run stopped; the seat, match and policy were noted before the call."""
    err[L.E_CODE] = code
    err[L.E_CHOICE] = choice
    err[L.E_N_MOVES] = n_moves
    err[L.E_HAND] = hand
    err[L.E_LEFT] = left
    err[L.E_RIGHT] = right
    return -1


@njit(cache=True, inline="always")
def _choose(rules, seat_policy, seat, hand, view, rngs, mt, me, n, script, ctr, err, totals):
    """Index of the move the seat makes among ``n`` legal ones, or -1 after an error."""
    left = view[L.V_LEFT]
    right = view[L.V_RIGHT]
    if script.shape[0] > 0:
        i = ctr[C_SCRIPT]
        if i >= script.shape[0]:
            return _fail(err, L.ERR_SCRIPT_SHORT, -1, n, hand, left, right)
        ctr[C_SCRIPT] = i + 1
        for k in range(n):
            if mt[k] == script[i, 0] and me[k] == script[i, 1]:
                return k
        return _fail(err, L.ERR_SCRIPT, i, n, hand, left, right)
    if n == 1:
        return 0
    err[L.E_SEAT] = seat
    err[L.E_POLICY] = seat_policy[seat]
    err[L.E_HAND] = hand  # the position, for the message if the policy raises
    err[L.E_LEFT] = left
    err[L.E_RIGHT] = right
    view[L.V_SEAT] = seat
    view[L.V_SIDE] = seat % 2 if rules[L.R_PARTNERSHIPS] else seat
    view[L.V_HAND] = hand
    totals[L.S_POLICY_CALLS] += 1
    k = choose_move(seat_policy[seat], view, mt, me, n, rngs[seat : seat + 1])  # noqa: F821 (bound by kernel_build)
    if k < 0 or k >= n:
        return _fail(err, L.ERR_ILLEGAL_CHOICE, k, n, hand, left, right)
    return k


@njit(cache=True, inline="always")
def _play_hand(rules, seat_policy, deal, hand_no, scores, view, rngs, script, ctr, err, trace, tracing, totals,
               hrow, match, hands, mt, me):
    """Play one dealt hand from the lead to its end.

    Returns 1 if the match ended in this hand, 0 if not, -1 after an error.
    ``hrow`` (layout ``H_*``) receives the hand's statistics; ``hands``, ``mt``
    and ``me`` are scratch arrays (allocating per hand costs more than the play).
    """
    players = rules[L.R_PLAYERS]
    partners = rules[L.R_PARTNERSHIPS]
    hand_size = rules[L.R_HAND_SIZE]
    target = rules[L.R_TARGET]
    reduced = rules[L.R_REDUCED]
    sides = 2 if partners else players
    reserve = rules[L.R_RESERVE]

    for s in range(players):
        hands[s] = 0
        for k in range(hand_size):
            hands[s] |= np.int64(1) << deal[s * hand_size + k]
    bone_pos = players * hand_size
    bone_stop = L.N_TILES - reserve

    leader, number = lead_double(hands, players, rules[L.R_LEAD] == L.LEAD_HIGHEST)
    hrow[L.H_LEADER] = leader
    hrow[L.H_LED_DOUBLE] = number
    hrow[L.H_WINNER] = -1
    hands[leader] &= ~(np.int64(1) << L.DOUBLE_TILE[number])
    view_start_hand(view, players, hand_size, L.N_TILES - bone_pos, hand_no, leader, number)
    left = number
    right = number
    left_double = 1
    right_double = 1

    side = leader % 2 if partners else leader
    pts = cut_points(2, scores[side], target, reduced)
    scores[side] += pts
    view[L.V_SCORE + side] = scores[side]
    hrow[L.H_SEAT_POINTS + leader] += pts
    totals[L.S_POINTS_LEAD] += pts
    if tracing:
        record(trace, ctr, L.EV_LEAD, match, hand_no, leader, L.DOUBLE_TILE[number], 0, pts, -1, scores, sides)
    if scores[side] >= target:
        hrow[L.H_END] = L.HAND_CUT
        return 1

    seat = leader
    passes = 0
    while True:
        if hands[seat] == 0:
            # the seat just emptied its hand (the lead counts): it goes out
            out = rules[L.R_OUT_POINTS]
            scores[side] += out
            view[L.V_SCORE + side] = scores[side]
            hrow[L.H_SEAT_POINTS + seat] += out
            hrow[L.H_END] = L.HAND_OUT
            hrow[L.H_WINNER] = side
            totals[L.S_POINTS_OUT] += out
            if tracing:
                record(trace, ctr, L.EV_OUT, match, hand_no, seat, 0, 0, out, -1, scores, sides)
            return 1 if scores[side] >= target else 0
        seat = seat + 1 if seat + 1 < players else 0
        side = seat % 2 if partners else seat
        ends = NUMBER_MASK[left] | NUMBER_MASK[right]
        playable = hands[seat] & ends
        if playable == 0:
            drawn = 0
            while bone_pos < bone_stop:
                t = deal[bone_pos]
                bone_pos += 1
                drawn += 1
                hands[seat] |= np.int64(1) << t
                view_draw(view, seat)
                if tracing:
                    record(trace, ctr, L.EV_DRAW, match, hand_no, seat, t, 0, 0, -1, scores, sides)
                if (np.int64(1) << t) & ends:
                    playable = np.int64(1) << t
                    break
            hrow[L.H_DRAWS] += drawn
            view_void_moment(view, seat, drawn, drawn - 1 if playable else drawn)
            if playable == 0:
                hrow[L.H_PASSES] += 1
                if tracing:
                    record(trace, ctr, L.EV_PASS, match, hand_no, seat, 0, 0, 0, -1, scores, sides)
                passes += 1
                if passes == players:
                    return _settle(rules, hands, scores, view, trace, tracing, ctr, totals, hrow, match, hand_no)
                continue
        passes = 0
        n = legal_moves(playable, left, right, mt, me)
        k = _choose(rules, seat_policy, seat, hands[seat], view, rngs, mt, me, n, script, ctr, err, totals)
        if k < 0:
            return -1
        tile = mt[k]
        hands[seat] &= ~(np.int64(1) << tile)
        is_double = 1 if TILE_LO[tile] == TILE_HI[tile] else 0
        if me[k] == L.END_L:
            left = other_half(tile, left)
            left_double = is_double
            view_play(view, seat, tile, L.END_L, left, is_double)
        else:
            right = other_half(tile, right)
            right_double = is_double
            view_play(view, seat, tile, L.END_R, right, is_double)
        hrow[L.H_PLAYS] += 1
        value = header_value(left, right, left_double, right_double)
        pts = 0
        if value > 0:
            pts = cut_points(value, scores[side], target, reduced)
            scores[side] += pts
            view[L.V_SCORE + side] = scores[side]
            hrow[L.H_SEAT_POINTS + seat] += pts
            totals[L.S_POINTS_HEADER] += pts
            play_no = min(hrow[L.H_PLAYS], L.MAX_PLAY_NO)
            if value == 3:
                hrow[L.H_TRIPLE_HEADERS] += 1
                totals[L.S_HEADERS_BY_PLAY + 2 * play_no + 1] += 1
            else:
                hrow[L.H_DOUBLE_HEADERS] += 1
                totals[L.S_HEADERS_BY_PLAY + 2 * play_no] += 1
        if tracing:
            record(trace, ctr, L.EV_PLAY, match, hand_no, seat, tile, me[k], pts, -1, scores, sides)
        if scores[side] >= target:
            hrow[L.H_END] = L.HAND_CUT
            return 1


@njit(cache=True)
def _settle(rules, hands, scores, view, trace, tracing, ctr, totals, hrow, match, hand_no):
    """Settle a blocked hand; returns 1 if the winner's points end the match."""
    players = rules[L.R_PLAYERS]
    partners = rules[L.R_PARTNERSHIPS]
    sides = 2 if partners else players
    doubles = hrow[L.H_SIDE_DOUBLES : L.H_SIDE_DOUBLES + L.MAX_SEATS]
    pips = hrow[L.H_SIDE_PIPS : L.H_SIDE_PIPS + L.MAX_SEATS]
    plain = hrow[L.H_SIDE_PLAIN_PIPS : L.H_SIDE_PLAIN_PIPS + L.MAX_SEATS]
    side_holdings(hands, players, partners, doubles, pips, plain)
    winner = settle_blocked(rules[L.R_SETTLEMENT], doubles, pips, plain, sides)
    hrow[L.H_END] = L.HAND_BLOCKED
    hrow[L.H_WINNER] = winner
    pts = 0
    if winner >= 0:
        pts = rules[L.R_BLOCKED_POINTS]
        scores[winner] += pts
        view[L.V_SCORE + winner] = scores[winner]
        totals[L.S_POINTS_BLOCKED] += pts
    if tracing:
        record(trace, ctr, L.EV_BLOCKED, match, hand_no, -1, 0, 0, pts, winner, scores, sides)
    return 1 if winner >= 0 and scores[winner] >= rules[L.R_TARGET] else 0


@njit(cache=True)
def run_matches(rules, seat_policy, seed, first_match, n_matches, given_deals, script,
                trace, tracing, totals, match_rows, hand_rows, err):
    """Play matches ``first_match .. first_match + n_matches - 1``.

    ``given_deals`` (K, 28): when K > 0, deals are taken from it in order
    instead of from the keyed streams (replay).  ``script`` (P, 2): when P > 0,
    every play after the lead is taken from it as (tile, end) and checked
    against the legal moves, and no policy is called.  ``match_rows`` receives
    one row per match (or, when it has a single row, scratch for it); ``hand_rows``, when it has rows, one per hand.
    Returns (matches played, hand rows written, trace rows needed): fewer
    matches than asked when ``hand_rows`` could not hold another whole match,
    and -1 matches after an error described in ``err``.
    """
    owned = np.zeros(_SCRATCH_SIZE, dtype=np.int64)
    owned_rng = np.zeros(L.MAX_SEATS + 1, dtype=np.uint64)
    # the owners stay alive in this frame while _run uses borrowed views of them
    return _run(rules, seat_policy, seed, first_match, n_matches, given_deals, script,
                trace, tracing, totals, match_rows, hand_rows, err, owned, owned_rng)


_SCRATCH_SIZE = L.MAX_SEATS * 2 + L.V_SIZE + L.N_TILES + L.H_WIDTH + 2 * L.MAX_MOVES + C_SIZE


@njit(cache=True)
def _run(rules, seat_policy, seed, first_match, n_matches, given_deals, script,
         trace, tracing, totals, match_rows, hand_rows, err, owned, owned_rng):
    """The body of :func:`run_matches`, on borrowed views of every array (see bits.borrow)."""
    players = rules[L.R_PLAYERS]
    partners = rules[L.R_PARTNERSHIPS]
    hand_size = rules[L.R_HAND_SIZE]
    target = rules[L.R_TARGET]
    sides = 2 if partners else players
    keep_hands = hand_rows.shape[0] > 0
    keep_matches = match_rows.shape[0] > 1 or n_matches == 1

    scratch = borrow(owned)
    scores = scratch[0 : L.MAX_SEATS]
    hands = scratch[L.MAX_SEATS : 2 * L.MAX_SEATS]
    at = 2 * L.MAX_SEATS
    view = scratch[at : at + L.V_SIZE]
    at += L.V_SIZE
    deal = scratch[at : at + L.N_TILES]
    at += L.N_TILES
    hrow = scratch[at : at + L.H_WIDTH]
    at += L.H_WIDTH
    mt = scratch[at : at + L.MAX_MOVES]
    me = scratch[at + L.MAX_MOVES : at + 2 * L.MAX_MOVES]
    at += 2 * L.MAX_MOVES
    ctr = scratch[at : at + C_SIZE]
    rng_all = borrow(owned_rng)
    rngs = rng_all[0 : L.MAX_SEATS]
    deal_rng = rng_all[L.MAX_SEATS : L.MAX_SEATS + 1]
    rules = borrow(rules)
    seat_policy = borrow(seat_policy)
    given_deals = borrow(given_deals)
    script = borrow(script)
    trace = borrow(trace)
    totals = borrow(totals)
    match_rows = borrow(match_rows)
    hand_rows = borrow(hand_rows)
    err = borrow(err)
    n_hand_rows = 0
    most_hands = sides * (target - 1) + 1  # every lead scores at least 1 point

    for i in range(n_matches):
        if keep_hands and n_hand_rows + most_hands > hand_rows.shape[0]:
            return i, n_hand_rows, ctr[C_TRACE]
        match = first_match + i
        err[L.E_MATCH] = match
        scores[:] = 0
        view_start_match(view, rules)
        for s in range(players):
            rngs[s] = stream_state(seed, match, STREAM_POLICY + s, 0)
        mrow = match_rows[i if keep_matches else 0]
        mrow[:] = 0
        mrow[L.M_MATCH] = match
        if tracing:
            record(trace, ctr, L.EV_MATCH, match, 0, 0, 0, 0, 0, -1, scores, sides)
        hand_no = 0
        over = 0
        while over == 0:
            hand_no += 1
            hrow[:] = 0
            hrow[L.H_MATCH] = match
            hrow[L.H_HAND] = hand_no
            for side in range(sides):
                hrow[L.H_SCORE_BEFORE + side] = scores[side]
            attempt = 0
            while True:
                if given_deals.shape[0] > 0:
                    if ctr[C_DEAL] >= given_deals.shape[0]:
                        _fail(err, L.ERR_DEALS_SHORT, -1, 0, 0, 0, 0)
                        return -1, n_hand_rows, ctr[C_TRACE]
                    deal[:] = given_deals[ctr[C_DEAL]]
                    ctr[C_DEAL] += 1
                else:
                    deal_rng[0] = stream_state(seed, match, hand_no, attempt)
                    shuffled_set(deal_rng, deal)
                if tracing:
                    record_deal(trace, ctr, match, hand_no, deal)
                held = np.int64(0)
                for k in range(players * hand_size):
                    held |= np.int64(1) << deal[k]
                if held & DOUBLE_MASK:
                    break
                attempt += 1
                if tracing:
                    record(trace, ctr, L.EV_REDEAL, match, hand_no, 0, 0, 0, 0, -1, scores, sides)
            hrow[L.H_REDEALS] = attempt
            over = _play_hand(rules, seat_policy, deal, hand_no, scores, view, rngs, script, ctr, err,
                              trace, tracing, totals, hrow, match, hands, mt, me)
            if over < 0:
                return -1, n_hand_rows, ctr[C_TRACE]
            _count_hand(hrow, sides, totals, mrow, partners)
            if hand_no == 1:
                mrow[L.M_FIRST_LEADER] = hrow[L.H_LEADER]
            if keep_hands:
                hand_rows[n_hand_rows] = hrow
                n_hand_rows += 1
        winner = 0
        for side in range(sides):
            if scores[side] >= target:
                winner = side
        if tracing:
            record(trace, ctr, L.EV_MATCH_END, match, hand_no, 0, 0, 0, 0, winner, scores, sides)
        totals[L.S_MATCHES] += 1
        totals[L.S_MATCH_WINS + winner] += 1
        mrow[L.M_WINNER] = winner
        for side in range(L.MAX_SEATS):
            mrow[L.M_SCORE + side] = scores[side] if side < sides else -1
        mrow[L.M_HANDS] = hand_no
        totals[L.S_HANDS_SQ] += hand_no * hand_no
    return n_matches, n_hand_rows, ctr[C_TRACE]


@njit(cache=True, inline="always")
def _count_hand(hrow, sides, totals, mrow, partners):
    """Add one finished hand's statistics to the run totals and its match row."""
    totals[L.S_HANDS] += 1
    totals[L.S_REDEALS] += hrow[L.H_REDEALS]
    totals[L.S_PLAYS] += hrow[L.H_PLAYS]
    totals[L.S_DRAWS] += hrow[L.H_DRAWS]
    totals[L.S_PASSES] += hrow[L.H_PASSES]
    totals[L.S_DOUBLE_HEADERS] += hrow[L.H_DOUBLE_HEADERS]
    totals[L.S_TRIPLE_HEADERS] += hrow[L.H_TRIPLE_HEADERS]
    totals[L.S_DOUBLE_HEADERS_SQ] += hrow[L.H_DOUBLE_HEADERS] * hrow[L.H_DOUBLE_HEADERS]
    totals[L.S_TRIPLE_HEADERS_SQ] += hrow[L.H_TRIPLE_HEADERS] * hrow[L.H_TRIPLE_HEADERS]
    end = hrow[L.H_END]
    if end == L.HAND_OUT:
        totals[L.S_OUT_HANDS] += 1
    elif end == L.HAND_BLOCKED:
        totals[L.S_BLOCKED_HANDS] += 1
    winner = hrow[L.H_WINNER]
    if winner >= 0:
        totals[L.S_DECIDED_HANDS] += 1
        leader = hrow[L.H_LEADER]
        if (leader % 2 if partners else leader) == winner:
            totals[L.S_LEADER_SIDE_WINS] += 1
    mrow[L.M_REDEALS] += hrow[L.H_REDEALS]
    mrow[L.M_DOUBLE_HEADERS] += hrow[L.H_DOUBLE_HEADERS]
    mrow[L.M_TRIPLE_HEADERS] += hrow[L.H_TRIPLE_HEADERS]
    mrow[L.M_PLAYS] += hrow[L.H_PLAYS]
    mrow[L.M_DRAWS] += hrow[L.H_DRAWS]
    if hrow[L.H_END] == L.HAND_BLOCKED:
        mrow[L.M_BLOCKED_HANDS] += 1
