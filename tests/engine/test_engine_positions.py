"""Hand-built positions for every scoring rule, played by the compiled engine.

Each test gives the engine fixed deals and a replay script (every play after
the lead as tile and end) and compares the whole event list with one written
out by hand from RULES.md.  The points and scores below were worked out on
paper, not taken from either engine; as a second opinion every position is
also replayed through the plain-Python reference engine.

Conventions: the boneyard is whatever :func:`tests.helpers.deal` leaves (given head
first, then the remaining tiles in index order).  Most positions use a target
the scripted hand reaches, so that one hand is the whole match.
"""

from __future__ import annotations

import numpy as np
import pytest

from bergen_sim.core.errors import TraceError
from bergen_sim.engine import layout as L
from bergen_sim.engine.play_rules import hand_moves
from bergen_sim.model.rules import Rules
from tests.helpers import compiled_events, deal, line_view, walk_match
from tests.oracle import deals_from_trace, moves_from_trace, play_match_reference

ZEROS = ["0-1", "0-2", "0-3", "0-4", "0-5", "0-6"]


# --- expected events, written the way the trace format spells them ------------------------------


def match_ev(rules):
    return {
        "type": "match",
        "format": "bergen-trace/2",
        "match": 0,
        "rules": rules.to_dict(),
        "policies": ["first"] * rules.players,
        "seed": 0,
    }


def deal_ev(hand, tiles, rules):
    names = [L.TILE_NAMES[t] for t in tiles]
    k = rules.hand_size
    return {
        "type": "deal",
        "hand": hand,
        "hands": [names[s * k : (s + 1) * k] for s in range(rules.players)],
        "boneyard": names[rules.players * k :],
    }


def lead(seat, tile, points, score):
    return {"type": "lead", "seat": seat, "tile": tile, "points": points, "score": score}


def play(seat, tile, end, points, score):
    return {"type": "play", "seat": seat, "tile": tile, "end": end, "points": points, "score": score}


def draw(seat, tile):
    return {"type": "draw", "seat": seat, "tile": tile}


def pass_(seat):
    return {"type": "pass", "seat": seat}


def out(seat, points, score):
    return {"type": "out", "seat": seat, "points": points, "score": score}


def blocked(winner, points, score):
    return {"type": "blocked", "winner": winner, "points": points, "score": score}


def match_end(winner, score):
    return {"type": "match_end", "winner": winner, "score": score}


def check(rules, deals, script, expected_after_match_event):
    """The compiled engine (and the reference) produce exactly the expected events."""
    expected = [match_ev(rules)] + expected_after_match_event
    got = compiled_events(rules, deals, script)
    assert got == expected
    walk_match(got, rules)  # the invariant checker agrees with the hand-built positions
    reference = play_match_reference(
        rules.to_dict(), deals_from_trace(expected), moves_from_trace(expected), policies=["first"] * rules.players
    )
    assert reference == expected


# --- headers and the near-target cut -------------------------------------------------------------

# Seat 0 leads 2-2; the line then runs on the right: 2-4, 4-5, 5-6, and seat 0's last tile 2-6 goes
# on the right too, so the right end shows 2 again while the led double still lies open on the
# left: a single onto the far end of a double, a triple-header, and seat 0 goes out with it.
TRIPLE_HANDS = (["2-2", "4-5", "2-6"], ["2-4", "5-6", "1-3"])
TRIPLE_SCRIPT = [("2-4", "R"), ("4-5", "R"), ("5-6", "R"), ("2-6", "R")]


@pytest.mark.parametrize(
    "target, lead_pts, triple_pts, goes_out",
    [
        (6, 2, 3, True),  # need 6 at the lead, need 4 at the triple: full value
        (5, 2, 2, True),  # need 3: a triple-header is cut to 2
        (4, 2, 1, True),  # need 2: 1 point
        (3, 2, 1, False),  # lead at need 3 keeps 2; triple at need 1: 1 point reaches 3, no out points
    ],
)
def test_triple_header_single_onto_far_end_of_double_and_the_cut(target, lead_pts, triple_pts, goes_out):
    rules = Rules.make(players=2, hand_size=3, target=target)
    d = deal(*TRIPLE_HANDS)
    after_triple = lead_pts + triple_pts
    tail = (
        [out(0, 2, [after_triple + 2, 0]), match_end(0, [after_triple + 2, 0])]
        if goes_out
        else [match_end(0, [after_triple, 0])]
    )
    check(
        rules,
        [d],
        TRIPLE_SCRIPT,
        [
            deal_ev(1, d, rules),
            lead(0, "2-2", lead_pts, [lead_pts, 0]),
            play(1, "2-4", "R", 0, [lead_pts, 0]),
            play(0, "4-5", "R", 0, [lead_pts, 0]),
            play(1, "5-6", "R", 0, [lead_pts, 0]),
            play(0, "2-6", "R", triple_pts, [after_triple, 0]),
        ]
        + tail,
    )


