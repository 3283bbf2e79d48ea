"""The step API (bergen_sim.services.game) against the golden traces, the compiled engine and its own invariants.

* Golden traces: stepping each recorded match's moves reproduces every event.
* Compiled engine: a match stepped here with the compiled policies (their
  keyed random streams, called only when a choice exists) writes exactly the
  trace the compiled engine writes for the same seed, and every view the
  compiled engine hands a policy equals :meth:`Game.view` at that moment.
* Properties (hypothesis): random rule sets, seeds and move choices keep the
  tile count, the view, the line and the clone independent and consistent.
"""

from __future__ import annotations

import doctest
import importlib
import json
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bergen_sim.core.errors
import bergen_sim.services.game
import tests.oracle
from bergen_sim.engine import layout as L
from bergen_sim.model.rules import Rules
from bergen_sim.runtime.runner import Engine
from bergen_sim.services.files.trace import generate, read_jsonl, rows_to_events, split_matches
from bergen_sim.services.game import Game, Move, MoveError, keyed_deal, play_out, replay
from tests.oracle import legal_moves

GOLDEN = sorted((Path(__file__).resolve().parents[1] / "golden").glob("*.jsonl"))
ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the probe fixture is imported as tests.plugins_probe
PROBE = "tests.plugins_probe:record"
#: one compiled kernel serves every engine here (the seating and the rules are not part of it); the same
#: policy set as tests/policies/test_policies.py, so the two files share one kernel in Numba's cache
KERNEL = ["greedy", "defensive", "doubles-first", "heavy-first", "expert", PROBE]

RULE_SETS = {
    "2p-standard": Rules.make(players=2),
    "2p-classic": Rules.make(players=2, preset="classic"),
    "3p-american": Rules.make(players=3, settlement="american"),
    "4p-partnerships": Rules.make(players=4, partnerships=True, boneyard_reserve=0),
    "2p-hand-size-1": Rules.make(players=2, hand_size=1),
}


def test_doctests():
    for module in (bergen_sim.services.game, tests.oracle):
        failed, tried = doctest.testmod(module)
        assert tried > 0 and failed == 0, module.__name__


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_stepping_golden_moves_reproduces_every_event(path):
    for recorded in split_matches(read_jsonl(path)):
        assert json.dumps(replay(recorded).events) == json.dumps(recorded)


@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_policies_stepped_here_write_the_compiled_engines_trace(name):
    rules = RULE_SETS[name]
    # the probe plays uniformly at random from the seat's keyed stream: the streams must match too
    for seats in ([PROBE], ["expert", "greedy"], ["defensive", PROBE]):
        names = seats * rules.players if len(seats) == 1 else [seats[s % 2] for s in range(rules.players)]
        engine = Engine(rules, names, kernel_policies=KERNEL)
        compiled = list(split_matches(generate(engine, 7, 0, 4)))
        for i, recorded in enumerate(compiled):
            game = play_out(Game(rules, seed=7, match=i, policies=names), names)
            assert json.dumps(game.events) == json.dumps(recorded), f"{names} match {i}"


@pytest.mark.parametrize("name", sorted(set(RULE_SETS) - {"2p-hand-size-1"}))  # that one has no choices
def test_views_equal_what_the_compiled_engine_hands_a_policy(name):
    """The probe policy records every view the kernel hands it; stepping the same moves gives the same views."""
    rules = RULE_SETS[name]
    probe = importlib.import_module("tests.plugins_probe")
    seats = [PROBE if s % 2 == 0 else "expert" for s in range(rules.players)]
    engine = Engine(rules, seats, kernel_policies=KERNEL)
    probe.CALLS.clear()
    rows = engine.trace_rows(seed=3, first_match=0, n_matches=3)
    calls = list(probe.CALLS)
    probe.CALLS.clear()
    seen = []
    for recorded in split_matches(rows_to_events(rows, rules, engine.policy_names, 3)):
        game = Game(rules, seed=3, match=recorded[0]["match"], policies=engine.policy_names)
        for event in recorded:
            if event["type"] == "lead" and game.choosing_lead:  # the probe has no choose_lead: not recorded
                game.play((event["tile"], "L"))
            if event["type"] != "play":
                continue
            if game.to_move % 2 == 0 and len(game.legal_moves()) > 1:
                seen.append((game.view().array, [(m.tile, m.end.name) for m in game.legal_moves()]))
            game.play((event["tile"], event["end"]))
        assert json.dumps(game.events) == json.dumps(recorded)
    assert len(seen) == len(calls) > 0
    for k, ((view, moves), (kernel_view, tiles, ends)) in enumerate(zip(seen, calls)):
        assert view.tolist() == kernel_view.tolist(), f"view {k} differs"
        assert moves == [(L.TILE_NAMES[t], L.END_NAMES[e]) for t, e in zip(tiles, ends)]


