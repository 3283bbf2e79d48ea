"""Bergen as an OpenSpiel game (``pip install bergen-sim[openspiel]``): ``pyspiel.load_game("bergen")``.

Importing this module registers the game.  A state wraps a
:class:`bergen_sim.services.game.Game` made with ``chance=True``, so the rules are the
package's Python game (:mod:`bergen_sim.model.state`) and the views are the compiled engine's.

Every rule set the engine plays is a game: any ``domino_set`` (double-six to
double-eighteen), the spinner on or off, 2 to 8 players, partnerships with 4,
6 or 8.  Sizes below are written for a set of ``T`` tiles with highest number
``N`` (double-six: T = 28, N = 6; ``Rules.n_tiles`` and ``Rules.max_number``).

Game tree
---------
* **Chance nodes deal tile by tile**: one node per dealt tile (seat 0's
  tiles first, then seat 1's, ...), outcome = tile index 0..T-1.  The rule
  book redeals until some hand holds a double; instead of redeal nodes (which
  would make the tree infinite), each dealt tile is drawn from the deal
  distribution *conditioned on some hand holding a double*, which is exactly
  the distribution of the deal that is finally played.  Outcomes that would
  leave no double possible get no probability.
* **Chance nodes draw**: a seat with no playable tile draws, one chance node
  per tile, uniform over the tiles still in the boneyard (the boneyard's
  order is decided as it is drawn, which is the same as a shuffled boneyard).
* **Decisions**: action ``4 * tile + end`` (end 0 = L, 1 = R, and the
  spinner's arms 2 = U, 3 = D): ``4 * T`` distinct actions
  (:func:`bergen_sim.services.game.n_actions`; 112 with double-six).  Forced moves are
  decisions with one legal action; the lead, passes, going out and
  settlements happen by themselves.
* **Returns**: zero-sum, +1 for each seat of the side that reaches the
  target, -1 for the others (with more than two sides, -1/(sides-1) each).

Parameters: ``players`` (2-8), ``partnerships`` (bool), ``preset``
(``standard``/``classic``) and every rule setting that ``--set`` takes, by its
name (``domino_set``, ``spinner``, ``hand_size``, ``target``, ``lead``,
``settlement``, ``blocked_points``, ``out_points``, ``boneyard_reserve``,
``reduced_headers``; -1 or ``"default"`` keeps the preset's value):
``pyspiel.load_game("bergen(players=6,domino_set=double-nine)")``.  A
combination the rules refuse is refused when the game is loaded, in one line.

Observations (tensors declared by name and shape, see :class:`BergenObserver`)
hold what the seat may know (the policy view, docs/policies.md).  The
information state string is perfect recall (every event of the match as the
seat saw it); the information state *tensor* is the observation plus this
hand's play sequence and the seat's own dealt and drawn tiles: earlier hands
enter it only through the scores (they are independent deals).

State strings
-------------
``state.serialize()`` is plain text: the format line, the game (its
parameters, as ``str(game)`` writes them) and the action history::

    bergen-state/1
    game=bergen(blocked_points=-1,...,players=2,...)
    actions=3,17,5,...

``game.deserialize_state(text)`` and ``pyspiel.deserialize_game_and_state(text)``
replay the actions through the rules from a new match; a text that is not
such a string, belongs to another game or holds an action the rules do not
allow is refused in one line (:class:`StateStringError`).  Nothing in a state
string is ever run: OpenSpiel's default for Python games pickles the state's
attributes, so this module gives ``pyspiel.serialize_game_and_state`` and
``pyspiel.deserialize_game_and_state`` a Bergen branch (other games go
through OpenSpiel's own functions unchanged).  Only OpenSpiel's C++ internals
(``pyspiel.random_sim_test``'s round trip) still use its pickled form, on the
string they have just written themselves.
"""

from __future__ import annotations

import random
import re
from math import comb

import numpy as np
import pyspiel

from bergen_sim.core.errors import BergenError, shown
from bergen_sim.core.limits import integer
from bergen_sim.engine import layout as L
from bergen_sim.engine.tileset import from_words, no_tiles_for
from bergen_sim.engine.worlds import prepare, sample_world
from bergen_sim.model.domain import (
    BlockedEvent,
    DealEvent,
    DrawEvent,
    LeadEvent,
    OutEvent,
    PassEvent,
    PlayEvent,
    Tile,
    TraceEvent,
)
from bergen_sim.model.rules import SETTINGS, Rules, parse_setting
from bergen_sim.model.state import Phase
from bergen_sim.services.game import ENDS, Game, Move, end_count, n_actions