def test_lead_at_need_two_scores_one_and_a_header_at_need_one_ends_the_match():
    rules = Rules.make(players=2, hand_size=3, target=2)
    d = deal(*TRIPLE_HANDS)
    check(
        rules,
        [d],
        TRIPLE_SCRIPT,
        [
            deal_ev(1, d, rules),
            lead(0, "2-2", 1, [1, 0]),
            play(1, "2-4", "R", 0, [1, 0]),
            play(0, "4-5", "R", 0, [1, 0]),
            play(1, "5-6", "R", 0, [1, 0]),
            play(0, "2-6", "R", 1, [2, 0]),
            match_end(0, [2, 0]),
        ],
    )


def test_lead_at_need_one_ends_the_match_at_once():
    rules = Rules.make(players=2, hand_size=3, target=1)
    d = deal(*TRIPLE_HANDS)
    check(rules, [d], [], [deal_ev(1, d, rules), lead(0, "2-2", 1, [1, 0]), match_end(0, [1, 0])])


def test_without_the_cut_a_full_triple_header_ends_the_match_without_out_points():
    rules = Rules.make(players=2, hand_size=3, target=5, reduced_headers=False)
    d = deal(*TRIPLE_HANDS)
    check(
        rules,
        [d],
        TRIPLE_SCRIPT,
        [
            deal_ev(1, d, rules),
            lead(0, "2-2", 2, [2, 0]),
            play(1, "2-4", "R", 0, [2, 0]),
            play(0, "4-5", "R", 0, [2, 0]),
            play(1, "5-6", "R", 0, [2, 0]),
            play(0, "2-6", "R", 3, [5, 0]),
            match_end(0, [5, 0]),
        ],
    )


def test_same_tile_onto_the_double_end_itself_is_only_a_double_header():
    # 2-6 on the left covers the led double: both ends then show a plain 6
    rules = Rules.make(players=2, hand_size=3, target=6)
    d = deal(*TRIPLE_HANDS)
    check(
        rules,
        [d],
        TRIPLE_SCRIPT[:3] + [("2-6", "L")],
        [
            deal_ev(1, d, rules),
            lead(0, "2-2", 2, [2, 0]),
            play(1, "2-4", "R", 0, [2, 0]),
            play(0, "4-5", "R", 0, [2, 0]),
            play(1, "5-6", "R", 0, [2, 0]),
            play(0, "2-6", "L", 2, [4, 0]),
            out(0, 2, [6, 0]),
            match_end(0, [6, 0]),
        ],
    )


# Seat 0 leads 2-2; 2-4 goes left, 2-5 and 5-6 right, and 4-6 on the right makes both ends a plain
# 4: a single onto the far end, a double-header.
DOUBLE_HANDS = (["2-2", "2-5", "4-6"], ["2-4", "5-6", "1-3"])
DOUBLE_SCRIPT = [("2-4", "L"), ("2-5", "R"), ("5-6", "R"), ("4-6", "R")]


@pytest.mark.parametrize(
    "target, header_pts, goes_out",
    [
        (6, 2, True),  # need 4: full
        (5, 2, True),  # need 3: a double-header keeps its 2
        (4, 1, True),  # need 2: 1 point
        (3, 1, False),  # need 1: 1 point reaches the target
    ],
)
def test_double_header_single_onto_far_end_and_the_cut(target, header_pts, goes_out):
    rules = Rules.make(players=2, hand_size=3, target=target)
    d = deal(*DOUBLE_HANDS)
    score = 2 + header_pts
    tail = [out(0, 2, [score + 2, 0]), match_end(0, [score + 2, 0])] if goes_out else [match_end(0, [score, 0])]
    check(
        rules,
        [d],
        DOUBLE_SCRIPT,
        [
            deal_ev(1, d, rules),
            lead(0, "2-2", 2, [2, 0]),
            play(1, "2-4", "L", 0, [2, 0]),
            play(0, "2-5", "R", 0, [2, 0]),
            play(1, "5-6", "R", 0, [2, 0]),
            play(0, "4-6", "R", header_pts, [score, 0]),
        ]
        + tail,
    )


