"""Rule settings: defaults, presets, validation and the kernel's rules vector.

Every rule of RULES.md is a field of :class:`Rules`.  Defaults follow the
player count (hand size 6 with 2-3 players, 5 with 4 or more; target 15 with
two sides, 10 otherwise) and the set (the spinner is on for every set larger
than double-six), so ``Rules.make(players=3)`` is the standard 3-player game.

>>> Rules.make(players=2).target
15
>>> Rules.make(players=4, partnerships=True).hand_size
5
>>> Rules.make(players=2, preset="classic").lead
<Lead.ANY_DOUBLE: 'any-double'>
>>> Rules.make(players=2, lead="highest-double").lead == Lead.HIGHEST_DOUBLE == "highest-double"
True
>>> Rules.make(players=6, domino_set="double-twelve").spinner
True
>>> Rules.make(players=6)
Traceback (most recent call last):
...
bergen_sim.core.errors.RuleError: 6 players x 5 tiles + reserve 2 do not fit the 28 tiles of double-six: use domino_set=double-nine or hand_size <= 4
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Any, cast

import numpy as np

from bergen_sim.core.errors import RuleError, shown
from bergen_sim.core.i18n import num, tr, trn, trp, use
from bergen_sim.core.limits import MAX_POINTS, MAX_TARGET, short_number, whole_number
from bergen_sim.engine import layout as L


class Lead(StrEnum):
    """Which double leads a hand: the lowest (the rule book), the highest, or any double its holder picks.

    A member equals its text in the trace, the settings and the CLI (``rules.lead == "any-double"`` holds); the
    text comes from the kernel's code (:class:`bergen_sim.engine.layout.Lead`), and a test checks the members
    and the codes match one to one.
    """

    LOWEST_DOUBLE = L.code_name(L.Lead.LOWEST_DOUBLE)
    HIGHEST_DOUBLE = L.code_name(L.Lead.HIGHEST_DOUBLE)
    ANY_DOUBLE = L.code_name(L.Lead.ANY_DOUBLE)


class Settlement(StrEnum):
    """Who wins a blocked hand: German (fewest doubles, then pips), pip count, or American.

    Its texts come from the kernel's codes (:class:`bergen_sim.engine.layout.Settlement`), as :class:`Lead`'s do.
    """

    GERMAN = L.code_name(L.Settlement.GERMAN)
    PIPS = L.code_name(L.Settlement.PIPS)
    AMERICAN = L.code_name(L.Settlement.AMERICAN)


PRESETS: dict[str, dict[str, Any]] = {
    "standard": {},
    "classic": {
        "lead": "any-double",
        "out_points": 1,
        "blocked_points": 1,
        "settlement": "pips",
        "boneyard_reserve": 0,
        "reduced_headers": False,
    },
}

#: settings a user may set with ``--set KEY=VALUE`` and their kinds
SETTINGS: dict[str, type | tuple[str, ...]] = {
    "domino_set": tuple(L.DOMINO_SETS),
    "spinner": bool,
    "hand_size": int,
    "target": int,
    "lead": L.LEAD_NAMES,
    "settlement": L.SETTLEMENT_NAMES,
    "blocked_points": int,
    "out_points": int,
    "boneyard_reserve": int,
    "reduced_headers": bool,
}

_TRUE = {"1", "true", "on", "yes"}
_FALSE = {"0", "false", "off", "no"}

#: the player counts the rule book allows, and those that can play as two partnerships
PLAYER_COUNTS = range(2, 9)
PARTNERSHIP_PLAYERS = (4, 6, 8)
#: the keys of a ``bergen-trace/1`` rules object (version 2 adds ``domino_set`` and ``spinner`` in front)
RULE_KEYS_V1 = (
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
)


def _check_players(players: Any, partnerships: Any) -> None:
    """Refuse a player count outside 2..8, and partnerships without 4, 6 or 8 players (one line each)."""
    if not isinstance(partnerships, (bool, np.bool_)):  # "no" would be true
        raise RuleError(
            tr("{name} must be true or false, not {value}").format(name="partnerships", value=repr(partnerships))
        )
    if players not in PLAYER_COUNTS:
        raise RuleError(tr("players must be 2..8, not {value}").format(value=shown(players)))
    if partnerships and players not in PARTNERSHIP_PLAYERS:
        raise RuleError(tr("partnerships need 4, 6 or 8 players, not {players}").format(players=players))


def _set_max(domino_set: Any) -> int:
    """The highest number of a set by name (RuleError naming the sets)."""
    if domino_set not in L.DOMINO_SETS:
        raise RuleError(
            tr("domino_set must be one of {choices}, not {value}").format(
                choices=", ".join(L.DOMINO_SETS), value=repr(domino_set)
            )
        )
    return L.DOMINO_SETS[domino_set]


def fit_error(domino_set: str, players: int, hand_size: int, reserve: int) -> str | None:
    """Why ``players`` hands of ``hand_size`` plus a reserve of ``reserve`` do not fit the set, or None.

    The message names what to change: the smallest larger set they fit, the
    largest hand size that fits, and (when the hands alone fit) the largest reserve.

    >>> fit_error("double-six", 6, 5, 2)
    '6 players x 5 tiles + reserve 2 do not fit the 28 tiles of double-six: use domino_set=double-nine or hand_size <= 4'
    >>> fit_error("double-nine", 6, 5, 2) is None
    True
    """
    tiles = L.set_size(_set_max(domino_set))
    if players * hand_size + reserve <= tiles:
        return None
    fixes = larger_set(domino_set, players * hand_size + reserve)
    if (tiles - reserve) // players >= 1:
        fixes.append(f"hand_size <= {(tiles - reserve) // players}")
    if reserve and tiles - players * hand_size >= 0:
        fixes.append(f"boneyard_reserve <= {tiles - players * hand_size}")
    return tr(
        "{players} players x {hand_size} tiles + reserve {reserve} do not fit the {tiles} tiles of {set}: use {fixes}"
    ).format(
        players=players,
        hand_size=hand_size,
        reserve=reserve,
        tiles=tiles,
        set=domino_set,
        fixes=tr(" or ").join(fixes) or tr("fewer players"),
    )


def larger_set(domino_set: str, tiles_needed: int) -> list[str]:
    """``["domino_set=NAME"]`` for the smallest set larger than ``domino_set`` with ``tiles_needed`` tiles, or ``[]``.

    >>> larger_set("double-six", 30), larger_set("double-eighteen", 200)
    (['domino_set=double-nine'], [])
    """
    return [
        f"domino_set={name}"
        for name, most in L.DOMINO_SETS.items()
        if most > L.DOMINO_SETS[domino_set] and tiles_needed <= L.set_size(most)
    ][:1]


def redeal_probability(max_number: int, players: int, hand_size: int) -> Fraction:
    """The exact chance that a deal must be dealt again: no hand holds a double.

    The hands together are ``players * hand_size`` tiles drawn without
    replacement from the set's ``T`` tiles, ``max_number + 1`` of them doubles;
    none is a double with the hypergeometric probability ``C(T - D, k) / C(T, k)``.

    >>> redeal_probability(6, 2, 6)
    Fraction(2, 207)
    """
    tiles, doubles, dealt = L.set_size(max_number), max_number + 1, players * hand_size
    return Fraction(math.comb(tiles - doubles, dealt), math.comb(tiles, dealt))


@dataclass(frozen=True)
class Rules:
    """One complete rule set, validated on construction (field names and order as in the trace).

    ``spinner=None`` takes the set's default (on for every set larger than
    double-six); the object stores the resolved on/off value.
    """

    domino_set: str = "double-six"
    spinner: bool | None = None
    players: int = 2
    partnerships: bool = False
    hand_size: int = 6
    target: int = 15
    lead: Lead | str = Lead("lowest-double")
    settlement: Settlement | str = Settlement("german")
    blocked_points: int = 2
    out_points: int = 2
    boneyard_reserve: int = 2
    reduced_headers: bool = True

    def __post_init__(self) -> None:
        # Python callers can pass anything: refuse wrong kinds with a one-line error, and store
        # NumPy integers as plain ones (they go into JSON traces and summaries).
        for name in ("players", "hand_size", "target", "blocked_points", "out_points", "boneyard_reserve"):
            value = getattr(self, name)
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
                raise RuleError(tr("{name} must be a whole number, not {value}").format(name=name, value=repr(value)))
            object.__setattr__(self, name, int(value))
        max_number = _set_max(self.domino_set)
        if self.spinner is None:
            object.__setattr__(self, "spinner", max_number > L.DOMINO_SETS["double-six"])
        for name in ("spinner", "partnerships", "reduced_headers"):
            value = getattr(self, name)
            if not isinstance(value, (bool, np.bool_)):
                raise RuleError(tr("{name} must be true or false, not {value}").format(name=name, value=repr(value)))
            object.__setattr__(self, name, bool(value))
        _check_players(self.players, self.partnerships)
        most = self.n_tiles // self.players
        if not 1 <= self.hand_size <= most:
            # a hand size too large for this set may fit a larger one: name the smallest, as fit_error does
            # (only when too large: a hand size below 1 is wrong in every set)
            needed = self.players * self.hand_size + max(self.boneyard_reserve, 0)
            bigger = larger_set(self.domino_set, needed) if self.hand_size > most else []
            raise RuleError(
                tr("hand_size must be 1..{most} with {players} players ({tiles} tiles of {set}), not {value}").format(
                    most=most,
                    players=self.players,
                    tiles=self.n_tiles,
                    set=self.domino_set,
                    value=short_number(self.hand_size),
                )
                + "".join(tr(", or use {fix}").format(fix=fix) for fix in bigger)
            )
        if not 1 <= self.target <= MAX_TARGET:  # the limit keeps every count exact in int64 (bergen_sim.core.limits)
            raise RuleError(
                tr("target must be 1..{most}, not {value}").format(
                    most=num(MAX_TARGET, ","), value=short_number(self.target)
                )
            )
        if not isinstance(self.lead, str) or self.lead not in L.LEAD_NAMES:
            raise RuleError(
                tr("lead must be one of {choices}, not {value}").format(
                    choices=", ".join(L.LEAD_NAMES), value=repr(self.lead)
                )
            )
        if not isinstance(self.settlement, str) or self.settlement not in L.SETTLEMENT_NAMES:
            raise RuleError(
                tr("settlement must be one of {choices}, not {value}").format(
                    choices=", ".join(L.SETTLEMENT_NAMES), value=repr(self.settlement)
                )
            )
        object.__setattr__(self, "lead", Lead(self.lead))
        object.__setattr__(self, "settlement", Settlement(self.settlement))
        for name in ("blocked_points", "out_points", "boneyard_reserve"):
            if getattr(self, name) < 0:
                raise RuleError(
                    tr("{name} must be 0 or more, not {value}").format(
                        name=name, value=short_number(getattr(self, name))
                    )
                )
        for name in ("blocked_points", "out_points"):
            if getattr(self, name) > MAX_POINTS:
                raise RuleError(
                    tr("{name} must be 0..{most}, not {value}").format(
                        name=name, most=num(MAX_POINTS, ","), value=short_number(getattr(self, name))
                    )
                )
        boneyard = self.n_tiles - self.players * self.hand_size
        if self.boneyard_reserve > boneyard:
            raise RuleError(
                tr("boneyard_reserve must be 0..{most} (the boneyard holds {most} tiles), not {value}").format(
                    most=boneyard, value=short_number(self.boneyard_reserve)
                )
            )

    @property
    def max_number(self) -> int:
        """The highest number on a tile of the set (6 for double-six)."""
        return L.DOMINO_SETS[self.domino_set]

    @property
    def n_tiles(self) -> int:
        """Tiles in the set (28 for double-six); they are tile indices ``0 .. n_tiles - 1``."""
        return L.set_size(self.max_number)

    @property
    def most_hands(self) -> int:
        """Hands a match lasts at most: every lead scores at least one point, so each side can stay below the
        target for ``target - 1`` hands and the next hand ends the match.

        >>> Rules.make(players=2).most_hands
        29
        """
        return self.sides * (self.target - 1) + 1

    @property
    def redeal_probability(self) -> Fraction:
        """The exact chance that a deal holds no double and is dealt again (see :func:`redeal_probability`)."""
        return redeal_probability(self.max_number, self.players, self.hand_size)

    @property
    def sides(self) -> int:
        """Number of scoring sides: 2 with partnerships, else one per seat."""
        return L.side_total(self.players, self.partnerships)

    def side_of(self, seat: int) -> int:
        """The side a seat scores for (with partnerships: even seats side 0, odd seats side 1)."""
        return L.seat_side(seat, self.partnerships)

    @classmethod
    def make(
        cls,
        players: int = 2,
        partnerships: bool = False,
        preset: str = "standard",
        **settings: Any,
    ) -> Rules:
        """Rules for a player count, a preset and explicit settings (which win).

        Raises :class:`RuleError` with a one-line message for anything unknown
        or impossible.
        """
        if preset not in PRESETS:
            raise RuleError(
                tr("unknown preset {value}; choose one of {choices}").format(
                    value=repr(preset), choices=", ".join(PRESETS)
                )
            )
        for key in settings:
            if key not in SETTINGS:
                raise unknown_setting(key)
        _check_players(players, partnerships)
        two_sides = players == 2 or bool(partnerships)
        values: dict[str, Any] = {
            "hand_size": 6 if players <= 3 else 5,
            "target": 15 if two_sides else 10,
        }
        values.update(PRESETS[preset])
        values.update(settings)
        if "hand_size" not in settings:  # the default hand size must fit the set: say what to change
            reserve = values.get("boneyard_reserve", cls.boneyard_reserve)
            message = (
                fit_error(values.get("domino_set", cls.domino_set), players, values["hand_size"], reserve)
                if isinstance(reserve, int)
                else None
            )
            if message:
                raise RuleError(message)
        return cls(players=players, partnerships=partnerships, **values)

    @classmethod
    def from_trace(cls, rules: object) -> Rules:
        """Rules from a trace's ``rules`` object: version 2's twelve keys, or version 1's ten.

        A version-1 object (no ``domino_set``, no ``spinner``) is double-six
        without the spinner, as RULES.md says a reader takes it.  Either way
        every key must be there: a trace names all its settings.
        """
        if not isinstance(rules, Mapping):
            raise RuleError(f"a trace's rules must be an object, not {rules!r}")
        fields = [f.name for f in dataclasses.fields(cls)]
        unknown = set(rules) - set(fields)
        if unknown:
            raise RuleError(f"unknown rule field(s) {', '.join(sorted(unknown))} in trace")
        v1 = "domino_set" not in rules and "spinner" not in rules
        missing = [key for key in (RULE_KEYS_V1 if v1 else fields) if key not in rules]
        if missing:
            raise RuleError(f"the trace's rules lack {', '.join(missing)}")
        if v1:
            return cls(domino_set="double-six", spinner=False, **rules)
        return cls(**rules)

    def to_dict(self, format_version: int = 2) -> dict[str, Any]:
        """The trace's ``rules`` object, keys in the format's order (``domino_set``, ``spinner``, ``players``, ...).

        ``format_version=1`` gives the ten keys of ``bergen-trace/1`` (only for
        double-six without the spinner, the games version 1 can describe).
        """
        values = dataclasses.asdict(self)
        if format_version == 2:
            return values
        if format_version != 1 or (self.domino_set, self.spinner) != ("double-six", False):
            raise RuleError(
                f"bergen-trace/{format_version} cannot describe {self.domino_set} with spinner "
                f"{'on' if self.spinner else 'off'}"
            )
        return {key: values[key] for key in RULE_KEYS_V1}

    def to_array(self) -> np.ndarray:
        """The kernel's rules vector (see :mod:`bergen_sim.engine.layout`)."""
        vec = np.zeros(L.R_SIZE, dtype=np.int64)
        vec[L.R_PLAYERS] = self.players
        vec[L.R_PARTNERSHIPS] = int(self.partnerships)
        vec[L.R_HAND_SIZE] = self.hand_size
        vec[L.R_TARGET] = self.target
        vec[L.R_LEAD] = L.LEAD_NAMES.index(self.lead)
        vec[L.R_SETTLEMENT] = L.SETTLEMENT_NAMES.index(self.settlement)
        vec[L.R_BLOCKED_POINTS] = self.blocked_points
        vec[L.R_OUT_POINTS] = self.out_points
        vec[L.R_RESERVE] = self.boneyard_reserve
        vec[L.R_REDUCED] = int(self.reduced_headers)
        vec[L.R_MAX_NUMBER] = self.max_number
        vec[L.R_N_TILES] = self.n_tiles
        vec[L.R_SPINNER] = int(bool(self.spinner))
        return vec