SHORT_NAME = "bergen"
MAX_PLAYERS = L.MAX_SEATS
#: the first line of a state string (:meth:`BergenState.serialize`)
STATE_FORMAT = "bergen-state/1"
#: the end names of the one-hot end pieces of an observation, in End order
_END_PIECES = ("left_end", "right_end", "up_end", "down_end")

#: the game's parameters: players, partnerships, preset, then every rule setting (``--set`` keys), where
#: -1 or "default" keeps the preset's value for the player count
_DEFAULTS = {
    "players": 2,
    "partnerships": False,
    "preset": "standard",
    **{key: -1 if kind is int else "default" for key, kind in SETTINGS.items()},
}

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Bergen dominoes (bergen-sim)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
)


class StateStringError(BergenError, ValueError):
    """A text given as a Bergen state string that is not one, or not one of this game."""


def rules_from_params(params: dict) -> Rules:
    """The rules an OpenSpiel parameter dict describes.

    >>> rules_from_params({"players": 3, "hand_size": 2, "reduced_headers": "off"}).to_dict()["reduced_headers"]
    False
    >>> rules_from_params({"players": 6, "domino_set": "double-nine"}).n_tiles
    55
    """
    values = {**_DEFAULTS, **(params or {})}
    settings = {key: parse_setting(key, str(values[key])) for key in SETTINGS if values[key] not in (-1, "default")}
    return Rules.make(
        players=int(values["players"]),
        partnerships=bool(values["partnerships"]),
        preset=str(values["preset"]),
        **settings,
    )


def plays_per_hand(rules: Rules) -> int:
    """Plays after the lead in one hand at most (every other tile of the set)."""
    return rules.n_tiles - 1


def deal_outcomes(rules: Rules, dealt: list[int]) -> list[tuple[int, float]]:
    """(tile, probability) of the next dealt tile, given the tiles dealt so far, conditioned on
    some hand ending up with a double (see the module note).

    >>> outcomes = deal_outcomes(Rules.make(players=2, hand_size=1), [L.TILE_INDEX["0-1"]])
    >>> sorted(L.TILE_NAMES[t] for t, p in outcomes)  # the last hand slot must take a double
    ['0-0', '1-1', '2-2', '3-3', '4-4', '5-5', '6-6']
    """
    remaining = [t for t in range(rules.n_tiles) if t not in dealt]
    if any(L.TILE_IS_DOUBLE[t] for t in dealt):
        return [(t, 1.0 / len(remaining)) for t in remaining]
    slots = rules.players * rules.hand_size - len(dealt)  # hand slots left, this one included
    rest = len(remaining) - 1
    doubles = rules.max_number + 1  # the set's doubles; none dealt yet: all remain
    any_way = comb(rest, slots - 1)
    weights = {t: any_way if L.TILE_IS_DOUBLE[t] else any_way - comb(rest - doubles, slots - 1) for t in remaining}
    total = sum(weights.values())
    return [(t, w / total) for t, w in weights.items() if w > 0]


class BergenGame(pyspiel.Game):
    """The OpenSpiel game (see the module note)."""

    def __init__(self, params=None):
        self.rules = rules_from_params(params or {})
        rules = self.rules
        info = pyspiel.GameInfo(
            num_distinct_actions=n_actions(rules),
            max_chance_outcomes=rules.n_tiles,
            num_players=rules.players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=rules.most_hands * plays_per_hand(rules),
        )
        super().__init__(GAME_TYPE, info, params or {})

    def new_initial_state(self):
        return BergenState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return BergenObserver(self.rules, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)

    def deserialize_state(self, text: str) -> BergenState:
        """The state a :meth:`BergenState.serialize` string describes, replayed through the rules
        (:class:`StateStringError` on anything else)."""
        if not isinstance(text, str):
            raise StateStringError(f"a state string is text, not {shown(text)}")
        lines = text.strip("\n").split("\n")
        if (
            len(lines) != 3
            or lines[0] != STATE_FORMAT
            or not lines[1].startswith("game=")
            or not lines[2].startswith("actions=")
        ):
            raise StateStringError(
                f"not a Bergen state string (three lines: {STATE_FORMAT}, game=..., actions=N,N,...): {shown(text, 60)}"
            )
        if rules_from_params(_game_params(lines[1][len("game=") :])) != self.rules:
            raise StateStringError(
                f"the state string is of game {shown(lines[1][len('game=') :], 100)}, not of this game {self}"
            )
        actions = lines[2][len("actions=") :]
        if not re.fullmatch(r"(\d{1,6}(,\d{1,6})*)?", actions):
            raise StateStringError(f"actions= must be action numbers separated by commas, not {shown(actions, 60)}")
        state = self.new_initial_state()
        for k, action in enumerate(int(a) for a in actions.split(",") if a):
            state.apply_checked(action, k)
        return state


