"""TEMPLATE of the compiled match loop; never imported on its own.

:mod:`bergen_sim.runtime.kernel_build` writes this source into a generated
module below a ``choose_move(policy_id, seat, view, move_tiles, move_ends,
n_moves, rng, no_tiles, seat_params, rules, seat_tables)`` dispatcher that
calls the kernel's policies directly (and ``choose_lead``, and
``reads_view(policy_id)``: whether that policy reads the view at all).  The policies are therefore globals of
the compiled loop, not arguments, so Numba's disk cache serves every later
run (an njit function passed as an argument misses the cache in every new
process); which policy a seat plays, its settings and its match-value table
are arguments, so one compiled loop serves every mix of built-ins.

One call of :func:`run_matches` plays whole matches: deals and redeals from
keyed random streams (or from given deals when replaying) and the hands
themselves through :mod:`bergen_sim.engine.hand` (the lead, draws, passes,
headers with the near-target cut, going out and blocked settlement), and
stops a match the moment a side reaches the target.  Array layouts are in
:mod:`bergen_sim.engine.layout`.
"""

import numpy as np
from numba import njit

from bergen_sim.engine import layout as L
from bergen_sim.engine.bits import borrow, read_shared
from bergen_sim.engine.ends import ends_led, number_at, open_count
from bergen_sim.engine.hand import HAND_OVER, MATCH_OVER, REDEAL, HandBuffers, advance_on, deal_hand, lead, play_on
from bergen_sim.engine.keyed_random import STREAM_POLICY, shuffled_set, stream_state
from bergen_sim.engine.play_rules import hand_of
from bergen_sim.engine.recording import C_DEAL, C_SCRIPT, C_SIZE, C_TRACE, Head, record, record_deal
from bergen_sim.engine.run_buffers import Seats
from bergen_sim.engine.sides import seat_side, side_total
from bergen_sim.engine.tileset import store
from bergen_sim.engine.view import ends_of, view_start_match

#: constants passed to compiled callees as int64, not as literals, so that each callee compiles once
#: (a literal ``0`` or ``-1`` is a type of its own: recording.record says why this matters)
_0 = np.int64(0)
_NONE = np.int64(-1)
_EV_MATCH, _EV_REDEAL, _EV_MATCH_END = np.int64(L.EV_MATCH), np.int64(L.EV_REDEAL), np.int64(L.EV_MATCH_END)


@njit(cache=True, inline="always")
def _copy_row(out, row, n):
    """``out[:n] = row[:n]``, element by element: an array assignment compiles a shape check whose error message
    formats shapes as text, string code that added seconds to every cold compile of the kernel."""
    for k in range(n):
        out[k] = row[k]


@njit(cache=True, inline="always")
def _note_position(err, hand, ends):
    """Note the position for an error's message: the deciding seat's hand and the open ends."""
    store(err, L.E_HAND, hand)
    for e in range(L.N_ENDS):
        err[L.E_END + e] = number_at(ends, e) if e < open_count(ends) else -1


@njit(cache=True)
def _fail(err, code, choice, n_moves, hand, ends):
    """Note why the run stopped, and the position; the seat, match and policy were noted before the call."""
    err[L.E_CODE] = code
    err[L.E_CHOICE] = choice
    err[L.E_N_MOVES] = n_moves
    _note_position(err, hand, ends)
    return -1


