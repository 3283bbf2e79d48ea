"""Reference engine for Bergen: plain Python, written to be read, not to be fast.

This module is the executable form of the project's rule book (RULES.md).
Every rule is applied in one obvious place, in the order the rule book states
it, and every event is written in ``bergen-trace/1`` form with the same key
order as the golden traces.  Faster engines are checked against this one (and
both against the golden traces), so clarity wins over speed everywhere here.

The rules live in :class:`MatchState`, a match stepped one deal, draw or move
at a time; :func:`play_match_reference` drives it in a loop, and the step API
(:mod:`bergen_sim.game`) drives it move by move, so Python has one
implementation of the rules.

The engine itself is deterministic: all randomness lives in the two callables
it is given, ``deal_source`` (which tiles each seat gets, and the boneyard's
draw order) and ``choose`` (which legal move a seat makes).  Replaying a trace
is therefore just a matter of feeding back the recorded deals and moves, see
``deals_from_trace`` and ``moves_from_trace``.
"""

from __future__ import annotations

import functools
import random
from typing import Callable, Iterable

from bergen_sim.domain import Tile

FORMAT = "bergen-trace/1"

# The keys of a trace's ``rules`` object, in the order the format writes them.
RULE_KEYS = ("players", "partnerships", "hand_size", "target", "lead", "settlement",
             "blocked_points", "out_points", "boneyard_reserve", "reduced_headers")

# The double-six set in index order: lexicographic by (a, b) with a <= b.
TILES: list[str] = [f"{a}-{b}" for a in range(7) for b in range(a, 7)]
TILE_INDEX: dict[str, int] = {t: i for i, t in enumerate(TILES)}
N_TILES = len(TILES)


@functools.cache  # the reference engine's speed is a benchmark baseline: parse each name once
def halves(tile: str) -> tuple[int, int]:
    """``"3-5"`` -> ``(3, 5)`` (parsed by :class:`bergen_sim.domain.Tile`, the one parser of tile names)."""
    parsed = Tile.parse(tile)
    return parsed.lo, parsed.hi


def is_double(tile: str) -> bool:
    a, b = halves(tile)
    return a == b


def pips(tile: str) -> int:
    a, b = halves(tile)
    return a + b


def legal_moves(hand, left: int, right: int) -> list[tuple[str, str]]:
    """All legal ``(tile, end)`` moves for ``hand`` on a layout showing ``left``/``right``.

    Ordered by tile index, ``"L"`` before ``"R"`` for the same tile.  A tile
    that fits both ends is listed once per end, even when both ends show the
    same number: the two placements can differ (one end may be a double end),
    and a uniform policy must see both.
    """
    moves = []
    for tile in sorted(hand, key=TILE_INDEX.__getitem__):
        numbers = halves(tile)
        if left in numbers:
            moves.append((tile, "L"))
        if right in numbers:
            moves.append((tile, "R"))
    return moves


def side_of(rules: dict, seat: int) -> int:
    """Partners (4 players only) share a side: seats 0,2 -> 0 and 1,3 -> 1."""
    return seat % 2 if rules["partnerships"] else seat


def side_count(rules: dict) -> int:
    return 2 if rules["partnerships"] else rules["players"]


def cut_header(rules: dict, value: int, side_score: int) -> int:
    """Apply the near-target cut to a header worth ``value`` (lead included).

    ``need`` is what the side still lacks before this header.  Only headers
    (the led double included) are cut; going-out and blocked points never are,
    which is why callers apply this to header values only.
    """
    if not rules["reduced_headers"]:
        return value
    need = rules["target"] - side_score
    if need <= 2:
        return 1
    if need == 3:
        return min(value, 2)
    return value


def settle_blocked(rules: dict, hands: list[list[str]]) -> int | None:
    """Return the side winning a blocked hand, or None on a tie for best.

    Each side gets a sort key (smaller is better) over all tiles left in its
    players' hands; the best key wins only if no other side shares it.
    """
    tiles_by_side: list[list[str]] = [[] for _ in range(side_count(rules))]
    for seat, hand in enumerate(hands):
        tiles_by_side[side_of(rules, seat)].extend(hand)

    def key(tiles: list[str]):
        doubles = sum(1 for t in tiles if is_double(t))
        total = sum(pips(t) for t in tiles)
        if rules["settlement"] == "german":
            return (doubles, total)  # fewest doubles, then fewest pips
        if rules["settlement"] == "pips":
            return (total,)
        if rules["settlement"] == "american":
            # Holding no double beats holding one.  Sides without doubles
            # compare all their pips, sides with doubles compare non-double
            # pips only; for a double-free side those two counts coincide.
            plain = sum(pips(t) for t in tiles if not is_double(t))
            return (doubles > 0, plain)
        raise ValueError(f"unknown settlement {rules['settlement']!r}")

    keys = [key(tiles) for tiles in tiles_by_side]
    best = min(keys)
    if keys.count(best) > 1:
        return None
    return keys.index(best)