def settlement_name(name: str) -> str:
    """A settlement as players name it, in the language in force (English: the setting's value, ``german``;
    Danish: *tyske regler*)."""
    return {
        "german": trp("settlement", "german"),
        "pips": trp("settlement", "pips"),
        "american": trp("settlement", "american"),
    }[name]


def summary(rules: Rules, lang: str | None = None) -> list[str]:
    """The rules in force, in a few lines a player reads before a match: the table, the deal, the lead, play,
    headers, going out, a blocked hand's settlement and the target (``lang``: default the language in force).

    >>> print(summary(Rules.make())[2])
    Lead: whoever holds the lowest double leads it; if nobody holds a double, the hand is dealt again.
    """
    with use(lang):
        return _summary(rules)


def _summary(rules: Rules) -> list[str]:
    seats = rules.players
    doubles = rules.max_number + 1
    table = tr("Bergen for {players} players, a {set} set ({tiles} tiles, {doubles} doubles)").format(
        players=seats, set=rules.domino_set, tiles=rules.n_tiles, doubles=doubles
    )
    if rules.spinner:
        table += tr("; the led double is a spinner, open on four arms")
    if rules.partnerships:
        even, odd = (", ".join(str(s) for s in range(first, seats, 2)) for first in (0, 1))
        table += tr(". Two partnerships: seats {even} against seats {odd}; partners score together.").format(
            even=even, odd=odd
        )
    else:
        table += tr(". Seats 0 to {last} play in turn, each for themselves.").format(last=seats - 1)
    rest = rules.n_tiles - seats * rules.hand_size
    deal = trn(
        "Deal: {n} tile to each player; the other {rest} are the boneyard, face down",
        "Deal: {n} tiles to each player; the other {rest} are the boneyard, face down",
        rules.hand_size,
    ).format(n=rules.hand_size, rest=rest)
    deal += (
        trn(
            ", and its last {n} tile is never drawn.",
            ", and its last {n} tiles are never drawn.",
            rules.boneyard_reserve,
        ).format(n=rules.boneyard_reserve)
        if rules.boneyard_reserve
        else tr(", which may be drawn to the last tile.")
    )
    lead = {
        "lowest-double": tr(
            "Lead: whoever holds the lowest double leads it; if nobody holds a double, the hand is dealt again."
        ),
        "highest-double": tr(
            "Lead: whoever holds the highest double leads it; if nobody holds a double, the hand is dealt again."
        ),
        "any-double": tr(
            "Lead: each hand opens at the next seat; the first seat from there holding a double "
            "leads one of its own choice; if nobody holds a double, the hand is dealt again."
        ),
    }
    headers = tr(
        "Headers: the led double scores 2 points (a double-header); after a play, ends that all show the "
        "same number score 2 points (a double-header), 3 if one of them is a double (a triple-header)."
    )
    headers += " " + (
        tr("Near the target a header is cut: 1 point when 2 or fewer are needed, at most 2 when 3 are needed.")
        if rules.reduced_headers
        else tr("Headers are never cut near the target.")
    )
    settle = {
        "german": tr("German settlement: the fewest doubles wins, then the fewest pips"),
        "pips": tr("pip count: the fewest pips wins"),
        "american": tr(
            "American settlement: a side without doubles beats a side with them, then the fewest "
            "pips (doubles not counted when every side holds one)"
        ),
    }
    return [
        table,
        deal,
        lead[rules.lead],
        tr(
            "Play: a tile goes on an end showing one of its numbers; a player who cannot play draws from the boneyard "
            "until a tile fits, and passes if none does."
        ),
        headers,
        trn(
            "Going out (playing your last tile): {n} point.",
            "Going out (playing your last tile): {n} points.",
            rules.out_points,
        ).format(n=rules.out_points),
        trn(
            "Blocked hand (every player passes in turn): {n} point to the side that wins the settlement: {how}; "
            "a tie scores nobody.",
            "Blocked hand (every player passes in turn): {n} points to the side that wins the settlement: {how}; "
            "a tie scores nobody.",
            rules.blocked_points,
        ).format(n=rules.blocked_points, how=settle[rules.settlement]),
        tr("The match goes to the first side to reach {target} points.").format(target=num(rules.target, ",")),
    ]


