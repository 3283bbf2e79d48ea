"""Games as input: ``bergen-trace`` files and the short game record written at a real table.

A whole game, however it was written down, becomes a list of :class:`Action`
s (deals, draws and plays, plus checks of the leads and passes the record
states) that :func:`drive` feeds to a :class:`bergen_sim.services.game.Game` whose
caller deals (``chance=True``).  The rules themselves then produce the leads,
points, passes, settlements and scores, so a record that breaks a rule is
refused with the line that breaks it, and anything built on top (``bergen-sim
review``) sees every decision exactly as the seat saw it.

The game record (``bergen-record 1``), for games played at a table::

    bergen-record 1
    # comments start with '#'; blank lines are ignored
    rules players=2 target=15          # players, partnerships, preset, any --set KEY=VALUE
    names Ann Bob                      # optional: one name per seat
    hand 1                             # optional: checks the hand number
    deal 0-0 1-2 2-6 4-6 3-4 3-5 | 2-3 6-6 1-3 1-5 4-4 0-1
    0: lead 0-0                        # optional: the lead follows from the rules
    1: 0-1 R                           # seat 1 plays 0-1 on the right end
    0: draw 2-4 5-6                    # seat 0 draws these tiles, in order
    0: 5-6 R
    1: pass                            # optional: a pass follows from the rules

Each ``deal`` line gives every seat's hand in seat order, separated by ``|``
(a deal with no double is followed by another ``deal`` line for the redeal).
Seats count from 0.  The boneyard's order need not be known: each draw names
the tile drawn.  A record may stop before the match ends.

For example::

    >>> text = '''bergen-record 1
    ... rules players=2 hand_size=2 target=3
    ... deal 1-1 1-2 | 2-3 4-4
    ... 1: draw 0-0 0-1
    ... 1: 0-1 L
    ... '''
    >>> game = drive(parse_record(text))
    >>> [(e["type"], e.get("tile")) for e in game.events if e["type"] in ("lead", "draw", "play")]
    [('lead', '1-1'), ('draw', '0-0'), ('draw', '0-1'), ('play', '0-1')]
    >>> game.scores
    (2, 0)
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bergen_sim.core.errors import BergenError, TraceError, as_json, cut, shown
from bergen_sim.core.i18n import tr
from bergen_sim.core.limits import MAX_MATCH_INDEX, MAX_SEED, ascii_digits, foreign_digit, is_whole, whole_number
from bergen_sim.model.domain import FORMAT_V2, FORMATS, LeadEvent, PassEvent, Tile, tiles_of_set
from bergen_sim.model.rules import Rules, parse_setting

if TYPE_CHECKING:
    from bergen_sim.services.files.trace import TraceMatch

HEADER = "bergen-record 1"


class RecordError(BergenError, ValueError):
    """A game record or trace that cannot be read, or that breaks a rule (the message names the line)."""


@dataclass(frozen=True)
class Action:
    """One step of a written game: what the record says happened, and where it says so.

    ``kind`` is ``deal`` (``hands``), ``draw`` (``tiles``, in order),
    ``play`` (``tile``, ``end``), or the checks ``lead``, ``pass`` and
    ``hand`` (``number``).  ``where`` is ``line 12`` of a record or
    ``event 40 of match 0`` of a trace, for messages.
    """

    kind: str
    where: str
    seat: int = -1
    tile: str = ""
    end: str = ""
    hands: tuple[tuple[str, ...], ...] = ()
    tiles: tuple[str, ...] = ()
    number: int = 0


@dataclass
class WrittenGame:
    """A game as written: its rules, what to call the seats, and its actions in order."""

    rules: Rules
    actions: list[Action]
    names: list[str] = field(default_factory=list)
    seed: int = 0
    match: int = 0
    policies: list[str] = field(default_factory=list)
    source: str = "record"
    format: str = FORMAT_V2  # the trace version a game read from a trace was written in (its replay writes it)
    #: a trace's own events: its replay must give them back, one for one (:func:`drive`); empty for a record
    recorded: list[dict[str, Any]] = field(default_factory=list)
    #: where the game is in the file it was read from (from 0; a record's game is 0): what ``--match`` names,
    #: which is not ``match`` (the match number its trace gives it, which keys its random streams) in a file
    #: that holds a part of a run or several runs
    index: int = 0


def _small_whole(text: str) -> bool:
    """ASCII digits only, and few enough for any count of a game.

    (``str.isdigit`` also accepts '²' and other scripts' digits, which ``int`` refuses; and Python reads no
    more than 4,300 digits.)
    """
    return ascii_digits(text) and len(text) <= 9


def _rules_line(words: list[str], where: str) -> Rules:
    settings: dict[str, Any] = {}
    players, partnerships, preset = 2, False, "standard"
    seen: set[str] = set()
    for word in words:
        key, sep, value = word.partition("=")
        if not sep:
            raise RecordError(f"{where}: rules takes KEY=VALUE words, not {word!r}")
        if key in seen:
            raise RecordError(f"{where}: {key} is given twice; give each setting once")
        seen.add(key)
        if key == "players":
            number = whole_number(value)
            if number is None:
                raise RecordError(f"{where}: players must be a whole number, not {shown(value, 20)}")
            players = number  # a number too large (1234567890) is refused below as out of range, not as text
        elif key == "partnerships":
            if value.lower() not in ("yes", "no", "true", "false", "on", "off"):
                raise RecordError(f"{where}: partnerships is yes or no, not {shown(value, 20)}")
            partnerships = value.lower() in ("yes", "true", "on")
        elif key == "preset":
            preset = value
        else:
            settings[key] = value
    try:
        settings = {key: parse_setting(key, value) for key, value in settings.items()}
        return Rules.make(players=players, partnerships=partnerships, preset=preset, **settings)
    except BergenError as exc:
        raise RecordError(f"{where}: {exc}") from None


def parse_record(text: str) -> WrittenGame:
    """A game record's rules and actions (see the module note for the format)."""
    lines = text.splitlines()
    body = [(k, line.split("#", 1)[0].strip()) for k, line in enumerate(lines, 1)]
    body = [(k, line) for k, line in body if line]
    if not body or body[0][1] != HEADER:
        raise RecordError(f"a game record starts with the line {HEADER!r}")
    rules = Rules.make()
    names: list[str] = []
    actions: list[Action] = []
    seen_rules = False
    for k, line in body[1:]:
        where = f"line {k}"
        head, _, rest = line.partition(" ")
        words = rest.split()
        if head == "rules":
            if seen_rules or actions:
                raise RecordError(f"{where}: the rules line comes once, before the first deal")
            rules, seen_rules = _rules_line(words, where), True
        elif head == "names":
            if names:
                raise RecordError(f"{where}: the names line comes once")
            if not words:
                raise RecordError(f"{where}: 'names' takes one name per seat, e.g. 'names Ann Bob'")
            names = words
        elif head == "hand":
            if len(words) != 1 or not _small_whole(words[0]):
                raise RecordError(f"{where}: 'hand N' takes the hand's number")
            actions.append(Action("hand", where, number=int(words[0])))
        elif head == "deal":
            hands = tuple(tuple(part.split()) for part in rest.split("|"))
            actions.append(Action("deal", where, hands=hands))
        elif head.endswith(":") and _small_whole(head[:-1]):
            actions.append(_seat_action(int(head[:-1]), words, where))
        else:
            raise RecordError(
                f"{where}: expected rules, names, hand, deal or 'SEAT: move', not "
                f"{line if len(line) <= 60 else line[:57] + '...'!r}"
            )
    if names and len(names) != rules.players:
        raise RecordError(f"names: give one name per seat ({rules.players}), not {len(names)}")
    return WrittenGame(rules, actions, names=names)