def test_double_played_onto_a_matching_end_is_a_triple_header():
    # seat 1's 4-5 makes both ends a plain 5 (double-header, seat 1's side), then seat 0 lays 5-5
    # crosswise on the left: both ends still show 5 and one is a double end, a triple-header
    rules = Rules.make(players=2, hand_size=3, target=6)
    d = deal(["2-2", "2-4", "5-5"], ["2-5", "4-5", "1-3"])
    check(
        rules,
        [d],
        [("2-5", "L"), ("2-4", "R"), ("4-5", "R"), ("5-5", "L")],
        [
            deal_ev(1, d, rules),
            lead(0, "2-2", 2, [2, 0]),
            play(1, "2-5", "L", 0, [2, 0]),
            play(0, "2-4", "R", 0, [2, 0]),
            play(1, "4-5", "R", 2, [2, 2]),
            play(0, "5-5", "L", 3, [5, 2]),
            out(0, 2, [7, 2]),
            match_end(0, [7, 2]),
        ],
    )


def test_drawing_until_a_playable_tile_which_must_be_played():
    rules = Rules.make(players=2, hand_size=3, target=4)
    d = deal(["2-2", "4-5", "2-6"], ["2-4", "1-3", "3-3"], boneyard=["1-4", "3-6", "5-6"])
    check(
        rules,
        [d],
        TRIPLE_SCRIPT,
        [
            deal_ev(1, d, rules),
            lead(0, "2-2", 2, [2, 0]),
            play(1, "2-4", "R", 0, [2, 0]),
            play(0, "4-5", "R", 0, [2, 0]),
            draw(1, "1-4"),
            draw(1, "3-6"),
            draw(1, "5-6"),
            play(1, "5-6", "R", 0, [2, 0]),
            play(0, "2-6", "R", 1, [3, 0]),
            out(0, 2, [5, 0]),
            match_end(0, [5, 0]),
        ],
    )


# --- hand size 1, earlier hands, leads and redeals -----------------------------------------------


def test_going_out_on_the_lead_then_the_lead_cut_by_an_earlier_hand():
    # hand size 1: the leader scores the led double, then goes out; in hand 2 the side needs 1
    rules = Rules.make(players=2, hand_size=1, target=5)
    d = deal(["3-3"], ["1-2"])
    check(
        rules,
        [d, d],
        [],
        [
            deal_ev(1, d, rules),
            lead(0, "3-3", 2, [2, 0]),
            out(0, 2, [4, 0]),
            deal_ev(2, d, rules),
            lead(0, "3-3", 1, [5, 0]),
            match_end(0, [5, 0]),
        ],
    )


def test_lead_at_need_two_after_an_earlier_hand_then_out_points_are_not_cut():
    rules = Rules.make(players=2, hand_size=1, target=6)
    d = deal(["3-3"], ["1-2"])
    check(
        rules,
        [d, d],
        [],
        [
            deal_ev(1, d, rules),
            lead(0, "3-3", 2, [2, 0]),
            out(0, 2, [4, 0]),
            deal_ev(2, d, rules),
            lead(0, "3-3", 1, [5, 0]),
            out(0, 2, [7, 0]),
            match_end(0, [7, 0]),
        ],
    )


def test_redeal_when_no_hand_holds_a_double_keeps_the_hand_number():
    # every double lies in the boneyard: boneyard doubles do not count, so the hand is dealt again
    rules = Rules.make(players=2, hand_size=1, target=4)
    no_double = deal(["0-1"], ["2-3"])
    good = deal(["1-2"], ["3-3"])
    check(
        rules,
        [no_double, good],
        [],
        [
            deal_ev(1, no_double, rules),
            {"type": "redeal", "hand": 1},
            deal_ev(1, good, rules),
            lead(1, "3-3", 2, [0, 2]),
            out(1, 2, [0, 4]),
            match_end(1, [0, 4]),
        ],
    )