def _game_params(text: str) -> dict:
    """The parameters of a game string ``bergen(key=value,...)``, checked to make a game (StateStringError
    or RuleError naming what is wrong)."""
    try:
        params = pyspiel.game_parameters_from_string(text)
    except Exception:  # OpenSpiel's parser: its message is C++ detail; say what a game string is
        raise StateStringError(f"game={shown(text, 60)} is not a game string such as bergen(players=2)") from None
    if params.pop("name", None) != SHORT_NAME:
        raise StateStringError(f"game={shown(text, 60)} is not the game {SHORT_NAME}")
    unknown = sorted(set(params) - set(_DEFAULTS))
    if unknown:
        raise StateStringError(
            f"game {SHORT_NAME} has no parameter {shown(unknown[0])}; its parameters: {', '.join(_DEFAULTS)}"
        )
    for key, value in params.items():
        if type(value) is not type(_DEFAULTS[key]):
            raise StateStringError(
                f"game parameter {key}={shown(value)} is of the wrong kind ({type(_DEFAULTS[key]).__name__} expected)"
            )
    rules_from_params(params)  # rules the engine refuses are refused here, in their own words
    return params


def _tile_index(action: object) -> int:
    """A chance action as a tile index, or -1 when it is not a whole number (:func:`bergen_sim.core.limits.integer`)."""
    try:
        return integer(action)
    except TypeError:
        return -1


