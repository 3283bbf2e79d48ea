"""Built-in policies: what a policy receives, that it holds nothing hidden, and legal play everywhere.

A kernel is compiled per policy combination (10-20 s on a cold cache), so
every engine here runs on one kernel holding all the heuristic built-ins and
the recording probe of tests/plugins_probe.py (``kernel_policies``); the
rules and the seating are not part of a kernel, so it serves every test.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np
import pytest

from bergen_sim.engine import layout as L
from bergen_sim.engine.tileset import NARROW_TILES, from_words, to_words
from bergen_sim.model.rules import Rules
from bergen_sim.policies import base, defensive, doubles_first, expert, greedy, heavy_first
from bergen_sim.runtime.runner import Engine
from bergen_sim.services.files.trace import read_jsonl, rows_to_events, split_matches
from bergen_sim.services.game import Game
from tests.oracle import deals_from_trace, legal_moves

PROBE = "tests.plugins_probe:record"
SHEDDERS = ["greedy", "defensive", "doubles-first", "heavy-first"]
KERNEL = SHEDDERS + ["expert", PROBE]

RULE_SETS = {
    "2p-standard": Rules.make(players=2),
    "2p-classic": Rules.make(players=2, preset="classic"),
    "3p-american": Rules.make(players=3, settlement="american"),
    "4p": Rules.make(players=4),
    "4p-partnerships": Rules.make(players=4, partnerships=True, boneyard_reserve=0),
    "3p-spinner": Rules.make(players=3, spinner=True),
    "4p-double-nine-any-double": Rules.make(players=4, domino_set="double-nine", lead="any-double"),
    "6p-partnerships-double-twelve": Rules.make(players=6, partnerships=True, domino_set="double-twelve"),
}


def engine(rules: Rules, seats: list[str]) -> Engine:
    """An engine for these seats on the one shared kernel."""
    return Engine(rules, seats, kernel_policies=KERNEL)


def _mask(tiles) -> int:
    return L.tile_mask(tiles)


class PublicView:
    """The view rebuilt from a trace: public events, plus the deciding seat's own hand when asked.

    This is an independent reading of docs/policies.md.  Only ``own_hand`` in
    :meth:`for_seat` touches a hand; every other field is computed from what
    all seats see (plays, the number of tiles drawn, passes, scores), so a
    kernel view equal to it carries no hidden information.
    """

    def __init__(self, rules: Rules):
        self.rules = rules
        self.vec = np.zeros(L.V_SIZE, dtype=np.int64)  # the match's view; each hand starts with empty logs

    def start_hand(self, hand_no: int, leader: int, lead_tile: str) -> None:
        r, v = self.rules, self.vec
        n = int(lead_tile.split("-")[0])
        v[L.V_HAND_NO], v[L.V_LEADER], v[L.V_PLAY_NO] = hand_no, leader, 0
        v[L.V_PLAYS_N :] = 0  # a hand starts with empty play and draw/pass logs (counts and entries)
        v[L.V_BONEYARD] = r.n_tiles - r.players * r.hand_size
        v[L.V_END : L.V_END + L.N_ENDS] = n
        v[L.V_END_DOUBLE : L.V_END_DOUBLE + L.N_ENDS] = 1
        v[L.V_END_TILES : L.V_END_TILES + L.N_ENDS] = 0
        v[L.V_OPEN_ENDS], v[L.V_COUNTING], v[L.V_SPINNER] = 2, 0b11, n if r.spinner else -1
        self.set_tiles(L.V_PLAYED, [lead_tile])
        for s in range(L.MAX_SEATS):
            self.set_played_by(s, [lead_tile] if s == leader else [])
            v[L.V_HAND_COUNT + s] = (r.hand_size - (s == leader)) if s < r.players else 0
            v[L.V_VOID + s] = 0
        v[L.V_PLAYS_N] = 0
        self.log_play(leader, lead_tile, "L")

    def log_play(self, seat: int, tile: str, end: str) -> None:
        """The play log: (seat, tile, end, draw/pass moments so far) per tile put down, the lead first."""
        v = self.vec
        k = int(v[L.V_PLAYS_N])
        at = L.V_PLAYS + L.PLAY_SIZE * k
        v[at : at + L.PLAY_SIZE] = (seat, L.TILE_INDEX[tile], L.END_NAMES.index(end), v[L.V_LOG_N])
        v[L.V_PLAYS_N] = k + 1

    def set_tiles(self, at: int, tiles) -> None:
        self.vec[at : at + L.SET_WORDS] = to_words(_mask(tiles))

    def set_played_by(self, seat: int, tiles) -> None:
        words = to_words(_mask(tiles))
        high = L.SET_WORDS - 1
        self.vec[L.V_PLAYED_BY + seat] = words[0]
        self.vec[L.V_PLAYED_BY_HIGH + seat * high : L.V_PLAYED_BY_HIGH + (seat + 1) * high] = words[1:]

    def tiles(self, at: int) -> list[str]:
        return L.mask_tiles(from_words(self.vec[at : at + L.SET_WORDS]))

    def open_numbers(self) -> int:
        v = self.vec
        return sum(1 << int(n) for n in set(v[L.V_END : L.V_END + int(v[L.V_OPEN_ENDS])].tolist()))

    def score(self, score: list[int]) -> None:
        self.vec[L.V_SCORE : L.V_SCORE + len(score)] = score

    def draw(self, seat: int) -> None:
        self.vec[L.V_HAND_COUNT + seat] += 1
        self.vec[L.V_BONEYARD] -= 1

    def void_moment(self, seat: int, drawn: int, kept: int) -> None:
        """The seat held nothing for the open ends: it drew ``drawn`` tiles and keeps ``kept`` of them."""
        v = self.vec
        numbers = self.open_numbers()
        v[L.V_VOID + seat] = numbers if kept else v[L.V_VOID + seat] | numbers
        k = int(v[L.V_LOG_N])
        v[L.V_LOG + L.LOG_SIZE * k : L.V_LOG + L.LOG_SIZE * (k + 1)] = (seat, numbers, drawn)
        v[L.V_LOG_N] = k + 1

    def play(self, seat: int, tile: str, end: str) -> None:
        v = self.vec
        a, b = (int(x) for x in tile.split("-"))
        e = L.END_NAMES.index(end)
        v[L.V_END + e] = b if a == v[L.V_END + e] else a
        v[L.V_END_DOUBLE + e] = int(a == b)
        v[L.V_END_TILES + e] += 1
        v[L.V_COUNTING] |= 1 << e
        if self.rules.spinner and v[L.V_END_TILES] and v[L.V_END_TILES + 1]:
            v[L.V_OPEN_ENDS] = 4  # the spinner's U and D open once L and R each hold a tile
        self.set_tiles(L.V_PLAYED, self.tiles(L.V_PLAYED) + [tile])
        high = L.SET_WORDS - 1
        mine = from_words(
            [v[L.V_PLAYED_BY + seat], *v[L.V_PLAYED_BY_HIGH + seat * high : L.V_PLAYED_BY_HIGH + (seat + 1) * high]]
        )
        self.set_played_by(seat, L.mask_tiles(mine) + [tile])
        v[L.V_HAND_COUNT + seat] -= 1
        v[L.V_PLAY_NO] += 1
        self.log_play(seat, tile, end)

    def for_seat(self, seat: int, own_hand: list[str]) -> np.ndarray:
        r, v = self.rules, self.vec.copy()
        v[L.V_SEAT], v[L.V_SIDE] = seat, r.side_of(seat)
        v[L.V_HAND : L.V_HAND + L.SET_WORDS] = to_words(_mask(own_hand))
        v[L.V_PLAYERS], v[L.V_PARTNERSHIPS], v[L.V_TARGET] = r.players, r.partnerships, r.target
        v[L.V_RESERVE], v[L.V_OUT_POINTS], v[L.V_BLOCKED_POINTS] = r.boneyard_reserve, r.out_points, r.blocked_points
        v[L.V_SETTLEMENT], v[L.V_REDUCED] = L.SETTLEMENT_NAMES.index(r.settlement), r.reduced_headers
        v[L.V_MAX_NUMBER], v[L.V_N_TILES] = r.max_number, r.n_tiles
        return v


def expected_calls(events: list[dict], rules: Rules, probe_seats: set[int]):
    """(view, legal moves) of every policy call at ``probe_seats``, in order, rebuilt from one match's events."""
    public = PublicView(rules)
    hands: list[list[str]] = []
    hand_no = 0
    drawn = 0  # tiles the seat to move has drawn this turn
    for ev in events:
        kind = ev["type"]
        if kind == "deal":
            hands = [list(h) for h in ev["hands"]]
            hand_no = ev["hand"]
        elif kind == "lead":
            hands[ev["seat"]].remove(ev["tile"])
            public.start_hand(hand_no, ev["seat"], ev["tile"])
            public.score(ev["score"])
        elif kind == "draw":
            hands[ev["seat"]].append(ev["tile"])
            public.draw(ev["seat"])
            drawn += 1
        elif kind == "pass":
            public.void_moment(ev["seat"], drawn, drawn)
            drawn = 0
        elif kind == "play":
            seat = ev["seat"]
            if drawn:
                public.void_moment(seat, drawn, drawn - 1)
            moves = legal_moves(hands[seat], *public.vec[L.V_END : L.V_END + int(public.vec[L.V_OPEN_ENDS])].tolist())
            if len(moves) > 1 and seat in probe_seats:
                yield public.for_seat(seat, hands[seat]), moves
            hands[seat].remove(ev["tile"])
            public.play(seat, ev["tile"], ev["end"])
            public.score(ev["score"])
            drawn = 0
        elif kind in ("out", "blocked"):
            public.score(ev["score"])


