"""Step through a match of Bergen from Python, one move at a time.

:class:`Game` is the step API in the style of OpenSpiel's ``State``: ask for
:meth:`Game.legal_moves`, make one with :meth:`Game.play`, look at the match
from one seat with :meth:`Game.view`, and read :attr:`Game.scores`,
:attr:`Game.is_over` and :attr:`Game.events` (the match's ``bergen-trace/2``
events).  The rules are the package's Python game,
:class:`bergen_sim.model.state.MatchState` (typed tiles, moves and events; read it
as :attr:`Game.state`); this module adds what a caller needs around it:

* **the compiled engine's deals**: hand ``h`` of match ``i`` (redeal attempt
  ``r``) is shuffled from the keyed stream ``(seed, i, h, r)`` exactly as the
  compiled match loop does, so the same seed, match index and moves give the
  same trace as ``bergen-sim trace``;
* **the compiled engine's policy view**: :meth:`Game.view` keeps the ``V_*``
  vector (docs/policies.md) with the engine's own view functions, so a view
  holds what that seat may know and nothing more, and a compiled policy can
  be called on it (:meth:`Game.policy_move`, with the seat's keyed random
  stream, as the compiled loop calls it);
* **moves as values** with a text round trip (``Move.parse("3-5 L")``).

>>> from bergen_sim.model.rules import Rules
>>> game = Game(Rules.make(players=2), seed=3)
>>> game.to_move, [str(m) for m in game.legal_moves()]
(1, ['0-3 L', '0-3 R'])
>>> game.play("0-3 L")
>>> game.view(0)
View(seat=0, hand=1-3 1-4 2-4 3-4 1-5, ends=0|3d, counts=[5, 5], boneyard=16, scores=[2, 0])
>>> game.line, game.scores
([(0, 3), (3, 3)], (2, 0))
>>> copy = game.clone()
>>> while not copy.is_over:
...     copy.play(copy.policy_move("first"))
>>> copy.winner, game.is_over
(0, False)
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from bergen_sim.core.errors import BergenError, MoveError, PolicyError, reason_of, returns_no_index, shown
from bergen_sim.core.i18n import tr
from bergen_sim.core.limits import MAX_MATCH_INDEX, check_range, check_seed
from bergen_sim.engine import layout as L
from bergen_sim.engine.keyed_random import STREAM_POLICY, keyed_deals, seed_to_int, stream_state
from bergen_sim.engine.play_rules import LEAD_CHOICE
from bergen_sim.engine.tileset import from_words, no_tiles_for, to_words
from bergen_sim.engine.view import view_deal, view_draw, view_play, view_start_hand, view_start_match, view_void_moment
from bergen_sim.model.domain import (
    FORMAT_V2,
    FORMATS,
    DealEvent,
    DrawEvent,
    LeadEvent,
    MatchEndEvent,
    Move,
    PassEvent,
    PlayEvent,
    Tile,
)
from bergen_sim.model.rules import Rules
from bergen_sim.model.state import MatchState, Phase, by_index, deals_from_trace

#: the ends a tile can be played on, by letter: L and R, and the spinner's U and D
ENDS = L.END_NAMES

#: moves as action numbers (OpenSpiel, Gymnasium): action ``len(ENDS) * tile + end``; this many with
#: double-six (:func:`n_actions` for any set)
N_ACTIONS = L.N_TILES * len(ENDS)


def n_actions(rules: Rules) -> int:
    """How many action numbers the rules' set needs: ``len(ENDS) * tiles`` (the action space of the adapters).

    >>> n_actions(Rules.make()), n_actions(Rules.make(domino_set="double-nine")), n_actions(Rules.make(players=8, domino_set="double-eighteen"))
    (112, 220, 760)
    """
    return rules.n_tiles * len(ENDS)


def end_count(rules: Rules) -> int:
    """The ends a line can have under the rules: L and R, and with the spinner also its arms U and D."""
    return len(ENDS) if rules.spinner else 2


#: a deal source: ``(hand_number, attempt) -> (hands per seat, boneyard in draw order)``, tiles as
#: :class:`Tile` values or their names
DealSource = Callable[[int, int], tuple[Sequence[Sequence[Tile | str]], Sequence[Tile | str]]]


def keyed_deal(rules: Rules, seed: int, match: int, hand: int, attempt: int) -> tuple[list[list[Tile]], list[Tile]]:
    """The compiled engine's deal of ``hand`` in ``match`` (redeal ``attempt``): hands per seat, then the boneyard.

    >>> hands, boneyard = keyed_deal(Rules.make(players=2), seed=1, match=0, hand=1, attempt=0)
    >>> len(hands[0]), len(boneyard), boneyard[0]
    (6, 16, Tile(lo=1, hi=1))
    """
    order = [Tile.from_index(t) for t in keyed_deals(seed, [match], [hand], [attempt], rules.n_tiles)[0].tolist()]
    k = rules.hand_size
    return [order[s * k : (s + 1) * k] for s in range(rules.players)], order[rules.players * k :]


def _tile(tile: Tile | str) -> Tile:
    """A tile given to the game as a :class:`Tile` or its name (``ValueError`` naming what a tile is)."""
    return tile if isinstance(tile, Tile) else Tile.parse(tile)


class View:
    """What one seat may know (docs/policies.md): the compiled engine's policy view, readable.

    :attr:`array` is the ``V_*`` vector exactly as the compiled engine hands
    it to a policy for this seat; the properties decode it.
    """

    def __init__(self, array: np.ndarray):
        self.array = array

    def _get(self, at: int) -> int:
        return int(self.array[at])

    seat = property(lambda self: self._get(L.V_SEAT), doc="The seat whose view this is.")
    side = property(lambda self: self._get(L.V_SIDE), doc="Its side.")
    boneyard = property(lambda self: self._get(L.V_BONEYARD), doc="Tiles left in the boneyard.")
    hand_number = property(lambda self: self._get(L.V_HAND_NO), doc="Hand of the match, from 1.")
    play_number = property(lambda self: self._get(L.V_PLAY_NO), doc="Plays after the lead so far.")
    leader = property(lambda self: self._get(L.V_LEADER), doc="The seat that led this hand.")

    @property
    def hand(self) -> list[str]:
        """The seat's own tiles, in tile order."""
        return L.mask_tiles(from_words(self.array[L.V_HAND : L.V_HAND + L.SET_WORDS]))

    @property
    def ends(self) -> tuple[int, int]:
        """The numbers on the left and right ends."""
        return self._get(L.V_LEFT), self._get(L.V_RIGHT)

    @property
    def double_ends(self) -> tuple[bool, bool]:
        """Whether the left and right ends are double ends."""
        return bool(self.array[L.V_LEFT_DOUBLE]), bool(self.array[L.V_RIGHT_DOUBLE])

    @property
    def open_ends(self) -> int:
        """How many ends a tile may be played on: 2 (L, R), or 4 once the spinner's arms U and D are open."""
        return self._get(L.V_OPEN_ENDS)

    def end_numbers(self, ends: int) -> list[int]:
        """The numbers showing on the first ``ends`` ends (L, R, U, D order; an empty open arm shows the spinner's)."""
        return [self._get(L.V_END + e) for e in range(ends)]

    def end_doubles(self, ends: int) -> list[bool]:
        """Whether each of the first ``ends`` ends (L, R, U, D order) is a double end."""
        return [bool(self.array[L.V_END_DOUBLE + e]) for e in range(ends)]

    @property
    def played(self) -> list[str]:
        """Every tile on the table this hand, the lead included."""
        return L.mask_tiles(from_words(self.array[L.V_PLAYED : L.V_PLAYED + L.SET_WORDS]))

    @property
    def players(self) -> int:
        return self._get(L.V_PLAYERS)

    @property
    def played_by(self) -> list[list[str]]:
        """Per seat, the tiles it played this hand."""
        high = L.SET_WORDS - 1
        return [
            L.mask_tiles(
                from_words(
                    [
                        self.array[L.V_PLAYED_BY + s],
                        *self.array[L.V_PLAYED_BY_HIGH + s * high : L.V_PLAYED_BY_HIGH + (s + 1) * high],
                    ]
                )
            )
            for s in range(self.players)
        ]

    @property
    def hand_counts(self) -> list[int]:
        """Per seat, how many tiles it holds."""
        return [self._get(L.V_HAND_COUNT + s) for s in range(self.players)]

    @property
    def scores(self) -> list[int]:
        """Per side, its score."""
        sides = L.side_total(self.players, self.array[L.V_PARTNERSHIPS])
        return [self._get(L.V_SCORE + side) for side in range(sides)]

    @property
    def voids(self) -> list[list[int]]:
        """Per seat, the numbers it surely holds no tile of."""
        return [[n for n in range(L.MAX_NUMBER + 1) if self._get(L.V_VOID + s) >> n & 1] for s in range(self.players)]

    def position(self):
        """This view as the analyzer's :class:`~bergen_sim.search.position.Position` (what ``analyze`` ranks)."""
        from bergen_sim.search.position import Position

        (left, right), (left_double, right_double) = self.ends, self.double_ends
        spinner = int(self.array[L.V_SPINNER])
        arms = {}
        if spinner >= 0:  # U and D as the position writes them: None for an arm with no tile
            for name, end in (("up", L.END_U), ("down", L.END_D)):
                held = self.array[L.V_END_TILES + end] > 0
                arms[name] = int(self.array[L.V_END + end]) if held else None
                arms[f"{name}_double"] = bool(self.array[L.V_END_DOUBLE + end]) if held else False
        return Position(
            seat=self.seat,
            hand=tuple(self.hand),
            left=left,
            right=right,
            left_double=left_double,
            right_double=right_double,
            played=tuple(self.played),
            counts=tuple(self.hand_counts),
            boneyard=self.boneyard,
            scores=tuple(self.scores),
            played_by={s: tuple(tiles) for s, tiles in enumerate(self.played_by) if tiles},
            voids={s: tuple(v) for s, v in enumerate(self.voids) if v and s != self.seat},
            spinner=None if spinner < 0 else spinner,
            **arms,
        )

    def __repr__(self) -> str:
        left, right = self.ends
        dl, dr = ("d" if d else "" for d in self.double_ends)
        return (
            f"View(seat={self.seat}, hand={' '.join(self.hand)}, ends={left}{dl}|{right}{dr}, "
            f"counts={self.hand_counts}, boneyard={self.boneyard}, scores={self.scores})"
        )