class BergenState(pyspiel.State):
    """A match in progress; the dealer (chance) deals and draws, the seats play."""

    def __init__(self, game: BergenGame):
        super().__init__(game)
        self.rules = game.rules
        self.game = Game(self.rules, policies=["openspiel"] * self.rules.players, chance=True)
        self._dealt: list[int] = []  # tiles dealt so far in the current deal
        self._resampled = False  # a world of resample_from_infostate: its history is the original's

    # --- the OpenSpiel API ---------------------------------------------------------

    def current_player(self):
        if self.game.is_over:
            return pyspiel.PlayerId.TERMINAL
        if self.game.chance_phase is not None:
            return pyspiel.PlayerId.CHANCE
        return self.game.to_move

    def _legal_actions(self, player):
        return sorted(m.action for m in self.game.legal_moves()) if player == self.game.to_move else []

    def chance_outcomes(self):
        if self.game.chance_phase == "deal":
            return deal_outcomes(self.rules, self._dealt)
        tiles = self._boneyard()
        return [(t, 1.0 / len(tiles)) for t in tiles]

    def _boneyard(self) -> list[int]:
        out = {tile.index for tile in self.game.state.out_of_boneyard()}
        return [t for t in range(self.rules.n_tiles) if t not in out]

    def _check_chance_action(self, action) -> int:
        """``action`` if the dealer may take it now (a tile of :meth:`chance_outcomes`), else a one-line BergenError."""
        allowed = [t for t, _ in self.chance_outcomes()]
        if _tile_index(action) in allowed:
            return int(action)
        verb = "deal" if self.game.chance_phase == "deal" else "draw"
        names = " ".join(L.TILE_NAMES[t] for t in allowed)
        raise BergenError(
            f"chance action {shown(action)} is not a tile the dealer may {verb} now; "
            f"allowed: the tile indices of {names}"
        )

    def apply_checked(self, action: int, k: int = 0) -> None:
        """Apply ``action`` (the ``k``-th of a state string) if the rules allow it now, else StateStringError."""
        if self.is_terminal():
            raise StateStringError(f"action #{k + 1} ({action}) comes after the end of the match")
        if self.is_chance_node():
            try:
                self._check_chance_action(action)
            except BergenError as exc:
                raise StateStringError(f"action #{k + 1}: {exc}") from None
        elif action not in self.legal_actions():
            legal = ", ".join(f"{a} ({Move.from_action(a)})" for a in self.legal_actions())
            raise StateStringError(
                f"action #{k + 1} ({action}) is not legal for seat {self.current_player()} then; legal: {legal}"
            )
        self.apply_action(action)

    def _apply_action(self, action):
        if self.game.chance_phase is not None:
            action = self._check_chance_action(action)
        if self.game.chance_phase == "deal":
            self._dealt.append(int(action))
            if len(self._dealt) == self.rules.players * self.rules.hand_size:
                k = self.rules.hand_size
                tiles = [Tile.from_index(t) for t in self._dealt]
                self._dealt = []
                self.game.deal([tiles[s * k : (s + 1) * k] for s in range(self.rules.players)])
        elif self.game.chance_phase == "draw":
            self.game.draw(Tile.from_index(action))
        else:
            self.game.play(Move.from_action(action))

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            verb = "deal" if self.game.chance_phase == "deal" else "draw"
            if not 0 <= _tile_index(action) < self.rules.n_tiles:
                raise BergenError(f"chance action {shown(action)} is not a tile: tiles are 0..{self.rules.n_tiles - 1}")
            return f"{verb} {L.TILE_NAMES[action]}"
        return str(Move.from_action(action))

    def is_terminal(self):
        return self.game.is_over

    def returns(self):
        if not self.game.is_over:
            return [0.0] * self.rules.players
        sides = self.rules.sides
        loss = -1.0 if self.rules.partnerships else -1.0 / (sides - 1)
        return [1.0 if self.rules.side_of(p) == self.game.winner else loss for p in range(self.rules.players)]

    def serialize(self) -> str:
        """The state as plain text: :data:`STATE_FORMAT`, the game, the action history (see the module note)."""
        if self._resampled:
            raise StateStringError(
                "a world drawn by resample_from_infostate has no state string: its history "
                "is the original state's, which replays to the original deal"
            )
        actions = ",".join(str(a) for a in self.history())
        return f"{STATE_FORMAT}\ngame={self.get_game()}\nactions={actions}"

    def resample_from_infostate(self, player_id, probability_sampler=None):
        """A state the seat cannot tell from this one: the other seats' hidden tiles drawn anew.

        The worlds are :mod:`bergen_sim.engine.worlds`' (the ``pimc`` policy's):
        uniform over the deals of the unseen tiles that give every seat its
        tile count and break no void or lead evidence.  Only the present is
        redrawn (past hands do not matter to what follows), so the sample's
        recorded history keeps the original's actions (and it has no state string).
        """
        sample = self.clone()
        if self.game.chance_phase is not None or self.game.is_over:
            return sample
        view = self.game.view(player_id).array
        rules_vec = self.rules.to_array()
        no_tiles = no_tiles_for(self.rules.n_tiles)
        spec, completions = prepare(view, rules_vec, 1, no_tiles)
        rng = np.zeros(1, dtype=np.uint64)
        unit = probability_sampler() if callable(probability_sampler) else random.random()
        rng[0] = np.uint64(int(unit * 2**53))
        hands = np.zeros(L.MAX_SEATS * L.SET_WORDS, dtype=np.int64)
        bone = np.zeros(L.MAX_TILES, dtype=np.int64)
        sample_world(view, spec, completions, rng, hands, bone, no_tiles)
        state = sample.game.state
        for seat in range(self.rules.players):
            if seat != player_id:
                mask = from_words(hands[seat * L.SET_WORDS : (seat + 1) * L.SET_WORDS])
                state.hands[seat] = [Tile.from_index(t) for t in range(self.rules.n_tiles) if mask >> t & 1]
        sample._resampled = True
        return sample

    def __str__(self):
        game = self.game
        hands = " / ".join(" ".join(game.hand(s)) for s in range(self.rules.players))
        line = game.line_text()
        dealing = f" dealing {' '.join(L.TILE_NAMES[t] for t in self._dealt)}" if self._dealt else ""
        return (
            f"hand {game.hand_number} phase {game.state.phase.value} seat {game.state.seat}; hands {hands}; "
            f"line {line}; boneyard {game.boneyard_count}; scores {list(game.scores)}{dealing}"
        )