@pytest.mark.parametrize("lead_rule, leader, tile", [("lowest-double", 1, "1-1"), ("highest-double", 0, "2-2")])
def test_lead_ignores_doubles_in_the_boneyard(lead_rule, leader, tile):
    rules = Rules.make(players=2, hand_size=1, target=4, lead=lead_rule)
    d = deal(["2-2"], ["1-1"], boneyard=["0-0", "6-6"])
    score = [0, 0]
    score[leader] = 2
    final = list(score)
    final[leader] = 4
    check(
        rules,
        [d],
        [],
        [
            deal_ev(1, d, rules),
            lead(leader, tile, 2, score),
            out(leader, 2, final),
            match_end(leader, final),
        ],
    )


def test_partners_points_add_up_on_their_side():
    # seat 0 leads and goes out in hand 1, its partner seat 2 in hand 2: all for side 0
    rules = Rules.make(players=4, partnerships=True, hand_size=1, target=8)
    first = deal(["3-3"], ["1-2"], ["4-5"], ["2-3"])
    second = deal(["4-4"], ["0-1"], ["1-1"], ["2-3"])
    check(
        rules,
        [first, second],
        [],
        [
            deal_ev(1, first, rules),
            lead(0, "3-3", 2, [2, 0]),
            out(0, 2, [4, 0]),
            deal_ev(2, second, rules),
            lead(2, "1-1", 2, [6, 0]),
            out(2, 2, [8, 0]),
            match_end(0, [8, 0]),
        ],
    )


# --- the boneyard reserve ------------------------------------------------------------------------

# Seat 0 holds every 0 tile and leads 0-0; seat 1 holds none, so it draws every tile above the
# reserve (none of them fits) and passes.  Then seat 0 plays all six 0 tiles, seat 1 answering
# from what it holds and drew, no header arises, and seat 0 goes out: 2 + 2 reaches the target 4.
RESERVE_S1 = ["1-1", "1-3", "1-4", "2-2", "2-4", "4-5", "5-6"]
RESERVE_SCRIPT = [
    ("0-1", "L"),
    ("1-3", "L"),
    ("0-2", "R"),
    ("2-4", "R"),
    ("0-3", "L"),
    ("4-5", "R"),
    ("0-4", "L"),
    ("5-6", "R"),
    ("0-6", "R"),
    ("1-4", "L"),
    ("0-5", "R"),
]


@pytest.mark.parametrize("reserve", [0, 2, 5, 14])
def test_no_draw_below_the_reserve(reserve):
    rules = Rules.make(players=2, hand_size=7, target=4, boneyard_reserve=reserve)
    d = deal(["0-0"] + ZEROS, RESERVE_S1)
    boneyard = [L.TILE_NAMES[t] for t in d[14:]]
    assert "0" not in "".join(boneyard) and len(boneyard) == 14
    drawn = [draw(1, t) for t in boneyard[: 14 - reserve]]  # reserve 0: the boneyard is drawn dry
    plays = [play(k % 2, tile, end, 0, [2, 0]) for k, (tile, end) in enumerate(RESERVE_SCRIPT)]
    check(
        rules,
        [d],
        RESERVE_SCRIPT,
        [
            deal_ev(1, d, rules),
            lead(0, "0-0", 2, [2, 0]),
            *drawn,
            pass_(1),  # a pass after drawing is an ordinary pass event
            *plays,
            out(0, 2, [4, 0]),
            match_end(0, [4, 0]),
        ],
    )


# --- blocked hands and their settlement ----------------------------------------------------------


def blocked_match(players, hands, settlement, winner, partnerships=False, leader=0, drawn=()):
    """Seat ``leader`` leads 0-0 and nobody holds another 0 tile; the reserve is the whole boneyard
    except ``drawn`` (drawn by the next seat), so every seat passes in turn and the hand is blocked.
    With target 3 and 3 blocked points a winner ends the match; a tie scores nobody, and the same
    deal again lets the leader's side reach 3 with a lead cut to 1.
    """
    size = len(hands[0])
    boneyard_size = 28 - players * size
    rules = Rules.make(
        players=players,
        partnerships=partnerships,
        hand_size=size,
        target=3,
        blocked_points=3,
        settlement=settlement,
        boneyard_reserve=boneyard_size - len(drawn),
    )
    d = deal(*hands, boneyard=drawn)
    side = rules.side_of(leader)
    score = [0] * rules.sides
    score[side] = 2
    nxt = (leader + 1) % players
    events = [deal_ev(1, d, rules), lead(leader, "0-0", 2, list(score))]
    events += [draw(nxt, t) for t in drawn]
    events += [pass_((leader + 1 + k) % players) for k in range(players)]
    if winner is None:
        events.append(blocked(None, 0, list(score)))
        score[side] = 3
        events += [deal_ev(2, d, rules), lead(leader, "0-0", 1, list(score)), match_end(side, list(score))]
        deals = [d, d]
    else:
        score[winner] += 3
        events += [blocked(winner, 3, list(score)), match_end(winner, list(score))]
        deals = [d]
    check(rules, deals, [], events)