def find_lead(rules: dict, hands: list[list[str]]) -> tuple[int, str] | None:
    """The ``(seat, double)`` that must lead, or None if no hand holds a double."""
    doubles = [(TILE_INDEX[t], seat, t) for seat, hand in enumerate(hands)
               for t in hand if is_double(t)]
    if not doubles:
        return None
    pick = min if rules["lead"] == "lowest-double" else max
    _, seat, tile = pick(doubles)
    return seat, tile


#: phases of a match in progress: what the next step must be
DEAL = "deal"  # the hand (or its redeal) needs a deal: MatchState.deal
DRAW = "draw"  # a seat must draw and the boneyard order is not known yet: MatchState.draw
PLAY = "play"  # a seat holds a playable tile and must choose a move: MatchState.play
OVER = "over"  # a side reached the target


class MatchState:
    """One match in progress, stepped one deal, draw or move at a time.

    This is the rule book's one implementation in Python: the reference loop
    (:func:`play_match_reference`) and the step API (:mod:`bergen_sim.game`)
    both drive it.  After every step the state runs on by itself through
    everything that needs no decision (the lead, draws from a known boneyard,
    passes, going out, blocked settlements, the next hand) and stops at the
    next step that needs input, named by :attr:`phase`:

    * ``DEAL``: call :meth:`deal` with the hands (and the boneyard in draw
      order, or None to give the drawn tiles one by one later);
    * ``DRAW``: (only after a deal without a boneyard order) call :meth:`draw`
      with the tile that :attr:`seat` draws next;
    * ``PLAY``: :attr:`seat` must play one of :attr:`moves` with :meth:`play`;
    * ``OVER``: a side reached the target.

    Every event is appended to :attr:`events` in ``bergen-trace/1`` form.

    >>> state = MatchState(dict(players=2, partnerships=False, hand_size=2, target=15,
    ...     lead="lowest-double", settlement="german", blocked_points=2, out_points=2,
    ...     boneyard_reserve=2, reduced_headers=True))
    >>> state.phase
    'deal'
    >>> state.deal([["1-1", "1-2"], ["2-3", "4-4"]], [t for t in TILES if t not in ("1-1", "1-2", "2-3", "4-4")])
    >>> [(e["type"], e.get("tile")) for e in state.events[2:]]  # the lead, then seat 1 draws until a tile fits
    [('lead', '1-1'), ('draw', '0-0'), ('draw', '0-1')]
    >>> state.phase, state.seat, state.moves
    ('play', 1, [('0-1', 'L'), ('0-1', 'R')])
    """

    def __init__(self, rules: dict, *, match_index: int = 0, seed: int = 0,
                 policies: list[str] | None = None):
        if set(rules) != set(RULE_KEYS):
            raise ValueError(f"rules must have exactly the keys {RULE_KEYS}, got {sorted(rules)}")
        self.rules = {key: rules[key] for key in RULE_KEYS}  # canonical order for the match event
        self.players = self.rules["players"]
        if policies is None:
            policies = ["reference"] * self.players
        self.events: list[dict] = [{
            "type": "match", "format": FORMAT, "match": match_index, "rules": dict(self.rules),
            "policies": list(policies), "seed": seed,
        }]
        self.scores = [0] * side_count(self.rules)
        self.hand_number = 1
        self.attempt = 0  # redeals of this hand so far
        self.hands: list[list[str]] = [[] for _ in range(self.players)]
        self.boneyard: list[str] | None = []  # draw order; None while it is given tile by tile
        self.boneyard_size = 0
        self.left = self.right = -1
        self.left_double = self.right_double = False
        self.seat = -1  # the seat to move (or to draw)
        self.moves: list[tuple[str, str]] = []  # its legal moves in phase PLAY
        self.drawn = 0  # tiles it drew this turn
        self.passes = 0
        self.phase = DEAL

    # --- the steps ---------------------------------------------------------

    def deal(self, hands: list[list[str]], boneyard: list[str] | None) -> None:
        """Deal this hand: ``hands`` per seat and the ``boneyard`` in draw order.

        With ``boneyard=None`` the undealt tiles' order is left open and every
        draw stops in phase ``DRAW`` for :meth:`draw` (the deal event then has
        ``"boneyard": None``).  A deal without a double is recorded and
        followed by a redeal event; the state stays in phase ``DEAL``.
        """
        self._expect(DEAL)
        hands = [list(h) for h in hands]
        self.events.append({"type": "deal", "hand": self.hand_number, "hands": [list(h) for h in hands],
                            "boneyard": None if boneyard is None else list(boneyard)})
        lead = find_lead(self.rules, hands)
        if lead is None:
            self.events.append({"type": "redeal", "hand": self.hand_number})
            self.attempt += 1
            return
        self.hands = hands
        self.boneyard = None if boneyard is None else list(boneyard)
        self.boneyard_size = N_TILES - self.players * self.rules["hand_size"]
        # The lead: a double-header for the leader's side, subject to the cut.
        seat, tile = lead
        self.hands[seat].remove(tile)
        self.left = self.right = halves(tile)[0]
        self.left_double = self.right_double = True
        self.seat = seat
        self.passes = 0
        points = cut_header(self.rules, 2, self.scores[side_of(self.rules, seat)])
        self._add_points(seat, points)
        self.events.append({"type": "lead", "seat": seat, "tile": tile, "points": points,
                            "score": list(self.scores)})
        if self._reached_target():
            return
        if not self.hands[seat]:  # hand size 1: the leader goes out on the lead
            self._go_out(seat)
            return
        self._next_turn()

    def draw(self, tile: str) -> None:
        """The seat to move draws ``tile`` (phase ``DRAW``, after a deal without boneyard order)."""
        self._expect(DRAW)
        if tile not in TILE_INDEX or tile in self.out_of_boneyard():
            raise ValueError(f"{tile!r} cannot be drawn: it is not an undealt tile")
        self._take(tile)

    def play(self, tile: str, end: str) -> None:
        """The seat to move plays ``tile`` on ``end`` (one of :attr:`moves`)."""
        self._expect(PLAY)
        seat = self.seat
        move = (tile, end)
        if move not in self.moves:
            raise ValueError(f"seat {seat} chose illegal move {move!r}; legal: {self.moves}")
        self.hands[seat].remove(tile)
        a, b = halves(tile)
        shown = self.left if end == "L" else self.right
        new_number = b if a == shown else a
        if end == "L":
            self.left, self.left_double = new_number, a == b
        else:
            self.right, self.right_double = new_number, a == b
        points = 0
        if self.left == self.right:
            value = 3 if (self.left_double or self.right_double) else 2
            points = cut_header(self.rules, value, self.scores[side_of(self.rules, seat)])
        self._add_points(seat, points)
        self.events.append({"type": "play", "seat": seat, "tile": tile, "end": end,
                            "points": points, "score": list(self.scores)})
        self.moves = []
        if self._reached_target():  # a header may end the match before going out
            return
        if not self.hands[seat]:
            self._go_out(seat)
            return
        self._next_turn()

    # --- what a caller may ask ---------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    def info(self) -> dict:
        """The public layout and scores, as the reference loop's ``choose`` receives them."""
        return {"left": self.left, "right": self.right, "left_double": self.left_double,
                "right_double": self.right_double, "scores": list(self.scores), "hand_number": self.hand_number}

    def out_of_boneyard(self) -> set[str]:
        """Tiles in a hand or on the table this hand: every tile not in the boneyard."""
        held = {t for hand in self.hands for t in hand}
        return held | self.table()

    def table(self) -> set[str]:
        """Tiles on the table this hand: the lead and every play since the last deal."""
        tiles: set[str] = set()
        for event in reversed(self.events):
            if event["type"] == "deal":
                break
            if event["type"] in ("lead", "play"):
                tiles.add(event["tile"])
        return tiles

    # --- the rules that run by themselves -----------------------------------

    def _expect(self, phase: str) -> None:
        if self.phase != phase:
            raise ValueError(f"the match is in phase {self.phase!r}, not {phase!r}")

    def _add_points(self, seat: int, points: int) -> None:
        self.scores[side_of(self.rules, seat)] += points

    def _reached_target(self) -> bool:
        """End the match right after the scoring event that reached the target."""
        for side, score in enumerate(self.scores):
            if score >= self.rules["target"]:
                self.events.append({"type": "match_end", "winner": side, "score": list(self.scores)})
                self.phase = OVER
                self.moves = []
                return True
        return False

    def _go_out(self, seat: int) -> None:
        self._add_points(seat, self.rules["out_points"])
        self.events.append({"type": "out", "seat": seat, "points": self.rules["out_points"],
                            "score": list(self.scores)})
        if not self._reached_target():
            self._next_hand()

    def _next_hand(self) -> None:
        self.hand_number += 1
        self.attempt = 0
        self.seat = -1
        self.phase = DEAL

    def _next_turn(self) -> None:
        """Play passes to the next seat; run on until it must choose (or draw from an open boneyard)."""
        self.seat = (self.seat + 1) % self.players
        self.drawn = 0
        self._offer(legal_moves(self.hands[self.seat], self.left, self.right))

    def _offer(self, moves: list[tuple[str, str]]) -> None:
        """The seat to move has ``moves``; without any it draws (one tile at a time
        until a drawn tile fits or only the reserve is left) and then passes."""
        if moves:
            self.passes = 0
            self.moves = moves
            self.phase = PLAY
            return
        if self.boneyard_size > self.rules["boneyard_reserve"]:
            if self.boneyard is None:
                self.phase = DRAW
                return
            self._take(self.boneyard[0])
            return
        self.events.append({"type": "pass", "seat": self.seat})
        self.passes += 1
        if self.passes == self.players:
            winner = settle_blocked(self.rules, self.hands)
            points = 0 if winner is None else self.rules["blocked_points"]
            if winner is not None:
                self.scores[winner] += points
            self.events.append({"type": "blocked", "winner": winner, "points": points,
                                "score": list(self.scores)})
            if not self._reached_target():
                self._next_hand()
            return
        self._next_turn()

    def _take(self, tile: str) -> None:
        """The seat to move draws ``tile``; a drawn playable tile is the only one, so only its ends are offered."""
        if self.boneyard is not None:
            self.boneyard.remove(tile)
        self.boneyard_size -= 1
        self.hands[self.seat].append(tile)
        self.drawn += 1
        self.events.append({"type": "draw", "seat": self.seat, "tile": tile})
        self._offer(legal_moves([tile], self.left, self.right))