def _seat_action(seat: int, words: list[str], where: str) -> Action:
    digit = foreign_digit(" ".join(words))
    if digit is not None:  # a tile is read with int(), which reads '３-５' as 3-5
        raise RecordError(
            f"{where}: {digit!r} is a digit of another script; write tiles with the digits 0-9 (e.g. 3-5 R)"
        )
    if words[:1] == ["pass"] and len(words) == 1:
        return Action("pass", where, seat=seat)
    if words[:1] == ["lead"] and len(words) == 2:
        return Action("lead", where, seat=seat, tile=words[1])
    if words[:1] == ["draw"] and len(words) >= 2:
        return Action("draw", where, seat=seat, tiles=tuple(words[1:]))
    if len(words) == 2 and words[1] in ("L", "R", "U", "D"):
        return Action("play", where, seat=seat, tile=words[0], end=words[1])
    raise RecordError(
        f"{where}: a seat's line is 'TILE END' (e.g. 3-5 R), 'draw TILE ...', 'lead TILE' "
        f"or 'pass', not {' '.join(words)!r}"
    )


def actions_from_trace(traced: TraceMatch) -> WrittenGame:
    """One traced match (as :func:`bergen_sim.services.files.trace.read_matches` reads it) as a written game:
    its deals, draws and plays.

    The match event's fields and the fields of the events a review replays
    are checked first (in a review's words), then the match as its version
    may hold it (:attr:`TraceMatch.events`: a known format whose rules object
    has that version's keys, every event of a known type and shape, tiles of
    the set, ends of the layout); what the rules compute (leads, points,
    scores, the end) is checked when the game is driven (:func:`drive`).
    """
    events = traced.recorded
    head = events[0]
    if "rules" not in head:
        raise RecordError(
            "event 1: the match event has no 'rules'; it needs the match's rules, an object of every "
            "setting (as `bergen-sim trace` writes it)"
        )
    try:
        rules = Rules.from_trace(head["rules"])
    except (KeyError, TypeError, ValueError) as exc:
        raise RecordError(f"event 1: the match's rules cannot be read: {_gist(exc)}") from None
    actions = []
    for k, event in enumerate(events, 1):
        where = f"event {k} of match {head.get('match', 0)}"
        try:
            action = _trace_action(event, where)
        except (KeyError, TypeError, ValueError) as exc:
            raise RecordError(
                f"{where}: a {event.get('type')} event needs {_TRACE_FIELDS.get(str(event.get('type')))}; "
                f"this one has {_gist(exc)}"
            ) from None
        if action is not None:
            actions.append(action)
    seed = _head_whole(head, "seed", MAX_SEED, "0..2^64-1")
    match = _head_whole(head, "match", MAX_MATCH_INDEX, "0..2^62")
    policies = head.get("policies", [])
    if not isinstance(policies, list) or not all(isinstance(p, str) for p in policies):
        raise RecordError(f"event 1: the match event's 'policies' must be a list of names, not {as_json(policies)}")
    version = head.get("format", FORMAT_V2)
    if version not in FORMATS:
        raise RecordError(f"event 1: format must be one of {', '.join(FORMATS)}, not {shown(str(version))}")
    traced.events  # noqa: B018 - the format's checks, which raise TraceError naming the line
    return WrittenGame(
        rules, actions, seed=seed, match=match, policies=policies, source="trace", format=version, recorded=events
    )