# Two players; the hands left after the lead:
#   H1: seat 0 5-6 4-6 3-6 (no double, 30 pips)  seat 1 1-1 1-2 1-3 2-3 (one double, 14 pips)
#   H2: seat 0 6-6 1-2 1-3 (one double, 19 pips, 7 plain)  seat 1 1-1 2-3 1-4 1-5 (one, 18, 16 plain)
#   H3: seat 0 1-1 2-5 3-6 (one double, 18 pips, 16 plain)  seat 1 2-2 1-2 1-3 3-4 (one, 18, 14 plain)
#   H4: seat 0 6-6 1-2 1-4 (one double, 20 pips, 8 plain)  seat 1 1-1 2-2 3-3 2-6 (three, 20, 8 plain)
TWO_PLAYER_HANDS = {
    "H1": (["0-0", "5-6", "4-6", "3-6"], ["1-1", "1-2", "1-3", "2-3"]),
    "H2": (["0-0", "6-6", "1-2", "1-3"], ["1-1", "2-3", "1-4", "1-5"]),
    "H3": (["0-0", "1-1", "2-5", "3-6"], ["2-2", "1-2", "1-3", "3-4"]),
    "H4": (["0-0", "6-6", "1-2", "1-4"], ["1-1", "2-2", "3-3", "2-6"]),
}


@pytest.mark.parametrize(
    "hands, settlement, winner",
    [
        ("H1", "german", 0),  # fewer doubles beats fewer pips
        ("H1", "pips", 1),
        ("H1", "american", 0),  # holding no double beats holding one
        ("H2", "german", 1),  # tied on doubles: fewer pips
        ("H2", "pips", 1),
        ("H2", "american", 0),  # both hold a double: fewer non-double pips
        ("H3", "german", None),  # tied on doubles and pips
        ("H3", "pips", None),
        ("H3", "american", 1),
        ("H4", "german", 0),
        ("H4", "pips", None),
        ("H4", "american", None),  # both hold doubles, non-double pips tied
    ],
)
def test_two_player_settlements_and_ties(hands, settlement, winner):
    blocked_match(2, TWO_PLAYER_HANDS[hands], settlement, winner)


def test_a_pass_after_drawing_counts_towards_the_block_and_drawn_tiles_count_in_the_settlement():
    # seat 1 draws 6-6 and 5-5 (neither fits 0|0) and passes; seat 0 cannot draw and passes.
    # Seat 1 then holds two doubles: german gives the hand to seat 0 despite its 30 pips.
    blocked_match(2, (["0-0", "5-6", "4-6", "3-6"], ["1-2", "1-3", "1-4", "2-3"]), "german", 0, drawn=["6-6", "5-5"])


# Three players (seat 2 is the third hand):
#   T1: 0 1-2 2-3 1-3 (no double, 12 pips) | 1 1-4 2-4 1-5 3-3 (one, 23) | 2 4-4 5-5 1-1 1-6 (three, 27)
#   T2: 0 5-6 4-6 3-6 (none, 30) | 1 1-2 1-3 2-3 2-4 (none, 18) | 2 1-1 2-2 1-4 2-5 (two, 18)
#   T3: 0 2-5 3-4 1-6 (none, 21) | 1 1-2 1-3 1-4 4-5 (none, 21) | 2 1-1 2-2 3-3 4-4 (four, 20)
THREE_PLAYER_HANDS = {
    "T1": (["0-0", "1-2", "2-3", "1-3"], ["1-4", "2-4", "1-5", "3-3"], ["4-4", "5-5", "1-1", "1-6"]),
    "T2": (["0-0", "5-6", "4-6", "3-6"], ["1-2", "1-3", "2-3", "2-4"], ["1-1", "2-2", "1-4", "2-5"]),
    "T3": (["0-0", "2-5", "3-4", "1-6"], ["1-2", "1-3", "1-4", "4-5"], ["1-1", "2-2", "3-3", "4-4"]),
}


