"""Checks of the Python API's arguments: a wrong type gets one clear sentence, not a confusing later error.

The command line's options are typed by click; a notebook passes anything.
``simulate(players="2")`` would otherwise fail deep inside with "players must
be 2, 3 or 4, not 2", and ``simulate(policies="greedy")`` would iterate the
letters.  :func:`simulate` and :func:`compare` run their arguments through
these first; the range checks stay with the code that knows the ranges.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bergen_sim.core.errors import BergenError, shown
from bergen_sim.core.limits import integer


class ArgumentError(BergenError, TypeError):
    """An API argument of the wrong type."""


def _shown(value: Any) -> str:
    """The type and (cut) value of a wrong argument: ``str 'x'``."""
    return f"{type(value).__name__} {shown(value)}"


def whole(name: str, value: Any) -> int:
    """``value`` as an int; refuses strings, floats and booleans (``players="2"`` is an error, not a 2)."""
    try:
        return integer(value)
    except TypeError:
        raise ArgumentError(f"{name} must be a whole number (an int), not the {_shown(value)}") from None


def optional_whole(name: str, value: Any) -> int | None:
    """None, or :func:`whole`."""
    return None if value is None else whole(name, value)


def flag(name: str, value: Any) -> bool:
    """``value`` as a bool; refuses anything but True and False (``"no"`` would be true)."""
    if not isinstance(value, bool):
        raise ArgumentError(f"{name} must be True or False, not the {_shown(value)}")
    return value


def policy_names(value: Any, name: str = "policies") -> list[str]:
    """Policy names from a list of names or one string (names separated by commas, as on the command line).

    >>> policy_names("greedy"), policy_names("greedy,random"), policy_names(("expert",))
    (['greedy'], ['greedy', 'random'], ['expert'])
    """
    if isinstance(value, str):
        return [part.strip() for part in value.split(",")]
    if isinstance(value, Mapping) or not hasattr(value, "__iter__"):
        raise ArgumentError(f"{name} must be a policy name or a list of them, not the {_shown(value)}")
    names = list(value)
    wrong = [item for item in names if not isinstance(item, str)]
    if wrong:
        raise ArgumentError(f"{name} must be policy names (strings), not the {_shown(wrong[0])}")
    return names


def settings_mapping(value: Any) -> dict[str, Any]:
    """Rule settings as a dict of name -> value (None means none)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ArgumentError(f"settings must be a dict of rule settings, e.g. {{'target': 12}}, not the {_shown(value)}")
    return dict(value)


def optional_text(name: str, value: Any) -> str | None:
    """None or a string (a path or a scheduler address)."""
    if value is None or isinstance(value, str):
        return value
    if hasattr(value, "__fspath__"):
        return str(value.__fspath__())
    raise ArgumentError(f"{name} must be a string, not the {_shown(value)}")


def checked_rules(rules: Any, players: Any, partnerships: Any, preset: Any, settings: Any):
    """The rules a service plays (:func:`bergen_sim.model.rules.rules_for`), the keyword forms' types checked first."""
    from bergen_sim.model.rules import rules_for

    if rules is None:
        return rules_for(
            players=whole("players", players),
            partnerships=flag("partnerships", partnerships),
            preset=preset,
            settings=settings_mapping(settings),
        )
    return rules_for(rules, players=players, partnerships=partnerships, preset=preset, settings=settings)