def _head_whole(head: dict[str, Any], key: str, high: int, allowed: str) -> int:
    """The match event's ``seed`` or ``match``: a JSON whole number (not text, a fraction or true/false)."""
    value = head.get(key, 0)
    if not is_whole(value) or not 0 <= value <= high:
        raise RecordError(
            f"event 1: the match event's {key!r} must be a whole number {allowed} (a JSON number, "
            f"not text or a fraction), not {as_json(value)}"
        )
    return value


#: what each traced event a review reads must hold
_TRACE_FIELDS = {
    "deal": "'hands', a list of lists of tiles",
    "draw": "a whole-number 'seat' and a 'tile'",
    "play": "a whole-number 'seat', a 'tile' and an 'end'",
    "lead": "a whole-number 'seat'",
    "pass": "a whole-number 'seat'",
}


def _gist(exc: BaseException) -> str:
    """An exception's gist for a one-line message (a missing key, a wrong type), at most 80 characters."""
    if isinstance(exc, KeyError):
        return f"no {shown(exc.args[0] if exc.args else '', 77)}"
    return cut(str(exc), 80)


def _trace_seat(event: dict[str, Any]) -> int:
    seat = event["seat"]
    if type(seat) is not int:  # noqa: E721 - bool and float are not seats
        raise TypeError(f"seat {shown(str(seat), 20)}")
    return seat


