"""Rule settings: defaults by player count, presets, refusals and ``--set`` parsing."""

from __future__ import annotations

import numpy as np
import pytest

from bergen_sim.core.errors import BergenError, RuleError
from bergen_sim.engine import layout as L
from bergen_sim.model.rules import PRESETS, SETTINGS, Rules, parse_setting, parse_settings

SIX = dict(domino_set="double-six", spinner=False)
STANDARD = dict(
    lead="lowest-double", settlement="german", blocked_points=2, out_points=2, boneyard_reserve=2, reduced_headers=True
)


@pytest.mark.parametrize(
    "players, partnerships, hand_size, target, sides",
    [(2, False, 6, 15, 2), (3, False, 6, 10, 3), (4, False, 5, 10, 4), (4, True, 5, 15, 2)],
)
def test_defaults_follow_the_player_count(players, partnerships, hand_size, target, sides):
    rules = Rules.make(players=players, partnerships=partnerships)
    assert rules.to_dict() == dict(
        **SIX, players=players, partnerships=partnerships, hand_size=hand_size, target=target, **STANDARD
    )
    assert rules.sides == sides
    assert Rules.make(players=players, partnerships=partnerships, preset="standard") == rules


def test_sides_of_seats():
    assert [Rules.make(players=4, partnerships=True).side_of(s) for s in range(4)] == [0, 1, 0, 1]
    assert [Rules.make(players=4).side_of(s) for s in range(4)] == [0, 1, 2, 3]
    assert [Rules.make(players=3).side_of(s) for s in range(3)] == [0, 1, 2]


def test_presets():
    assert sorted(PRESETS) == ["classic", "standard"]
    classic = Rules.make(players=3, preset="classic")
    assert classic.to_dict() == dict(
        **SIX,
        players=3,
        partnerships=False,
        hand_size=6,
        target=10,
        lead="any-double",
        settlement="pips",
        blocked_points=1,
        out_points=1,
        boneyard_reserve=0,
        reduced_headers=False,
    )
    # with a larger set the classic preset plays the spinner by the spinner's default
    assert Rules.make(players=3, preset="classic", domino_set="double-nine").spinner is True
    # player-count defaults still apply under a preset, and explicit settings win over it
    assert Rules.make(players=4, partnerships=True, preset="classic").target == 15
    assert Rules.make(players=2, preset="classic", out_points=3, reduced_headers=True).out_points == 3
    assert Rules.make(players=2, preset="classic", out_points=3, reduced_headers=True).reduced_headers is True


def test_explicit_settings_override_defaults():
    rules = Rules.make(
        players=2,
        hand_size=3,
        target=7,
        lead="highest-double",
        settlement="american",
        blocked_points=0,
        out_points=5,
        boneyard_reserve=0,
        reduced_headers=False,
    )
    assert rules.to_dict() == dict(
        **SIX,
        players=2,
        partnerships=False,
        hand_size=3,
        target=7,
        lead="highest-double",
        settlement="american",
        blocked_points=0,
        out_points=5,
        boneyard_reserve=0,
        reduced_headers=False,
    )


def test_rules_vector_carries_every_setting():
    rules = Rules.make(
        players=4,
        partnerships=True,
        hand_size=4,
        target=9,
        lead="highest-double",
        settlement="american",
        blocked_points=3,
        out_points=4,
        boneyard_reserve=1,
        reduced_headers=False,
    )
    vec = rules.to_array()
    assert vec.dtype == np.int64 and vec.shape == (L.R_SIZE,)
    assert vec.tolist() == [4, 1, 4, 9, L.LEAD_HIGHEST, L.SETTLE_AMERICAN, 3, 4, 1, 0, 6, 28, 0]
    big = Rules.make(players=8, partnerships=True, domino_set="double-eighteen").to_array()
    assert big[[L.R_PLAYERS, L.R_MAX_NUMBER, L.R_N_TILES, L.R_SPINNER]].tolist() == [8, 18, 190, 1]


def test_extreme_but_possible_deals_are_accepted():
    assert Rules.make(players=2, hand_size=14, boneyard_reserve=0).hand_size == 14  # no boneyard at all
    assert Rules.make(players=4, hand_size=7, boneyard_reserve=0).hand_size == 7
    assert Rules.make(players=3, hand_size=9, boneyard_reserve=1).boneyard_reserve == 1
    assert Rules.make(players=2, hand_size=1, boneyard_reserve=26).boneyard_reserve == 26
    assert Rules.make(players=2, target=1, blocked_points=0, out_points=0).target == 1


