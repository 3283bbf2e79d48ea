"""``bergen-sim play`` with scripted input: whole matches, hostile input, hints, the saved trace.

Most tests run the command in-process with click's CliRunner (``input=``);
one runs the console module in a subprocess with a real pipe for stdin.
"""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import subprocess
import sys

import pytest
from click.testing import CliRunner

from bergen_sim.cli import cli, main, play
from bergen_sim.services import game as game_module
from bergen_sim.services.files.trace import read_jsonl, replay_match
from bergen_sim.services.game import replay
from tests.helpers import english_left, error_lines


def run(args: list[str], text: str):
    return CliRunner().invoke(cli, ["play", *args], input=text, catch_exceptions=False)


def test_a_whole_match_by_numbers_is_saved_and_replays_like_a_golden_trace(tmp_path):
    out = tmp_path / "my game.jsonl"
    result = run(["--seed", "4", "--opponent", "greedy", "-o", str(out)], "1\n" * 400)
    assert result.exit_code == 0, result.output
    assert "wins the match" in result.output or "you win the match" in result.output
    assert f"trace saved to {out}" in result.output
    # the last line is the command that reviews this game, its path quoted for a shell
    review = result.output.splitlines()[-1]
    assert review.startswith("review it: ")
    assert shlex.split(review.removeprefix("review it: ")) == [
        "bergen-sim",
        "review",
        os.path.realpath(out),
        "--match",
        "0",
    ]
    events = read_jsonl(out)
    assert events[0]["policies"] == ["human", "greedy"] and events[-1]["type"] == "match_end"
    assert json.dumps(replay_match(events)) == json.dumps(events)  # the compiled engine agrees
    assert json.dumps(replay(events).events) == json.dumps(events)
    # the board, hand, scores, boneyard and numbered moves are shown before each move
    for part in ("line    [", "ends    ", "scores you ", "boneyard ", "hand    ", "  1) "):
        assert part in result.output


def test_a_whole_match_in_danish_uses_the_players_words_and_saves_the_same_trace(tmp_path):
    out = tmp_path / "spil.jsonl"
    # seed 8: a blocked hand, passes, triple-headers and a header the near-target cut leaves ambiguous
    result = run(["--seed", "8", "--opponent", "greedy", "-o", str(out), "--lang", "da"], "9\nx\n" + "1\n" * 400)
    assert result.exit_code == 0, result.output
    text = result.output
    for words in (
        "Bergen, 2 spillere, der spilles til 15; du har plads 0",
        "-- runde 1, udgivning: du får ",
        "du spiller 0-0 ud (dobbelt match, +2)",
        "række   [",
        "ender   ",
        "stilling: du ",
        "puljen ",
        "hånd    ",
        "dit træk [",
        "9 er ikke et træk her: skriv 1..",
        "'x' er ikke et træk: skriv 1..",
        "plads 1 (greedy) melder pas",
        "du melder pas",
        "blokeret runde: du vinder afregningen (+2)",
        "(tredobbelt match, +3)",
        "(match, +2)",
        "tvunget: ",
        "går ud (+2)",
        " vinder kampen, stilling: ",
        f"spilforløbet er gemt i {out}",
        "gennemgå det: bergen-sim review ",
    ):
        assert words in text, words
    assert not english_left(text), english_left(text)
    english = run(["--seed", "8", "--opponent", "greedy", "-o", str(tmp_path / "game.jsonl")], "9\nx\n" + "1\n" * 400)
    assert (tmp_path / "game.jsonl").read_text() == out.read_text()  # the trace is the same in every language
    assert english.output.count("\n") == text.count("\n")  # line for line the same match


def test_a_hint_in_danish(tmp_path):
    result = run(
        [
            "--seed",
            "4",
            "--opponent",
            "greedy",
            "-o",
            str(tmp_path / "g.jsonl"),
            "--lang",
            "da",
            "--hint-worlds",
            "200",
            "--no-auto-forced",
        ],
        "h\nq\n",
    )
    assert result.exit_code == 0, result.output
    hint = result.output.split("tænker (spiller stillingen til ende i udtrukne verdener) ...", 1)[1]
    for words in (
        "plads 0 skal lægge en af ",
        "200 verdener",
        "rang",
        "træk",
        "ender efter",
        "vinderchance",
        "bag det bedste",
        "point i runden",
        "stoppet; kampen indtil nu er gemt i ",
    ):
        assert words in hint, words
    assert re.search(r"\d+,\d\xa0% \[\d+,\d; \d+,\d\]", hint)  # 57,6 % [55,3; 60,0]
    assert not english_left(hint, allowed=("ismcts", "expert", "greedy")), english_left(hint)