@njit(cache=True, inline="always")
def _choose(rules, seats, b, seat, n, leading, ends):
    """Index of the move ``seat`` makes among its ``n`` legal ones, or -1 after an error.

    ``seats``: a :class:`~bergen_sim.engine.run_buffers.Seats`.  ``leading``: the moves are the doubles the seat
    may lead (``any-double``); its policy is asked even when it holds one, as RULES.md says.  ``ends``: the open
    ends, for the message of an error (the view's copy is not kept when no policy reads it).
    """
    script, err, rngs = seats.script, seats.err, seats.rngs
    view = b.policy_view
    hand = hand_of(b.hands, seat, b.no_tiles)
    mt = b.move_tiles
    me = b.move_ends
    if script.shape[0] > 0:
        i = b.ctr[C_SCRIPT]
        if i >= script.shape[0]:
            return _fail(err, L.ERR_SCRIPT_SHORT, _NONE, n, hand, ends)
        b.ctr[C_SCRIPT] = i + 1
        for k in range(n):
            if mt[k] == script[i, 0] and me[k] == script[i, 1]:
                return k
        return _fail(err, L.ERR_SCRIPT, i, n, hand, ends)
    if n == 1 and not leading:
        return 0
    if not b.turn[L.TURN_RULES_VIEW]:
        view[L.V_SEAT] = seat
        view[L.V_SIDE] = seat_side(seat, rules[L.R_PARTNERSHIPS])
        store(view, L.V_HAND, hand)
        # a plug-in, which may raise, is always given the view: where it decides, for the message if it does
        err[L.E_SEAT] = seat
        err[L.E_POLICY] = seats.policy[seat]
        _note_position(err, hand, ends)
    b.totals[L.S_POLICY_CALLS] += 1
    if leading:
        k = choose_lead(  # noqa: F821 (defined by the generated module this source follows)
            seats.policy[seat],
            seat,
            view,
            mt,
            me,
            n,
            rngs[seat : seat + 1],
            b.no_tiles,
            seats.params,
            rules,
            seats.tables,
        )
    else:
        k = choose_move(  # noqa: F821
            seats.policy[seat],
            seat,
            view,
            mt,
            me,
            n,
            rngs[seat : seat + 1],
            b.no_tiles,
            seats.params,
            rules,
            seats.tables,
        )  # (bound by kernel_build)
    if k < 0 or k >= n:
        err[L.E_SEAT] = seat
        err[L.E_POLICY] = seats.policy[seat]
        return _fail(err, L.ERR_ILLEGAL_CHOICE, k, n, hand, ends)
    return k


@njit(cache=True, inline="always")
def _play_turns(rules, seats, b):
    """Play a led hand to its end (engine/hand.py), the run's policies choosing.

    Returns 1 if the match ended in this hand, 0 if not, -1 after an error.
    The open ends live in a local from the lead on (engine/ends.py says why).
    """
    seat = b.hrow[L.H_LEADER]
    pos = b.turn[L.TURN_BONE_START]
    ends = ends_led(b.hrow[L.H_LED_DOUBLE], rules[L.R_SPINNER])
    while True:
        n, seat, pos = advance_on(rules, b, seat, pos, ends)
        if n == HAND_OVER:
            return 0
        if n == MATCH_OVER:
            return 1
        k = _choose(rules, seats, b, seat, n, False, ends)
        if k < 0:
            return -1
        ended, ends = play_on(rules, b, seat, b.move_tiles[k], b.move_ends[k], ends)
        if ended:
            return 1


@njit(cache=True, nogil=True)
def run_matches(rules, seat_policy, seat_params, seat_tables, seed, first_match, n_matches, tracing, buffers, no_tiles):
    """Play matches ``first_match .. first_match + n_matches - 1``.

    ``seat_policy``: each seat's policy code (its index in the kernel's
    ``ENTRIES``); ``seat_params`` (seats, K) int64: each seat's settings,
    and ``seat_tables`` (seats, N) float64: each seat's match-value table
    (kernel_build.seat_arguments).

    ``no_tiles`` is the empty tile set of the game's width (engine/tileset.py:
    one word up to double-nine, three above), which picks the compiled code.
    ``buffers`` is a :class:`~bergen_sim.engine.run_buffers.RunBuffers`:
    ``given_deals`` (K, MAX_TILES): when K > 0, deals are taken from it in order
    instead of from the keyed streams (replay).  ``script`` (P, 2): when P > 0,
    every play after the lead (and every lead with ``any-double``, end
    ``LEAD_CHOICE``) is taken from it as (tile, end) and checked
    against the legal moves, and no policy is called.  ``match_rows`` receives
    one row per match (or, when it has a single row, scratch for it);
    ``hand_rows``, when it has rows, one per hand.
    Returns (matches played, hand rows written, trace rows needed): fewer
    matches than asked when ``hand_rows`` could not hold another whole match
    or another thread set ``halt`` (checked before each match), and -1
    matches after an error described in ``err``.

    ``nogil``: a call holds no Python lock while it plays (it touches only
    the arrays it is given and those it allocates), so this process's other
    threads run meanwhile, and several threads may play chunks of one engine
    at once: that is how a run uses several cores (:mod:`bergen_sim.services.execution.parallel`).
    """
    owned = np.zeros(_SCRATCH_SIZE, dtype=np.int64)
    owned_rng = np.zeros(L.MAX_SEATS + 1, dtype=np.uint64)
    # the owners stay alive in this frame while _run uses borrowed views of them
    seating = (seat_policy, seat_params, seat_tables)
    return _run(rules, seating, seed, first_match, n_matches, tracing, buffers, owned, owned_rng, no_tiles)