def test_keyed_deal_is_the_compiled_deal():
    rules = Rules.make(players=3)
    events = generate(Engine(rules, ["expert"], kernel_policies=KERNEL), 5, 0, 2)
    for event in events:
        if event["type"] == "match":
            match, attempts = event["match"], {}
        if event["type"] == "deal":
            attempt = attempts.get(event["hand"], 0)
            attempts[event["hand"]] = attempt + 1
            hands, boneyard = keyed_deal(rules, 5, match, event["hand"], attempt)
            assert (hands, boneyard) == (event["hands"], event["boneyard"])


def test_moves_round_trip_and_hostile_text():
    for tile in L.TILE_NAMES:
        for end in L.END_NAMES:
            move = Move(tile, end)
            assert Move.parse(str(move)) == move == Move.of((tile, end)) == Move.of(move)
    assert Move.parse(" 6-2   l ") == Move("2-6", "L")
    for bad in ("", "3-5", "3-5 X", "3-19 L", "a-b L", "3-5 L R", "35 L", "-1-3 L"):
        with pytest.raises(MoveError):
            Move.parse(bad)
    with pytest.raises(MoveError):
        Move.of(42)


def test_illegal_moves_are_refused_with_the_legal_ones_named():
    game = Game(Rules.make(players=2), seed=1)
    before = game.events
    with pytest.raises(MoveError, match=r"not legal for seat 0; legal: 3-5 L, 3-5 R"):
        game.play("6-6 L")
    assert game.events == before
    play_out(game, "first")
    with pytest.raises(MoveError, match="over"):
        game.play("3-5 L")
    with pytest.raises(MoveError, match="over"):
        game.policy_move("first")
    assert game.legal_moves() == [] and game.to_move is None


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: Game(seed=1, format="x"), "format must be one of bergen-trace/1, bergen-trace/2, not 'x'"),
        (lambda: Game(seed=1, policies="greedy"), r"give a list of policy names, one per seat \(2\), not 'greedy'"),
        (lambda: Game(seed=1, policies=[1, 2]), r"give one policy name \(text\) per seat \(2\), not \[1, 2\]"),
        (lambda: Game(seed=1, policies=["greedy"]), r"per seat \(2\), not \['greedy'\]"),
        (lambda: Game(chance=True).deal(None), "deal: give one list of tile names per seat"),
        (lambda: Game(chance=True).deal("1-1 2-2"), "deal: give one list of tile names per seat"),
        (lambda: Game(chance=True).deal([["1-1"], ["2-2"]]), "deal: "),
        (lambda: Game(chance=True).draw("1-1"), "draw: "),
        (lambda: Game(chance=True).play("1-1 L"), r"the dealer must act first: call deal\(\)"),
        (lambda: play_out(Game(seed=1), 5), "give a list of policy names, one per seat"),
    ],
)
def test_hostile_arguments_to_a_game_are_one_clear_error(make, message):
    """A notebook's mistakes get a bergen_sim error saying what to give, never a bare TypeError or ValueError."""
    with pytest.raises(bergen_sim.core.errors.BergenError, match=message):
        make()


