"""The README's examples work as printed: its Python runs, and every command it or a page of the user guide (docs/,
research/) shows names a real command and options it has."""

from __future__ import annotations

import functools
import re
import shlex
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from bergen_sim.cli import cli

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
#: the pages whose shell examples a user copies: the README, the user guide and the studies' notes
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "research").glob("*/README.md"))]


def _blocks(language: str, text: str = README) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


def _commands() -> list[tuple[str, list[str]]]:
    """Every ``bergen-sim ...`` command of the pages' shell blocks (page, words), comments and continuations
    joined."""
    lines = []
    for page in PAGES:
        lines += [(page.relative_to(ROOT).as_posix(), words) for words in _page_commands(page.read_text())]
    return lines


def _page_commands(text: str) -> list[list[str]]:
    lines = []
    inline = re.findall(r"(?<!`)`(bergen-sim [^`\n]+)`(?!`)", text)  # a command quoted in running text
    for block in [*_blocks("(?:bash|sh)", text), *inline]:
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


@pytest.mark.parametrize("page, words", _commands(), ids=lambda w: w if isinstance(w, str) else " ".join(w[:2]))
def test_every_shown_command_names_a_command_and_options_it_has(page, words):
    if words[0].startswith("-"):  # an option of bergen-sim itself (--help, --version)
        assert re.search(rf"(^|[\s,/]){re.escape(words[0])}\b", _help(None), flags=re.M), (page, words[0])
        return
    command = cli.get_command(click.Context(cli), words[0])
    assert command is not None, f"{page}: no command {words[0]!r}"
    for option in (w.split("=")[0] for w in words[1:] if w.startswith("-") and w != "-"):
        assert re.search(rf"(^|[\s,/]){re.escape(option)}\b", _help(words[0]), flags=re.M), (page, words[0], option)


@functools.cache
def _help(name: str | None) -> str:
    """The --help text of command ``name``, or of bergen-sim itself."""
    return CliRunner().invoke(cli, [*([name] if name else []), "--help"], terminal_width=200).output
