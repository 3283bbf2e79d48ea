"""Old option spellings that still work for one release, each with a one-line notice (CHANGELOG.md lists them).

Light on purpose: a command whose ``--help`` loads no engine (``review``) declares its old spellings too.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import click
from click.core import ParameterSource

from bergen_sim.core import feedback


def deprecated(old: str, new: str) -> None:
    """The one-line notice of an old spelling that still works for this release (CHANGELOG.md lists them)."""
    feedback.info(f"{old} is deprecated and goes in the next release: use {new}")


def old_spelling(old: str, new: str, name: str, command_name: str, note: str = "", **attrs: Any) -> Callable:
    """Add ``old``, a hidden spelling of option ``new`` (parameter ``name``) that works for this release.

    Given alone, it says the :func:`deprecated` notice and its value is passed on as ``name``; given
    with ``new`` it is refused in one line (exit status 2), since one of the two would be dropped.  The
    decorator goes above the options it renames (its wrapper runs first).  ``note`` follows the old
    spelling in the notice (what it meant); ``attrs`` are click's (the new option's ``type``, ``metavar``).
    """
    hidden = f"old_{name}"
    metavar = f" {attrs['metavar']}" if attrs.get("metavar") else ""
    option = click.option(old, hidden, hidden=True, default=None, **attrs)

    def decorate(command: Callable) -> Callable:
        @functools.wraps(command)
        def wrapper(*args: Any, **kwargs: Any):
            value = kwargs.pop(hidden)
            if value is not None:
                ctx = click.get_current_context()
                if ctx.get_parameter_source(name) is ParameterSource.COMMANDLINE:
                    raise click.UsageError(f"{old} is the old spelling of {new}: give {new} alone", ctx)
                deprecated(f"{command_name} {old}{metavar}{note}", f"{new}{metavar}")
                kwargs[name] = value
            return command(*args, **kwargs)

        return option(wrapper)

    return decorate