def _check_invariants(game: Game) -> None:
    rules = game.rules
    state = game.state
    held = [t for s in range(rules.players) for t in game.hand(s)]
    assert len(held) + len(game.line) + game.boneyard_count == L.N_TILES
    view = game.view()
    seat = game.to_move
    assert view.hand == game.hand(seat)
    assert view.hand_counts == [len(game.hand(s)) for s in range(rules.players)]
    assert view.boneyard == game.boneyard_count
    assert view.scores == list(game.scores)
    if game.choosing_lead:  # lead = any-double: the leader's doubles, nothing on the table yet
        assert game.line == [] and view.played == []
        assert [m.tile for m in game.legal_moves()] == [
            t for t in game.hand(seat) if t.split("-")[0] == t.split("-")[1]
        ]
        return
    assert view.ends == (game.line[0][0], game.line[-1][1]) == (state.ends[L.End.L], state.ends[L.End.R])
    assert sorted(view.played, key=L.TILE_INDEX.get) == sorted(
        (f"{min(a, b)}-{max(a, b)}" for a, b in game.line), key=L.TILE_INDEX.get
    )
    moves = [(m.tile, m.end.name) for m in game.legal_moves()]
    # after drawing, only the drawn tile (the last one taken) is offered
    offered = [str(state.hands[seat][-1])] if state.drawn else game.hand(seat)
    assert moves == legal_moves(offered, *view.ends) and moves
    for s, void in enumerate(view.voids):  # a void is sound: the seat holds no tile showing it
        if s == seat and state.drawn:
            continue  # ... once it has played the tile it drew (the moment is logged before the choice)
        assert not {int(n) for t in game.hand(s) for n in t.split("-")} & set(void)


rule_sets = st.builds(
    lambda players, hand_size, reserve, partnerships, preset: Rules.make(
        players=players,
        partnerships=partnerships and players == 4,
        preset=preset,
        hand_size=min(hand_size, 28 // players),
        boneyard_reserve=min(reserve, 28 - players * min(hand_size, 28 // players)),
    ),
    st.integers(2, 4),
    st.integers(1, 9),
    st.integers(0, 3),
    st.booleans(),
    st.sampled_from(["standard", "classic"]),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets, seed=st.integers(0, 2**64 - 1), choices=st.lists(st.integers(0, 31), min_size=1, max_size=400))
def test_stepping_keeps_the_match_consistent(rules, seed, choices):
    game = Game(rules, seed=seed, match=seed % 1000)
    for k, choice in enumerate(choices):
        if game.is_over:
            break
        _check_invariants(game)
        moves = game.legal_moves()
        if k == len(choices) // 2:
            clone = game.clone()
            frozen = json.dumps(game.events)
            play_out(clone, "first")  # playing the clone to its end leaves the original untouched
            assert json.dumps(game.events) == frozen and clone.is_over
        game.play(moves[choice % len(moves)])
    if game.is_over:
        assert max(game.scores) >= rules.target and game.scores[game.winner] >= rules.target
    assert json.dumps(replay(game.events).events) == json.dumps(game.events)  # the trace replays as recorded


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), match=st.integers(0, 10**6))
def test_same_seed_same_match(seed, match):
    rules = Rules.make(players=3)
    one = play_out(Game(rules, seed=seed, match=match), "random")
    two = play_out(Game(rules, seed=seed, match=match), "random")
    assert one.events == two.events


def test_a_game_dealt_by_its_caller_plays_the_same_match():
    """chance=True: dealing the keyed hands and drawing the keyed boneyard in order gives the keyed match
    (the deal events then say the boneyard's order was left open)."""
    rules = Rules.make(players=3)
    keyed = play_out(Game(rules, seed=8), "expert")
    game = Game(rules, seed=8, chance=True)
    boneyard: list[str] = []
    while not game.is_over:
        if game.chance_phase == "deal":
            hands, boneyard = keyed_deal(rules, 8, 0, game.hand_number, game.state.attempt)
            game.deal(hands)
        elif game.chance_phase == "draw":
            game.draw(boneyard.pop(0))
        else:
            game.play(game.policy_move("expert"))
    expected = [dict(e, boneyard=None) if e["type"] == "deal" else e for e in keyed.events]
    assert game.events == expected
    with pytest.raises(bergen_sim.core.errors.BergenError, match="deals by itself"):
        keyed.deal([[]])
    with pytest.raises(bergen_sim.core.errors.BergenError, match="takes no deal_source"):
        Game(rules, chance=True, deal_source=lambda hand, attempt: None)


def test_a_deal_given_as_a_generator_is_read_once():
    """``deal`` checks the hands it is given and then deals them: a generator is read once, not emptied by the
    check."""
    rules = Rules.make(players=2)
    hands, _ = keyed_deal(rules, 8, 0, 1, 0)
    listed, generated = Game(rules, seed=8, chance=True), Game(rules, seed=8, chance=True)
    listed.deal(hands)
    generated.deal(h for h in hands)
    assert generated.events == listed.events and generated.hand(0) == listed.hand(0)