def test_partnerships_in_danish_name_the_partnerships(tmp_path):
    result = run(
        [
            "--players",
            "4",
            "--partnerships",
            "--seat",
            "1",
            "--seed",
            "9",
            "--opponent",
            "first",
            "-o",
            str(tmp_path / "p.jsonl"),
            "--lang",
            "da",
        ],
        "1\n" * 400,
    )
    assert result.exit_code == 0, result.output
    assert "Bergen, 4 spillere i makkerpar" in result.output
    assert "stilling: modstandernes makkerpar " in result.output and ", dit makkerpar " in result.output
    assert ("== dit makkerpar vinder kampen" in result.output) != (
        "== modstandernes makkerpar vinder kampen" in result.output
    )
    assert not english_left(result.output), english_left(result.output)


def test_partnerships_name_the_sides_and_replay(tmp_path):
    out = tmp_path / "p.jsonl"
    result = run(
        ["--players", "4", "--partnerships", "--seat", "1", "--seed", "9", "--opponent", "first", "-o", str(out)],
        "1\n" * 400,
    )
    assert result.exit_code == 0, result.output
    assert "scores their side " in result.output and ", your side " in result.output
    assert ("== your side wins the match" in result.output) != ("== their side wins the match" in result.output)
    events = read_jsonl(out)
    assert events[0]["policies"] == ["first", "human", "first", "first"]
    assert json.dumps(replay_match(events)) == json.dumps(events)


def test_hostile_input_reprompts_and_eof_keeps_the_match_so_far(tmp_path):
    out = tmp_path / "partial.jsonl"
    result = run(["--seed", "11", "-o", str(out)], "x\n99\n0\n-1\n\n3-3 Q\n6-6 L\n\u00b2\n" + "1" * 5000 + "\n2-4 R\n")
    assert result.exit_code == 0, result.output
    assert result.output.count("your move [1-2, h hint, q quit]") == 9 + 1  # 9 refusals, then the move
    assert "'\u00b2' (digits are 0-9) is not a move here" in result.output  # a digit int() reads as no number
    # past the 4,300 digits int() reads: named by its length, not echoed
    assert re.search(r"a number of about [0-9,]+ digits is not a move here", result.output)
    assert "1" * 100 not in result.output
    assert "'x' is not a move" in result.output
    assert "99 is not a move here: enter 1..2" in result.output
    assert "0 is not a move here" in result.output
    assert "6-6 L is not legal now" in result.output
    assert "you play 2-4 on R" in result.output
    assert f"stopped; the match so far is saved to {out}" in result.output
    events = read_jsonl(out)
    assert [e for e in events if e["type"] == "play"][0] == {
        "type": "play",
        "seat": 0,
        "tile": "2-4",
        "end": "R",
        "points": 0,
        "score": [0, 2],
    }
    # the partial trace is the start of the match: stepping its plays gives the same events
    assert json.dumps(replay(events).events[: len(events)]) == json.dumps(events)


def test_quit_and_move_text(tmp_path):
    out = tmp_path / "q.jsonl"
    result = run(["--seed", "1", "-o", str(out), "--players", "3", "--opponent", "random", "--seat", "2"], "q\n")
    assert result.exit_code == 0 and "stopped" in result.output
    assert read_jsonl(out)[0]["policies"] == ["random", "random", "human"]


def test_hint_prints_the_analyze_ranking_numbered_as_the_menu(tmp_path):
    """Seed 11: the menu is 1) 2-4 L, 2) 2-6 L (2-4 R, its mirror twin on 2d|2d, left out); the hint's rows carry
    those numbers, and typing the number the hint shows for its best move plays that move."""
    out = tmp_path / "h.jsonl"
    first = run(["--seed", "11", "-o", str(out), "--hint-worlds", "40"], "h\nq\n")
    assert first.exit_code == 0, first.output
    assert "match win" in first.output and "rank" in first.output
    rows = [
        [cell.strip() for cell in line.split("\u2502")[1:-1]]
        for line in first.output.splitlines()
        if line.startswith("\u2502")
    ]
    assert {(row[0], row[2]) for row in rows} == {("1", "2-4 L"), ("2", "2-6 L")}  # (#, move), no twin row
    best_number, best_move = next((row[0], row[2]) for row in rows if row[1] == "1")
    second = run(["--seed", "11", "-o", str(out)], f"{best_number}\nq\n")
    tile, end = best_move.split()
    assert [e for e in read_jsonl(out) if e["type"] == "play"][0]["tile"] == tile
    assert f"you play {tile} on {end}" in second.output


