"""Options that belong together, declared once and passed to a command as one object.

Kept free of the engine and NumPy (click only), so that a command whose ``--help`` must not load them can use it.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from typing import Any

import click

from bergen_sim.cli.bounds import SEED, Bounded
from bergen_sim.core.limits import MAX_WORLDS, MIN_WORLDS

#: search.position.PLAYERS and DEFAULT_PLAYER (not imported: they load the engine; tests/services/test_review.py
#: checks they agree)
PLAYERS = ("reader", "pimc", "ismcts")
DEFAULT_PLAYER = "ismcts"
#: search.rollout.BASE_POLICIES and search.position.DEFAULT_BASE (not imported, as above)
BASE_POLICIES = ("random", "first", "greedy", "defensive", "doubles-first", "heavy-first", "expert")
DEFAULT_BASE = "expert"
DEFAULT_BATCH = 1_000


def option_group(
    keyword: str, options: Sequence[Callable], build: Callable[..., Any]
) -> Callable[[Callable], Callable]:
    """A decorator adding ``options`` to a command and passing their values as one keyword, ``build(**values)``.

    The options keep their order, help and defaults in ``--help``; only the command's signature changes.
    """

    def decorate(command: Callable) -> Callable:
        names: list[str] = []

        @functools.wraps(command)
        def wrapper(*args: Any, **kwargs: Any):
            values = {name: kwargs.pop(name) for name in names}
            return command(*args, **{keyword: build(**values)}, **kwargs)

        for option in reversed(options):
            wrapper = option(wrapper)
        # click records each option on the function as it is applied: these are the last len(options)
        names.extend(param.name for param in wrapper.__click_params__[-len(options) :])  # type: ignore[attr-defined]
        return wrapper

    return decorate


@dataclasses.dataclass(frozen=True)
class SearchOptions:
    """How a search ranks the moves of a decision: ``analyze``'s and ``review``'s --policy, --base, --worlds,
    --batch and --seed."""

    policy: str
    base: str
    worlds: int
    batch: int
    seed: int

    def keywords(self) -> dict[str, Any]:
        """The keyword arguments of :func:`bergen_sim.services.position.analyze` and ``game_review.review``."""
        return dataclasses.asdict(self)


def search_options(*, policy_help: str, worlds_default: int, worlds_help: str, seed_help: str) -> Callable:
    """Add --policy, --base, --worlds, --batch and --seed, collapsed into one ``search`` keyword (a SearchOptions).

    The two commands differ only in the words of some helps and in their world budget.
    """
    return option_group(
        "search",
        [
            click.option(
                "--policy",
                type=click.Choice(PLAYERS),
                default=DEFAULT_PLAYER,
                show_default=True,
                help=policy_help,
            ),
            click.option(
                "--base",
                type=click.Choice(BASE_POLICIES),
                default=DEFAULT_BASE,
                show_default=True,
                help="Policy that plays every seat in the search's rollouts (the search's own setting, as in "
                "pimc:base=...).",
            ),
            click.option(
                "--worlds",
                type=Bounded(MIN_WORLDS, MAX_WORLDS),
                default=worlds_default,
                show_default=True,
                help=worlds_help,
            ),
            click.option(
                "--batch",
                type=Bounded(1, MAX_WORLDS),
                default=DEFAULT_BATCH,
                show_default=True,
                help="Worlds between checks whether the best move is separated.",
            ),
            click.option("--seed", type=SEED, default=0, show_default=True, help=seed_help),
        ],
        SearchOptions,
    )
