"""Rule settings: defaults, presets, validation and the kernel's rules vector.

Every rule of RULES.md is a field of :class:`Rules`.  Defaults follow the
player count (hand size 6 with 2-3 players, 5 with 4; target 15 with two sides,
10 otherwise), so ``Rules.make(players=3)`` is the standard 3-player game.

>>> Rules.make(players=2).target
15
>>> Rules.make(players=4, partnerships=True).hand_size
5
>>> Rules.make(players=2, preset="classic").settlement
'pips'
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from bergen_sim.engine import layout as L
from bergen_sim.errors import RuleError
from bergen_sim.limits import MAX_POINTS, MAX_TARGET, short_number

PRESETS: dict[str, dict[str, Any]] = {
    "standard": {},
    "classic": {
        "lead": "highest-double",
        "out_points": 1,
        "blocked_points": 1,
        "settlement": "pips",
        "boneyard_reserve": 0,
        "reduced_headers": False,
    },
}

#: settings a user may set with ``--set KEY=VALUE`` and their kinds
SETTINGS = {
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


@dataclass(frozen=True)
class Rules:
    """One complete rule set, validated on construction (field names as in the trace)."""

    domino_set: str = "double-six"
    spinner: bool = False
    players: int = 2
    partnerships: bool = False
    hand_size: int = 6
    target: int = 15
    lead: str = "lowest-double"
    settlement: str = "german"
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
                raise RuleError(f"{name} must be a whole number, not {value!r}")
            object.__setattr__(self, name, int(value))
        for name in ("partnerships", "reduced_headers"):
            value = getattr(self, name)
            if not isinstance(value, (bool, np.bool_)):
                raise RuleError(f"{name} must be true or false, not {value!r}")
            object.__setattr__(self, name, bool(value))
        if self.players not in range(2, L.MAX_SEATS + 1):
            raise RuleError(f"players must be 2..{L.MAX_SEATS}, not {self.players}")
        if self.partnerships and self.players not in (4, 6, 8):
            raise RuleError(f"partnerships need 4, 6 or 8 players, not {self.players}")
        most = self.n_tiles // self.players
        if not 1 <= self.hand_size <= most:
            raise RuleError(
                f"hand_size must be 1..{most} with {self.players} players (28 tiles), not {short_number(self.hand_size)}"
            )
        if not 1 <= self.target <= MAX_TARGET:  # the limit keeps every count exact in int64 (bergen_sim.limits)
            raise RuleError(f"target must be 1..{MAX_TARGET:,}, not {short_number(self.target)}")
        if self.lead not in L.LEAD_NAMES:
            raise RuleError(f"lead must be one of {', '.join(L.LEAD_NAMES)}, not {self.lead!r}")
        if self.settlement not in L.SETTLEMENT_NAMES:
            raise RuleError(
                f"settlement must be one of {', '.join(L.SETTLEMENT_NAMES)}, not {self.settlement!r}"
            )
        for name in ("blocked_points", "out_points", "boneyard_reserve"):
            if getattr(self, name) < 0:
                raise RuleError(f"{name} must be 0 or more, not {short_number(getattr(self, name))}")
        for name in ("blocked_points", "out_points"):
            if getattr(self, name) > MAX_POINTS:
                raise RuleError(f"{name} must be 0..{MAX_POINTS:,}, not {short_number(getattr(self, name))}")
        boneyard = self.n_tiles - self.players * self.hand_size
        if self.boneyard_reserve > boneyard:
            raise RuleError(
                f"boneyard_reserve must be 0..{boneyard} (the boneyard holds {boneyard} tiles), "
                f"not {short_number(self.boneyard_reserve)}"
            )

    @property
    def max_number(self) -> int:
        """The set's highest number (6 for double-six)."""
        return L.DOMINO_SETS[self.domino_set]

    @property
    def n_tiles(self) -> int:
        """Tiles in the set."""
        return L.set_size(self.max_number)

    @property
    def sides(self) -> int:
        """Number of scoring sides: 2 with partnerships, else one per seat."""
        return 2 if self.partnerships else self.players

    def side_of(self, seat: int) -> int:
        """The side a seat scores for."""
        return seat % 2 if self.partnerships else seat

    @classmethod
    def make(
        cls,
        players: int = 2,
        partnerships: bool = False,
        preset: str = "standard",
        **settings: Any,
    ) -> "Rules":
        """Rules for a player count, a preset and explicit settings (which win).

        Raises :class:`RuleError` with a one-line message for anything unknown
        or impossible.
        """
        if preset not in PRESETS:
            raise RuleError(f"unknown preset {preset!r}; choose one of {', '.join(PRESETS)}")
        for key in settings:
            if key not in SETTINGS:
                raise RuleError(f"unknown setting {key!r}; settings are {', '.join(SETTINGS)}")
        two_sides = players == 2 or partnerships
        values: dict[str, Any] = {
            "hand_size": 5 if players >= 4 else 6,
            "target": 15 if two_sides else 10,
        }
        values.update(PRESETS[preset])
        values.update(settings)
        values.setdefault("spinner", values.get("domino_set", "double-six") != "double-six")
        return cls(players=players, partnerships=partnerships, **values)

    @classmethod
    def from_trace(cls, rules: Mapping[str, Any]) -> "Rules":
        """Rules from a trace's ``rules`` object."""
        fields = {f.name for f in dataclasses.fields(cls)}
        unknown = set(rules) - fields
        if unknown:
            raise RuleError(f"unknown rule field(s) {', '.join(sorted(unknown))} in trace")
        return cls(**rules)

    def to_dict(self) -> dict[str, Any]:
        """The trace's ``rules`` object (key order as in bergen-trace/1)."""
        return dataclasses.asdict(self)

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
        vec[L.R_SPINNER] = int(self.spinner)
        return vec