def _trace_text(event: dict[str, Any], key: str) -> str:
    value = event[key]
    if not isinstance(value, str):
        raise TypeError(f"{key} {shown(str(value), 20)}, not text")
    if foreign_digit(value) is not None:  # Tile.parse would read '３-５' as 3-5
        raise ValueError(f"{key} {shown(value, 20)}, with a digit of another script (not 0-9)")
    return value


def _trace_action(event: dict[str, Any], where: str) -> Action | None:
    """The action one traced event records (None: an event a review does not replay)."""
    kind = event.get("type")
    if kind == "deal":
        hands = event["hands"]
        if not isinstance(hands, list) or not all(isinstance(h, list) for h in hands):
            raise TypeError("hands that are not a list of lists")
        return Action("deal", where, hands=tuple(tuple(_trace_text({"tile": t}, "tile") for t in h) for h in hands))
    if kind == "draw":
        return Action("draw", where, seat=_trace_seat(event), tiles=(_trace_text(event, "tile"),))
    if kind == "play":
        return Action(
            "play", where, seat=_trace_seat(event), tile=_trace_text(event, "tile"), end=_trace_text(event, "end")
        )
    if kind in ("lead", "pass"):
        tile = event.get("tile", "")
        return Action(kind, where, seat=_trace_seat(event), tile=tile if isinstance(tile, str) else str(tile))
    return None


class MatchOutOfRange(RecordError):
    """A match asked of a file that holds fewer (:func:`read_games`); the message starts ``match M:``."""


def read_games(path: str | Path, matches: Sequence[int] | None = None) -> list[WrittenGame]:
    """Every game in a file: each match of a ``bergen-trace`` JSON Lines file, or one game record.

    ``matches``: only these matches (indices in the file, from 0), in the
    order given.  A trace is read a line at a time: the other matches' events
    are dropped as they are read, and reading stops after the last match
    asked for, so one match of a long trace costs the memory of that match
    and the time to reach it, not the file's (a trace as text in memory takes
    several times its size on disk, and ``bergen-sim trace`` writes files of
    any size).  A record holds one game, match 0.
    """
    from bergen_sim.services.files.trace import bounded_lines, read_matches

    path = Path(path)
    games: dict[int, WrittenGame] = {}
    try:
        with path.open(encoding="utf-8-sig") as handle:  # a byte-order mark (Windows editors) is not text
            lines = bounded_lines(path, handle)
            head = ""
            for line in lines:  # the first line with text says which format the file is in
                head += line
                if line.strip():
                    break
            if not head.strip():
                raise RecordError(
                    tr(
                        "{path}: the file is empty; a game is a bergen-trace file (JSON Lines, one event "
                        "per line) or a game record (docs/review.md)"
                    ).format(path=path)
                )
            if head.lstrip().startswith("{"):
                wanted = None if matches is None else set(matches)
                for match in read_matches(itertools.chain(head.splitlines(keepends=True), lines), path):
                    index = match.index
                    if wanted is None or index in wanted:
                        games[index] = replace(actions_from_trace(match), index=index)
                    if wanted is not None and index >= max(wanted, default=-1):
                        break  # every match asked for is read: the rest of the file is not
            else:
                index, games = 0, {0: parse_record(head + "".join(lines))}
    except UnicodeDecodeError:
        raise RecordError(tr("{path}: not a text file (UTF-8)").format(path=path)) from None
    except OSError as exc:
        raise RecordError(tr("{path}: cannot read it: {why}").format(path=path, why=exc.strerror or exc)) from None
    except TraceError as exc:  # a line that is not an event, or a match its version cannot hold
        raise RecordError(str(exc)) from None
    missing = [m for m in (matches if matches is not None else ()) if m not in games]
    if missing:
        raise MatchOutOfRange(
            tr("match {match}: {path} holds matches 0..{last}").format(match=missing[0], path=path, last=index)
        )
    return [games[m] for m in (matches if matches is not None else sorted(games))]