def test_a_hint_ranks_the_doubles_a_leader_may_lead_under_any_double(tmp_path):
    """Classic rules: seat 1 of match 1 (seed 1) leads, holding 0-0, 1-1 and 5-5: the hint ranks the three leads."""
    result = run(
        [
            "--preset",
            "classic",
            "--seat",
            "1",
            "--seed",
            "1",
            "--match",
            "1",
            "-o",
            str(tmp_path / "l.jsonl"),
            "--hint-worlds",
            "100",
        ],
        "h\nq\n",
    )
    assert result.exit_code == 0, result.output
    assert "to lead a double of" in result.output
    assert all(f"{d} L" in result.output and f"{d[0]}d|{d[0]}d" in result.output for d in ("0-0", "1-1", "5-5"))


@pytest.mark.parametrize(
    "args, message",
    [
        (["--seat", "2"], "--seat"),
        (["--opponent", "nosuch"], "unknown policy 'nosuch'"),
        (["--opponent", "random", "--opponent", "greedy"], "one per other seat (1), not 2"),
        (["--players", "9"], "--players"),
        (["--set", "target=x"], "target"),
        (["--match", str(2**70)], "--match"),
        (["--hint-worlds", "0"], "--hint-worlds"),
        (["--seed", "x"], "--seed"),
        (["-o", ""], "give the trace a file name"),
        (["-o", "-"], "it cannot go to standard output"),
        (["-o", "/dev/stdout"], "it cannot go to standard output, a device or a pipe"),
        (["-o", "/dev/null"], "it cannot go to standard output, a device or a pipe"),
    ],
)
def test_bad_options_are_one_line_and_status_2(args, message, capsys, tmp_path):
    assert main(["play", *([] if "-o" in args else ["-o", str(tmp_path / "x.jsonl")]), *args]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(error_lines(err)) == 1
    assert not (tmp_path / "x.jsonl").exists()


def test_an_unwritable_trace_path_is_one_line_and_status_2(tmp_path, capsys):
    assert main(["play", "--seed", "1", "-o", str(tmp_path / "no-such-dir" / "m.jsonl")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("bergen-sim: error: -o ") and "no-such-dir does not exist" in err
    assert len(error_lines(err)) == 1


def test_console_module_with_a_real_pipe(tmp_path):
    out = tmp_path / "pipe.jsonl"
    entry = "import sys; from bergen_sim.cli import main; sys.exit(main())"  # the console script's entry point
    done = subprocess.run(
        [sys.executable, "-c", entry, "play", "--seed", "2", "-o", str(out)],
        input=b"1\nnonsense\n\xff\xfe\x00\n",
        capture_output=True,
        timeout=300,
    )
    stdout = done.stdout.decode()
    assert done.returncode == 0, done.stderr.decode()
    assert "'nonsense' is not a move" in stdout and "stopped" in stdout
    assert stdout.count("is not a move") == 2  # the bytes that are not text too, then the end of input
    assert read_jsonl(out)[0]["type"] == "match"


def test_the_opponents_hidden_tiles_are_never_shown(tmp_path):
    """In each hand's output, no tile the opponent held without playing it appears (its draws stay face down)."""
    out = tmp_path / "secret.jsonl"
    result = run(["--seed", "12", "--opponent", "random", "-o", str(out)], "1\n" * 400)
    assert result.exit_code == 0, result.output
    segments = result.output.split("-- hand ")[1:]  # one per deal event, redeals included
    hands = [[]]
    for event in read_jsonl(out)[1:]:
        if event["type"] == "deal" and hands[-1]:
            hands.append([])
        hands[-1].append(event)
    checked = 0
    for segment, events in zip(segments, hands):
        deal = [e for e in events if e["type"] == "deal"][-1]
        theirs = set(deal["hands"][1]) | {e["tile"] for e in events if e["type"] == "draw" and e["seat"] == 1}
        played = {e["tile"] for e in events if e["type"] in ("lead", "play")}
        shown = re.sub(r"\[1-\d+, h hint", "", segment)  # the prompt's move numbers are not tiles
        for tile in theirs - played:
            assert tile not in shown, f"{tile} shown"
            checked += 1
    assert checked > 0


def test_the_default_trace_never_replaces_an_earlier_game(tmp_path, monkeypatch):
    """Playing a seed again saves beside the first game (bergen-play-SEED-2.jsonl), not over it."""
    monkeypatch.chdir(tmp_path)
    first = run(["--seed", "4", "--opponent", "greedy"], "q\n")
    assert first.exit_code == 0 and "saved to bergen-play-4.jsonl" in first.output
    (tmp_path / "bergen-play-4.jsonl").write_text("an earlier game\n")
    second = run(["--seed", "4", "--opponent", "greedy"], "q\n")
    assert second.exit_code == 0 and "saved to bergen-play-4-2.jsonl" in second.output
    assert (tmp_path / "bergen-play-4.jsonl").read_text() == "an earlier game\n"
    assert read_jsonl(tmp_path / "bergen-play-4-2.jsonl")[0]["type"] == "match"


def test_a_trace_path_of_the_wrong_type_is_refused_before_the_match(tmp_path, capsys):
    assert main(["play", "--seed", "1", "-o", str(tmp_path / "m.txt")]) == 2
    captured = capsys.readouterr()
    assert "unknown file type '.txt'; use .jsonl" in captured.err and "Bergen, 2 players" not in captured.out


def prompts(output: str) -> int:
    return output.count("your move [")


def test_a_tile_fitting_two_ends_that_look_alike_is_listed_once(tmp_path):
    """Seed 11: seat 1 leads 2-2; 2-4 fits both 2d ends, one move seen in a mirror: listed once, still typeable."""
    result = run(["--seed", "11", "-o", str(tmp_path / "t.jsonl")], "2-4 R\nq\n")
    assert "  1) 2-4 L\n  2) 2-6 L\nyour move [1-2," in result.output
    assert "2-4 R" not in result.output.split("your move")[0]
    assert "you play 2-4 on R" in result.output


def test_forced_moves_are_played_for_you_unless_turned_off(tmp_path):
    """Seed 3, seat 1: after the lead of 3-3 only 0-3 fits (on either 3d end, one move): played with a line."""
    out = tmp_path / "f.jsonl"
    auto = run(["--seed", "3", "--seat", "1", "-o", str(out)], "q\n")
    assert "forced: 0-3 L is your only move, played for you\nyou play 0-3 on L" in auto.output
    assert [e for e in read_jsonl(out) if e["type"] == "play"][0] == {
        "type": "play",
        "seat": 1,
        "tile": "0-3",
        "end": "L",
        "points": 0,
        "score": [2, 0],
    }
    manual = run(["--seed", "3", "--seat", "1", "--no-auto-forced", "-o", str(out)], "q\n")
    assert "your only move" not in manual.output and "  1) 0-3 L\nyour move [1, h hint, q quit]" in manual.output
    assert not [e for e in read_jsonl(out) if e["type"] == "play"]
    assert "--no-auto-forced" in run(["--help"], "").output


def test_a_whole_match_asks_only_the_moves_that_are_choices(tmp_path):
    """Every play of yours is a prompt answered or a forced line; with --no-auto-forced every one is asked."""
    out = tmp_path / "w.jsonl"
    auto = run(["--seed", "5", "--opponent", "greedy", "-o", str(out)], "1\n" * 400)
    mine = [e for e in read_jsonl(out) if e["type"] == "play" and e["seat"] == 0]
    forced = auto.output.count("is your only move, played for you")
    assert forced > 0 and prompts(auto.output) + forced == len(mine)
    manual = run(["--seed", "5", "--opponent", "greedy", "--no-auto-forced", "-o", str(out)], "1\n" * 400)
    assert prompts(manual.output) == len(mine) and "your only move" not in manual.output


def test_undo_takes_back_your_move_and_the_replies_and_the_trace_still_replays(tmp_path):
    out = tmp_path / "u.jsonl"
    nothing = run(["--seed", "11", "-o", str(out)], "u\nq\n")
    assert play.NOTHING_TO_UNDO in nothing.output
    # 2-4 L, expert replies 3-4 R; u takes both back and shows the first table again; then 2-6 L
    result = run(["--seed", "11", "-o", str(out)], "1\nu\n2\nq\n")
    assert "taken back: your 2-4 L and 1 move since; your move again" in result.output
    assert result.output.count("  1) 2-4 L\n  2) 2-6 L\n") == 2
    plays = [(e["seat"], e["tile"], e["end"]) for e in read_jsonl(out) if e["type"] == "play"]
    assert plays[0] == (0, "2-6", "L") and ("0", "2-4", "L") not in plays
    # taking back and playing the same move again gets the same reply (the opponents' random streams go back too)
    run(["--seed", "11", "-o", str(out)], "1\nq\n")
    once = read_jsonl(out)
    run(["--seed", "11", "-o", str(out)], "1\nu\n1\nq\n")
    assert read_jsonl(out) == once


def test_a_match_with_undos_finishes_and_replays_like_the_compiled_engine(tmp_path):
    out = tmp_path / "uu.jsonl"
    result = run(["--seed", "4", "--opponent", "greedy", "-o", str(out)], "1\n1\nu\nu\n2\n" + "1\n" * 400)
    assert result.exit_code == 0 and result.output.count("taken back: your ") == 2
    events = read_jsonl(out)
    assert events[-1]["type"] == "match_end"
    assert json.dumps(replay_match(events)) == json.dumps(events)


def test_the_leader_choosing_its_double_sees_an_empty_table_not_ends(tmp_path):
    """Classic rules (lead any double): seat 1 of match 1, seed 1, leads; nothing is down, so no ends are shown."""
    result = run(
        ["--preset", "classic", "--seat", "1", "--seed", "1", "--match", "1", "-o", str(tmp_path / "e.jsonl")], "q\n"
    )
    table = result.output.split("your move")[0]
    assert "line    (the table is empty: you lead one of your doubles)" in table
    assert "ends " not in table and "0 | 0" not in table


def test_with_the_spinner_every_arm_is_shown(tmp_path):
    """Double-nine (spinner on), seed 2: 1-1 is led and 1-6 played on L; the other arms hold no tile yet."""
    out = tmp_path / "s.jsonl"
    result = run(
        ["--set", "domino_set=double-nine", "--seed", "2", "--opponent", "greedy", "-o", str(out)], "1\n1\n1\n2\nq\n"
    )
    assert "ends    L 6 | R * | U * | D *   (*: no tile yet on that arm of the spinner 1-1)" in result.output
    # 1-2 played on U, 2-2 and 2-6 after it: the U arm is shown beside the line, not in it
    assert "line    [1|9][9|4][4|5][5|6][6|1][1|1][1|3][3|7][7|8]  U [1|2][2|2][2|6]" in result.output
    assert "ends    L 1 | R 8 | U 6 | D *" in result.output


def test_a_pipe_as_the_trace_is_refused_before_the_match(tmp_path, capsys):
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    assert main(["play", "--seed", "1", "-o", str(fifo)]) == 2  # refused without opening it (which would block)
    captured = capsys.readouterr()
    assert "cannot go to standard output, a device or a pipe" in captured.err and len(captured.err.splitlines()) == 1
    assert "Bergen, 2 players" not in captured.out


@pytest.mark.parametrize("interrupt_at, kept", [(1, "nothing was saved"), (3, "the match so far is saved to")])
def test_ctrl_c_says_where_the_game_so_far_is(tmp_path, capsys, monkeypatch, interrupt_at, kept):
    """Ctrl-C while the opponent is made ready (before the first save) or while it chooses a move (after)."""
    out = tmp_path / "c.jsonl"
    real = game_module.compiled_policy
    calls = []

    def interrupted(*args, **kwargs):
        calls.append(args)
        if len(calls) == interrupt_at:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(game_module, "compiled_policy", interrupted)
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 400))
    assert main(["play", "--seed", "11", "--opponent", "greedy", "-o", str(out)]) == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == f"bergen-sim: interrupted; {kept}" + ("" if interrupt_at == 1 else f" {out}")
    if interrupt_at == 1:
        assert not out.exists()
    else:
        events = read_jsonl(out)
        assert json.dumps(replay(events).events[: len(events)]) == json.dumps(events)


def test_a_trace_name_with_control_characters_is_printed_escaped(tmp_path):
    """A name's escape sequence must not clear the screen nor its newline break the line it is printed on."""
    out = tmp_path / "o\x1b[2J\nx.jsonl"
    result = run(["--seed", "4", "--opponent", "greedy", "-o", str(out)], "1\n" * 400)
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "o\\x1b[2J\\nx.jsonl" in result.output
    assert out.exists()