# a set of more than 64 tiles compiles the six-policy kernel again for two-word hands (about a minute, cold)
@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=[pytest.mark.slow] if RULE_SETS[name].n_tiles > NARROW_TILES else [])
        for name in sorted(RULE_SETS)
    ],
)
def test_a_policy_receives_exactly_what_its_seat_may_know(name):
    """Every view handed to a policy equals the view rebuilt from public events and the seat's own hand."""
    rules = RULE_SETS[name]
    probe = importlib.import_module("tests.plugins_probe")
    for pattern in ((PROBE, "expert"), ("expert", PROBE)):
        seats = [pattern[s % 2] for s in range(rules.players)]
        played = engine(rules, seats)
        probe.CALLS.clear()
        rows = played.trace_rows(seed=11, first_match=0, n_matches=6)
        events = rows_to_events(rows, rules, played.policy_names, 11)
        probe_seats = {s for s, p in enumerate(seats) if p == PROBE}
        expected = [call for match in split_matches(events) for call in expected_calls(match, rules, probe_seats)]
        assert len(expected) == len(probe.CALLS) > 20
        for k, ((view, moves), (got, tiles, ends)) in enumerate(zip(expected, probe.CALLS)):
            assert [(L.TILE_NAMES[t], L.END_NAMES[e]) for t, e in zip(tiles, ends)] == moves, f"call {k}"
            differ = [i for i in range(L.V_SIZE) if view[i] != got[i]]  # a plug-in's copy is the whole view
            assert not differ, f"call {k}: view differs at {differ[:8]}"


