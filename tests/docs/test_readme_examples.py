"""The README's examples work as printed: its Python runs, and every command it or a page of the user guide (docs/,
research/) shows names a real command and options it has."""

from __future__ import annotations

import functools
import importlib.util
import re
import shlex
import shutil
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


def _shell_commands(text: str, languages: tuple[str, ...] = ("bash",)) -> list[list[str]]:
    """Every ``bergen-sim ...`` command of a page's shell blocks, comments and continuations joined (``> FILE``
    kept as its last two words), the body of a ``for VAR in A B ...; do`` loop once per value."""
    lines = []
    for block in (b for language in languages for b in _blocks(language, text)):
        loop: tuple[str, list[str]] | None = None
        for line in re.sub(r"\\\n\s*", " ", block).splitlines():
            if found := re.match(r"\s*for (\w+) in (.+?); do\s*$", line):
                loop = found.group(1), found.group(2).split()
            elif line.strip() == "done":
                loop = None
            for part in line.split("&&"):
                words = shlex.split(part.split("#")[0])
                if words[:1] != ["bergen-sim"]:
                    continue
                for value in loop[1] if loop else [None]:
                    lines.append([w.replace(f"${loop[0]}", value) if loop else w for w in words[1:]])
    return lines


# --- the shell commands of docs/*.md --------------------------------------------------------------------------------

DOCS = {path.name: path.read_text() for path in sorted((ROOT / "docs").glob("*.md"))}
#: at most this many matches per command: a doc's command runs as printed but for its size (the docs show 10^8)
MOST_MATCHES = 1_000
#: the same with a search player (thousands of times slower per match)
SEARCH_MATCHES = 10
#: deal sets of a luck-adjusted comparison (each replays every chance event with play-outs: 17 s for 1,000)
LUCK_DEALS = 200
#: matches per configuration for a report the docs show at full scale (10^6 per configuration)
REPORT_MATCHES = "2000"
#: what marks a command slow: a search player compiles for minutes on a cold cache (analyze and review search too),
#: a plug-in (``module:function``) compiles a loop of its own, and a report plays dozens of configurations
SEARCHING = ("pimc", "reader", "ismcts")
#: the options and redirection that name a file a command writes
WRITES = ("-o", "--out", ">")


def _doc_commands() -> list[tuple[str, int, list[str]]]:
    """(doc, position, words) of every ``bergen-sim`` command of docs/*.md's shell blocks, in order."""
    return [
        (name, k, words) for name, text in DOCS.items() for k, words in enumerate(_shell_commands(text, ("bash", "sh")))
    ]


def _inputs(words: list[str]) -> list[str]:
    """The files a command reads: review's and run's file, analyze's --position and --game."""
    read = [words[1]] if words[0] in ("review", "run") and len(words) > 1 and not words[1].startswith("-") else []
    return read + [words[k + 1] for k, w in enumerate(words[:-1]) if w in ("--position", "--game")]


def _not_run(words: list[str], written: set[str]) -> str | None:
    """Why a doc's command is not run here (None: it is); ``written``: the files the doc's earlier commands write."""
    if words[0] == "play":
        return "interactive (tests/cli/test_play_cli.py plays it)"
    if any("HOST" in w for w in words):
        return "names the reader's cluster"
    if "--scheduler" in words and importlib.util.find_spec("distributed") is None:
        return "needs the dask extra"
    missing = [f for f in _inputs(words) if f not in written and not (ROOT / f).exists()]
    return f"reads the reader's own {missing[0]}" if missing else None


def _searches(words: list[str]) -> bool:
    return any(s in " ".join(words) for s in SEARCHING)