@pytest.mark.parametrize(
    "kwargs, names",
    [
        (dict(players=3, partnerships=True), ["partnerships", "4, 6 or 8 players"]),
        (dict(players=2, partnerships=True), ["partnerships", "4, 6 or 8 players"]),
        (dict(players=5, partnerships=True, domino_set="double-nine"), ["partnerships", "4, 6 or 8 players"]),
        (dict(players=9), ["players", "2..8"]),
        (dict(players=1), ["players", "2..8"]),
        (
            dict(players=6),
            ["6 players x 5 tiles + reserve 2", "28 tiles of double-six", "domino_set=double-nine", "hand_size <= 4"],
        ),
        (dict(players=8, partnerships=True), ["8 players x 5 tiles", "domino_set=double-nine", "hand_size <= 3"]),
        (dict(players=6, boneyard_reserve=0), ["reserve 0", "domino_set=double-nine", "hand_size <= 4"]),
        (
            dict(players=3, boneyard_reserve=11),
            ["3 players x 6 tiles + reserve 11", "domino_set=double-nine", "hand_size <= 5", "boneyard_reserve <= 10"],
        ),
        (
            dict(players=8, domino_set="double-nine", hand_size=7),
            ["hand_size", "1..6", "55 tiles of double-nine", "or use domino_set=double-twelve"],
        ),
        (
            dict(players=6, hand_size=5),
            ["hand_size", "1..4", "28 tiles of double-six", "or use domino_set=double-nine"],
        ),
        (dict(players=2, domino_set="double-seven"), ["domino_set", "double-six", "double-eighteen"]),
        (dict(players=2, domino_set="double-nine", spinner="yes"), ["spinner", "true or false"]),
        (dict(players=2, hand_size=15), ["hand_size", "1..14"]),
        (dict(players=3, hand_size=10), ["hand_size", "1..9"]),
        (dict(players=4, hand_size=8), ["hand_size", "1..7"]),
        (dict(players=2, hand_size=0), ["hand_size", "1..14"]),
        (dict(players=2, hand_size=-3), ["hand_size", "1..14"]),
        (dict(players=2, target=0), ["target", "1..1,000"]),
        (dict(players=2, target=-5), ["target", "1..1,000"]),
        (dict(players=2, out_points=-1), ["out_points", "0 or more"]),
        (dict(players=2, blocked_points=-2), ["blocked_points", "0 or more"]),
        (dict(players=2, boneyard_reserve=-1), ["boneyard_reserve", "0 or more"]),
        (dict(players=2, hand_size=13, boneyard_reserve=3), ["boneyard_reserve", "0..2"]),
        (dict(players=4, hand_size=6, boneyard_reserve=5), ["boneyard_reserve", "0..4"]),
        (dict(players=2, hand_size=14), ["boneyard_reserve", "0..0"]),  # the default reserve 2 no longer fits
        (dict(players=2, lead="middle-double"), ["lead", "lowest-double", "highest-double"]),
        (dict(players=2, settlement="french"), ["settlement", "german", "pips", "american"]),
        (dict(players=2, preset="modern"), ["preset", "standard", "classic"]),
        (dict(players=2, jokers=True), ["jokers", "domino_set", "spinner", "reduced_headers"]),
        (dict(players=2, target="15"), ["target", "whole number"]),
        (dict(players=2, hand_size=2.5), ["hand_size", "whole number"]),
        (dict(players=2, out_points=True), ["out_points", "whole number"]),
        (dict(players=2, reduced_headers="maybe"), ["reduced_headers", "true or false"]),
        (dict(players=4, partnerships="yes"), ["partnerships", "true or false"]),
    ],
)
def test_impossible_settings_are_refused_with_one_line(kwargs, names):
    with pytest.raises(RuleError) as info:
        Rules.make(**kwargs)
    message = str(info.value)
    assert "\n" not in message and message
    for name in names:
        assert name in message
    assert isinstance(info.value, BergenError)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(players=2, hand_size=100),
        dict(players=2, hand_size=0),
        dict(players=8, domino_set="double-eighteen", hand_size=24),
    ],
)
def test_a_hand_size_no_larger_set_deals_names_no_set(kwargs):
    """Only a hand size some larger set can deal (with the reserve) gets that set named."""
    with pytest.raises(RuleError) as info:
        Rules.make(**kwargs)
    assert "domino_set=" not in str(info.value) and "hand_size must be 1.." in str(info.value)


def test_the_constructor_validates_too():
    with pytest.raises(RuleError, match="partnerships"):
        Rules(players=3, partnerships=True, hand_size=6, target=10)
    with pytest.raises(RuleError, match="unknown rule field"):
        Rules.from_trace({**Rules.make(players=2).to_dict(), "jokers": True})
    with pytest.raises(RuleError, match="lack spinner"):
        Rules.from_trace({k: v for k, v in Rules.make(players=2).to_dict().items() if k != "spinner"})