def drive(written: WrittenGame, before_play: Callable[[Any, Action], None] | None = None):
    """Play a written game through the rules; returns the :class:`~bergen_sim.services.game.Game` at its end.

    ``before_play(game, action)`` is called before each play, with the game as
    the seat saw it.  A deal, draw or play the rules do not allow, or a
    stated lead or pass that did not happen, raises :class:`RecordError`
    naming its place; so does a trace whose events differ from those the
    rules give for its deals, draws and plays (a score or points changed by
    hand: the review would otherwise judge another game than the file's),
    and a trace draw that is not the next tile of the boneyard its deal
    event lists in draw order (a draw deleted or moved).  A game record
    states no boneyard order: its draws only have to be legal.  A trace cut
    short is read up to where it stops.
    """
    from bergen_sim.services.game import Game, MoveError

    game = Game(
        written.rules,
        seed=written.seed,
        match=written.match,
        policies=written.policies or None,
        chance=True,
        format=written.format,
    )
    checked = 0  # events already matched by a 'lead' or 'pass' check
    order = _DrawOrder(written.recorded)
    for action in written.actions:
        try:
            if action.kind == "draw" and order.stated:  # one tile at a time, each checked against the order
                for tile in action.tiles:
                    order.check(game, action, tile)
                    checked = _apply(game, replace(action, tiles=(tile,)), checked, before_play)
                    order.drawn()
                continue
            checked = _apply(game, action, checked, before_play)
            if action.kind == "deal":
                order.dealt(action)
        except (MoveError, ValueError) as exc:
            if isinstance(exc, RecordError):
                raise
            raise RecordError(f"{action.where}: {exc}") from None
    _check_replay(game.events, written.recorded)
    return game


class _DrawOrder:
    """The boneyard's draw order that a trace's deal events state, checked draw by draw (for :func:`drive`).

    A trace's deal event lists the boneyard in draw order, and the rules
    always draw its next tile; a game record states no order (``recorded``
    empty), and then nothing is checked.  Deal actions and deal events
    correspond one for one, in order (:func:`actions_from_trace`).
    """

    def __init__(self, recorded: list[dict[str, Any]]):
        self._deals = iter([e for e in recorded if isinstance(e, dict) and e.get("type") == "deal"])
        self._pile: list[str] | None = None  # this hand's undrawn tiles in order; None: no order stated
        self._next = 0
        self._deal_where = ""

    @property
    def stated(self) -> bool:
        return self._pile is not None

    def dealt(self, action: Action) -> None:
        """A deal was made: its event's boneyard (if it lists one) is the order of this hand's draws."""
        event = next(self._deals, None)
        boneyard = event.get("boneyard") if event is not None else None
        if isinstance(boneyard, list) and all(isinstance(t, str) for t in boneyard):
            self._pile = [_tile_name(t) or t for t in boneyard]
            self._next, self._deal_where = 0, action.where
        else:
            self._pile = None

    def check(self, game, action: Action, tile: str) -> None:
        """Refuse a legal-looking draw of ``tile`` that is not the boneyard's next tile (a draw out of turn is
        left to the rules' own message)."""
        if self._pile is None or game.is_over or game.chance_phase != "draw" or game.drawing_seat != action.seat:
            return
        deal = self._deal_where.split(" of match")[0]  # the draw's place names the match
        name = _tile_name(tile)
        said = f"{action.where}: seat {action.seat} draws {name or shown(tile, 20)}"
        if self._next >= len(self._pile):
            raise RecordError(f"{said}, but the boneyard the deal ({deal}) lists has no tile left")
        expected = self._pile[self._next]
        if name != expected:
            raise RecordError(
                f"{said}, but the boneyard's next tile is {expected} (the deal, {deal}, lists the "
                "boneyard in draw order)"
            )

    def drawn(self) -> None:
        self._next += 1