class BergenObserver:
    """Observation and information-state tensors and strings (PyObserver interface).

    Tensor pieces (name, shape) for a set of ``T`` tiles with highest number
    ``N``, ``n`` players and ``E`` ends (2; 4 with the spinner), all within [0, 1]:

    ==================  ==============================  ===========================================
    seat                (n,)                            one-hot of the observing seat
    to_move             (n,)                            one-hot of the seat to move (none at chance)
    hand                (T,)                            the seat's tiles
    played              (T,)                            tiles on the table this hand
    left_end, right_end (N + 1,) each                   one-hot end numbers (none before a lead)
    up_end, down_end    (N + 1,) each, spinner only     the spinner's arms (none until they open)
    double_ends         (E,)                            each end is a double end
    hand_counts         (n,)                            tiles per seat / T
    boneyard            (1,)                            boneyard size / T
    scores              (sides,)                        side score / target (capped at 1)
    voids               (n, N + 1)                      numbers a seat surely holds none of
    ==================  ==============================  ===========================================

    With perfect recall (the information state) three more: ``dealt`` (T,)
    the seat's tiles dealt this hand, ``drawn`` (T,) the tiles it drew this
    hand, and ``plays`` (T - 1, n + T + 4) this hand's plays in order
    (seat, tile, end L/R/U/D one-hot each).
    """

    def __init__(self, rules: Rules, iig_obs_type, params):
        if params:
            raise ValueError(f"observation parameters not supported; passed {params}")
        self.rules = rules
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        n, sides, tiles, numbers = rules.players, rules.sides, rules.n_tiles, rules.max_number + 1
        self.ends = end_count(rules)
        pieces = [
            ("seat", (n,)),
            ("to_move", (n,)),
            ("hand", (tiles,)),
            ("played", (tiles,)),
            *((name, (numbers,)) for name in _END_PIECES[: self.ends]),
            ("double_ends", (self.ends,)),
            ("hand_counts", (n,)),
            ("boneyard", (1,)),
            ("scores", (sides,)),
            ("voids", (n, numbers)),
        ]
        if self.perfect_recall:
            pieces += [
                ("dealt", (tiles,)),
                ("drawn", (tiles,)),
                ("plays", (plays_per_hand(rules), n + tiles + len(ENDS))),
            ]
        self.tensor = np.zeros(sum(int(np.prod(shape)) for _, shape in pieces), np.float32)
        self.dict = {}
        at = 0
        for name, shape in pieces:
            size = int(np.prod(shape))
            self.dict[name] = self.tensor[at : at + size].reshape(shape)
            at += size

    def set_from(self, state: BergenState, player: int) -> None:
        self.tensor.fill(0)
        d, game = self.dict, state.game
        d["seat"][player] = 1
        if game.to_move is not None:
            d["to_move"][game.to_move] = 1
        d["scores"][:] = np.minimum(np.array(game.scores) / self.rules.target, 1.0)
        if not any(isinstance(e, LeadEvent) for e in game.state.events):
            d["hand"][[tile.index for tile in game.state.hands[player]]] = 1
            return  # nothing is on the table yet
        view = game.view(player)
        d["hand"][[L.TILE_INDEX[t] for t in view.hand]] = 1
        d["played"][[L.TILE_INDEX[t] for t in view.played]] = 1
        open_ends = min(view.open_ends, self.ends)
        for name, number in zip(_END_PIECES[:open_ends], view.end_numbers(open_ends)):
            d[name][number] = 1
        d["double_ends"][:open_ends] = view.end_doubles(open_ends)
        d["hand_counts"][:] = np.array(view.hand_counts) / self.rules.n_tiles
        d["boneyard"][0] = view.boneyard / self.rules.n_tiles
        for seat, numbers in enumerate(view.voids):
            d["voids"][seat, numbers] = 1
        if self.perfect_recall:
            self._set_this_hand(game, player)

    def _set_this_hand(self, game: Game, player: int) -> None:
        d, n, tiles = self.dict, self.rules.players, self.rules.n_tiles
        events = game.state.events
        start = max(k for k, e in enumerate(events) if isinstance(e, DealEvent))
        plays = 0
        for event in events[start:]:
            if isinstance(event, DealEvent):
                d["dealt"][[tile.index for tile in event.hands[player]]] = 1
            elif isinstance(event, DrawEvent) and event.seat == player:
                d["drawn"][event.tile.index] = 1
            elif isinstance(event, PlayEvent):
                row = d["plays"][plays]
                row[event.seat] = 1
                row[n + event.tile.index] = 1
                row[n + tiles + int(event.end)] = 1
                plays += 1

    def string_from(self, state: BergenState, player: int) -> str:
        if self.perfect_recall:
            # the events as the seat saw them, then what it holds now (a function of those events in a
            # played game; in a resampled world it keeps every seat's key true to that seat's tiles)
            seen = "; ".join(_seen(e, player) for e in state.game.state.events[1:])
            return f"p{player}: {seen}; holds {' '.join(state.game.hand(player))}"
        game = state.game
        line = game.line_text()
        hand = " ".join(game.hand(player))
        if state.game.state.phase == Phase.DEAL or not line:
            return f"p{player}: hand {game.hand_number} {hand}; scores {list(game.scores)}"
        return f"p{player}: {game.view(player)!r} line {line} to move {game.to_move}"