def test_numpy_integers_are_plain_ints_after_validation():
    rules = Rules.make(players=2, target=np.int64(9), hand_size=np.int32(4))
    assert rules.to_dict()["target"] == 9 and type(rules.to_dict()["target"]) is int
    assert type(rules.hand_size) is int


def test_rules_round_trip_through_the_trace_object():
    rules = Rules.make(players=4, partnerships=True, preset="classic", hand_size=4)
    assert Rules.from_trace(rules.to_dict()) == rules
    assert list(rules.to_dict()) == [
        "domino_set",
        "spinner",
        "players",
        "partnerships",
        "hand_size",
        "target",
        "lead",
        "settlement",
        "blocked_points",
        "out_points",
        "boneyard_reserve",
        "reduced_headers",
    ]
    # version 1: ten keys, read as double-six without the spinner
    v1 = Rules.make(players=3).to_dict(1)
    assert list(v1) == list(rules.to_dict())[2:]
    assert Rules.from_trace(v1) == Rules.make(players=3)
    with pytest.raises(RuleError, match="cannot describe double-nine"):
        Rules.make(players=3, domino_set="double-nine").to_dict(1)
    with pytest.raises(RuleError, match="spinner on"):
        Rules.make(players=3, spinner=True).to_dict(1)


@pytest.mark.parametrize(
    "domino_set, highest, tiles, spinner",
    [
        ("double-six", 6, 28, False),
        ("double-nine", 9, 55, True),
        ("double-twelve", 12, 91, True),
        ("double-fifteen", 15, 136, True),
        ("double-eighteen", 18, 190, True),
    ],
)
def test_sets_their_sizes_and_the_spinner_default(domino_set, highest, tiles, spinner):
    rules = Rules.make(players=2, domino_set=domino_set)
    assert (rules.max_number, rules.n_tiles, rules.spinner) == (highest, tiles, spinner)
    assert Rules.make(players=2, domino_set=domino_set, spinner=not spinner).spinner is (not spinner)
    assert Rules(domino_set=domino_set).spinner is spinner  # the constructor resolves the default too
    assert Rules.from_trace(rules.to_dict()) == rules


@pytest.mark.parametrize(
    "players, partnerships, hand_size, target, sides",
    [
        (5, False, 5, 10, 5),
        (6, False, 5, 10, 6),
        (6, True, 5, 15, 2),
        (7, False, 5, 10, 7),
        (8, False, 5, 10, 8),
        (8, True, 5, 15, 2),
    ],
)
def test_more_players_on_larger_sets(players, partnerships, hand_size, target, sides):
    rules = Rules.make(players=players, partnerships=partnerships, domino_set="double-twelve")
    assert (rules.hand_size, rules.target, rules.sides) == (hand_size, target, sides)
    expected = [s % 2 for s in range(players)] if partnerships else list(range(players))
    assert [rules.side_of(s) for s in range(players)] == expected


def test_redeal_probability_is_the_hypergeometric_chance_of_no_double():
    from fractions import Fraction
    from math import comb

    assert Rules.make(players=2).redeal_probability == Fraction(comb(21, 12), comb(28, 12))
    assert Rules.make(players=8, domino_set="double-eighteen").redeal_probability == Fraction(
        comb(171, 40), comb(190, 40)
    )
    # a one-tile deal: the chance that tile is not a double
    assert Rules.make(players=2, hand_size=1, domino_set="double-nine").redeal_probability == Fraction(
        45, 55
    ) * Fraction(44, 54)
    # dealing every tile: some hand holds a double for sure
    assert Rules.make(players=2, hand_size=14, boneyard_reserve=0).redeal_probability == 0


def test_parse_settings():
    assert parse_settings([]) == {}
    assert parse_settings(["target=10", "lead=highest-double", "reduced_headers=off", "settlement=pips"]) == {
        "target": 10,
        "lead": "highest-double",
        "reduced_headers": False,
        "settlement": "pips",
    }
    assert parse_settings([" boneyard_reserve = 0 "]) == {"boneyard_reserve": 0}
    with pytest.raises(RuleError, match="target is given twice"):  # as a game record's rules line refuses it
        parse_settings(["target=5", "target=7"])
    for text, value in [
        ("on", True),
        ("true", True),
        ("yes", True),
        ("1", True),
        ("OFF", False),
        ("false", False),
        ("no", False),
        ("0", False),
    ]:
        assert parse_setting("reduced_headers", text) is value
    assert set(SETTINGS) == {
        "domino_set",
        "spinner",
        "hand_size",
        "target",
        "lead",
        "settlement",
        "blocked_points",
        "out_points",
        "boneyard_reserve",
        "reduced_headers",
    }
    assert parse_settings(["domino_set=double-fifteen", "spinner=off", "lead=any-double"]) == {
        "domino_set": "double-fifteen",
        "spinner": False,
        "lead": "any-double",
    }


