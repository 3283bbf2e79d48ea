"""Options shared by every command that plays matches: rules and policies."""

from __future__ import annotations

import functools
from typing import Any, Callable

import click

from bergen_sim.rules import PRESETS, SETTINGS, Rules, parse_settings


def rule_options(command: Callable) -> Callable:
    """Add --players, --partnerships, --preset and --set to a command."""
    options = [
        click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True, help="Number of players."),
        click.option("--partnerships", is_flag=True, help="4 players as two partnerships (seats 0+2 and 1+3)."),
        click.option("--preset", type=click.Choice(sorted(PRESETS)), default="standard", show_default=True,
                     help="Named rule set."),
        click.option("--set", "settings", multiple=True, metavar="KEY=VALUE",
                     help=f"Override a rule setting ({', '.join(SETTINGS)}). Repeatable."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def policy_option(command: Callable) -> Callable:
    """Add --policy (one for all seats, or one per seat in seat order)."""
    return click.option(
        "--policy", "policies", multiple=True, default=("random",), show_default=True,
        help="Policy name or package.module:function; once for all seats or once per seat.",
    )(command)


def rules_from(players: int, partnerships: bool, preset: str, settings: tuple[str, ...]) -> Rules:
    """The Rules the rule options describe (RuleError on anything invalid)."""
    return Rules.make(players=players, partnerships=partnerships, preset=preset, **parse_settings(settings))


def with_rules(command: Callable) -> Callable:
    """Collapse the rule options into one ``rules`` keyword argument."""
    @functools.wraps(command)
    def wrapper(players: int, partnerships: bool, preset: str, settings: tuple[str, ...], **kwargs: Any):
        return command(rules=rules_from(players, partnerships, preset, settings), **kwargs)
    return rule_options(wrapper)