@pytest.mark.parametrize(
    "hands, settlement, winner",
    [
        ("T1", "german", 0),
        ("T1", "pips", 0),
        ("T1", "american", 0),
        ("T2", "german", 1),  # seats 0 and 1 tie on fewest doubles: fewer pips among them
        ("T2", "pips", None),  # seats 1 and 2 tie on 18 pips, seat 0 is worse
        ("T2", "american", 1),  # fewest pips among the sides holding no double
        ("T3", "german", None),  # a tie for best scores nobody although seat 2 is worse
        ("T3", "pips", 2),
        ("T3", "american", None),
    ],
)
def test_three_player_settlements_and_ties_for_best(hands, settlement, winner):
    blocked_match(3, THREE_PLAYER_HANDS[hands], settlement, winner)


# Four players in partnerships, seat 2 leads 0-0 for side 0 (seats 0 and 2).  Hands after the lead:
#   P1: seat 0 2-3 1-4 2-4 (16) | 1 1-1 1-2 1-3 (9) | 2 3-4 2-5 (14) | 3 5-6 6-6 5-5 (33)
#       side 0: no double, 30 pips; side 1: three doubles, 42 pips (seat 1 alone holds the fewest pips)
#   P2: seat 0 1-1 1-2 1-3 (9) | 1 2-3 1-4 2-4 (16) | 2 2-2 1-5 (10) | 3 3-4 2-5 1-6 (21)
#       side 0: two doubles, 19 pips; side 1: no double, 37 pips
#   P3: seat 0 2-5 2-6 3-6 (24) | 1 2-3 2-4 1-5 (17) | 2 3-4 3-5 (15) | 3 1-1 5-5 4-6 (22)
#       side 0: no double, 39 pips; side 1: two doubles, 39 pips
#   P4: seat 0 1-1 3-4 2-5 (16) | 1 6-6 5-5 1-6 (29) | 2 1-2 1-3 (7) | 3 2-3 2-4 4-4 (19)
#       side 0: one double, 23 pips, 21 non-double; side 1: three doubles, 48 pips, 18 non-double
PARTNER_HANDS = {
    "P1": (["2-3", "1-4", "2-4"], ["1-1", "1-2", "1-3"], ["0-0", "3-4", "2-5"], ["5-6", "6-6", "5-5"]),
    "P2": (["1-1", "1-2", "1-3"], ["2-3", "1-4", "2-4"], ["0-0", "2-2", "1-5"], ["3-4", "2-5", "1-6"]),
    "P3": (["2-5", "2-6", "3-6"], ["2-3", "2-4", "1-5"], ["0-0", "3-4", "3-5"], ["1-1", "5-5", "4-6"]),
    "P4": (["1-1", "3-4", "2-5"], ["6-6", "5-5", "1-6"], ["0-0", "1-2", "1-3"], ["2-3", "2-4", "4-4"]),
}


@pytest.mark.parametrize(
    "hands, settlement, winner",
    [
        ("P1", "pips", 0),
        ("P1", "german", 0),
        ("P1", "american", 0),
        ("P2", "german", 1),
        ("P2", "pips", 0),
        ("P2", "american", 1),
        ("P3", "german", 0),
        ("P3", "pips", None),
        ("P3", "american", 0),
        ("P4", "german", 0),
        ("P4", "pips", 0),
        ("P4", "american", 1),  # both sides hold doubles: side 1 has fewer non-double pips
    ],
)
def test_partnership_settlements_sum_over_partners(hands, settlement, winner):
    blocked_match(4, PARTNER_HANDS[hands], settlement, winner, partnerships=True, leader=2)


# --- readings of the rule book ---------------------------------------------------------------------