def _tile_name(text: str) -> str | None:
    """A tile as the engine writes it (``2-1`` -> ``1-2``); None for text that is no tile."""
    try:
        return str(Tile.parse(text))
    except ValueError:
        return None


def _check_replay(replayed: list[dict[str, Any]], recorded: list[dict[str, Any]]) -> None:
    """Every recorded event equals the replay's at its place (a deal's boneyard aside: draws are fed one by one)."""
    for k, (mine, theirs) in enumerate(zip(replayed, recorded), 1):
        if mine.get("type") == "deal" and theirs.get("type") == "deal":
            mine, theirs = {**mine, "boneyard": None}, {**theirs, "boneyard": None}
        if mine != theirs:
            key = next((key for key in (*mine, *theirs) if mine.get(key) != theirs.get(key)), "type")
            raise RecordError(
                f"event {k} of match {recorded[0].get('match', 0)} (a {as_json(theirs.get('type'))} "
                f"event): the file has {key} {as_json(theirs.get(key))}, but the rules give "
                f"{as_json(mine.get(key))} for the game's deals, draws and plays"
            )
    if len(recorded) > len(replayed):
        raise RecordError(
            f"event {len(replayed) + 1} of match {recorded[0].get('match', 0)}: "
            f"{as_json(recorded[len(replayed)])} follows the end of the game the rules give"
        )


def each_decision(written: WrittenGame, visit: Callable[[int, Any, Action], None]):
    """Play a written game through the rules, calling ``visit(number, game, action)`` at each decision.

    A decision is a play with two or more legal moves (a forced play is not
    one).  They are numbered from 1 in the order played, every seat's
    counted, so a decision keeps its number whichever seats a review shows:
    ``bergen-sim review`` prints these numbers and ``bergen-sim analyze
    --game FILE --decision N`` finds a decision by one.  Returns the game at
    its end, as :func:`drive` does.
    """
    count = 0

    def before_play(game, action: Action) -> None:
        nonlocal count
        if len(game.legal_moves()) >= 2:
            count += 1
            visit(count, game, action)

    return drive(written, before_play)


def decision_view(written: WrittenGame, number: int) -> tuple[Any, Action]:
    """The deciding seat's view at decision ``number`` (:func:`each_decision`) and the play made there.

    The view is the seat's whole view (:meth:`bergen_sim.services.game.Game.view`),
    the order of the hand's plays included, so an analysis of it reads the
    other seats' plays.  A number the game does not reach raises
    :class:`RecordError` naming the numbers it has.
    """
    found: list[tuple[Any, Action]] = []
    seen = [0]

    def visit(k: int, game, action: Action) -> None:
        seen[0] = k
        if k == number:
            found.append((game.view(action.seat), action))

    each_decision(written, visit)
    if not found:
        has = f"has decisions 1..{seen[0]}" if seen[0] else "has no decision (every play was forced)"
        raise RecordError(f"there is no decision {shown(number)}: the game {has}")
    return found[0]


