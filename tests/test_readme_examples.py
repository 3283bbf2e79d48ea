"""The README's examples work as printed: its Python runs, and every command it shows names real options."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from bergen_sim.cli import cli

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.S)


def _commands() -> list[list[str]]:
    """Every ``bergen-sim ...`` command of the README's shell blocks, comments and continuations joined."""
    lines = []
    for block in _blocks("bash"):
        text = re.sub(r"\\\n\s*", " ", block)
        for line in text.splitlines():
            for part in line.split("&&"):
                words = shlex.split(part.split("#")[0])
                if words[:1] == ["bergen-sim"]:
                    lines.append(words[1:])
    return lines


def test_the_readme_python_runs():
    for block in _blocks("python"):
        exec(compile(block, "README.md", "exec"), {})


@pytest.mark.parametrize("words", _commands(), ids=lambda w: " ".join(w[:2]))
def test_every_readme_command_names_a_command_and_options_it_has(words):
    command = cli.get_command(click.Context(cli), words[0])
    assert command is not None, f"no command {words[0]!r}"
    help_text = CliRunner().invoke(cli, [words[0], "--help"], terminal_width=200).output
    for option in (w.split("=")[0] for w in words[1:] if w.startswith("-")):
        assert re.search(rf"(^|[\s,/]){re.escape(option)}\b", help_text, flags=re.M), (words[0], option)