def test_a_tile_fitting_both_ends_is_two_moves_even_on_equal_ends():
    tiles = np.zeros(L.MAX_MOVES, dtype=np.int64)
    ends = np.zeros(L.MAX_MOVES, dtype=np.int64)
    hand = np.int64(L.tile_mask(["2-5", "3-4"]))
    n = hand_moves(hand, line_view(2, 2), tiles, ends)
    assert n == 2
    assert [(L.TILE_NAMES[t], L.END_NAMES[e]) for t, e in zip(tiles[:n], ends[:n])] == [("2-5", "L"), ("2-5", "R")]
    n = hand_moves(np.int64(L.tile_mask(["2-5", "2-2", "5-6"])), line_view(5, 2), tiles, ends)
    assert [(L.TILE_NAMES[t], L.END_NAMES[e]) for t, e in zip(tiles[:n], ends[:n])] == [
        ("2-2", "R"),
        ("2-5", "L"),
        ("2-5", "R"),
        ("5-6", "L"),
    ]


def test_the_most_moves_a_hand_can_have_fit_the_move_arrays():
    # Four open arms all showing 7 on double-eighteen (the spinner 7-7 led; each arm's tile shows 7 outward) and
    # a hand of the other 18 tiles showing 7: every tile fits all four arms, 72 moves, the most any seat can have
    # (layout.MAX_MOVES says why).  legal_moves writes one slot past its moves; with one sentinel slot past
    # MAX_MOVES, nothing may reach it.
    from bergen_sim.engine.tileset import to_words

    view = line_view(7, 7, Rules.make(players=8, domino_set="double-eighteen"))
    view[L.V_END + L.END_U] = view[L.V_END + L.END_D] = 7
    view[L.V_OPEN_ENDS] = 4
    view[L.V_COUNTING] = 0b1111
    view[L.V_SPINNER] = 7
    sevens = [L.TILE_NAMES[L.TILE_AT[7, n]] for n in range(19) if n != 7]
    hand = tuple(np.int64(w) for w in to_words(L.tile_mask(sevens)))
    tiles = np.full(L.MAX_MOVES + 1, -7, dtype=np.int64)
    ends = np.full(L.MAX_MOVES + 1, -7, dtype=np.int64)
    n = hand_moves(hand, view, tiles, ends)
    assert n == 72 == L.N_ENDS * L.MAX_NUMBER < L.MAX_MOVES
    listed = [(L.TILE_NAMES[t], L.END_NAMES[e]) for t, e in zip(tiles[:n], ends[:n])]
    ordered = sorted(sevens, key=L.TILE_INDEX.get)
    assert listed == [(name, end) for name in ordered for end in ("L", "R", "U", "D")]
    assert tiles[L.MAX_MOVES] == ends[L.MAX_MOVES] == -7


# --- the spinner ------------------------------------------------------------------------------------


def test_spinner_arms_open_after_both_sides_and_count_only_once_played_on():
    # seat 0 leads 3-3 as the spinner.  U and D open when L and R each hold a tile (seat 0's 3-6 on R);
    # they show 3 but, empty, do not count: 5-6 on L makes L = R = 6, a double-header although U and D
    # show 3.  Once 2-3 lies on U it counts (6, 6, 2: nothing), and 2-6 on U makes three counting ends
    # show 6: a double-header over three ends, which ends the match at 4.
    rules = Rules.make(players=2, hand_size=4, target=4, spinner=True, reduced_headers=False)
    d = deal(["3-3", "3-6", "2-3", "3-4"], ["3-5", "5-6", "2-6", "0-4"])
    script = [("3-5", "L"), ("3-6", "R"), ("5-6", "L"), ("2-3", "U"), ("2-6", "U")]
    got = compiled_events(rules, [d], script)
    assert got == [
        match_ev(rules),
        deal_ev(1, d, rules),
        lead(0, "3-3", 2, [2, 0]),
        play(1, "3-5", "L", 0, [2, 0]),
        play(0, "3-6", "R", 0, [2, 0]),
        play(1, "5-6", "L", 2, [2, 2]),
        play(0, "2-3", "U", 0, [2, 2]),
        play(1, "2-6", "U", 2, [2, 4]),
        match_end(1, [2, 4]),
    ]
    walk_match(got, rules)


def test_spinner_arms_are_closed_before_both_sides_hold_a_tile():
    # after the lead only L and R are open: a tile showing the spinner's number is two moves, not four
    rules = Rules.make(players=2, hand_size=4, target=4, spinner=True)
    d = deal(["3-3", "3-6", "2-3", "3-4"], ["3-5", "5-6", "2-6", "0-4"])
    with pytest.raises(TraceError, match="not legal"):
        compiled_events(rules, [d], [("3-5", "U")])