def play_match_reference(rules: dict, deal_source, choose, *, match_index: int = 0,
                         seed: int = 0, policies: list[str] | None = None) -> list[dict]:
    """Play one match and return its ``bergen-trace/1`` events.

    ``deal_source(hand_number, attempt)`` returns ``(hands, boneyard)``;
    ``attempt`` counts redeals of that hand from 0.  ``choose(seat, hand,
    moves, info)`` returns one of ``moves``; it is called for every play after
    the lead, forced ones included, so a scripted policy stays in step.
    """
    state = MatchState(rules, match_index=match_index, seed=seed, policies=policies)
    while not state.is_over:
        if state.phase == DEAL:
            state.deal(*deal_source(state.hand_number, state.attempt))
        else:
            move = choose(state.seat, list(state.hands[state.seat]), list(state.moves), state.info())
            state.play(*tuple(move))
    return state.events


# --- helpers: replaying traces and the naive random baseline ---------------

def split_matches(lines: Iterable[dict]) -> list[list[dict]]:
    """Split a trace's events into matches, each starting at a ``match`` event."""
    matches: list[list[dict]] = []
    for event in lines:
        if event["type"] == "match":
            matches.append([])
        elif not matches:
            raise ValueError("trace does not start with a match event")
        matches[-1].append(event)
    return matches


