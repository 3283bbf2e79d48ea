"""Built-in policies: what a policy receives, that it holds nothing hidden, and legal play everywhere.

A kernel is compiled per policy combination (10-20 s on a cold cache), so
every engine here runs on one kernel holding all the heuristic built-ins and
the recording probe of tests/plugins_probe.py (``kernel_policies``); the
rules and the seating are not part of a kernel, so it serves every test.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from bergen_sim.engine import layout as L
from bergen_sim.runtime.runner import Engine
from bergen_sim.policies import base, defensive, doubles_first, expert, greedy, heavy_first
from bergen_sim.reference import legal_moves
from bergen_sim.rules import Rules
from bergen_sim.trace import rows_to_events, split_matches

PROBE = "tests.plugins_probe:record"
SHEDDERS = ["greedy", "defensive", "doubles-first", "heavy-first"]
KERNEL = SHEDDERS + ["expert", PROBE]

RULE_SETS = {
    "2p-standard": Rules.make(players=2),
    "2p-classic": Rules.make(players=2, preset="classic"),
    "3p-american": Rules.make(players=3, settlement="american"),
    "4p": Rules.make(players=4),
    "4p-partnerships": Rules.make(players=4, partnerships=True, boneyard_reserve=0),
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
        self.vec = np.zeros(L.V_SIZE, dtype=np.int64)  # the match's view: the log area persists between hands

    def start_hand(self, hand_no: int, leader: int, lead_tile: str) -> None:
        r, v = self.rules, self.vec
        n = int(lead_tile.split("-")[0])
        v[L.V_HAND_NO], v[L.V_LEADER], v[L.V_PLAY_NO], v[L.V_LOG_N] = hand_no, leader, 0, 0
        v[L.V_BONEYARD] = L.N_TILES - r.players * r.hand_size
        v[L.V_LEFT] = v[L.V_RIGHT] = n
        v[L.V_LEFT_DOUBLE] = v[L.V_RIGHT_DOUBLE] = 1
        v[L.V_PLAYED] = _mask([lead_tile])
        for s in range(L.MAX_SEATS):
            v[L.V_PLAYED_BY + s] = _mask([lead_tile]) if s == leader else 0
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

    def score(self, score: list[int]) -> None:
        self.vec[L.V_SCORE : L.V_SCORE + len(score)] = score

    def draw(self, seat: int) -> None:
        self.vec[L.V_HAND_COUNT + seat] += 1
        self.vec[L.V_BONEYARD] -= 1

    def void_moment(self, seat: int, drawn: int, kept: int) -> None:
        """The seat held nothing for the ends: it drew ``drawn`` tiles and keeps ``kept`` of them."""
        v = self.vec
        both = (1 << int(v[L.V_LEFT])) | (1 << int(v[L.V_RIGHT]))
        v[L.V_VOID + seat] = both if kept else v[L.V_VOID + seat] | both
        k = int(v[L.V_LOG_N])
        v[L.V_LOG + 4 * k : L.V_LOG + 4 * k + 4] = (seat, v[L.V_LEFT], v[L.V_RIGHT], drawn)
        v[L.V_LOG_N] = k + 1

    def play(self, seat: int, tile: str, end: str) -> None:
        v = self.vec
        a, b = (int(x) for x in tile.split("-"))
        at, flag = (L.V_LEFT, L.V_LEFT_DOUBLE) if end == "L" else (L.V_RIGHT, L.V_RIGHT_DOUBLE)
        v[at] = b if a == v[at] else a
        v[flag] = int(a == b)
        v[L.V_PLAYED] |= _mask([tile])
        v[L.V_PLAYED_BY + seat] |= _mask([tile])
        v[L.V_HAND_COUNT + seat] -= 1
        v[L.V_PLAY_NO] += 1
        self.log_play(seat, tile, end)

    def for_seat(self, seat: int, own_hand: list[str]) -> np.ndarray:
        r, v = self.rules, self.vec.copy()
        v[L.V_SEAT], v[L.V_SIDE], v[L.V_HAND] = seat, r.side_of(seat), _mask(own_hand)
        v[L.V_PLAYERS], v[L.V_PARTNERSHIPS], v[L.V_TARGET] = r.players, r.partnerships, r.target
        v[L.V_RESERVE], v[L.V_OUT_POINTS], v[L.V_BLOCKED_POINTS] = r.boneyard_reserve, r.out_points, r.blocked_points
        v[L.V_SETTLEMENT], v[L.V_REDUCED] = L.SETTLEMENT_NAMES.index(r.settlement), r.reduced_headers
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
            left, right = int(public.vec[L.V_LEFT]), int(public.vec[L.V_RIGHT])
            moves = legal_moves(hands[seat], left, right)
            if len(moves) > 1 and seat in probe_seats:
                yield public.for_seat(seat, hands[seat]), moves
            hands[seat].remove(ev["tile"])
            public.play(seat, ev["tile"], ev["end"])
            public.score(ev["score"])
            drawn = 0
        elif kind in ("out", "blocked"):
            public.score(ev["score"])


@pytest.mark.parametrize("name", sorted(RULE_SETS))
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
#: seed 1, match 0, hand 2, seat 0 to play after 1-1 (led by seat 1), 1-4 on L and, after seat 1 drew 0-6 and 0-1, 0-1 on R
EXAMPLE = {
    L.V_SEAT: 0, L.V_SIDE: 0, L.V_PLAYERS: 2, L.V_PARTNERSHIPS: 0, L.V_TARGET: 15, L.V_RESERVE: 2,
    L.V_HAND: _mask(["0-3", "0-4", "1-5", "2-3", "3-5"]), L.V_LEFT: 4, L.V_RIGHT: 0,
    L.V_PLAYED: _mask(["0-1", "1-1", "1-4"]), L.V_BONEYARD: 14, L.V_HAND_NO: 2, L.V_PLAY_NO: 2, L.V_LEADER: 1,
    L.V_OUT_POINTS: 2, L.V_BLOCKED_POINTS: 2, L.V_SETTLEMENT: 0, L.V_REDUCED: 1, L.V_SCORE + 1: 9,
    L.V_PLAYED_BY: _mask(["1-4"]), L.V_PLAYED_BY + 1: _mask(["0-1", "1-1"]), L.V_HAND_COUNT: 5,
    L.V_HAND_COUNT + 1: 6, L.V_VOID + 1: (1 << 1) | (1 << 4), L.V_LOG_N: 1,
    L.V_LOG: 1, L.V_LOG + 1: 4, L.V_LOG + 2: 1, L.V_LOG + 3: 2,
    # the play log: (seat, tile, end, moments before) for the lead 1-1, 1-4 on L, then 0-1 on R after seat 1's draw
    L.V_PLAYS_N: 3, L.V_PLAYS: 1, L.V_PLAYS + 1: L.TILE_INDEX["1-1"], L.V_PLAYS + 4: 0,
    L.V_PLAYS + 5: L.TILE_INDEX["1-4"], L.V_PLAYS + 8: 1, L.V_PLAYS + 9: L.TILE_INDEX["0-1"], L.V_PLAYS + 10: 1,
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


def test_worked_example_view_is_what_the_kernel_hands_over():
    """The documented view is the one the engine really gives seat 0 at that decision."""
    probe = importlib.import_module("tests.plugins_probe")
    played = engine(RULE_SETS["2p-standard"], [PROBE, PROBE])
    probe.CALLS.clear()
    played.trace_rows(seed=1, first_match=0, n_matches=1)
    view, tiles, ends = _example()
    got = next(c for c in probe.CALLS if c[0][L.V_HAND_NO] == 2 and c[0][L.V_PLAY_NO] == 2)
    live = np.ones(L.V_LOG + 4, dtype=bool)  # play-log entries past V_PLAYS_N are left over from hand 1
    live[L.V_PLAYS + L.PLAY_SIZE * view[L.V_PLAYS_N] : L.V_PLAYS + L.PLAY_SIZE * L.N_TILES] = False
    assert np.array_equal(got[0][: L.V_LOG + 4][live], view[: L.V_LOG + 4][live])
    assert got[1].tolist() == tiles[:3].tolist() and got[2].tolist() == ends[:3].tolist()


def test_worked_example_features_and_choices():
    """The features and choices docs/policies.md states for the worked example."""
    view, tiles, ends = _example()
    unseen = base.unseen_tiles(view)
    assert bin(unseen).count("1") == 20
    rows = []
    for k in range(3):
        left, right, ld, rd = base.ends_after(view, tiles[k], ends[k])
        rows.append((left, right, base.header_points(view, 0, left, right, ld, rd),
                     round(base.threat(view, left, right, ld, rd, unseen), 6),
                     base.playable_after(view[L.V_HAND], tiles[k], left, right), base.blocks_next(view, left, right)))
    assert rows == [(4, 3, 0, 0.0, 3, 0), (0, 0, 2, 1.5, 1, 0), (4, 4, 2, 0.0, 0, 1)]
    assert base.could_hold(view, 1, L.TILE_INDEX["0-0"]) == 6
    assert base.could_hold(view, 1, L.TILE_INDEX["3-4"]) == 0  # void in 4 since its draw
    rng = np.zeros(1, dtype=np.uint64)
    choices = {m.NAME: m.choose(view, tiles, ends, 3, rng) for m in (greedy, defensive, doubles_first, heavy_first, expert)}
    assert choices == {"greedy": 1, "defensive": 2, "doubles-first": 1, "heavy-first": 1, "expert": 2}


def test_could_hold_counts_only_tiles_drawn_after_the_void():
    """A seat void in a number since a draw/pass moment can hold that number only among later draws."""
    view, _, _ = _example()
    tile = L.TILE_INDEX["1-3"]  # shows 1: seat 1 was void in 1 at its logged moment
    assert base.could_hold(view, 1, tile) == 0
    # a later moment of seat 1 on ends 5|6 where it drew 3 tiles: 1-3 may be among them
    view[L.V_LOG + 4 : L.V_LOG + 8] = (1, 5, 6, 3)
    view[L.V_LOG_N] = 2
    assert base.could_hold(view, 1, tile) == 3
    assert base.could_hold(view, 1, L.TILE_INDEX["5-5"]) == 0
    assert base.holding_probability(view, 1, tile, base.unseen_tiles(view)) > 0