def test_views_do_not_depend_on_the_undrawn_boneyard():
    """The same public history with other hidden tiles gives the same views (a direct check besides the above).

    Two deals that differ only in the two reserve tiles, which are never drawn
    (reserve 2), must give identical traces apart from the deal and identical
    views at every decision: the boneyard order is in no view.
    """
    rules = RULE_SETS["2p-standard"]
    probe = importlib.import_module("tests.plugins_probe")
    played = engine(rules, [PROBE, "expert"])
    deal = np.random.default_rng(5).permutation(L.N_TILES).astype(np.int64)
    assert set(deal[:12]) & set(L.DOUBLE_TILE.tolist()), "the deal needs a double to lead"
    other = deal.copy()
    other[-2:] = deal[-1], deal[-2]
    runs = []
    for d in (deal, other):
        probe.CALLS.clear()
        rows = played.trace_rows(seed=2, first_match=0, n_matches=1, deals=np.tile(d, (40, 1)))
        runs.append((rows[:, : L.T_DEAL], [call[0] for call in probe.CALLS]))
    (rows_a, views_a), (rows_b, views_b) = runs
    assert np.array_equal(rows_a, rows_b) and len(views_a) == len(views_b) > 0
    assert all(np.array_equal(a, b) for a, b in zip(views_a, views_b))


@pytest.mark.parametrize("name", ["4p", "4p-partnerships"])
def test_every_builtin_plays_only_legal_moves_at_every_seat(name):
    """Many matches per seat rotation; the engine stops with PolicyError on any index outside the legal moves."""
    rules = RULE_SETS[name]
    probe = importlib.import_module("tests.plugins_probe")
    for names, matches in ((SHEDDERS, 1500), (["expert", "expert", "expert", PROBE], 400)):
        for shift in range(4):
            seats = names[shift:] + names[:shift]
            chunk = engine(rules, seats).play(seed=100 + shift, first_match=0, n_matches=matches, match_rows=False)
            probe.CALLS.clear()
            assert chunk.totals[L.S_POLICY_CALLS] > 10 * matches