_POLICIES: dict[tuple[str, Rules, bool], Callable] = {}


def compiled_policy(name: str, rules: Rules, lead: bool = False) -> Callable[..., Any]:
    """A policy by its ``--policy`` name as a Python callable ``f(view, move_tiles, move_ends, n_moves, rng)``.

    Built-in settings and constant arrays (``pimc``'s) are bound as the
    compiled kernel binds them, so the policy chooses what it would choose there.
    With ``lead``, its choice of the double to lead (``choose_lead``; a plug-in
    without one leads its lowest double, the first listed), as the kernel asks it.
    It returns what the function returns; :meth:`Game.policy_move` checks that.
    """
    key = (name, rules, lead)
    if key not in _POLICIES:
        import importlib

        from bergen_sim.runtime.registry import resolve

        ref = resolve(name)
        module = importlib.import_module(ref.module)
        function = getattr(module, "choose_lead" if lead else ref.function, None)
        extra: tuple = tuple(np.int64(p) for p in ref.params)
        if ref.params and hasattr(module, "kernel_arrays"):
            extra += tuple(module.kernel_arrays(rules, ref.params))
        if function is None:  # a plug-in without choose_lead
            _POLICIES[key] = lambda view, tiles, ends, n, rng: 0
            return _POLICIES[key]
        from bergen_sim.runtime.kernel_build import takes_no_tiles

        if not ref.source_file or takes_no_tiles(function):  # built-ins and plug-ins that read any width
            no_tiles = no_tiles_for(rules.n_tiles)
            extra = (no_tiles, *extra)
        _POLICIES[key] = lambda view, tiles, ends, n, rng: function(view, tiles, ends, n, rng, *extra)
    return _POLICIES[key]