def deals_from_trace(events: list[dict]) -> Callable:
    """A deal_source serving one match's recorded deals in order.

    The k-th call gets the k-th ``deal`` event.  The requested hand number and
    attempt are checked against the recording so a replay that drifts out of
    step fails loudly instead of silently using the wrong deal.
    """
    deals = []
    attempts: dict[int, int] = {}
    for e in events:
        if e["type"] == "deal":
            attempt = attempts.get(e["hand"], 0)
            attempts[e["hand"]] = attempt + 1
            deals.append((e["hand"], attempt, e["hands"], e["boneyard"]))
    queue = iter(deals)

    def deal_source(hand_number: int, attempt: int):
        try:
            hand, recorded_attempt, hands, boneyard = next(queue)
        except StopIteration:
            raise ValueError("no recorded deal left") from None
        if (hand, recorded_attempt) != (hand_number, attempt):
            raise ValueError(f"asked for hand {hand_number} attempt {attempt}, "
                             f"recorded hand {hand} attempt {recorded_attempt}")
        return [list(h) for h in hands], list(boneyard)

    return deal_source


def moves_from_trace(events: list[dict]) -> Callable:
    """A scripted ``choose`` returning the recorded ``play`` moves in order."""
    queue = iter([(e["tile"], e["end"]) for e in events if e["type"] == "play"])

    def choose(seat, hand, moves, info):
        try:
            return next(queue)
        except StopIteration:
            raise ValueError("no recorded move left") from None

    return choose


def random_deal_source(rng: random.Random, players: int, hand_size: int) -> Callable:
    """Shuffle the 28 tiles; deal ``hand_size`` each in seat order; the rest is the boneyard."""
    def deal_source(hand_number: int, attempt: int):
        tiles = list(TILES)
        rng.shuffle(tiles)
        hands = [tiles[i * hand_size:(i + 1) * hand_size] for i in range(players)]
        return hands, tiles[players * hand_size:]

    return deal_source


def random_choose(rng: random.Random) -> Callable:
    """A uniform-random policy over the offered moves."""
    def choose(seat, hand, moves, info):
        return rng.choice(moves)

    return choose