# --- the worked example of docs/policies.md ------------------------------------------------------
#: docs/worked-example.jsonl (seed 1 of an earlier version), match 0, hand 2, seat 0 to play after 1-1 (led by
#: seat 1), 1-4 on L and, after seat 1 drew 0-6 and 0-1, 0-1 on R
EXAMPLE_TRACE = Path(__file__).resolve().parents[2] / "docs" / "worked-example.jsonl"
EXAMPLE = {
    L.V_SEAT: 0,
    L.V_SIDE: 0,
    L.V_PLAYERS: 2,
    L.V_PARTNERSHIPS: 0,
    L.V_TARGET: 15,
    L.V_RESERVE: 2,
    L.V_MAX_NUMBER: 6,
    L.V_N_TILES: 28,
    L.V_HAND: 329024,
    L.V_LEFT: 4,
    L.V_RIGHT: 0,
    L.V_END + 2: 1,
    L.V_END + 3: 1,
    L.V_LEFT_DOUBLE: 0,
    L.V_RIGHT_DOUBLE: 0,
    L.V_END_DOUBLE + 2: 1,
    L.V_END_DOUBLE + 3: 1,
    L.V_END_TILES: 1,
    L.V_END_TILES + 1: 1,
    L.V_OPEN_ENDS: 2,
    L.V_COUNTING: 3,
    L.V_SPINNER: -1,
    L.V_PLAYED: 2054,
    L.V_BONEYARD: 14,
    L.V_HAND_NO: 2,
    L.V_PLAY_NO: 2,
    L.V_LEADER: 1,
    L.V_OUT_POINTS: 2,
    L.V_BLOCKED_POINTS: 2,
    L.V_SETTLEMENT: 0,
    L.V_REDUCED: 1,
    L.V_SCORE + 1: 9,
    L.V_PLAYED_BY: 2048,
    L.V_PLAYED_BY + 1: 6,
    L.V_HAND_COUNT: 5,
    L.V_HAND_COUNT + 1: 6,
    L.V_VOID + 1: (1 << 1) | (1 << 4),
    L.V_LOG_N: 1,
    L.V_LOG: 1,
    L.V_LOG + 1: 18,
    L.V_LOG + 2: 2,
    # the play log: (seat, tile, end, moments before) for the lead 1-1, 1-4 on L, then 0-1 on R after seat 1's draw
    L.V_PLAYS_N: 3,
    L.V_PLAYS: 1,
    L.V_PLAYS + 1: L.TILE_INDEX["1-1"],
    L.V_PLAYS + 4: 0,
    L.V_PLAYS + 5: L.TILE_INDEX["1-4"],
    L.V_PLAYS + 8: 1,
    L.V_PLAYS + 9: L.TILE_INDEX["0-1"],
    L.V_PLAYS + 10: 1,
    L.V_PLAYS + 11: 1,
}
EXAMPLE_MOVES = [("0-3", L.END_R), ("0-4", L.END_L), ("0-4", L.END_R)]


def _example():
    view = np.zeros(L.V_SIZE, dtype=np.int64)
    for index, value in EXAMPLE.items():
        view[index] = value
    tiles = np.zeros(L.MAX_MOVES, dtype=np.int64)
    ends = np.zeros(L.MAX_MOVES, dtype=np.int64)
    for k, (tile, end) in enumerate(EXAMPLE_MOVES):
        tiles[k], ends[k] = L.TILE_INDEX[tile], end
    return view, tiles, ends


def test_worked_example_view_is_what_the_engine_shows():
    """The documented view is the one the engine's view upkeep gives seat 0 at that decision of the recorded match."""
    events = read_jsonl(EXAMPLE_TRACE)
    game = Game(Rules.from_trace(events[0]["rules"]), seed=1, deal_source=deals_from_trace(events))
    for event in (e for e in events if e["type"] == "play"):
        if game.hand_number == 2 and game.to_move == 0 and game.view(0).array[L.V_PLAY_NO] == 2:
            break
        game.play((event["tile"], event["end"]))
    view, _, _ = _example()
    got = game.view(0).array
    used = L.V_LOG + L.LOG_SIZE
    live = np.ones(used, dtype=bool)  # play-log entries past V_PLAYS_N are left over from hand 1
    live[L.V_PLAYS + L.PLAY_SIZE * view[L.V_PLAYS_N] : L.V_PLAYS + L.PLAY_SIZE * L.MAX_TILES] = False
    assert got[:used][live].tolist() == view[:used][live].tolist()
    assert [(m.tile, int(m.end)) for m in game.legal_moves()] == EXAMPLE_MOVES