class Game:
    """One match of Bergen, stepped move by move (see the module note).

    ``rules`` defaults to the standard 2-player game.  Deals are the compiled
    engine's keyed deals for ``seed`` and ``match`` unless ``deal_source``
    gives them (e.g. :func:`bergen_sim.model.state.deals_from_trace` to replay
    a trace).  ``policies`` are only the names written in the trace's match
    event.  Hands are dealt by themselves: the game is always either over or
    waiting for the move of :attr:`to_move`, forced moves included.

    With ``chance=True`` the caller is the dealer instead (a game tree's
    chance player): the game also stops when a hand must be dealt
    (:attr:`chance_phase` ``"deal"``, answer with :meth:`deal`) and at every
    draw (``"draw"``, answer with :meth:`draw`), the boneyard's order being
    decided one drawn tile at a time.
    """

    def __init__(
        self,
        rules: Rules | None = None,
        seed: int = 0,
        match: int = 0,
        policies: Sequence[str] | None = None,
        deal_source: DealSource | None = None,
        chance: bool = False,
        format: str = FORMAT_V2,
    ):
        self.rules = rules if rules is not None else Rules.make()
        if not isinstance(self.rules, Rules):
            raise BergenError(f"rules must be a bergen_sim.model.rules.Rules, not {type(self.rules).__name__}")
        self.seed = check_seed(seed)
        self.match = check_range("match", match, 0, MAX_MATCH_INDEX)
        players = self.rules.players
        if format not in FORMATS:
            raise BergenError(f"format must be one of {', '.join(FORMATS)}, not {shown(format)}")
        names = _seat_names(policies, players) if policies is not None else ["step"] * players
        if chance and deal_source is not None:
            raise BergenError("a game whose caller deals (chance=True) takes no deal_source")
        self._chance = chance
        self._deal_source = deal_source
        # events in ``format``: version 2, or version 1 to re-create a version-1 file exactly
        self._state = MatchState(self.rules, match_index=match, seed=seed, policies=names, format=format)
        seed64 = np.uint64(seed_to_int(seed))
        self._rngs = np.array(
            [
                stream_state(seed64, np.int64(match), np.int64(STREAM_POLICY + s), np.int64(0))
                for s in range(L.MAX_SEATS)
            ],
            dtype=np.uint64,
        )
        self._view = np.zeros(L.V_SIZE, dtype=np.int64)
        self._no_tiles = no_tiles_for(self.rules.n_tiles)
        view_start_match(self._view, self.rules.to_array())
        self._seen = 0  # events already folded into the view
        self._dealt_hand = 0  # the hand of the last deal event folded
        self._drawn = 0  # tiles drawn by the seat to move, not yet logged as a draw/pass moment
        self._line: list[tuple[int, int]] = []
        self._arms: dict[str, list[tuple[int, int]]] = {"U": [], "D": []}  # the spinner's other arms
        self._advance()

    # --- stepping ------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        """The moves :attr:`to_move` may make, by tile index, then L, R, U, D (empty once the match is over).

        While :attr:`choosing_lead` (``lead = any-double``) they are the leader's
        doubles as ``Move(double, "L")``: playing one leads it.
        """
        return list(self._state.moves)

    def legal_move(self, move: Move | str | tuple[str, str]) -> Move:
        """``move`` as a :class:`Move` if :attr:`to_move` may make it now; else :class:`MoveError` listing the legal ones.

        (A tile is read in either order, ``2-1`` as ``1-2``.)
        """
        if self.is_over:
            raise MoveError(tr("the match is over: there is no move to make"))
        if self.chance_phase is not None:
            raise MoveError(
                f"the dealer must act first: call {self.chance_phase}() (the game was made with chance=True)"
            )
        move = Move.of(move)
        if move not in self._state.moves:
            legal = ", ".join(str(m) for m in self.legal_moves())
            raise MoveError(
                tr("{move} is not legal for seat {seat}; legal: {legal}").format(
                    move=move, seat=self.to_move, legal=legal
                )
            )
        return move

    def play(self, move: Move | str | tuple[str, str]) -> None:
        """Make a move (a :class:`Move`, its text or a ``(tile, end)`` pair) for :attr:`to_move`."""
        self._state.play(self.legal_move(move))
        self._advance()

    @property
    def choosing_lead(self) -> bool:
        """Whether :attr:`to_move` must choose which double to lead (``lead = any-double``)."""
        return self._state.phase == Phase.LEAD

    @property
    def state(self) -> MatchState:
        """The match as the model holds it: typed hands, moves and events (read it; step the game, not the state)."""
        return self._state

    def _advance(self) -> None:
        """Deal every hand that needs dealing and fold the new events into the view."""
        while True:
            self._fold_events()
            if self._state.phase != Phase.DEAL or self._chance:
                break
            if self._deal_source is None:
                hands, boneyard = keyed_deal(
                    self.rules, self.seed, self.match, self._state.hand_number, self._state.attempt
                )
            else:
                given, pile = self._deal_source(self._state.hand_number, self._state.attempt)
                hands, boneyard = [[_tile(t) for t in hand] for hand in given], [_tile(t) for t in pile]
            self._state.deal(hands, boneyard)
        if self._state.phase == Phase.PLAY and self._drawn:
            # the seat drew until a tile fitted: everybody saw it had nothing for these ends
            view_void_moment(self._view, self._state.seat, self._drawn, self._drawn - 1)
            self._drawn = 0

    @property
    def chance_phase(self) -> str | None:
        """With ``chance=True``: ``"deal"`` or ``"draw"`` when the dealer must act, else None."""
        phase = self._state.phase
        return phase.value if phase in (Phase.DEAL, Phase.DRAW) else None

    def deal(self, hands: Sequence[Sequence[Tile | str]]) -> None:
        """Deal this hand's ``hands`` (``chance=True`` only); the boneyard's order stays open."""
        if not self._chance:
            raise BergenError("this game deals by itself (it was not made with chance=True)")
        if isinstance(hands, str) or not isinstance(hands, Iterable):
            raise MoveError(f"deal: give one list of tile names per seat ({self.rules.players}), not {shown(hands)}")
        hands = list(hands)  # a generator is read once, here
        if not all(isinstance(h, Iterable) and not isinstance(h, str) for h in hands):
            raise MoveError(f"deal: give one list of tile names per seat ({self.rules.players}), not {shown(hands)}")
        try:
            self._state.deal([[_tile(t) for t in h] for h in hands], None)
        except (ValueError, TypeError) as exc:  # a name that is no tile, or the model's check of the deal
            raise MoveError(f"deal: {reason_of(exc)}") from None
        self._advance()

    def draw(self, tile: Tile | str) -> None:
        """The seat that must draw draws ``tile`` (``chance=True`` only)."""
        if not self._chance:
            raise BergenError("this game draws by itself (it was not made with chance=True)")
        try:
            self._state.draw(_tile(tile))
        except (ValueError, TypeError) as exc:  # not the draw phase, or a tile that is not in the boneyard
            raise MoveError(f"draw: {reason_of(exc)}") from None
        self._advance()

    @property
    def drawing_seat(self) -> int | None:
        """The seat that must draw in chance phase ``"draw"``."""
        return self._state.seat if self._state.phase == Phase.DRAW else None

    def _fold_events(self) -> None:
        """Apply the public side of each new event to the match's view, as the compiled loop does."""
        view = self._view
        rules = self.rules
        players = rules.players
        for event in self._state.events[self._seen :]:
            if isinstance(event, DealEvent):
                self._dealt_hand = event.hand
                self._line = []  # a new deal: nothing on the table until the lead
                self._arms = {"U": [], "D": []}
            elif isinstance(event, LeadEvent):
                number = event.tile.lo
                view_start_hand(
                    view,
                    players,
                    rules.hand_size,
                    rules.n_tiles - players * rules.hand_size,
                    self._dealt_hand,
                    event.seat,
                    number,
                    int(bool(rules.spinner)),
                    self._no_tiles,
                )
                self._line = [(number, number)]
                self._drawn = 0
            elif isinstance(event, DrawEvent):
                view_draw(view, event.seat)
                self._drawn += 1
            elif isinstance(event, PassEvent):
                view_void_moment(view, event.seat, self._drawn, self._drawn)
                self._drawn = 0
            elif isinstance(event, PlayEvent):
                self._fold_play(event.seat, event.move)
            score = getattr(event, "score", None)
            if score is not None and not isinstance(event, MatchEndEvent):
                view[L.V_SCORE : L.V_SCORE + len(score)] = score
        self._seen = len(self._state.events)
        if self._state.phase == Phase.LEAD:  # the leader chooses its double on the new deal's view, as in the kernel
            view_deal(
                view,
                players,
                rules.hand_size,
                rules.n_tiles - players * rules.hand_size,
                self._dealt_hand,
                self._state.seat,
                self._no_tiles,
            )

    def _fold_play(self, seat: int, move: Move) -> None:
        tile, end = move.tile, int(move.end)
        shown = int(self._view[L.V_END + end])
        new = tile.other_half(shown)
        view_play(self._view, seat, tile.index, end, self._no_tiles)
        if move.end.name == "L":
            self._line.insert(0, (new, shown))
        elif move.end.name == "R":
            self._line.append((shown, new))
        else:
            self._arms[move.end.name].append((shown, new))

    # --- what the game shows ---------------------------------------------------

    @property
    def to_move(self) -> int | None:
        """The seat that must move now, or None once the match is over (or while the dealer must act)."""
        return self._state.seat if self._state.phase in (Phase.PLAY, Phase.LEAD) else None

    @property
    def is_over(self) -> bool:
        return self._state.is_over

    @property
    def scores(self) -> tuple[int, ...]:
        """Side scores (one per side: seats, or the two partnerships)."""
        return tuple(self._state.scores)

    @property
    def winner(self) -> int | None:
        """The side that reached the target, or None while the match goes on."""
        end = self._state.events[-1]
        return end.winner if isinstance(end, MatchEndEvent) else None

    @property
    def events(self) -> list[dict[str, Any]]:
        """The match so far as ``bergen-trace/2`` events (new objects; :attr:`state` holds them typed)."""
        return self._state.trace()

    @property
    def hand_number(self) -> int:
        return self._state.hand_number

    @property
    def boneyard_count(self) -> int:
        """Tiles left in the boneyard this hand."""
        return self._state.boneyard_size

    @property
    def line(self) -> list[tuple[int, int]]:
        """The line of tiles on the table, left to right, each as it lies (its halves in line order); tiles on
        the spinner's U and D arms are in :attr:`arms`."""
        return list(self._line)

    @property
    def arms(self) -> dict[str, list[tuple[int, int]]]:
        """The tiles on the spinner's U and D arms, each arm from the spinner outwards (empty without it)."""
        return {end: list(tiles) for end, tiles in self._arms.items()}

    def line_text(self) -> str:
        """The line as text, ``[4|2][2|2][2|5]``, then each of the spinner's U and D arms that holds tiles:
        ``[4|2][2|2][2|5]  U [2|6]``."""

        def tiles(lying: list[tuple[int, int]]) -> str:
            return "".join(f"[{a}|{b}]" for a, b in lying)

        return tiles(self._line) + "".join(f"  {end} {tiles(arm)}" for end, arm in self._arms.items() if arm)

    def hand(self, seat: int) -> list[str]:
        """Seat ``seat``'s tiles in tile order (everything: for a viewer, not for a policy)."""
        return [str(tile) for tile in by_index(self._state.hands[self._seat(seat)])]

    def _seat(self, seat: object) -> int:
        """``seat`` if it is a seat of this game (a whole number 0..players-1; -1 is not the last), else BergenError."""
        return check_range("seat", seat, 0, self.rules.players - 1)

    def view(self, seat: int | None = None) -> View:
        """What ``seat`` (default: the seat to move) may know now, as the compiled engine would show it."""
        seat = self.to_move if seat is None else self._seat(seat)
        if seat is None:
            raise BergenError("no seat is to move (the match is over, or the dealer must act): give the seat to view")
        array = self._view.copy()
        array[L.V_SEAT] = seat
        array[L.V_SIDE] = self.rules.side_of(seat)
        array[L.V_HAND : L.V_HAND + L.SET_WORDS] = to_words(sum(1 << tile.index for tile in self._state.hands[seat]))
        return View(array)

    def _mover(self) -> int:
        """The seat to move; MoveError when the match is over or the dealer must act."""
        seat = self.to_move
        if seat is None:
            raise MoveError("no seat is to move (the match is over, or the dealer must act)")
        return seat

    def policy_move(self, name: str) -> Move:
        """The move the compiled policy ``name`` makes for the seat to move.

        As in the compiled loop, a forced move calls no policy, and the policy
        draws from the seat's own keyed random stream, so a match played by
        policies here repeats the compiled engine's match for the same seed.
        """
        moves = self.legal_moves()
        if not moves:
            raise MoveError("the match is over: there is no move to make")
        leading = self.choosing_lead
        if len(moves) == 1 and not leading:  # the leader's policy is asked even about a single double
            return moves[0]
        seat = self._mover()
        tiles = np.zeros(L.MAX_MOVES, dtype=np.int64)
        ends = np.zeros(L.MAX_MOVES, dtype=np.int64)
        for k, move in enumerate(moves):
            tiles[k], ends[k] = move.tile.index, LEAD_CHOICE if leading else int(move.end)
        choose = compiled_policy(name, self.rules, lead=leading)
        try:
            k = choose(self.view(seat).array, tiles, ends, len(moves), self._rngs[seat : seat + 1])
        except BergenError:
            raise
        except Exception as exc:  # a plug-in that raises, or is not a policy's function at all: one line
            called = "; a policy is called as choose(view, move_tiles, move_ends, n_moves, rng)"
            raise PolicyError(
                f"policy {name!r} at seat {seat} raised {type(exc).__name__}: {reason_of(exc)} "
                f"(hand {self.hand_number}{called if isinstance(exc, TypeError) else ''})"
            ) from None
        if not isinstance(k, (int, np.integer)):  # the compiled loop refuses these too (runtime/runner.py)
            raise returns_no_index(name, type(k).__name__)
        k = int(k)
        if not 0 <= k < len(moves):
            raise PolicyError(f"policy {name!r} returned move {k}, but only moves 0..{len(moves) - 1} are legal")
        return moves[k]

    def clone(self) -> Game:
        """An independent copy (its moves, draws and random streams go their own way)."""
        other = copy.copy(self)
        other._state = self._state.clone()
        other._rngs, other._view = self._rngs.copy(), self._view.copy()
        other._line, other._arms = list(self._line), {end: list(tiles) for end, tiles in self._arms.items()}
        return other

    def __repr__(self) -> str:
        state = "over" if self.is_over else f"seat {self.to_move} to move"
        return f"Game(players={self.rules.players}, hand {self.hand_number}, scores {self.scores}, {state})"