@pytest.mark.parametrize(
    "pairs, names",
    [
        (["target=abc"], ["target", "whole number", "abc"]),
        (["hand_size=6.5"], ["hand_size", "whole number"]),
        (["lead=middle"], ["lead", "lowest-double", "highest-double"]),
        (["settlement=french"], ["settlement", "german"]),
        (["reduced_headers=maybe"], ["reduced_headers", "on/off"]),
        (["target"], ["KEY=VALUE", "target"]),
        (["spinner=sometimes"], ["spinner", "on/off"]),
        (["domino_set=double-ten"], ["domino_set", "double-nine", "double-twelve"]),
        (["players=3"], ["players", "hand_size"]),  # players is an option of its own, not a setting
    ],
)
def test_parse_settings_refuses_bad_pairs_with_one_line(pairs, names):
    with pytest.raises(RuleError) as info:
        parse_settings(pairs)
    message = str(info.value)
    assert "\n" not in message
    for name in names:
        assert name in message


@pytest.mark.parametrize(
    "argv, english, danish",
    [
        (
            [],
            [
                "2 players, a double-six set (28 tiles, 7 doubles)",
                "whoever holds the lowest double leads it",
                "German settlement: the fewest doubles wins",
                "first side to reach 15 points",
                "its last 2 tiles",
            ],
            [
                "2 spillere, et double-six-spil (28 brikker, 7 dobbeltbrikker)",
                "den laveste dobbeltbrik, spiller den ud",
                "ny udgivning",
                "puljen",
                "melder pas",
                "dobbelt match",
                "tredobbelt match",
                "Blokeret runde",
                "efter tyske regler: færrest dobbeltbrikker vinder, derefter færrest øjne",
                "når 15 point",
            ],
        ),
        (
            ["--players", "4", "--partnerships", "--set", "settlement=american", "--set", "target=1000"],
            ["Two partnerships: seats 0, 2 against seats 1, 3", "American settlement", "reach 1,000 points"],
            [
                "To makkerpar: pladserne 0, 2 mod pladserne 1, 3; makkere scorer sammen",
                "efter amerikanske regler",
                "når 1.000 point",
            ],
        ),
        (
            ["--preset", "classic", "--players", "3", "--set", "domino_set=double-nine"],
            [
                "spinner",
                "first seat from there holding a double leads one of its own choice",
                "pip count",
                "never cut",
                "drawn to the last tile",
                "Going out (playing your last tile): 1 point.",
                "reach 10 points",
            ],
            [
                "spinner",
                "efter eget valg",
                "optælling af øjne",
                "skæres aldrig ned",
                "helt tom",
                "gå ud",
                "når 10 point",
            ],
        ),
    ],
)
def test_the_rules_command_summarises_the_rules_in_force(capsys, argv, english, danish):
    from bergen_sim.cli import main

    assert main(["rules", *argv]) == 0
    text = capsys.readouterr().out
    assert all(words in text for words in english), text
    assert main(["rules", *argv, "--lang", "da"]) == 0
    dansk = capsys.readouterr().out
    assert all(words in dansk for words in danish), dansk
    assert dansk.count("\n") == text.count("\n") == 8
    assert main(["rules", "--set", "lead=first", "--lang", "da"]) == 2
    assert (
        "indstillingen lead skal være en af lowest-double, highest-double, any-double, ikke 'first'"
        in capsys.readouterr().err
    )


def test_lead_and_settlement_are_enums_equal_to_their_text_and_to_the_kernel_codes():
    """The options are named once: the enums follow the kernel's codes, a member equals its text, and a rule set
    built from either is the same rule set."""
    from bergen_sim.engine import layout as L
    from bergen_sim.model.rules import Lead, Settlement

    assert [m.value for m in Lead] == list(L.LEAD_NAMES) and [m.value for m in Settlement] == list(L.SETTLEMENT_NAMES)
    assert [m.name for m in Lead] == [c.name for c in L.Lead]
    assert [m.name for m in Settlement] == [c.name for c in L.Settlement]
    by_text = Rules.make(players=3, lead="any-double", settlement="pips")
    by_enum = Rules.make(players=3, lead=Lead.ANY_DOUBLE, settlement=Settlement.PIPS)
    assert by_text == by_enum and hash(by_text) == hash(by_enum)
    assert by_text.lead is Lead.ANY_DOUBLE and by_text.lead == "any-double" and f"{by_text.settlement}" == "pips"
    assert by_text.to_array()[L.R_LEAD] == L.Lead.ANY_DOUBLE
    with pytest.raises(RuleError, match="lead must be one of lowest-double, highest-double, any-double, not 3"):
        Rules(lead=3)
