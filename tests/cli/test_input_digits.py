"""Hostile numbers at analyze, review and play: digits of other scripts, seeds, broken traces, a byte-order mark.

docs/safety.md: digits of other scripts (which Python's ``int()`` reads) are
refused everywhere, every ``--seed`` takes 0..2**64-1, and hostile input gets
one line saying what is wrong and what is allowed, with exit status 2.  Every
test here is refused (or read) before a game is played or a world sampled,
except the two seeds at the top of the range.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bergen_sim.cli import cli, main
from bergen_sim.core.limits import MAX_SEED, ascii_digits_only, foreign_digit
from bergen_sim.services.files.record import RecordError, read_games
from tests.helpers import error_lines

#: a game record of two hands' worth of tiles (the record module's example)
RECORD = """bergen-record 1
rules players=2 hand_size=2 target=3
deal 1-1 1-2 | 2-3 4-4
1: draw 0-0 0-1
1: 0-1 L
"""

RULES = {
    "domino_set": "double-six",
    "spinner": False,
    "players": 2,
    "partnerships": False,
    "hand_size": 2,
    "target": 3,
    "lead": "lowest-double",
    "settlement": "german",
    "blocked_points": 2,
    "out_points": 2,
    "boneyard_reserve": 2,
    "reduced_headers": True,
}
#: the same game as a bergen-trace match (what review reads from a trace; not checked against the engine's deals)
TRACE = [
    {"type": "match", "format": "bergen-trace/2", "match": 0, "rules": RULES, "policies": ["a", "b"], "seed": 3},
    {"type": "deal", "hand": 1, "hands": [["1-1", "1-2"], ["2-3", "4-4"]], "boneyard": ["0-0", "0-1"]},
    {"type": "draw", "seat": 1, "tile": "0-0"},
    {"type": "draw", "seat": 1, "tile": "0-1"},
    {"type": "play", "seat": 1, "tile": "0-1", "end": "L", "points": 0, "score": [2, 0]},
]

POSITION = [
    "--hand",
    "5-6,1-6,0-5,3-4",
    "--ends",
    "6,5d",
    "--played",
    "2-2,2-5,2-6,5-5",
    "--counts",
    "4,6",
    "--boneyard",
    "14",
    "--scores",
    "12,13",
    "--worlds",
    "50",
    "--batch",
    "50",
]


def _with(args: list[str], option: str, value: str) -> list[str]:
    """``args`` with ``option`` set to ``value``: replaced where given (an option is given once), else added."""
    if option not in args:
        return [*args, option, value]
    at = args.index(option) + 1
    return [*args[:at], value, *args[at + 1 :]]


def _one_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(error_lines(err)) == 1 and "Traceback" not in err, err
    return err


def _trace(tmp_path, events, encoding="utf-8"):
    path = tmp_path / "game.jsonl"
    path.write_text(
        "".join((e if isinstance(e, str) else json.dumps(e, ensure_ascii=False)) + "\n" for e in events),
        encoding=encoding,
    )
    return path


def test_foreign_digit_finds_other_scripts_digits_only():
    assert foreign_digit("3-5,6,5d 1_000 -2") is None
    assert [foreign_digit(t) for t in ("\uff15-6", "\u0663", "\u00b2", "x\u0b67")] == [
        "\uff15",
        "\u0663",
        "\u00b2",
        "\u0b67",
    ]
    with pytest.raises(ValueError, match="digit of another script; write numbers with the digits 0-9"):
        ascii_digits_only("\uff11\uff14", "boneyard")


# --- A: analyze -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "option, value, message",
    [
        (
            "--seat",
            "\uff10",
            "seat: '\uff10' has '\uff10', a digit of another script; write numbers with the digits 0-9",
        ),
        ("--boneyard", "\uff11\uff14", "boneyard: '\uff11\uff14' has '\uff11', a digit of another script"),
        ("--counts", "\uff14,\uff16", "counts: '\uff14,\uff16' has '\uff14'"),
        ("--ends", "\uff16,5d", "ends: '\uff16,5d' has '\uff16'"),
        ("--hand", "\uff15-\uff16,1-6,0-5,3-4", "hand: '\uff15-\uff16,1-6,0-5,3-4' has '\uff15'"),
        ("--scores", "1\u0662,13", "scores: "),
        ("--void", "1:\uff13", "voids.1: "),
        ("--played-by", "\uff11:2-2", "played_by: "),
    ],
)
def test_analyze_refuses_other_scripts_digits_in_options(capsys, option, value, message):
    assert main(["analyze", *_with(POSITION, option, value)]) == 2
    assert message in _one_line(capsys)


def test_analyze_still_reads_seat_and_boneyard_with_the_rules_range(capsys):
    assert main(["analyze", *_with(POSITION, "--seat", "9")]) == 2
    assert "seat must be 0..1, not 9" in _one_line(capsys)
    assert main(["analyze", *_with(POSITION, "--boneyard", "-1")]) == 2
    assert "boneyard must be 2..16 tiles with these rules, not -1" in _one_line(capsys)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"boneyard": "\uff11\uff14"}, "boneyard: '\uff11\uff14' has '\uff11', a digit of another script"),
        ({"counts": ["\uff14", 6]}, "counts: '\uff14' has '\uff14'"),
        ({"rules": {"players": "\uff12"}}, "rules.players: '\uff12' has '\uff12'"),
    ],
)
def test_analyze_refuses_other_scripts_digits_in_a_position_file(tmp_path, capsys, change, message):
    position = {
        "hand": "5-6,1-6,0-5,3-4",
        "ends": "6,5d",
        "played": "2-2,2-5,2-6,5-5",
        "counts": "4,6",
        "boneyard": 14,
        "scores": "12,13",
        **change,
    }
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(position, ensure_ascii=False), encoding="utf-8")
    assert main(["analyze", "--position", str(path), "--worlds", "50"]) == 2
    assert message in _one_line(capsys)


# --- A, B: review and play options ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "option, value, message",
    [
        ("--seed", "\uff11\uff12", "'\uff11\uff12' is not a whole number (0..18,446,744,073,709,551,615)"),
        ("--seed", str(2**64), "18446744073709551616 is not in 0..18,446,744,073,709,551,615"),
        ("--seed", "-1", "-1 is not in 0..18,446,744,073,709,551,615"),
        ("--worlds", "\uff15\uff10", "'\uff15\uff10' is not a whole number (2..1,000,000)"),
        ("--batch", "\u0665", "is not a whole number (1..1,000,000)"),
        ("--worlds", "2000000", "2000000 is not in 2..1,000,000"),
        ("--seat", "\uff11", "'\uff11' is not a whole number (0..7)"),
        ("--match", "\uff10", "'\uff10' is not a whole number (0.."),
    ],
)
def test_review_options_refuse_other_scripts_digits_and_seeds_out_of_range(tmp_path, capsys, option, value, message):
    path = tmp_path / "game.txt"
    path.write_text(RECORD)
    assert main(["review", str(path), option, value]) == 2
    err = _one_line(capsys)
    assert f"Invalid value for '{option}'" in err and message in err


def test_review_takes_the_largest_seed(tmp_path):
    path = tmp_path / "game.txt"
    path.write_text(RECORD)
    result = CliRunner().invoke(
        cli, ["review", str(path), "--seed", str(MAX_SEED), "--worlds", "20", "--json"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["settings"]["seed"] == MAX_SEED


@pytest.mark.parametrize(
    "option, value, message",
    [
        ("--seed", "\uff11\uff12", "'\uff11\uff12' is not a whole number (0..18,446,744,073,709,551,615)"),
        ("--seed", str(2**64), "is not in 0..18,446,744,073,709,551,615"),
        ("--seat", "\uff11", "'\uff11' is not a whole number (0..7)"),
        ("--match", "\u0663", "is not a whole number (0.."),
        ("--hint-worlds", "\uff15", "is not a whole number (1..100,000)"),
    ],
)
def test_play_options_refuse_other_scripts_digits_and_seeds_out_of_range(tmp_path, capsys, option, value, message):
    assert main(["play", "-o", str(tmp_path / "x.jsonl"), option, value]) == 2
    err = _one_line(capsys)
    assert f"Invalid value for '{option}'" in err and message in err
    assert not (tmp_path / "x.jsonl").exists()


def test_play_takes_the_largest_seed(tmp_path):
    out = tmp_path / "m.jsonl"
    result = CliRunner().invoke(
        cli, ["play", "--seed", str(MAX_SEED), "-o", str(out)], input="q\n", catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert f"seed {MAX_SEED}, match 0" in result.output
    assert json.loads(out.read_text().splitlines()[0])["seed"] == MAX_SEED


# --- A: numbers and tiles inside a trace or a record ----------------------------------------------------------------


@pytest.mark.parametrize(
    "change, message",
    [
        (
            {"seed": "\uff11\uff12"},
            "event 1: the match event's 'seed' must be a whole number 0..2^64-1 (a JSON number, "
            'not text or a fraction), not "\uff11\uff12"',
        ),
        ({"seed": 2.7}, "'seed' must be a whole number 0..2^64-1 (a JSON number, not text or a fraction), not 2.7"),
        ({"seed": "12"}, "'seed' must be a whole number 0..2^64-1"),
        ({"seed": True}, "'seed' must be a whole number 0..2^64-1 (a JSON number, not text or a fraction), not true"),
        ({"seed": 2**64}, "not 18446744073709551616"),
        ({"match": 1.9}, "event 1: the match event's 'match' must be a whole number 0..2^62"),
        ({"match": "\uff10"}, "'match' must be a whole number 0..2^62"),
        ({"policies": "ab"}, "event 1: the match event's 'policies' must be a list of names, not \"ab\""),
    ],
)
def test_a_trace_match_line_needs_whole_json_numbers(tmp_path, change, message):
    path = _trace(tmp_path, [{**TRACE[0], **change}, *TRACE[1:]])
    with pytest.raises(RecordError) as caught:
        read_games(path)
    assert message in str(caught.value)


def test_a_trace_tile_in_other_scripts_digits_is_refused(tmp_path):
    path = _trace(tmp_path, [*TRACE[:4], {**TRACE[4], "tile": "\uff10-1"}])
    with pytest.raises(
        RecordError,
        match="event 5 of match 0: a play event needs .* this one has tile '\uff10-1', with a digit of another script",
    ):
        read_games(path)


def test_a_record_line_in_other_scripts_digits_is_refused(tmp_path):
    path = tmp_path / "game.txt"
    path.write_text(RECORD.replace("1: 0-1 L", "1: \uff10-1 L"), encoding="utf-8")
    with pytest.raises(
        RecordError, match="line 5: '\uff10' is a digit of another script; write tiles with the digits 0-9"
    ):
        read_games(path)
    path.write_text(RECORD.replace("1: draw 0-0 0-1", "1: draw 0-0 0-\u0661"), encoding="utf-8")
    with pytest.raises(RecordError, match="line 4: '\u0661' is a digit"):
        read_games(path)


# --- C: broken traces say what is wrong and what is expected -----------------------------------------------------


@pytest.mark.parametrize(
    "lines, message",
    [
        (
            ['{"type":"match"}'],
            "event 1: the match event has no 'rules'; it needs the match's rules, an object of every setting",
        ),
        (
            ["{}"],
            "line 1 is an object without a 'type' naming its event; a bergen-trace file holds one event object "
            "per line, each with a 'type', the first a match event",
        ),
        ([json.dumps(TRACE[0]), "5"], "line 2 is 5, not a JSON object with a 'type'; a bergen-trace file holds"),
        ([json.dumps(TRACE[0]), "null"], "line 2 is null, not a JSON object with a 'type'"),
        ([json.dumps(TRACE[0]), "[1]"], "line 2 is [1], not a JSON object with a 'type'"),
        ([json.dumps(TRACE[0]), '{"type": 5}'], "line 2 is an object without a 'type' naming its event"),
        (
            [json.dumps({**TRACE[0], "rules": 5})],
            "event 1: the match's rules cannot be read: a trace's rules must be an object, not 5",
        ),
        (
            ['{"type":"match","x":' + "[" * 10_000 + "]" * 10_000 + "}"],
            "line 1 is not JSON that can be read: nested too deep",
        ),
    ],
)
def test_a_broken_trace_is_one_line_naming_what_is_wrong(tmp_path, capsys, lines, message):
    path = _trace(tmp_path, lines)
    assert main(["review", str(path), "--worlds", "20"]) == 2
    err = _one_line(capsys)
    assert message in err
    assert "not subscriptable" not in err and ": 'rules'" not in err and ": 'type'" not in err


# --- D: a byte-order mark -------------------------------------------------------------------------------------------


def test_a_trace_and_a_record_saved_with_a_byte_order_mark_are_read(tmp_path):
    golden = Path(__file__).resolve().parents[1] / "golden" / "2p-standard.jsonl"
    first_match = golden.read_text().split('\n{"type":"match"')[0] + "\n"  # a review checks a whole match
    trace = tmp_path / "game.jsonl"
    trace.write_text(first_match, encoding="utf-8-sig")
    assert trace.read_bytes().startswith(b"\xef\xbb\xbf")
    (game,) = read_games(trace)
    assert game.source == "trace" and game.actions == read_games(golden, matches=[0])[0].actions
    record = tmp_path / "game.txt"
    record.write_text(RECORD, encoding="utf-8-sig")
    (game,) = read_games(record)
    assert game.source == "record" and [a.kind for a in game.actions] == ["deal", "draw", "play"]


def test_read_jsonl_skips_a_byte_order_mark(tmp_path):
    from bergen_sim.services.files.trace import read_jsonl

    assert read_jsonl(_trace(tmp_path, TRACE, encoding="utf-8-sig")) == TRACE


# --- A, E: the play prompt ------------------------------------------------------------------------------------------


def test_the_play_prompt_refuses_other_scripts_digits_and_does_not_echo_huge_numbers(tmp_path):
    out = tmp_path / "m.jsonl"
    typed = ["\uff11", "\uff12-4 R", "1" + "0" * 5000, "12345678901234567890123456789", "q"]
    result = CliRunner().invoke(
        cli, ["play", "--seed", "11", "-o", str(out)], input="\n".join(typed) + "\n", catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert "'\uff11' (digits are 0-9) is not a move here: enter 1..2" in result.output
    assert "'\uff12-4 R' is not a move: enter 1..2 (or the move, e.g. " in result.output
    assert "with the digits 0-9), h for a hint or q to quit" in result.output
    assert "a number of about 5,000 digits is not a move here: enter 1..2" in result.output
    assert "12345678...(29 digits) is not a move here" in result.output
    assert "0" * 30 not in result.output
    assert "you play" not in result.output  # nothing typed was taken as a move


def test_the_python_api_parsers_refuse_other_scripts_digits():
    """Tile.parse, Move.parse and the position reader (what analyze's checks guard) refuse them themselves."""
    from bergen_sim.model.domain import Move, Tile
    from bergen_sim.search.position import PositionError, _whole, parse_ends

    assert Tile.parse("5-6") == Tile(5, 6)
    for text in ("\uff15-6", "5-\u0666"):
        with pytest.raises(ValueError, match="is not a tile"):
            Tile.parse(text)
    with pytest.raises(ValueError):
        Move.parse("\uff15-6 L")
    assert _whole("14", "boneyard") == 14
    with pytest.raises(PositionError, match="takes whole numbers"):
        _whole("\uff11\uff14", "boneyard")
    with pytest.raises(PositionError, match="is not a number"):
        parse_ends("\uff16,5d")