def _as_run(words: list[str]) -> list[str]:
    """The command with its size capped (MOST_MATCHES, SEARCH_MATCHES with a search player, LUCK_DEALS with the luck
    adjustment; REPORT_MATCHES for a full-scale report)."""
    out = list(words)
    most = SEARCH_MATCHES if _searches(words) else LUCK_DEALS if "luck" in words else MOST_MATCHES
    size = "--deals" if out[0] == "compare" else "--matches"  # compare counts deal sets
    for k, w in enumerate(out[:-1]):
        if w == size and int(out[k + 1]) > most:
            out[k + 1] = str(most)
    if out[0] in ("simulate", "compare") and size not in out:
        out += [size, str(most)]
    if out[0] == "report" and not {"--quick", "--matches", "--list"} & set(out):
        out += ["--matches", REPORT_MATCHES]
    return out


def _invoke(words: list[str]) -> None:
    """Run a command in the current folder; ``> FILE`` writes its standard output there."""
    words, target = (words[:-2], words[-1]) if words[-2:-1] == [">"] else (words, None)
    result = CliRunner().invoke(cli, _as_run(words), catch_exceptions=False)
    assert result.exit_code == 0, (words, result.output[-2000:])
    if target:
        Path(target).write_text(result.stdout)


def _doc_params() -> list:
    params = []
    for name, k, words in _doc_commands():
        text = " ".join(words)
        slow = (
            words[0] in ("analyze", "review", "report")
            and "--list" not in words
            or "--scheduler" in words
            or _searches(words)
            or any("." in p.partition(":")[0] and ":" in p for w in words for p in w.split(","))
        )
        params.append(pytest.param(name, k, marks=[pytest.mark.slow] if slow else [], id=f"{name}: {text[:60]}"))
    return params


@pytest.mark.parametrize("name, position", _doc_params())
def test_every_docs_command_runs(name, position, tmp_path, monkeypatch):
    """A doc's command exits 0, run in an empty folder holding the repository's examples/ (the docs run them
    from its root), after the doc's earlier commands that write a file it reads."""
    commands = [words for doc, _, words in _doc_commands() if doc == name]
    words = commands[position]
    producers = {
        words_[k + 1]: words_ for words_ in commands[:position] for k, w in enumerate(words_[:-1]) if w in WRITES
    }
    reason = _not_run(words, set(producers))
    if reason:
        pytest.skip(reason)
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    for needed in _inputs(words):
        if needed in producers:
            _invoke(producers[needed])
    _invoke(words)


#: a block that includes a file (pymdownx.snippets), as docs/compare.md shows a saved output of docs/examples/
_SNIPPET = re.compile(r'--8<-- "([^"]+)"\n')


def _shown_outputs() -> list[tuple[str, str, str]]:
    """(doc, command, output) of every ``text`` block that shows ``$ bergen-sim ...`` and what it printed."""
    shown = []
    for name, text in DOCS.items():
        for block in re.findall(r"```text\n(.*?)```", text, flags=re.S):
            included = _SNIPPET.fullmatch(block)  # the site's snippets put a saved output in the block
            first, _, output = ((ROOT / included[1]).read_text() if included else block).partition("\n")
            if first.startswith("$ bergen-sim "):
                shown.append((name, first[len("$ bergen-sim ") :], output))
    return shown


#: a line of run time (seconds) in a table's caption: the one part of a shown output that differs run to run
_TIMING = re.compile(r"\d[\d.]* s \+ \d[\d.]* s start-up")


@pytest.mark.parametrize(
    "name, command, output",
    [
        pytest.param(
            *shown,
            marks=[pytest.mark.slow] if any(s in shown[1] for s in SEARCHING + ("analyze",)) else [],
            id=f"{shown[0]}: {shown[1][:40]}",
        )
        for shown in _shown_outputs()
    ],
)
def test_docs_shown_outputs_are_what_the_command_prints(name, command, output):
    result = CliRunner().invoke(cli, shlex.split(command), catch_exceptions=False, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output

    def plain(text: str) -> list[str]:
        return [_TIMING.sub("(time)", line.rstrip()) for line in text.strip("\n").splitlines()]

    assert plain(result.stdout) == plain(output)