def rules_for(rules: "Rules | None" = None, *, players: int = 2, partnerships: bool = False,
              preset: str = "standard", settings: Mapping[str, Any] | None = None) -> Rules:
    """The rules a service function plays: a :class:`Rules` object, or the keyword settings that make one.

    Every public entry point (``simulate``, ``compare``, ...) takes either form,
    never both (a RuleError says so):

    >>> rules_for(Rules.make(players=3)).players, rules_for(players=3).players
    (3, 3)
    """
    if rules is None:
        return Rules.make(players=players, partnerships=partnerships, preset=preset, **dict(settings or {}))
    if not isinstance(rules, Rules):
        raise RuleError(f"rules must be a bergen_sim.Rules (Rules.make(...)), not {type(rules).__name__}")
    if (players, partnerships, preset, settings) != (2, False, "standard", None):
        raise RuleError("give either rules=Rules.make(...) or players/partnerships/preset/settings, not both")
    return rules


def parse_setting(key: str, text: str) -> Any:
    """Parse one ``KEY=VALUE`` setting from the command line."""
    if key not in SETTINGS:
        raise RuleError(f"unknown setting {key!r}; settings are {', '.join(SETTINGS)}")
    kind = SETTINGS[key]
    if kind is int:
        try:
            return int(text)
        except ValueError:
            raise RuleError(f"setting {key} takes a whole number, not {text!r}") from None
    if kind is bool:
        low = text.lower()
        if low in _TRUE | _FALSE:
            return low in _TRUE
        raise RuleError(f"setting {key} takes on/off (true/false), not {text!r}")
    if text not in kind:
        raise RuleError(f"setting {key} must be one of {', '.join(kind)}, not {text!r}")
    return text


def parse_settings(pairs: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """Parse ``["target=10", "lead=highest-double"]`` into a settings dict."""
    settings: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise RuleError(f"--set takes KEY=VALUE, not {pair!r}; settings are {', '.join(SETTINGS)}")
        settings[key.strip()] = parse_setting(key.strip(), value.strip())
    return settings
