"""The game in Python: a match of Bergen as a state you step, on typed tiles, moves, rules and events.

:class:`MatchState` is the package's one pure-Python implementation of the rule
book (RULES.md), in the style of python-chess's ``Board`` and OpenSpiel's
``State``: it holds :class:`~bergen_sim.model.rules.Rules`, hands of
:class:`~bergen_sim.model.domain.Tile`, offers its legal moves as
:class:`~bergen_sim.model.domain.Move` values and records what happens as the
frozen event dataclasses of :mod:`bergen_sim.model.domain`, whose
:meth:`~bergen_sim.model.domain.TraceEvent.to_dict` is the ``bergen-trace``
format.  The step API (:class:`bergen_sim.services.game.Game`), ``play``,
``review``, game records and the OpenSpiel and Gymnasium adapters all run on
it; the compiled engine is a separate, faster implementation, and both are
checked against an independent oracle kept with the tests.

After every step the state runs on by itself through everything that needs no
decision (a forced lead, draws from a known boneyard, passes, going out,
blocked settlements, the next hand) and stops at the next step that needs
input, named by :attr:`MatchState.phase`:

* :attr:`Phase.DEAL`: call :meth:`~MatchState.deal` with the hands (and the
  boneyard in draw order, or None to give the drawn tiles one by one later);
* :attr:`Phase.LEAD`: (``lead = any-double`` only) the seat to move chooses which
  of its doubles to lead: :attr:`~MatchState.moves` are ``Move(double, L)``, and
  :meth:`~MatchState.play` of one leads it;
* :attr:`Phase.DRAW`: (only after a deal without a boneyard order) call
  :meth:`~MatchState.draw` with the tile the seat draws next;
* :attr:`Phase.PLAY`: the seat to move plays one of :attr:`~MatchState.moves`;
* :attr:`Phase.OVER`: a side reached the target.

Readings of the rule book (where the text leaves a detail open), the same as the oracle's:
an open but empty U or D arm is a double end showing the spinner (it never counts for headers);
moves are listed by tile index, and for one tile in end order L, R, U, D.

>>> from bergen_sim.model.rules import Rules
>>> state = MatchState(Rules.make(players=2, hand_size=2), format="bergen-trace/1")
>>> state.phase
<Phase.DEAL: 'deal'>
>>> hands = [[Tile.parse("1-1"), Tile.parse("1-2")], [Tile.parse("2-3"), Tile.parse("4-4")]]
>>> state.deal(hands, [t for t in tiles_of_set(6) if t not in hands[0] + hands[1]])
>>> [str(e.tile) for e in state.events[2:]]  # the lead, then seat 1 draws until a tile fits
['1-1', '0-0', '0-1']
>>> state.phase, state.seat, [str(m) for m in state.moves]
(<Phase.PLAY: 'play'>, 1, ['0-1 L', '0-1 R'])
>>> state.play(state.moves[0]); state.events[-1].to_dict()
{'type': 'play', 'seat': 1, 'tile': '0-1', 'end': 'L', 'points': 0, 'score': [2, 0]}
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from enum import StrEnum
from typing import Any

from bergen_sim.engine.layout import End
from bergen_sim.model.domain import (
    FORMAT_V1,
    FORMAT_V2,
    FORMATS,
    BlockedEvent,
    DealEvent,
    DrawEvent,
    LeadEvent,
    MatchEndEvent,
    MatchEvent,
    Move,
    OutEvent,
    PassEvent,
    PlayEvent,
    RedealEvent,
    Tile,
    TraceEvent,
    tiles_of_set,
)
from bergen_sim.model.rules import Rules


class Phase(StrEnum):
    """What the next step of a match must be (see the module note)."""

    DEAL = "deal"
    LEAD = "lead"
    DRAW = "draw"
    PLAY = "play"
    OVER = "over"


#: the line's ends L and R; the spinner's U and D open once both hold a tile
LINE_ENDS = (End.L, End.R)
ARM_ENDS = (End.U, End.D)

#: a deal source: ``(hand number, redeal attempt) -> (hands per seat, boneyard in draw order)``
DealSource = Callable[[int, int], tuple[Sequence[Sequence[Tile]], Sequence[Tile]]]


def by_index(tiles: Iterable[Tile]) -> list[Tile]:
    """``tiles`` in tile-index order (by high half, then low half), the order moves and hands are listed in."""
    return sorted(tiles, key=lambda tile: tile.index)


def legal_moves(hand: Iterable[Tile], ends: Mapping[End, int]) -> list[Move]:
    """Every legal move of ``hand`` on open ``ends`` (end -> the number it shows), by tile index, then L, R, U, D.

    A tile that fits several ends is listed once per end, even when they show
    the same number: the placements can differ (one end may be a double end).

    >>> [str(m) for m in legal_moves([Tile(3, 5), Tile(0, 3)], {End.L: 3, End.R: 5})]
    ['0-3 L', '3-5 L', '3-5 R']
    """
    open_ends = sorted(ends.items())
    return [Move(tile, end) for tile in by_index(hand) for end, number in open_ends if tile.shows(number)]


def cut_header(rules: Rules, value: int, side_score: int) -> int:
    """A header worth ``value`` (the led double's included) after the near-target cut, for a side at ``side_score``.

    Only headers are cut; going-out and blocked points never are.
    """
    if not rules.reduced_headers:
        return value
    need = rules.target - side_score
    if need <= 2:
        return 1
    if need == 3:
        return min(value, 2)
    return value


def settle_blocked(rules: Rules, hands: Sequence[Sequence[Tile]]) -> int | None:
    """The side winning a blocked hand, or None on a tie for best.

    Each side's tiles left in hand get a sort key (smaller is better); the
    best key wins only if no other side shares it.
    """
    tiles_by_side: list[list[Tile]] = [[] for _ in range(rules.sides)]
    for seat, hand in enumerate(hands):
        tiles_by_side[rules.side_of(seat)].extend(hand)

    def key(tiles: list[Tile]) -> tuple[int, ...]:
        doubles = sum(tile.is_double for tile in tiles)
        total = sum(tile.pips for tile in tiles)
        if rules.settlement == "german":
            return (doubles, total)  # fewest doubles, then fewest pips
        if rules.settlement == "pips":
            return (total,)
        # American: holding no double beats holding one; sides with doubles compare non-double pips only
        # (for a double-free side that is all its pips)
        return (doubles > 0, sum(tile.pips for tile in tiles if not tile.is_double))

    keys = [key(tiles) for tiles in tiles_by_side]
    best = min(keys)
    return None if keys.count(best) > 1 else keys.index(best)


def opening_seat(rules: Rules, hand_number: int) -> int:
    """With ``lead = any-double``: the seat from which the search for a leader starts, ``(h - 1) mod n``."""
    return (hand_number - 1) % rules.players


def find_leader(rules: Rules, hands: Sequence[Sequence[Tile]], hand_number: int) -> tuple[int, list[Tile]] | None:
    """The seat that leads and the doubles it may lead (tile order), or None if no hand holds a double.

    ``lowest-double`` / ``highest-double``: the holder of that double, which
    must lead it.  ``any-double``: the first seat from the opening seat, in
    turn order, holding a double; it may lead any of them.
    """
    if rules.lead == "any-double":
        start = opening_seat(rules, hand_number)
        for k in range(rules.players):
            seat = (start + k) % rules.players
            doubles = by_index(tile for tile in hands[seat] if tile.is_double)
            if doubles:
                return seat, doubles
        return None
    held = [(tile.index, seat, tile) for seat, hand in enumerate(hands) for tile in hand if tile.is_double]
    if not held:
        return None
    _, seat, tile = (min if rules.lead == "lowest-double" else max)(held)
    return seat, [tile]


class MatchState:
    """One match in progress, stepped one deal, lead choice, draw or move at a time (see the module note).

    ``format`` is the trace version the events describe (version 2, or version 1
    to re-create a version-1 file exactly); ``policies`` are the names written
    in the match event.  The layout is :attr:`ends` (open end -> the number it
    shows), :attr:`double_ends` (open end -> whether it is a double end) and
    :attr:`arm_tiles` (open end -> tiles played on it).
    """

    def __init__(
        self,
        rules: Rules,
        *,
        match_index: int = 0,
        seed: int = 0,
        policies: Sequence[str] | None = None,
        format: str = FORMAT_V2,
    ):
        if format not in FORMATS:
            raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {format!r}")
        self.rules = rules
        self.format = format
        self.players = rules.players
        self.set_tiles = tiles_of_set(rules.max_number)
        written = rules.to_dict(1 if format == FORMAT_V1 else 2)  # version 1 describes double-six only: RuleError
        names = list(policies) if policies is not None else ["model"] * self.players
        self.events: list[TraceEvent] = [MatchEvent(format, match_index, written, names, seed)]
        self.scores = [0] * rules.sides
        self.hand_number = 1
        self.attempt = 0  # redeals of this hand so far
        self.hands: list[list[Tile]] = [[] for _ in range(self.players)]
        self.boneyard: list[Tile] | None = []  # draw order; None while it is given tile by tile
        self.boneyard_size = 0
        self.table: set[Tile] = set()  # the lead and every play of this hand
        self.ends: dict[End, int] = {}
        self.double_ends: dict[End, bool] = {}
        self.arm_tiles: dict[End, int] = {}
        self.spinner_number = -1  # the led double's number
        self.seat = -1  # the seat to move (or to draw, or to lead)
        self.moves: list[Move] = []  # its legal moves in phase PLAY (its doubles, on L, in phase LEAD)
        self.drawn = 0  # tiles it drew this turn
        self.passes = 0
        self.phase = Phase.DEAL

    # --- the steps -------------------------------------------------------------

    def deal(self, hands: Sequence[Sequence[Tile]], boneyard: Sequence[Tile] | None) -> None:
        """Deal this hand: ``hands`` per seat and the ``boneyard`` in draw order.

        With ``boneyard=None`` the undealt tiles' order is left open and every
        draw stops in phase DRAW for :meth:`draw` (the deal event then has no
        boneyard).  A deal without a double is recorded and followed by a
        redeal event; the state stays in phase DEAL and the hand keeps its
        number (so its opening seat).
        """
        self._expect(Phase.DEAL)
        dealt = [list(hand) for hand in hands]
        self._check_deal(dealt, boneyard)
        self.events.append(
            DealEvent(self.hand_number, [list(h) for h in dealt], None if boneyard is None else list(boneyard))
        )
        found = find_leader(self.rules, dealt, self.hand_number)
        if found is None:
            self.events.append(RedealEvent(self.hand_number))
            self.attempt += 1
            return
        self.hands = dealt
        self.boneyard = None if boneyard is None else list(boneyard)
        self.boneyard_size = len(self.set_tiles) - self.players * self.rules.hand_size
        self.table = set()
        self.seat, doubles = found
        if self.rules.lead == "any-double":  # the leader's own choice, asked even of a single double
            self.moves = [Move(tile, End.L) for tile in doubles]
            self.phase = Phase.LEAD
            return
        self._lead(doubles[0])

    def draw(self, tile: Tile) -> None:
        """The seat to move draws ``tile`` (phase DRAW, after a deal without boneyard order)."""
        self._expect(Phase.DRAW)
        if not tile.in_set(self.rules.max_number) or tile in self.out_of_boneyard():
            raise ValueError(f"{str(tile)!r} cannot be drawn: it is not an undealt tile")
        self._take(tile)

    def play(self, move: Move) -> None:
        """The seat to move makes ``move``, one of :attr:`moves`: in phase LEAD it leads the move's double."""
        if self.phase == Phase.LEAD:
            if move not in self.moves:
                raise ValueError(f"seat {self.seat} cannot lead {move.tile}; it may lead {self._listed()}")
            self.moves = []
            self._lead(move.tile)
            return
        self._expect(Phase.PLAY)
        seat = self.seat
        if move not in self.moves:
            raise ValueError(f"seat {seat} chose illegal move {move}; legal: {self._listed()}")
        tile, end = move.tile, move.end
        self.hands[seat].remove(tile)
        self.table.add(tile)
        self.ends[end] = tile.other_half(self.ends[end])
        self.double_ends[end] = tile.is_double
        self.arm_tiles[end] += 1
        if self.rules.spinner and End.U not in self.ends and self.arm_tiles[End.L] and self.arm_tiles[End.R]:
            # the spinner's U and D arms open together once L and R each hold a tile; empty, they show
            # the spinner and do not count for headers (so this very play's header counts L and R only)
            for arm in ARM_ENDS:
                self.ends[arm], self.double_ends[arm], self.arm_tiles[arm] = self.spinner_number, True, 0
        points = 0
        counting = self.counting_ends()
        if len({self.ends[e] for e in counting}) == 1:
            value = 3 if any(self.double_ends[e] for e in counting) else 2
            points = cut_header(self.rules, value, self.scores[self.rules.side_of(seat)])
        self._add_points(seat, points)
        self.events.append(PlayEvent(seat, tile, end, points, list(self.scores)))
        self.moves = []
        if self._reached_target():  # a header may end the match before going out
            return
        if not self.hands[seat]:
            self._go_out(seat)
            return
        self._next_turn()

    def clone(self) -> MatchState:
        """An independent copy (tiles, moves and events are immutable values, so only the containers are copied)."""
        other = object.__new__(MatchState)
        other.__dict__.update(self.__dict__)
        other.events = list(self.events)
        other.scores = list(self.scores)
        other.hands = [list(hand) for hand in self.hands]
        other.boneyard = None if self.boneyard is None else list(self.boneyard)
        other.table = set(self.table)
        other.ends, other.double_ends, other.arm_tiles = dict(self.ends), dict(self.double_ends), dict(self.arm_tiles)
        other.moves = list(self.moves)
        return other

    # --- what a caller may ask -------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.phase == Phase.OVER

    def counting_ends(self) -> list[End]:
        """The ends that count for headers: L and R always, U and D once a tile lies on them."""
        return [end for end in self.ends if end in LINE_ENDS or self.arm_tiles[end]]

    def out_of_boneyard(self) -> set[Tile]:
        """Tiles in a hand or on the table this hand: every tile of the set not in the boneyard."""
        return {tile for hand in self.hands for tile in hand} | self.table

    def trace(self) -> list[dict[str, Any]]:
        """The events so far as the ``bergen-trace`` format's objects (new dicts, key order the format's)."""
        return [event.to_dict() for event in self.events]

    # --- the rules that run by themselves --------------------------------------

    def _expect(self, phase: Phase) -> None:
        if self.phase != phase:
            raise ValueError(f"the match is in phase {self.phase.value!r}, not {phase.value!r}")

    def _listed(self) -> str:
        return ", ".join(str(move) for move in self.moves)

    def _check_deal(self, hands: list[list[Tile]], boneyard: Sequence[Tile] | None) -> None:
        """A deal gives each seat hand_size tiles of the set, and the boneyard (when given) the rest."""
        if len(hands) != self.players or any(len(h) != self.rules.hand_size for h in hands):
            raise ValueError(f"a deal gives {self.players} hands of {self.rules.hand_size} tiles")
        dealt = [tile for hand in hands for tile in hand] + list(boneyard or [])
        if (
            len(set(dealt)) != len(dealt)
            or not all(tile.in_set(self.rules.max_number) for tile in dealt)
            or (boneyard is not None and len(dealt) != len(self.set_tiles))
        ):
            raise ValueError(f"the deal is not the {self.rules.domino_set} set dealt once")

    def _lead(self, tile: Tile) -> None:
        """The led double: a double-header for the leader's side (subject to the cut), ends L and R showing it."""
        seat = self.seat
        self.hands[seat].remove(tile)
        self.table.add(tile)
        self.spinner_number = tile.lo  # shown by the spinner's U and D arms once they open
        self.ends = {End.L: tile.lo, End.R: tile.lo}
        self.double_ends = {End.L: True, End.R: True}
        self.arm_tiles = {End.L: 0, End.R: 0}
        self.passes = 0
        points = cut_header(self.rules, 2, self.scores[self.rules.side_of(seat)])
        self._add_points(seat, points)
        self.events.append(LeadEvent(seat, tile, points, list(self.scores)))
        self.phase = Phase.PLAY  # until the next step says otherwise
        if self._reached_target():
            return
        if not self.hands[seat]:  # hand size 1: the leader goes out on the lead
            self._go_out(seat)
            return
        self._next_turn()

    def _add_points(self, seat: int, points: int) -> None:
        self.scores[self.rules.side_of(seat)] += points

    def _reached_target(self) -> bool:
        """End the match right after the scoring event that reached the target."""
        for side, score in enumerate(self.scores):
            if score >= self.rules.target:
                self.events.append(MatchEndEvent(side, list(self.scores)))
                self.phase = Phase.OVER
                self.moves = []
                return True
        return False

    def _go_out(self, seat: int) -> None:
        self._add_points(seat, self.rules.out_points)
        self.events.append(OutEvent(seat, self.rules.out_points, list(self.scores)))
        if not self._reached_target():
            self._next_hand()

    def _next_hand(self) -> None:
        self.hand_number += 1
        self.attempt = 0
        self.seat = -1
        self.phase = Phase.DEAL

    def _next_turn(self) -> None:
        """Play passes to the next seat; run on until it must choose (or draw from an open boneyard)."""
        self.seat = (self.seat + 1) % self.players
        self.drawn = 0
        self._offer(legal_moves(self.hands[self.seat], self.ends))

    def _offer(self, moves: list[Move]) -> None:
        """The seat to move has ``moves``; without any it draws (one tile at a time until a drawn tile
        fits or only the reserve is left) and then passes."""
        if moves:
            self.passes = 0
            self.moves = moves
            self.phase = Phase.PLAY
            return
        if self.boneyard_size > self.rules.boneyard_reserve:
            if self.boneyard is None:
                self.phase = Phase.DRAW
                return
            self._take(self.boneyard[0])
            return
        self.events.append(PassEvent(self.seat))
        self.passes += 1
        if self.passes == self.players:
            winner = settle_blocked(self.rules, self.hands)
            points = 0 if winner is None else self.rules.blocked_points
            if winner is not None:
                self.scores[winner] += points
            self.events.append(BlockedEvent(winner, points, list(self.scores)))
            if not self._reached_target():
                self._next_hand()
            return
        self._next_turn()

    def _take(self, tile: Tile) -> None:
        """The seat to move draws ``tile``; a drawn playable tile is the only one, so only its ends are offered."""
        if self.boneyard is not None:
            self.boneyard.remove(tile)
        self.boneyard_size -= 1
        self.hands[self.seat].append(tile)
        self.drawn += 1
        self.events.append(DrawEvent(self.seat, tile))
        self._offer(legal_moves([tile], self.ends))


def deals_from_trace(events: Iterable[Mapping[str, Any]]) -> DealSource:
    """A deal source serving one recorded match's deals (its ``deal`` events) in order, as tiles.

    The hand number and redeal attempt asked for are checked against the
    recording, so a replay that drifts out of step fails loudly (ValueError)
    instead of silently using another deal.
    """
    deals = []
    attempts: dict[int, int] = {}
    for event in events:
        if event["type"] == "deal":
            attempt = attempts.get(event["hand"], 0)
            attempts[event["hand"]] = attempt + 1
            deal = DealEvent.from_dict(event)
            assert isinstance(deal, DealEvent)
            if deal.boneyard is None:
                raise ValueError(f"the deal of hand {deal.hand} lists no boneyard order to replay")
            deals.append((deal.hand, attempt, deal.hands, deal.boneyard))
    queue = iter(deals)

    def deal_source(hand_number: int, attempt: int) -> tuple[list[list[Tile]], list[Tile]]:
        try:
            hand, recorded_attempt, hands, boneyard = next(queue)
        except StopIteration:
            raise ValueError("no recorded deal left") from None
        if (hand, recorded_attempt) != (hand_number, attempt):
            raise ValueError(
                f"asked for hand {hand_number} attempt {attempt}, recorded hand {hand} attempt {recorded_attempt}"
            )
        return [list(h) for h in hands], list(boneyard)

    return deal_source


def shuffled_deals(rng: random.Random, rules: Rules) -> DealSource:
    """A deal source that shuffles the whole set with ``rng`` for every deal and redeal, deals ``hand_size``
    tiles to each seat in seat order and leaves the rest as the boneyard in draw order.

    (The compiled engine's own keyed deals are :func:`bergen_sim.services.game.keyed_deal`.)
    """

    def deal_source(hand_number: int, attempt: int) -> tuple[list[list[Tile]], list[Tile]]:
        tiles = tiles_of_set(rules.max_number)
        rng.shuffle(tiles)
        k = rules.hand_size
        return [tiles[s * k : (s + 1) * k] for s in range(rules.players)], tiles[rules.players * k :]

    return deal_source


def play_match(state: MatchState, deal_source: DealSource, choose: Callable[[MatchState], Move]) -> MatchState:
    """Step ``state`` to the end of its match: every deal from ``deal_source``, every decision (leads with
    ``any-double`` and forced moves included) ``choose(state)``, one of ``state.moves``; returns ``state``.

    >>> from bergen_sim.model.rules import Rules
    >>> rules, rng = Rules.make(players=3), random.Random(7)
    >>> state = play_match(MatchState(rules), shuffled_deals(rng, rules), lambda s: rng.choice(s.moves))
    >>> state.is_over, state.events[-1].to_dict()["type"]
    (True, 'match_end')
    """
    while not state.is_over:
        if state.phase == Phase.DEAL:
            state.deal(*deal_source(state.hand_number, state.attempt))
        else:
            state.play(choose(state))
    return state