_HANDS_SIZE = L.MAX_SEATS * L.SET_WORDS
_SCRATCH_SIZE = _HANDS_SIZE + L.V_SIZE + L.MAX_TILES + L.H_WIDTH + 2 * L.MAX_MOVES + C_SIZE + L.TURN_SIZE


@njit(cache=True)
def _run(rules, seating, seed, first_match, n_matches, tracing, buffers, owned, owned_rng, no_tiles):
    """The body of :func:`run_matches`, on borrowed views of every array (see bits.borrow); ``seating`` holds its
    ``seat_policy``, ``seat_params`` and ``seat_tables``."""
    players = rules[L.R_PLAYERS]
    partners = rules[L.R_PARTNERSHIPS]
    target = rules[L.R_TARGET]
    n_tiles = rules[L.R_N_TILES]
    any_double = rules[L.R_LEAD] == L.LEAD_ANY_DOUBLE
    sides = side_total(players, partners)

    scratch = borrow(owned)
    hands = scratch[0:_HANDS_SIZE]
    at = _HANDS_SIZE
    view = scratch[at : at + L.V_SIZE]
    at += L.V_SIZE
    deal = scratch[at : at + L.MAX_TILES]
    at += L.MAX_TILES
    hrow = scratch[at : at + L.H_WIDTH]
    at += L.H_WIDTH
    mt = scratch[at : at + L.MAX_MOVES]
    me = scratch[at + L.MAX_MOVES : at + 2 * L.MAX_MOVES]
    at += 2 * L.MAX_MOVES
    ctr = scratch[at : at + C_SIZE]
    at += C_SIZE
    turn = scratch[at : at + L.TURN_SIZE]
    rng_all = borrow(owned_rng)
    rngs = rng_all[0 : L.MAX_SEATS]
    deal_rng = rng_all[L.MAX_SEATS : L.MAX_SEATS + 1]
    rules = borrow(rules)
    seat_policy = borrow(seating[0])
    seat_params = borrow(seating[1])
    seat_tables = borrow(seating[2])
    given_deals = borrow(buffers.given_deals)
    script = borrow(buffers.script)
    trace = borrow(buffers.trace)
    totals = borrow(buffers.totals)
    match_rows = borrow(buffers.match_rows)
    hand_rows = borrow(buffers.hand_rows)
    err = borrow(buffers.err)
    halt = buffers.halt  # not borrowed: read_shared reads its address, never through a view
    keep_hands = hand_rows.shape[0] > 0
    keep_matches = match_rows.shape[0] > 1 or n_matches == 1
    b = HandBuffers(view, hands, deal, turn, hrow, totals, trace, ctr, mt, me, no_tiles)
    seats = Seats(seat_policy, seat_params, seat_tables, rngs, script, err)
    turn[L.TURN_TRACING] = 1 if tracing else 0
    turn[L.TURN_RULES_VIEW] = 1
    for s in range(players):
        if reads_view(seat_policy[s]):  # noqa: F821 (defined by the generated module)
            turn[L.TURN_RULES_VIEW] = 0
    n_hand_rows = 0
    most_hands = sides * (target - 1) + 1  # every lead scores at least 1 point

    for i in range(n_matches):
        if (keep_hands and n_hand_rows + most_hands > hand_rows.shape[0]) or read_shared(halt) != 0:
            return i, n_hand_rows, ctr[C_TRACE]
        match = first_match + i
        err[L.E_MATCH] = match
        turn[L.TURN_MATCH] = match
        view_start_match(view, rules)
        scores = view[L.V_SCORE : L.V_SCORE + L.MAX_SEATS]
        for s in range(players):
            rngs[s] = stream_state(seed, match, STREAM_POLICY + s, _0)
        mrow = match_rows[i if keep_matches else 0]
        mrow[:] = 0
        mrow[L.M_MATCH] = match
        if tracing:
            record(trace, ctr, Head(_EV_MATCH, match, _0, _0, _0, _0, _0, _NONE), scores, sides)
        hand_no = _0
        over = 0
        while over == 0:
            hand_no += 1
            hrow[:] = 0
            hrow[L.H_MATCH] = match
            hrow[L.H_HAND] = hand_no
            for side in range(sides):
                hrow[L.H_SCORE_BEFORE + side] = scores[side]
            attempt = _0
            while True:
                if given_deals.shape[0] > 0:
                    if ctr[C_DEAL] >= given_deals.shape[0]:
                        _fail(err, L.ERR_DEALS_SHORT, _NONE, _0, no_tiles, ends_of(view))
                        return -1, n_hand_rows, ctr[C_TRACE]
                    _copy_row(deal, given_deals[ctr[C_DEAL]], n_tiles)
                    ctr[C_DEAL] += 1
                else:
                    deal_rng[0] = stream_state(seed, match, hand_no, attempt)
                    shuffled_set(deal_rng, deal, n_tiles)
                if tracing:
                    record_deal(trace, ctr, match, hand_no, deal, n_tiles)
                hrow[L.H_REDEALS] = attempt
                options = deal_hand(rules, b, hand_no)
                if options != REDEAL:
                    k = 0
                    if any_double:
                        k = _choose(rules, seats, b, hrow[L.H_LEADER], options, True, ends_of(view))
                        if k < 0:
                            return -1, n_hand_rows, ctr[C_TRACE]
                    over = lead(rules, b, hand_no, mt[k])
                    break
                attempt += 1
                if tracing:
                    record(trace, ctr, Head(_EV_REDEAL, match, hand_no, _0, _0, _0, _0, _NONE), scores, sides)
            if over == 0:
                over = _play_turns(rules, seats, b)
            if over < 0:
                return -1, n_hand_rows, ctr[C_TRACE]
            _count_hand(hrow, sides, totals, mrow, partners)
            if hand_no == 1:
                mrow[L.M_FIRST_LEADER] = hrow[L.H_LEADER]
            if keep_hands:
                _copy_row(hand_rows[n_hand_rows], hrow, hrow.shape[0])
                n_hand_rows += 1
        winner = _0
        for side in range(sides):
            if scores[side] >= target:
                winner = side
        if tracing:
            record(trace, ctr, Head(_EV_MATCH_END, match, hand_no, _0, _0, _0, _0, winner), scores, sides)
        totals[L.S_MATCHES] += 1
        totals[L.S_MATCH_WINS + winner] += 1
        mrow[L.M_WINNER] = winner
        for side in range(L.MAX_SEATS):
            mrow[L.M_SCORE + side] = scores[side] if side < sides else -1
        mrow[L.M_HANDS] = hand_no
        _count_match(mrow, totals)
    return n_matches, n_hand_rows, ctr[C_TRACE]


