"""Checks of the Python API's arguments: a wrong type gets one clear sentence, not a confusing later error.

The command line's options are typed by click; a notebook passes anything.
``simulate(players="2")`` would otherwise fail deep inside with "players must
be 2, 3 or 4, not 2", and ``simulate(policies="greedy")`` would iterate the
letters.  :func:`simulate` and :func:`compare` run their arguments through
these first; the range checks stay with the code that knows the ranges.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from bergen_sim.core.errors import BergenError, shown
from bergen_sim.core.limits import integer
from bergen_sim.model.rules import Rules
from bergen_sim.services.execution.jobs import RunOptions


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


#: the deprecated rule keywords of ``simulate`` and ``compare``, which ``rules=`` replaces (CHANGELOG.md)
RULE_KEYWORDS = ("players", "partnerships", "preset", "settings")
#: their deprecated run keywords, which ``options=`` replaces
RUN_KEYWORDS = ("workers", "scheduler", "checkpoint", "progress", "chunk_size")


def old_keywords(function: str, given: Mapping[str, Any], *groups: Sequence[str]) -> list[dict[str, Any]]:
    """The deprecated keywords ``function`` takes as ``**deprecated``, one mapping per group of names
    (each name None when not given), for :func:`rules_argument` and :func:`options_argument`.

    A name in no group is refused as Python refuses an unknown keyword argument.
    """
    known = {name for group in groups for name in group}
    for name in given:
        if name not in known:
            raise TypeError(f"{function}() got an unexpected keyword argument {name!r}")
    return [{name: given.get(name) for name in group} for group in groups]


def given_with_warning(function: str, new: str, old: Mapping[str, Any], stacklevel: int) -> dict[str, Any]:
    """The old keywords given (not None), with one DeprecationWarning naming them and their replacement."""
    given = {name: value for name, value in old.items() if value is not None}
    if given:
        names = ", ".join(f"{name}=" for name in given)
        warnings.warn(
            f"{function}({names}) is deprecated and goes in the next release: use {new}",
            DeprecationWarning,
            stacklevel=stacklevel + 1,
        )
    return given


def rules_argument(function: str, rules: Any, old: Mapping[str, Any], stacklevel: int = 3) -> Rules:
    """The rules ``function`` plays: ``rules`` (a :class:`Rules`; default the standard two-player game).

    ``old`` holds the deprecated rule keywords (:data:`RULE_KEYWORDS`), None when not given; they still make the rules, with a DeprecationWarning, and are refused beside ``rules``.
    """
    given = given_with_warning(function, "rules=Rules.make(...)", old, stacklevel)
    if given:
        if rules is not None:
            raise ArgumentError(f"{function}: give rules=Rules.make(...) or the old rule keywords, not both")
        return Rules.make(
            players=whole("players", given.get("players", 2)),
            partnerships=flag("partnerships", given.get("partnerships", False)),
            preset=given.get("preset", "standard"),
            **settings_mapping(given.get("settings")),
        )
    if rules is None:
        return Rules.make()
    if not isinstance(rules, Rules):
        raise ArgumentError(f"rules must be a bergen_sim.Rules (Rules.make(...)), not the {_shown(rules)}")
    return rules


def options_argument(function: str, options: Any, old: Mapping[str, Any], stacklevel: int = 3) -> RunOptions:
    """How ``function`` runs: ``options`` (a :class:`RunOptions`; default every core, no checkpoint).

    ``old`` holds the deprecated run keywords (:data:`RUN_KEYWORDS`), None when not given; they still make the options, with a DeprecationWarning, and are refused beside ``options``.
    """
    given = given_with_warning(function, "options=RunOptions(...)", old, stacklevel)
    if given:
        if options is not None:
            raise ArgumentError(f"{function}: give options=RunOptions(...) or the old run keywords, not both")
        return RunOptions(
            workers=optional_whole("workers", given.get("workers")),
            scheduler=optional_text("scheduler", given.get("scheduler")),
            checkpoint=optional_text("checkpoint", given.get("checkpoint")),
            progress=flag("progress", given.get("progress", False)),
            chunk_size=optional_whole("chunk_size", given.get("chunk_size")),
        )
    if options is None:
        return RunOptions()
    if not isinstance(options, RunOptions):
        raise ArgumentError(f"options must be a bergen_sim.RunOptions, not the {_shown(options)}")
    return options
