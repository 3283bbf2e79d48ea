"""A command started with a standard stream closed (``>&-``, ``<&-``) says so in one line and exits 2.

Python sets a closed stream to None: printing results to it lost them without a word, and reading moves from it
raised a traceback.  A setting a player cannot take is refused before ``play`` writes its trace file.
"""

from __future__ import annotations

import io
import shlex
import subprocess
import sys

import pytest

from bergen_sim.cli import main
from tests.helpers import error_lines

RUN = f"{shlex.quote(sys.executable)} -c 'import sys; from bergen_sim.cli import main; sys.exit(main())'"


def _shell(arguments: str, redirect: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", f"{RUN} {arguments} {redirect}"], capture_output=True, text=True, timeout=120)


def test_a_closed_standard_output_is_one_line_and_exit_2():
    done = _shell("policies", ">&-")
    assert done.returncode == 2
    assert error_lines(done.stderr.strip()) == [
        "bergen-sim: error: standard output is closed; results are printed "
        "there: run with it open (to a file, a pipe or /dev/null)"
    ]


def test_play_with_standard_input_closed_is_one_line_and_exit_2(tmp_path):
    done = _shell(f"play --seed 1 -o {shlex.quote(str(tmp_path / 'p.jsonl'))}", "<&-")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(error_lines(done.stderr.strip())) == 1 and "standard input is closed" in done.stderr
    assert not (tmp_path / "p.jsonl").exists()


def test_play_refuses_a_target_its_search_opponent_cannot_value_before_touching_the_trace(tmp_path, capsys):
    trace = tmp_path / "old.jsonl"
    trace.write_text("an earlier game\n")
    assert main(["play", "--seed", "1", "--set", "target=1000", "--opponent", "pimc", "-o", str(trace)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(error_lines(err)) == 1 and "use a target of 447 or less" in err
    assert trace.read_text() == "an earlier game\n"


def test_a_deleted_current_folder_is_one_line(tmp_path):
    """Relative paths cannot be resolved in a folder that was deleted: one line saying so, for every command."""
    gone = tmp_path / "gone"
    gone.mkdir()
    script = (
        "import os, sys; os.chdir(sys.argv[1]); os.rmdir(sys.argv[1]); from bergen_sim.cli import main; "
        "sys.exit(main(sys.argv[2:]))"
    )
    for args in (
        ["simulate", "--matches", "2", "--out", "x.csv"],
        ["trace", "-o", "t.jsonl", "--matches", "1"],
        ["simulate", "--matches", "2", "--checkpoint", "ck"],
    ):
        gone.mkdir(exist_ok=True)
        done = subprocess.run(
            [sys.executable, "-c", script, str(gone), *args], capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert "the current folder no longer exists" in done.stderr


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("columns", ["0", "5"])
def test_a_narrow_terminal_gets_the_table_as_a_list(monkeypatch, columns):
    """COLUMNS=0 printed nothing and COLUMNS=5 an empty grid: the rows now come as a list, every value kept."""
    from rich.table import Table

    from bergen_sim.cli.output import results_console

    monkeypatch.setenv("COLUMNS", columns)
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    table = Table(title="standings")
    table.add_column("policy")
    table.add_column("win rate")
    table.add_row("expert", "57.9% [57.8, 58.0]")
    table.add_row("[bold]random", "42.1%")
    results_console().print(table)
    assert terminal.getvalue().splitlines() == [
        "standings",
        "- policy: expert, win rate: 57.9% [57.8, 58.0]",
        "- policy: random, win rate: 42.1%",
    ]


def test_a_wide_terminal_keeps_the_table(monkeypatch):
    from rich.table import Table

    from bergen_sim.cli.output import results_console

    monkeypatch.setenv("COLUMNS", "120")
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    table = Table(title="standings")
    table.add_column("policy")
    table.add_row("expert")
    results_console().print(table)
    assert "│ expert │" in terminal.getvalue()


def test_names_in_tables_and_lines_are_printed_escaped(monkeypatch, tmp_path, capsys):
    """A terminal's escape sequences and line breaks in a name (a file, a table cell) are shown, not obeyed."""
    from rich.table import Table

    from bergen_sim.cli.output import results_console

    table = Table(title="t")
    table.add_column("name")
    table.add_row("o\x1b[2J\x1b]0;pwned\x07")
    results_console().print(table, "x\x1b[2Jy")
    shown = capsys.readouterr().out
    assert "\x1b" not in shown and "\x07" not in shown and "o\\x1b[2J\\x1b]0;pwned\\x07" in shown
    assert "x\\x1b[2Jy" in shown
    name = tmp_path / "n\nl\x1b[2J.jsonl"
    assert main(["trace", "--matches", "1", "-o", str(name)]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "n\\nl\\x1b[2J.jsonl" in out