@njit(cache=True, inline="always")
def _count_match(mrow, totals):
    """Add a finished match's squares and products to the run totals: the match is the sampling unit of
    every per-hand rate's interval (stats.ratio_interval), since hands are clustered in matches."""
    hands = mrow[L.M_HANDS]
    doubles = mrow[L.M_DOUBLE_HEADERS]
    triples = mrow[L.M_TRIPLE_HEADERS]
    decided = mrow[L.M_DECIDED_HANDS]
    leader_wins = mrow[L.M_LEADER_SIDE_WINS]
    totals[L.S_HANDS_SQ] += hands * hands
    totals[L.S_DOUBLE_HEADERS_SQ] += doubles * doubles
    totals[L.S_TRIPLE_HEADERS_SQ] += triples * triples
    totals[L.S_DOUBLE_HEADERS_HANDS] += doubles * hands
    totals[L.S_TRIPLE_HEADERS_HANDS] += triples * hands
    totals[L.S_LEADER_SIDE_WINS_SQ] += leader_wins * leader_wins
    totals[L.S_DECIDED_HANDS_SQ] += decided * decided
    totals[L.S_LEADER_SIDE_WINS_DECIDED] += leader_wins * decided


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
    end = hrow[L.H_END]
    if end == L.HAND_OUT:
        totals[L.S_OUT_HANDS] += 1
    elif end == L.HAND_BLOCKED:
        totals[L.S_BLOCKED_HANDS] += 1
    winner = hrow[L.H_WINNER]
    if winner >= 0:
        totals[L.S_DECIDED_HANDS] += 1
        mrow[L.M_DECIDED_HANDS] += 1
        leader = hrow[L.H_LEADER]
        if seat_side(leader, partners) == winner:
            totals[L.S_LEADER_SIDE_WINS] += 1
            mrow[L.M_LEADER_SIDE_WINS] += 1
    mrow[L.M_REDEALS] += hrow[L.H_REDEALS]
    mrow[L.M_DOUBLE_HEADERS] += hrow[L.H_DOUBLE_HEADERS]
    mrow[L.M_TRIPLE_HEADERS] += hrow[L.H_TRIPLE_HEADERS]
    mrow[L.M_PLAYS] += hrow[L.H_PLAYS]
    mrow[L.M_DRAWS] += hrow[L.H_DRAWS]
    if hrow[L.H_END] == L.HAND_BLOCKED:
        mrow[L.M_BLOCKED_HANDS] += 1
