"""Options shared by every command that plays matches: rules, policies and how to run."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import click

from bergen_sim.cli.bounds import Bounded
from bergen_sim.core import feedback
from bergen_sim.core.limits import MAX_CHUNK_SIZE, MAX_WORKERS
from bergen_sim.model.rules import PLAYER_COUNTS, PRESETS, SETTINGS, Rules, parse_settings
from bergen_sim.services.arguments import policy_names
from bergen_sim.services.execution.jobs import RunOptions
from bergen_sim.services.execution.progress import on_terminal


def rule_options(command: Callable) -> Callable:
    """Add --players, --partnerships, --preset and --set to a command."""
    options = [
        click.option(
            "--players",
            type=Bounded(PLAYER_COUNTS[0], PLAYER_COUNTS[-1]),
            default=2,
            show_default=True,
            help="Number of players (6 or more need a larger set: --set domino_set=...).",
        ),
        click.option(
            "--partnerships", is_flag=True, help="4, 6 or 8 players as two partnerships (even seats against odd seats)."
        ),
        click.option(
            "--preset",
            type=click.Choice(sorted(PRESETS)),
            default="standard",
            show_default=True,
            help="Named rule set.",
        ),
        click.option(
            "--set",
            "settings",
            multiple=True,
            metavar="KEY=VALUE",
            help=f"Override a rule setting ({', '.join(SETTINGS)}). Repeatable.",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def policy_names_given(values: Sequence[str]) -> list[str]:
    """The names of repeated ``--policy`` options, each one name or a comma list, in the order given.

    >>> policy_names_given(("random,greedy", "expert"))
    ['random', 'greedy', 'expert']
    """
    return [name for value in values for name in policy_names(value)]


def policy_option(command: Callable) -> Callable:
    """Add --policy (one for all seats, or one per seat in seat order; repeated or as a comma list)."""
    option = click.option(
        "--policy",
        "policies",
        multiple=True,
        default=("random",),
        show_default=True,
        metavar="NAME[,NAME...]",
        help="Policy name or package.module:function; once for all seats or once per seat, repeated or as a "
        "comma list (--policy expert --policy random, or --policy expert,random).",
    )

    @functools.wraps(command)
    def wrapper(*args: Any, policies: Sequence[str], **kwargs: Any):
        return command(*args, policies=tuple(policy_names_given(policies)), **kwargs)

    return option(wrapper)


def rules_from(players: int, partnerships: bool, preset: str, settings: tuple[str, ...]) -> Rules:
    """The Rules the rule options describe (RuleError on anything invalid)."""
    return Rules.make(players=players, partnerships=partnerships, preset=preset, **parse_settings(settings))


def with_rules(command: Callable) -> Callable:
    """Collapse the rule options into one ``rules`` keyword argument."""

    @functools.wraps(command)
    def wrapper(players: int, partnerships: bool, preset: str, settings: tuple[str, ...], **kwargs: Any):
        return command(rules=rules_from(players, partnerships, preset, settings), **kwargs)

    return rule_options(wrapper)


#: --workers and --scheduler: where chunks are played (every command that plays has them)
PLACEMENT_OPTIONS = (
    click.option(
        "--workers",
        type=Bounded(1, MAX_WORKERS),
        default=None,
        help="Worker threads at most (default: every core; never more than the run has chunks); "
        "with --scheduler local, the cluster's size.",
    ),
    click.option(
        "--scheduler",
        metavar="local|tcp://HOST:PORT",
        default=None,
        help="Run the chunks on Dask: 'local' starts a LocalCluster, an address uses a running one.",
    ),
)


def placement_options(command: Callable) -> Callable:
    """Add --workers and --scheduler, passed on as ``workers`` and ``scheduler``."""
    for option in reversed(PLACEMENT_OPTIONS):
        command = option(command)
    return command


def run_options(command: Callable | None = None, *, resumable: bool = True) -> Callable:
    """Add --workers, --scheduler, --checkpoint and --chunk-size, collapsed into one ``run`` keyword.

    ``run`` is a :class:`bergen_sim.services.execution.jobs.RunOptions` (progress bar on when
    stdout and stderr are terminals; a command printing JSON turns it off).  None of these options
    changes results.
    ``@run_options(resumable=False)`` leaves out --checkpoint (a command that
    plays many different runs, like ``report``, has no single run to resume).
    """
    if command is None:
        return functools.partial(run_options, resumable=resumable)
    options = [
        *PLACEMENT_OPTIONS,
        click.option(
            "--checkpoint",
            type=click.Path(file_okay=False),
            default=None,
            metavar="DIR",
            help="Keep finished chunks in DIR; the same command run again resumes from them.",
        ),
        click.option(
            "--chunk-size",
            type=Bounded(1, MAX_CHUNK_SIZE),
            default=None,
            help="Matches per chunk (default: about 1/32 of the run, 1,000 to 20,000).",
        ),
    ]
    if not resumable:
        del options[2]

    @functools.wraps(command)
    def wrapper(
        workers: int | None,
        scheduler: str | None,
        chunk_size: int | None,
        checkpoint: str | None = None,
        **kwargs: Any,
    ):
        run = RunOptions(
            workers=workers,
            scheduler=scheduler,
            checkpoint=checkpoint,
            progress=on_terminal() and feedback.progress_bar_allowed(),
            chunk_size=chunk_size,
        )
        return command(run=run, **kwargs)

    for option in reversed(options):
        wrapper = option(wrapper)
    return wrapper