def _seat_names(policies: object, players: int) -> list[str]:
    """One policy name per seat, given as a list (or tuple) of text: else one line saying what to give."""
    if isinstance(policies, str) or not isinstance(policies, Iterable):
        raise BergenError(f"give a list of policy names, one per seat ({players}), not {shown(policies)}")
    names = list(policies)
    if len(names) != players or not all(isinstance(n, str) for n in names):
        raise BergenError(f"give one policy name (text) per seat ({players}), not {shown(names)}")
    return names


def play_out(game: Game, policies: Sequence[str] | str) -> Game:
    """Play ``game`` to its end with compiled policies (one name for every seat, or one per seat)."""
    names = [policies] * game.rules.players if isinstance(policies, str) else _seat_names(policies, game.rules.players)
    while not game.is_over:
        game.play(game.policy_move(names[game._mover()]))
    return game


def replay(events: Iterable[dict[str, Any]]) -> Game:
    """Step one recorded match (its ``match`` event first) through a :class:`Game`; returns the game.

    The recorded deals, plays and (with ``lead = any-double``) lead choices go in; every other event comes out of the
    rules, so ``replay(m).events == m`` exactly when the recording is a valid match.
    """
    events = list(events)
    head = events[0]
    game = Game(
        Rules.from_trace(head["rules"]),
        seed=head["seed"],
        match=head["match"],
        policies=head["policies"],
        deal_source=deals_from_trace(events),
        format=head["format"],
    )
    for event in events:
        if event["type"] == "play":
            game.play((event["tile"], event["end"]))
        elif event["type"] == "lead" and game.choosing_lead:  # lead = any-double: the recorded choice
            game.play((event["tile"], "L"))
    return game