def test_worked_example_features_and_choices():
    """The features and choices docs/policies.md states for the worked example."""
    view, tiles, ends = _example()
    no_tiles = np.int64(0)
    unseen = base.unseen_tiles(view, no_tiles)
    assert bin(unseen).count("1") == 20
    rows = []
    for k in range(3):
        after, doubles, counting, open_ends = base.ends_after(view, tiles[k], ends[k])
        rows.append(
            (
                after[0],
                after[1],
                base.header_points(view, 0, after, doubles, counting),
                round(base.threat(view, after, doubles, counting, open_ends, unseen, no_tiles), 6),
                base.playable_after(view[L.V_HAND], tiles[k], after, open_ends, no_tiles),
                base.blocks_next(view, after, open_ends),
            )
        )
    assert rows == [(4, 3, 0, 0.0, 3, 0), (0, 0, 2, 1.5, 1, 0), (4, 4, 2, 0.0, 0, 1)]
    assert base.could_hold(view, 1, L.TILE_INDEX["0-0"]) == 6
    assert base.could_hold(view, 1, L.TILE_INDEX["3-4"]) == 0  # void in 4 since its draw
    rng = np.zeros(1, dtype=np.uint64)
    choices = {
        m.NAME: m.choose(view, tiles, ends, 3, rng, no_tiles)
        for m in (greedy, defensive, doubles_first, heavy_first, expert)
    }
    assert choices == {"greedy": 1, "defensive": 2, "doubles-first": 1, "heavy-first": 1, "expert": 2}


def test_expert_feature_table_is_what_expert_weighs():
    """``expert.feature_table`` (fitting tools read it) gives the worked example's features, and at every
    decision of random games ``expert`` plays the first move of highest weighted sum of its rows."""
    view, tiles, ends = _example()
    table = np.zeros((3, len(expert.FEATURES)))
    expert.feature_table(view, tiles, ends, 3, np.int64(0), table)
    assert table.tolist() == [[0, 0.0, 0, 3, 0], [2, 1.5, 0, 1, 0], [2, 0.0, 0, 0, 1]]
    rules = Rules.make(players=3, spinner=True)
    no_tiles = np.int64(0)
    rng = np.zeros(1, dtype=np.uint64)
    checked = 0
    for match in range(6):
        game = Game(rules, seed=5, match=match)
        while not game.is_over:
            moves = game.legal_moves()
            if len(moves) >= 2 and not game.choosing_lead:
                t = np.array([m.tile.index for m in moves], dtype=np.int64)
                e = np.array([int(m.end) for m in moves], dtype=np.int64)
                view = game.view(game.to_move).array
                table = np.zeros((len(moves), len(expert.FEATURES)))
                expert.feature_table(view, t, e, len(moves), no_tiles, table)
                assert expert.choose(view, t, e, len(moves), rng, no_tiles) == int(np.argmax(table @ expert.WEIGHTS))
                checked += 1
            game.play(game.policy_move("random"))
    assert checked > 50


def test_could_hold_counts_only_tiles_drawn_after_the_void():
    """A seat void in a number since a draw/pass moment can hold that number only among later draws."""
    view, _, _ = _example()
    tile = L.TILE_INDEX["1-3"]  # shows 1: seat 1 was void in 1 at its logged moment
    assert base.could_hold(view, 1, tile) == 0
    # a later moment of seat 1 on ends 5|6 where it drew 3 tiles: 1-3 may be among them
    view[L.V_LOG + L.LOG_SIZE : L.V_LOG + 2 * L.LOG_SIZE] = (1, (1 << 5) | (1 << 6), 3)
    view[L.V_LOG_N] = 2
    assert base.could_hold(view, 1, tile) == 3
    assert base.could_hold(view, 1, L.TILE_INDEX["5-5"]) == 0
    assert base.holding_probability(view, 1, tile, base.unseen_tiles(view, np.int64(0)), np.int64(0)) > 0