def _apply(game, action: Action, checked: int, before_play) -> int:
    where, seat = action.where, action.seat
    if action.kind in ("draw", "play") and game.is_over:
        raise RecordError(f"{where}: the match is already over")
    if action.kind == "hand":
        if game.hand_number != action.number:
            raise RecordError(f"{where}: this is hand {game.hand_number}, not hand {action.number}")
    elif action.kind == "deal":
        if game.chance_phase != "deal":
            raise RecordError(f"{where}: no deal is due here ({_due(game)})")
        _check_deal(game.rules, action.hands, where)
        game.deal([list(h) for h in action.hands])
    elif action.kind == "draw":
        for tile in action.tiles:
            if game.chance_phase != "draw" or game.drawing_seat != seat:
                raise RecordError(f"{where}: seat {seat} cannot draw {tile} here ({_due(game)})")
            game.draw(tile)
    elif action.kind == "play":
        if game.to_move != seat:
            raise RecordError(f"{where}: seat {seat} cannot play here ({_due(game)})")
        move = game.legal_move((action.tile, action.end))  # MoveError names the legal moves
        action = replace(action, tile=str(move.tile), end=move.end.name)  # as the engine writes it: 1-2, not 2-1
        if before_play is not None:
            before_play(game, action)
        game.play(move)
    elif action.kind == "lead" and game.choosing_lead:  # lead = any-double: the leader's choice is a decision
        if game.to_move != seat:
            raise RecordError(f"{where}: seat {seat} cannot lead here ({_due(game)})")
        move = game.legal_move((action.tile, "L"))  # MoveError names the doubles it may lead
        action = replace(action, tile=str(move.tile), end=move.end.name)  # a lead is a move on L, as the engine's
        if before_play is not None:
            before_play(game, action)
        game.play(move)
        return len(game.state.events)
    else:  # a stated lead or pass: it must be among the events since the last check
        stated = PassEvent if action.kind == "pass" else LeadEvent
        events = game.state.events
        for k in range(checked, len(events)):
            e = events[k]
            if isinstance(e, stated) and e.seat == seat and (isinstance(e, PassEvent) or e.tile == action.tile):
                return k + 1
        what = f"lead {action.tile}" if action.kind == "lead" else "pass"
        raise RecordError(f"{where}: seat {seat} did not {what} here")
    return checked


def _check_deal(rules: Rules, hands: tuple[tuple[str, ...], ...], where: str) -> None:
    """A deal gives every seat ``hand_size`` different tiles of the set."""
    tiles = {str(tile) for tile in tiles_of_set(rules.max_number)}
    if len(hands) != rules.players:
        raise RecordError(f"{where}: a deal gives {rules.players} hands separated by '|', not {len(hands)}")
    seen: set[str] = set()
    for seat, hand in enumerate(hands):
        if len(hand) != rules.hand_size:
            raise RecordError(f"{where}: seat {seat} is dealt {len(hand)} tiles, not {rules.hand_size}")
        for tile in hand:
            if tile not in tiles:
                raise RecordError(
                    f"{where}: {tile!r} is not a tile of {rules.domino_set} (tiles are written a-b "
                    f"with 0 <= a <= b <= {rules.max_number})"
                )
            if tile in seen:
                raise RecordError(f"{where}: {tile} is dealt twice")
            seen.add(tile)


def _due(game) -> str:
    """What the game waits for, in words."""
    if game.is_over:
        return "the match is over"
    if game.chance_phase == "deal":
        return f"hand {game.hand_number} must be dealt"
    if game.chance_phase == "draw":
        return f"seat {game.drawing_seat} must draw"
    return f"seat {game.to_move} is to play"


def games(paths: Iterable[str | Path]) -> list[WrittenGame]:
    """Every game of several files, in order."""
    return [g for path in paths for g in read_games(path)]
