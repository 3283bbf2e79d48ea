"""The oracle (tests/oracle.py) on the rules of the second rule book: sets, the spinner, any-double, 2-8 players.

Hand-built positions pin each new rule (RULES.md "The spinner", "Headers",
"The lead"); property tests play random matches of every set and check them
with the independent reading of a match in :func:`tests.helpers.walk_match`;
the redeal rate is compared with its exact hypergeometric value.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bergen_sim.core.errors import RuleError
from bergen_sim.engine.layout import DOMINO_SETS
from bergen_sim.model.rules import Rules
from tests.helpers import assert_reference_agrees, reference_matches, rule_books, walk_match
from tests.oracle import DEAL, LEAD, PLAY, MatchState, opening_seat, random_deal_source, tile_names


def rules_dict(**settings) -> dict:
    return Rules.make(**settings).to_dict()


def deal_of(domino_set: str, *hands: list[str], boneyard: tuple[str, ...] = ()) -> tuple[list[list[str]], list[str]]:
    """Hands as given; the boneyard starts with ``boneyard``, then every other tile of the set in index order."""
    named = [t for hand in hands for t in hand] + list(boneyard)
    rest = [t for t in tile_names(DOMINO_SETS[domino_set]) if t not in named]
    return [list(h) for h in hands], list(boneyard) + rest


def last_play(state: MatchState) -> dict:
    return next(e for e in reversed(state.events) if e["type"] == "play")


# --- the spinner ----------------------------------------------------------------------------------------
# seat 0 leads 2-2 (the lowest double dealt); the plays then build every kind of header on the spinner:
#   1: 2-5 L   L=5                                  (only L and R are open)
#   0: 2-4 R   R=4, U and D open empty showing 2   (the header counts L and R only: none)
#   1: 4-5 R   R=5: L=R=5, U and D open but empty  -> double-header over L and R only (2)
#   0: 2-3 U   U=3 counts now: 5 5 3               -> none
#   1: 3-5 U   U=5: three counting ends, all 5     -> double-header (2)
#   0: 2-6 D   D=6: 5 5 5 6                        -> none
#   1: 5-6 D   D=5: four counting ends, all 5      -> double-header (2)
#   0: 5-5 X   a double end among four 5s          -> triple-header (3), on any end X
SPINNER_HANDS = (["2-2", "2-4", "2-3", "2-6", "5-5", "0-6"], ["2-5", "4-5", "3-5", "5-6", "0-1", "1-4"])
SPINNER_PLAYS = [("2-5", "L"), ("2-4", "R"), ("4-5", "R"), ("2-3", "U"), ("3-5", "U"), ("2-6", "D"), ("5-6", "D")]
SPINNER_POINTS = [0, 0, 2, 0, 2, 0, 2]


def spinner_state(spinner: bool = True) -> MatchState:
    state = MatchState(rules_dict(players=2, spinner=spinner))
    state.deal(*deal_of("double-six", *SPINNER_HANDS))
    return state


def test_u_and_d_open_only_once_l_and_r_each_hold_a_tile():
    state = spinner_state()
    assert state.events[-1] == {"type": "lead", "seat": 0, "tile": "2-2", "points": 2, "score": [2, 0]}
    assert {end for _, end in state.moves} == {"L", "R"} and set(state.numbers) == {"L", "R"}
    state.play("2-5", "L")
    assert set(state.numbers) == {"L", "R"}  # L has a tile, R none yet: still closed
    assert state.moves == [("2-3", "R"), ("2-4", "R"), ("5-5", "L"), ("2-6", "R")]  # by tile index, no U or D
    state.play("2-4", "R")
    assert state.numbers == {"L": 5, "R": 4, "U": 2, "D": 2}  # open together, showing the spinner
    assert state.counting_ends() == ["L", "R"]
    assert state.events[-1]["points"] == 0
    # seat 1 (4-5 3-5 5-6 0-1 1-4) has nothing showing 2, so nothing for U and D yet
    assert state.moves == [("1-4", "R"), ("3-5", "L"), ("4-5", "L"), ("4-5", "R"), ("5-6", "L")]


def test_an_open_empty_arm_can_be_played_on_but_does_not_count():
    state = spinner_state()
    for tile, end in SPINNER_PLAYS[:3]:
        state.play(tile, end)
    # L = R = 5 with U and D open and empty (showing 2): a double-header over L and R only
    assert state.events[-1] == {"type": "play", "seat": 1, "tile": "4-5", "end": "R", "points": 2, "score": [2, 2]}
    # seat 0 may play on the empty arms: 2-3 and 2-6 fit U and D (mirror images, both listed)
    assert state.moves == [("2-3", "U"), ("2-3", "D"), ("5-5", "L"), ("5-5", "R"), ("2-6", "U"), ("2-6", "D")]
    state.play("2-3", "U")
    assert state.counting_ends() == ["L", "R", "U"] and state.events[-1]["points"] == 0


@pytest.mark.parametrize("last_end", ["L", "R", "U", "D"])
def test_headers_over_three_and_four_counting_ends_and_a_triple_through_a_double_end(last_end):
    state = spinner_state()
    for (tile, end), points in zip(SPINNER_PLAYS, SPINNER_POINTS):
        state.play(tile, end)
        assert last_play(state)["points"] == points, (tile, end)
    assert state.counting_ends() == ["L", "R", "U", "D"] and set(state.numbers.values()) == {5}
    assert ("5-5", last_end) in state.moves
    state.play("5-5", last_end)
    assert last_play(state) == {"type": "play", "seat": 0, "tile": "5-5", "end": last_end, "points": 3, "score": [5, 6]}


def test_without_the_spinner_there_are_only_l_and_r():
    state = spinner_state(spinner=False)
    state.play("2-5", "L")
    state.play("2-4", "R")
    assert set(state.numbers) == {"L", "R"}
    state.play("4-5", "R")
    assert state.events[-1]["points"] == 2
    assert {end for _, end in state.moves} <= {"L", "R"}


def test_only_the_led_double_is_a_spinner():
    """A double played later lies crosswise: it opens no arms of its own (the ends stay L, R, U, D)."""
    state = spinner_state()
    for tile, end in SPINNER_PLAYS:
        state.play(tile, end)
    state.play("5-5", "U")
    assert set(state.numbers) == {"L", "R", "U", "D"} and state.double_ends["U"]


# --- the any-double lead ----------------------------------------------------------------------------------
def test_any_double_opening_seat_moves_each_hand_and_stays_through_a_redeal():
    """Hand h opens at seat (h - 1) mod n; the first seat from there holding a double leads, a redeal keeps it."""
    state = MatchState(rules_dict(players=3, lead="any-double", hand_size=1))
    asked = []
    deals = [
        (1, [["0-1"], ["3-3"], ["2-2"]], 1),  # opening seat 0 holds none: seat 1 leads (not seat 2's lower double)
        (2, [["0-1"], ["0-2"], ["1-2"]], None),  # no double: a redeal of hand 2
        (2, [["1-1"], ["0-2"], ["4-4"]], 2),  # still opening at seat 1: seat 2 leads, not seat 0
        (3, [["5-5"], ["6-6"], ["0-3"]], 0),  # opening seat 2 holds none: seat 0
        (4, [["5-5"], ["6-6"], ["0-3"]], 0),  # opening seat 0 again (hand 4 of 3 players)
    ]
    for hand, hands, leader in deals:
        assert state.phase == DEAL and state.hand_number == hand
        assert opening_seat(state.rules, hand) == (hand - 1) % 3
        state.deal(*deal_of("double-six", *hands))
        if leader is None:
            assert state.events[-1] == {"type": "redeal", "hand": hand} and state.phase == DEAL
            continue
        assert state.phase == LEAD and state.seat == leader
        asked.append(list(state.moves))
        state.lead(state.moves[0][0])
        assert state.events[-2]["type"] == "lead" and state.events[-2]["seat"] == leader
        assert state.events[-1]["type"] == "out"  # hand size 1: out on the lead
    assert asked == [[("3-3", "L")], [("4-4", "L")], [("5-5", "L")], [("5-5", "L")]]  # asked even for one double


def test_any_double_leader_chooses_among_its_doubles():
    state = MatchState(rules_dict(players=2, lead="any-double", hand_size=3))
    state.deal(*deal_of("double-six", ["0-1", "2-3", "4-5"], ["1-1", "6-6", "3-4"]))
    assert state.phase == LEAD and state.seat == 1 and state.moves == [("1-1", "L"), ("6-6", "L")]
    assert state.info()["phase"] == "lead"
    with pytest.raises(ValueError, match="cannot lead"):
        state.lead("3-4")
    state.lead("6-6")
    assert [e for e in state.events if e["type"] == "lead"] == [
        {"type": "lead", "seat": 1, "tile": "6-6", "points": 2, "score": [0, 2]}
    ]
    assert state.phase == PLAY and state.info()["phase"] == "play" and state.numbers == {"L": 6, "R": 6}


def test_uniform_random_lead_choice_covers_every_double():
    rules = rules_dict(players=2, lead="any-double", hand_size=2)
    picks = set()
    for k in range(40):
        state = MatchState(rules)
        state.deal(*deal_of("double-six", ["0-1", "2-3"], ["1-1", "6-6"]))
        picks.add(random.Random(k).choice(state.moves)[0])
    assert picks == {"1-1", "6-6"}


# --- more players, partnerships, sets -----------------------------------------------------------------
@pytest.mark.parametrize("players, leader, side", [(6, 3, 1), (6, 4, 0), (8, 6, 0), (8, 7, 1)])
def test_partnerships_of_six_and_eight_pool_even_and_odd_seats(players, leader, side):
    state = MatchState(rules_dict(players=players, partnerships=True, domino_set="double-nine", hand_size=1))
    hands = [[f"{s}-9"] for s in range(players)]
    hands[leader] = ["0-0"]
    state.deal(*deal_of("double-nine", *hands))
    score = [0, 0]
    score[side] = 4  # the led double (2) and going out on the lead (2)
    assert [(e["type"], e.get("seat"), e.get("score")) for e in state.events[2:]] == [
        ("lead", leader, [score[0] // 2, score[1] // 2]),
        ("out", leader, score),
    ]


def test_a_deal_outside_the_set_is_refused():
    state = MatchState(rules_dict(players=2))
    hands, boneyard = deal_of(
        "double-nine", ["0-1", "2-3", "4-5", "7-7", "0-0", "1-2"], ["1-1", "6-6", "3-4", "0-2", "0-3", "0-4"]
    )
    with pytest.raises(ValueError, match="double-six set"):
        state.deal(hands, boneyard)


def test_version_one_describes_only_double_six_without_the_spinner():
    with pytest.raises(ValueError, match="double-six without the spinner"):
        MatchState(rules_dict(players=2, domino_set="double-nine"), format="bergen-trace/1")
    v1 = MatchState(Rules.make(players=2).to_dict(1), format="bergen-trace/1")
    assert v1.events[0]["format"] == "bergen-trace/1" and "domino_set" not in v1.events[0]["rules"]


# --- properties across sets -----------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(rule_books(), st.integers(0, 2**32))
def test_random_matches_keep_every_invariant(rules, seed):
    """Tiles conserved, scores never fall, the match ends exactly at the target, no draw below the reserve,
    legal plays on open ends, headers over the counting ends (walk_match reads every event independently)."""
    events = reference_matches(rules, 1, seed=seed)
    walk_match(events, rules)
    assert_reference_agrees(events)  # and the events replay to themselves


# --- the redeal rate ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "domino_set, players, hand_size",
    [
        ("double-six", 2, 6),
        ("double-six", 4, 5),
        ("double-nine", 2, 6),
        ("double-nine", 5, 5),
        ("double-twelve", 2, 6),
        ("double-fifteen", 3, 6),
        ("double-eighteen", 2, 6),
        ("double-eighteen", 8, 5),
    ],
)
def test_redeal_rate_matches_the_exact_probability(domino_set, players, hand_size):
    """Deal-and-lead many times: the share of deals followed by a redeal is within 4 standard errors of
    C(T - D, k) / C(T, k)."""
    rules = Rules.make(players=players, domino_set=domino_set, hand_size=hand_size)
    exact = float(rules.redeal_probability)
    deals = 6000
    source = random_deal_source(random.Random(f"{domino_set}/{players}"), players, hand_size, rules.max_number)
    redeals = 0
    for _ in range(deals):
        state = MatchState(rules.to_dict())
        state.deal(*source(1, 0))
        redeals += state.events[-1]["type"] == "redeal"
    se = (exact * (1 - exact) / deals) ** 0.5
    assert abs(redeals / deals - exact) < 4 * se + 1e-12, (redeals, deals, exact)


def test_rule_errors_are_one_line():
    with pytest.raises(RuleError) as info:
        Rules.make(players=7)
    assert str(info.value) == (
        "7 players x 5 tiles + reserve 2 do not fit the 28 tiles of double-six: "
        "use domino_set=double-nine or hand_size <= 3"
    )


def test_the_reference_writes_the_rules_objects_keys_in_the_formats_order():
    from tests.oracle import RULE_KEYS, RULE_KEYS_V1

    assert RULE_KEYS == tuple(Rules().to_dict()) and RULE_KEYS_V1 == tuple(Rules().to_dict(1))