def unknown_setting(key: object) -> RuleError:
    """The error for a setting there is none of, naming those there are."""
    return RuleError(
        tr("unknown setting {key}; settings are {settings}").format(key=shown(key), settings=", ".join(SETTINGS))
    )


def parse_setting(key: str, text: str) -> Any:
    """Parse one ``KEY=VALUE`` setting from the command line."""
    if key not in SETTINGS:
        raise unknown_setting(key)
    kind = SETTINGS[key]
    if kind is int:
        number = whole_number(text)
        if number is None:
            raise RuleError(tr("setting {key} takes a whole number, not {value}").format(key=key, value=shown(text)))
        return number
    if kind is bool:
        low = text.lower()
        if low in _TRUE | _FALSE:
            return low in _TRUE
        raise RuleError(tr("setting {key} takes on/off (true/false), not {value}").format(key=key, value=shown(text)))
    names = cast(tuple[str, ...], kind)  # the kinds left: a list of names
    if text not in names:
        raise RuleError(
            tr("setting {key} must be one of {choices}, not {value}").format(
                key=key, choices=", ".join(names), value=shown(text)
            )
        )
    return text


def file_setting(key: str, value: Any) -> Any:
    """A setting's value as a file (TOML, JSON) gives it: of the type the setting takes, then checked as
    :func:`parse_setting` checks text (``target = "10"`` is text, not 10; ``"false"`` is not a boolean)."""
    kind = SETTINGS.get(key)
    wanted, takes = (
        (int, tr("setting {key} takes a whole number, not {value}"))
        if kind is int
        else (bool, tr("setting {key} takes true or false, not {value}"))
        if kind is bool
        else (str, tr("setting {key} takes a name, not {value}"))
    )
    if kind is not None and (not isinstance(value, wanted) or (kind is int and isinstance(value, bool))):
        raise RuleError(takes.format(key=key, value=shown(value)))
    return parse_setting(key, str(value))


def parse_settings(pairs: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """Parse ``["target=10", "lead=highest-double"]`` into a settings dict."""
    settings: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise RuleError(
                tr("--set takes KEY=VALUE, not {pair}; settings are {settings}").format(
                    pair=repr(pair), settings=", ".join(SETTINGS)
                )
            )
        key = key.strip()
        value = parse_setting(key, value.strip())
        if key in settings:  # the last one winning would silently drop what the user typed first
            raise RuleError(tr("--set {key} is given twice; give each setting once").format(key=key))
        settings[key] = value
    return settings