def _seen(event: TraceEvent, player: int) -> str:
    """One event as ``player`` saw it: other seats' dealt and drawn tiles stay face down."""
    kind = event.TYPE.name.lower()
    match event:
        case DealEvent():
            return f"deal {event.hand}: {' '.join(str(tile) for tile in event.hands[player])}"
        case DrawEvent():
            return f"{event.seat} draws {event.tile if event.seat == player else 'a tile'}"
        case LeadEvent():
            return f"{event.seat} leads {event.tile}"
        case PlayEvent():
            return f"{event.seat} plays {event.tile} {event.end.name}"
        case PassEvent() | OutEvent():
            return f"{event.seat} {kind}"
        case BlockedEvent():
            return f"blocked {event.winner}"
    return kind


def serialize_game_and_state(game, state) -> str:
    """``pyspiel.serialize_game_and_state``, with Bergen states written as plain text (see the module note)."""
    if isinstance(game, BergenGame):
        return (
            f"# Automatically generated by OpenSpiel SerializeGameAndState\n[Meta]\nVersion: 1\n\n"
            f"[Game]\n{game}\n[State]\n{state.serialize()}\n"
        )
    return _openspiel_serialize(game, state)


def deserialize_game_and_state(text: str):
    """``pyspiel.deserialize_game_and_state``: a Bergen string is replayed through the rules
    (:meth:`BergenGame.deserialize_state`), never unpickled; other games' strings go to OpenSpiel."""
    if not isinstance(text, str):
        return _openspiel_deserialize(text)
    # the sections as OpenSpiel reads them: blank and '#' lines skipped, a line [Game] or [State] opens one
    sections: dict[str, list[str]] = {}
    current = None
    for line in text.split("\n"):
        if line.strip() in ("[Meta]", "[Game]", "[State]"):
            current = sections.setdefault(line.strip(), [])
        elif line.strip() and not line.startswith("#") and current is not None:
            current.append(line.strip())
    game_text = "\n".join(sections.get("[Game]", []))
    try:  # the game OpenSpiel would load from this text (loading one runs nothing from the text)
        game = pyspiel.load_game(game_text)
    except Exception:
        game = None
    if isinstance(game, BergenGame):
        return game, game.deserialize_state("\n".join(sections.get("[State]", [])))
    if SHORT_NAME in text.lower():  # however it is spelled, a Bergen state never reaches OpenSpiel's unpickling
        raise StateStringError(
            f"not a serialized {SHORT_NAME} game and state: a line [Game], the game's line "
            f"{SHORT_NAME}(...), a line [State], then the state string"
        )
    return _openspiel_deserialize(text)


pyspiel.register_game(GAME_TYPE, BergenGame)
# the Bergen branch in front of OpenSpiel's own functions (once, however often this module is reloaded)
_openspiel_serialize = getattr(pyspiel.serialize_game_and_state, "openspiel_function", pyspiel.serialize_game_and_state)
_openspiel_deserialize = getattr(
    pyspiel.deserialize_game_and_state, "openspiel_function", pyspiel.deserialize_game_and_state
)
serialize_game_and_state.openspiel_function = _openspiel_serialize  # type: ignore[attr-defined]
deserialize_game_and_state.openspiel_function = _openspiel_deserialize  # type: ignore[attr-defined]
pyspiel.serialize_game_and_state = serialize_game_and_state
pyspiel.deserialize_game_and_state = deserialize_game_and_state
