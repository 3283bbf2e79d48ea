"""Game records and ``bergen-sim review``: reading games, replaying them through the rules, judging decisions."""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest

from bergen_sim.cli import main
from bergen_sim.core.errors import BergenError
from bergen_sim.engine import layout as L
from bergen_sim.search.position import ENGINES
from bergen_sim.services.files.record import RecordError, decision_view, drive, parse_record, read_games
from bergen_sim.services.files.trace import read_matches
from bergen_sim.services.game_review import markdown, review
from tests.helpers import english_left, error_lines, schema_validator

GOLDEN = Path(__file__).resolve().parents[1] / "golden"

#: seat 0 leads 1-1 (2 points of 3); later it can win at once with 3-4 on either end, and plays 3-5 instead
BLUNDER = """bergen-record 1
# target 3: the lead's 2 points leave seat 0 one point short
rules players=2 hand_size=4 target=3
names Ann Bob
hand 1
deal 1-1 1-3 3-4 3-5 | 1-2 2-4 5-6 6-6
0: lead 1-1
1: 1-2 R
0: 1-3 L
1: 2-4 R
0: 3-5 L
"""


def _without_boneyard(events):
    for event in events:
        if event["type"] == "deal":
            event["boneyard"] = None
    return events


def test_every_golden_match_read_as_a_written_game_replays_event_for_event():
    """Deals, draws and plays go in; the rules give back every lead, pass, point, settlement and match end."""
    count = 0
    for path in sorted(GOLDEN.glob("*.jsonl")):
        recorded = (match.recorded for match in read_matches(path))
        for written, events in zip(read_games(path), recorded):
            assert _without_boneyard(drive(written).events) == _without_boneyard(events), path.name
            count += 1
    assert count == 216  # 18 files (9 of version 1, 9 of version 2) of 12 matches


def test_a_record_is_played_through_the_rules():
    written = parse_record(BLUNDER)
    assert written.names == ["Ann", "Bob"] and written.rules.hand_size == 4 and written.rules.target == 3
    game = drive(written)
    assert game.scores == (2, 0) and not game.is_over
    assert [e["tile"] for e in game.events if e["type"] == "play"] == ["1-2", "1-3", "2-4", "3-5"]


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda t: t.replace("bergen-record 1\n", ""), "starts with the line 'bergen-record 1'"),
        (lambda t: t.replace("1: 1-2 R", "0: 1-2 R"), "line 8: seat 0 cannot play here (seat 1 is to play)"),
        (lambda t: t.replace("1: 1-2 R", "1: 2-4 R"), "line 8: 2-4 R is not legal for seat 1"),
        (lambda t: t.replace("0: lead 1-1", "1: lead 6-6"), "line 7: seat 1 did not lead 6-6 here"),
        (lambda t: t.replace("1: 1-2 R", "1: pass\n1: 1-2 R"), "line 8: seat 1 did not pass here"),
        (lambda t: t.replace("1: 1-2 R", "1: draw 0-0"), "line 8: seat 1 cannot draw 0-0 here (seat 1 is to play)"),
        (lambda t: t.replace("hand 1", "hand 2"), "line 5: this is hand 1, not hand 2"),
        (lambda t: t.replace("hand 1", "hand \u00b2"), "line 5: 'hand N' takes the hand's number"),
        (lambda t: t.replace("players=2", "players=\u00b2"), "line 3: players must be a whole number, not '\u00b2'"),
        (lambda t: t.replace("target=3", "target"), "line 3: rules takes KEY=VALUE words, not 'target'"),
        (lambda t: t.replace("target=3", "colour=red"), "colour"),
        (lambda t: t.replace("target=3", "target=3 target=5"), "line 3: target is given twice; give each setting once"),
        (lambda t: t.replace("names Ann Bob", "names Ann Bob\nnames Cy Di"), "line 5: the names line comes once"),
        (lambda t: t.replace("names Ann Bob", "names Ann"), "names: give one name per seat (2), not 1"),
        (lambda t: t.replace("1: 1-2 R", "1: 1-2 up"), "line 8: a seat's line is 'TILE END'"),
        (lambda t: t.replace("deal 1-1", "deal 1-1 1-1"), "line 6: seat 0 is dealt 5 tiles, not 4"),
        (lambda t: t.replace("deal 1-1 1-3", "deal 1-1 1-2"), "line 6: 1-2 is dealt twice"),
        (lambda t: t.replace("deal 1-1 1-3", "deal 1-1 7-7"), "line 6: '7-7' is not a tile"),
        (lambda t: t.replace(" | 1-2 2-4 5-6 6-6", ""), "line 6: a deal gives 2 hands separated by '|', not 1"),
        (lambda t: t + "deal 0-0 0-1 0-2 0-3 | 0-4 0-5 0-6 1-1\n", "line 12: no deal is due here (seat 1 is to play)"),
    ],
)
def test_a_record_that_breaks_a_rule_names_its_line(change, message):
    with pytest.raises(RecordError) as caught:
        drive(parse_record(change(BLUNDER)))
    assert message in str(caught.value)


def test_review_finds_the_blunder_and_passes_the_forced_and_mirrored_moves():
    result = review([parse_record(BLUNDER)], worlds=400, batch=200)
    # decisions: Bob's 1-2 on either end of 1d|1d (mirror images), Ann's 3-5 L; the rest were forced
    assert [(d.seat, d.played) for d in result.decisions] == [(1, "1-2 R"), (0, "3-5 L")]
    bob, ann = result.decisions
    assert bob.verdict == "best" and bob.loss.value == 0
    assert ann.best in ("3-4 L", "3-4 R") and ann.win_best.value == 1.0  # the header wins the match at once
    assert ann.verdict == "blunder" and ann.loss.low > 0.05
    seats = {s.seat: s.to_dict() for s in result.seats}
    assert seats[0]["name"] == "Ann" and seats[0]["blunders"] == 1 and seats[0]["errors"] == 1
    assert seats[1]["errors"] == 0 and seats[1]["total_loss"]["value"] == 0
    only_bob = review([parse_record(BLUNDER)], seats=[1], worlds=400, batch=200)
    assert [d.seat for d in only_bob.decisions] == [1]


def test_review_of_a_trace_judges_every_decision_of_more_than_one_move():
    games = read_games(GOLDEN / "2p-standard.jsonl")[:1]
    result = review(games, worlds=200, batch=100, seed=3)
    chances = []
    drive(games[0], lambda game, action: chances.append(len(game.legal_moves())))
    assert len(result.decisions) == sum(1 for n in chances if n > 1) > 5
    for d in result.decisions:
        assert d.loss.low <= d.loss.value <= d.loss.high and d.worlds <= 200
        assert d.verdict in ("best", "error", "blunder", "unclear")
        assert (d.verdict in ("error", "blunder")) == (d.loss.low > 0 and d.verdict != "best")
    assert sum(s.decisions for s in result.seats) == len(result.decisions)


def test_the_review_command_in_danish(tmp_path, capsys):
    record = tmp_path / "game.txt"
    record.write_text(BLUNDER)
    out = tmp_path / "gennemgang.md"
    assert main(["review", str(record), "--worlds", "300", "--out", str(out), "--lang", "da"]) == 0
    shown = capsys.readouterr().out
    for words in (
        "2 beslutninger (tab: point af chancen for at vinde kampen, 95 %-interval)",
        "bedømmelse",
        "bommert",
        "pr. spiller",
        "samlet tab",
        "rapporten er skrevet til",
    ):
        assert words in shown, words
    assert re.search(r"\d,\d \[-?\d+,\d; -?\d+,\d\]", shown)  # a loss and its interval as Danish writes them
    text = out.read_text()
    for words in (
        "# Gennemgang af spillet: game.txt",
        "## Pr. spiller",
        "## Alle beslutninger",
        "| plads | spiller |",
        "beslutninger | bedst | fejl | bommerter | uklart | samlet tab (point) |",
        "| bommert |",
        "træsøgningen i `ismcts",
        "en bommert koster mindst 5 point",
        "udtrukne verdener",
    ):
        assert words in text, words
    assert not english_left(shown, allowed=("Ann", "Bob")), english_left(shown)
    settings = next(line for line in text.splitlines() if line.startswith("Regler: "))  # the setting names
    assert not english_left(text, allowed=("Ann", "Bob", settings)), english_left(text)
    assert main(["review", str(record), "--worlds", "300", "--json", "--lang", "da"]) == 0
    danish_json = json.loads(capsys.readouterr().out)
    assert main(["review", str(record), "--worlds", "300", "--json"]) == 0
    english_json = json.loads(capsys.readouterr().out)
    made = {key for key, value in english_json.items() if "command" in json.dumps(value)}  # how it was run, when
    assert made and {k: v for k, v in danish_json.items() if k not in made} == {
        k: v for k, v in english_json.items() if k not in made
    }  # the results are the same in every language


def test_the_review_command_writes_json_a_report_and_a_figure(tmp_path, capsys):
    record = tmp_path / "game.txt"
    record.write_text(BLUNDER)
    out = tmp_path / "review.md"
    assert main(["review", str(record), "--worlds", "300", "--json", "--out", str(out)]) == 0
    data = json.loads(capsys.readouterr().out)
    schema_validator("review").validate(data)
    assert (
        len(data["decisions"]) == 2
        and data["decisions"][1]["loss"]["unit"] == "match-win probability behind the best move"
    )
    assert data["decisions"][1]["loss"]["n_unit"] == "worlds" and data["seats"][0]["total_loss"]["n"] == 1
    assert data["seats"][0]["blunders"] == 1
    text = out.read_text()
    assert "| 0 | Ann | 1 | 0 | 1 | 1 |" in text and "![match-win probability" in text
    assert data["settings"]["player"] == "ismcts" and data["settings"]["reading"] == ENGINES["ismcts"]
    assert "the tree search of `ismcts:model=expert:trust=20:explore=3:prior=5`, on worlds weighed" in text
    assert (tmp_path / "review.png").stat().st_size > 1000


def test_review_names_a_match_by_its_place_in_the_file_as_match_does(tmp_path):
    """A file holding match 1 of a run alone (or two runs one after the other) is reviewed with its matches
    labelled by their index in the file, the number --match and analyze --game --match take."""
    golden = (GOLDEN / "2p-standard.jsonl").read_text().splitlines(keepends=True)
    starts = [k for k, line in enumerate(golden) if json.loads(line)["type"] == "match"]
    second = "".join(golden[starts[1] : starts[2]])
    path = tmp_path / "second.jsonl"
    path.write_text(second + second)  # match 1 of the run, twice: two matches of this file
    (written,) = read_games(path, matches=[1])
    assert written.match == 1 and written.index == 1
    result = review(read_games(path), seats=[0], worlds=50, batch=50)
    assert sorted({d.match for d in result.decisions}) == [0, 1]
    assert [d.win_best for d in result.decisions if d.match == 0] == [
        d.win_best for d in result.decisions if d.match == 1
    ]  # one game: the same worlds (seeded by the run's match)


def test_a_trace_is_read_only_as_far_as_the_matches_asked_for(tmp_path):
    """One match of a long trace costs the time to reach it: reading stops after the last match asked for, so a
    damaged line after it is never read, while reading every match finds it and names its line."""
    golden = (GOLDEN / "2p-standard.jsonl").read_text()
    path = tmp_path / "long.jsonl"
    path.write_text(golden + "{not json\n")
    assert [g.actions for g in read_games(path, matches=[1, 0])] == [
        g.actions for g in read_games(GOLDEN / "2p-standard.jsonl", matches=[1, 0])
    ]
    with pytest.raises(RecordError, match=f"line {len(golden.splitlines()) + 1} is not JSON"):
        read_games(path)
    matches = golden.count('"type":"match"') or golden.count('"type": "match"')
    with pytest.raises(RecordError, match=f"match {matches}: "):  # past the last match: the whole file was read
        read_games(GOLDEN / "2p-standard.jsonl", matches=[matches])


@pytest.mark.parametrize(
    "content, args, message",
    [
        (None, [], "cannot read it"),
        (b"\xff\xfe\x00bad", [], "not a text file (UTF-8)"),
        (b"{not json\n", [], "line 1 is not JSON"),
        (b"bergen-record 1\nrules players=9\n", [], "players"),
        (BLUNDER.encode(), ["--seat", "5"], "seat 5 does not exist: seats are 0..1"),
        (BLUNDER.encode(), ["--match", "3"], "--match 3: "),
        (BLUNDER.encode(), ["--out", "/nonexistent-folder/r.md"], "does not exist"),
        (BLUNDER.encode(), ["--out", "/proc/r.md"], "virtual file system"),
        (BLUNDER.encode(), ["--out", "r.png"], "unknown file type '.png'; use .md"),  # the figure's own name
        (
            BLUNDER.encode(),
            ["--out", "/dev/null"],
            "a review report is a Markdown file with its figure (PNG) beside it",
        ),
        (BLUNDER.encode(), ["--out", ""], "--out is empty: give a file name"),  # not "no report"
        (BLUNDER.encode(), ["--worlds", "1"], "1 is not in 2..1,000,000"),  # one world: no interval
        (
            BLUNDER.replace("players=2", "players=" + "9" * 5000).encode(),
            [],
            "players must be 2..8, not a number of about",
        ),
        (BLUNDER.replace("names Ann Bob", "names").encode(), [], "line 4: 'names' takes one name per seat"),
        (BLUNDER.replace("hand 1", "hand " + "9" * 5000).encode(), [], "line 5: 'hand N' takes the hand's number"),
        (BLUNDER.replace("1: 1-2 R", "9" * 5000 + ": 1-2 R").encode(), [], "line 8: expected rules, names, hand, deal"),
        # an illegal move at a decision that is reviewed (two or more legal moves): the rules speak, not the analyzer
        (BLUNDER.replace("0: 3-5 L", "0: 3-5 R").encode(), [], "line 11: 3-5 R is not legal for seat 0; legal: "),
        (BLUNDER.replace("0: 3-5 L", "0: 7-7 L").encode(), [], "line 11: 7-7 L is not legal for seat 0"),
    ],
)
def test_review_of_bad_input_is_one_line_and_exit_2(tmp_path, capsys, content, args, message):
    path = tmp_path / "game.txt"
    if content is not None:
        path.write_bytes(content)
    assert main(["review", str(path), *([] if "--worlds" in args else ["--worlds", "50"]), *args]) == 2
    err = capsys.readouterr().err.strip()
    assert len(error_lines(err)) == 1 and message in err and "Traceback" not in err


def test_a_tile_written_high_half_first_is_reviewed_as_the_same_move():
    forward = review([parse_record(BLUNDER)], worlds=50, batch=50)
    reversed_ = review([parse_record(BLUNDER.replace("1: 1-2 R", "1: 2-1 R"))], worlds=50, batch=50)
    assert [d.played for d in reversed_.decisions] == [d.played for d in forward.decisions] == ["1-2 R", "3-5 L"]


def _first(events, kind):
    return next(e for e in events if e["type"] == kind)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda ev: ev[0].update(format="bergen-trace/99"), "event 1: format must be one of bergen-trace/1, "),
        (lambda ev: ev[0].update(seed="abc"), "event 1: the match event's 'seed' must be a whole number 0..2^64-1"),
        (lambda ev: ev[0].update(policies=5), "event 1: the match event's 'policies' must be a list of names, not 5"),
        (
            lambda ev: _first(ev, "deal").pop("hands"),
            "a deal event needs 'hands', a list of lists of tiles; this one has no 'hands'",
        ),
        (lambda ev: _first(ev, "deal")["hands"][0].__setitem__(0, [1, 3]), "tile '[1, 3]', not text"),
        (lambda ev: _first(ev, "play").update(seat=0.0), "a play event needs a whole-number 'seat'"),
        (lambda ev: _first(ev, "play").pop("seat"), "this one has no 'seat'"),
        (lambda ev: _first(ev, "draw").pop("tile"), "a draw event needs a whole-number 'seat' and a 'tile'"),
        # what the file says and the rules do not give: the review would judge another game than the file's
        (lambda ev: _first(ev, "match_end").update(score=[99, 0]), "the file has score [99, 0], but the rules give"),
        (
            lambda ev: _first(ev, "play").update(points=_first(ev, "play")["points"] + 5),
            "the file has points 5, but the rules give 0",
        ),
        (lambda ev: ev.insert(3, {"type": "bogus"}), "match 0 event 4"),
        (lambda ev: ev[0].pop("format"), "a match must start with a match event of format"),
        (lambda ev: _first(ev, "play").update(end="r"), 'the file has end "r", but the rules give "R"'),
    ],
)
def test_a_malformed_trace_is_one_line_and_exit_2(tmp_path, capsys, change, message):
    """Fields of the wrong type or missing, in any event a review reads: one line naming the event."""
    events = [json.loads(line) for line in (GOLDEN / "2p-standard.jsonl").read_text().splitlines() if line.strip()]
    change(events)
    path = tmp_path / "game.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    assert main(["review", str(path), "--worlds", "20", "--match", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(error_lines(err)) == 1 and message in err and "Traceback" not in err, err


def test_a_number_too_long_to_read_is_one_line_and_exit_2(tmp_path, capsys):
    path = tmp_path / "game.jsonl"
    path.write_text('{"type": "match", "rules": {"target": ' + "9" * 5000 + "}}\n")
    assert main(["review", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(error_lines(err)) == 1 and "line 1 is not JSON: it holds a number of more than 4,300 digits" in err


def test_a_report_that_cannot_be_written_keeps_the_review_and_leaves_no_file(tmp_path, capsys, monkeypatch):
    """The disk fills up after the review ran: the results are printed, then one line, exit 2, no half file."""
    from bergen_sim.services.files import output

    def full(target, data):
        raise target.fail("write failed (No space left on device); nothing was written")

    monkeypatch.setattr(output, "write_bytes", full)
    path = tmp_path / "game.txt"
    path.write_text(BLUNDER)
    out = tmp_path / "r.md"
    assert main(["review", str(path), "--worlds", "50", "--json", "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert json.loads(captured.out)["seats"][0]["decisions"] == 1  # Ann's 3-5 L, printed all the same
    assert captured.err.strip().endswith("r.png: write failed (No space left on device); nothing was written")
    assert len(error_lines(captured.err.strip())) == 1 and sorted(tmp_path.iterdir()) == [path]


def test_review_reads_the_other_seats_plays(monkeypatch):
    """Each decision is analyzed from the seat's own view of the game, plays in order: with no trust in the plays
    (uniform worlds) some estimates change; the settings name the reading."""
    from bergen_sim.search import position as position_module

    games = read_games(GOLDEN / "2p-standard.jsonl")[:2]
    read = review(games, worlds=200, batch=200, seed=3)
    with monkeypatch.context() as patch:
        patch.setattr(position_module, "READER_TRUST", 0.0)
        unread = review(games, worlds=200, batch=200, seed=3)
    assert (
        read.settings["reading"] == ENGINES[read.settings["player"]] == "ismcts:model=expert:trust=20:explore=3:prior=5"
    )
    assert [d.played for d in read.decisions] == [d.played for d in unread.decisions]
    assert sum(a.win_played != b.win_played for a, b in zip(read.decisions, unread.decisions)) >= 3


def test_decisions_are_numbered_in_their_match_whichever_seats_are_reviewed():
    """A decision's number and figures do not depend on the seats asked for (its seed is the decision's own)."""
    games = read_games(GOLDEN / "2p-standard.jsonl")[:1]
    every = review(games, worlds=200, batch=100, seed=3)
    assert [d.number for d in every.decisions] == list(range(1, len(every.decisions) + 1))
    seat_1 = review(games, seats=[1], worlds=200, batch=100, seed=3)
    by_number = {d.number: d for d in every.decisions}
    assert seat_1.decisions and all(d == by_number[d.number] for d in seat_1.decisions)
    assert "| 3 | 0 | 1 | 1 |" in markdown(seat_1)  # the report's '#' is the decision's number, not its row


def test_decision_view_finds_a_decision_by_number_and_names_the_range():
    written = parse_record(BLUNDER)  # two decisions: Bob's 1-2, Ann's 3-5 L
    view, action = decision_view(written, 2)
    assert (action.seat, action.tile, action.end) == (0, "3-5", "L")
    assert view.array[L.V_SEAT] == 0 and view.position().hand == ("3-4", "3-5")  # what Ann held then
    with pytest.raises(RecordError, match=r"there is no decision 3: the game has decisions 1\.\.2"):
        decision_view(written, 3)


def test_analyze_a_decision_of_a_game_repeats_its_review_row(tmp_path, capsys):
    """`analyze --game FILE --match M --decision N` is review's analysis of that decision, plays read, in depth."""
    game = GOLDEN / "2p-standard.jsonl"
    assert main(["review", str(game), "--match", "1", "--worlds", "400", "--batch", "200", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)["decisions"][2]
    args = [
        "analyze",
        "--game",
        str(game),
        "--match",
        "1",
        "--decision",
        str(row["number"]),
        "--worlds",
        "400",
        "--batch",
        "200",
    ]
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    schema_validator("analyze").validate(data)
    assert data["game"] == {
        "file": str(game),
        "match": 1,
        "decision": row["number"],
        "played": row["played"],
        "played_rank": next(m["rank"] for m in data["moves"] if f"{m['tile']} {m['end']}" == row["played"]),
        "review_seed": 0,
    }
    made = next(m for m in data["moves"] if f"{m['tile']} {m['end']}" == row["played"])
    assert made["win_behind_best"] == row["loss"] and data["plays_read"] >= 1
    assert main(args) == 0
    out = capsys.readouterr().out
    assert f"match 1, decision {row['number']}: seat {row['seat']} played {row['played']}" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["--decision", "2"], "--decision picks a decision of a played game: give the game too (--game FILE)"),
        (["--match", "0"], "--match picks a decision of a played game"),
        (["--game", "{game}"], "give --decision N, the decision's number in its match"),
        (
            ["--game", "{game}", "--decision", "1", "--hand", "1-2"],
            "--game brings its own position and rules: leave out --hand",
        ),
        (["--game", "{game}", "--decision", "1", "--set", "target=5"], "leave out --set"),
        (["--game", "{game}", "--decision", "1", "--match", "1"], "--match 1: "),
        (["--game", "{game}", "--decision", "3"], "--decision 3, match 0 of "),
        (["--game", "{game}", "--decision", "0"], "0 is not in 1..1,000,000"),
    ],
)
def test_analyze_of_a_bad_game_decision_is_one_line_and_exit_2(tmp_path, capsys, args, message):
    path = tmp_path / "game.txt"
    path.write_text(BLUNDER)
    assert main(["analyze", *[a.replace("{game}", str(path)) for a in args], "--worlds", "50"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(error_lines(err)) == 1 and message in err and "Traceback" not in err, err


def test_the_choice_of_the_double_to_lead_is_reviewed_under_any_double(capsys):
    """lead=any-double: the leader's choice among its doubles is a decision (it once stopped the review)."""
    games = read_games(GOLDEN / "2p-classic-any-double.jsonl")[1:2]
    leads = []
    drive(games[0], lambda game, action: leads.append(action) if game.choosing_lead else None)
    result = review(games, worlds=100, batch=100)
    first = result.decisions[0]
    assert (first.number, first.played, first.legal_moves) == (1, f"{leads[0].tile} L", 3)
    assert first.verdict in ("best", "error", "blunder", "unclear")
    assert (
        main(
            [
                "analyze",
                "--game",
                str(GOLDEN / "2p-classic-any-double.jsonl"),
                "--match",
                "1",
                "--decision",
                "1",
                "--worlds",
                "100",
                "--batch",
                "100",
            ]
        )
        == 0
    )
    assert f"seat {first.seat} to lead a double of " in capsys.readouterr().out


def test_a_version_1_trace_of_version_2_rules_is_one_line_and_exit_2(tmp_path, capsys):
    """A file labelled bergen-trace/1 whose rules only version 2 holds (double-nine): refused, not a traceback."""
    match = next(read_matches(GOLDEN / "2p-double-nine.jsonl")).recorded
    match[0] = {**match[0], "format": "bergen-trace/1"}
    path = tmp_path / "game.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in match))
    for args in (["review", str(path), "--worlds", "20"], ["analyze", "--game", str(path), "--decision", "1"]):
        assert main(args) == 2
        err = capsys.readouterr().err.strip()
        assert len(error_lines(err)) == 1 and "Traceback" not in err and "bergen-trace/1" in err, err


def test_a_trace_cut_short_is_reviewed_up_to_where_it_stops(tmp_path, capsys):
    """A match whose last events are missing (a game still being played) is read: its replay only goes further."""
    match = next(read_matches(GOLDEN / "2p-standard.jsonl")).recorded
    cut = next(k for k, e in enumerate(match) if e["type"] in ("out", "blocked"))  # the first hand, to its last play
    path = tmp_path / "game.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in match[:cut]))
    assert main(["review", str(path), "--worlds", "20", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["decisions"]


@pytest.mark.parametrize("name", ["$\\foo$", "x|y\x00"])
def test_any_player_name_is_drawn_and_written_as_text(tmp_path, capsys, name):
    """Names are whatever a file says: matplotlib's maths, a control character, a Markdown table's bar."""
    record = tmp_path / "game.txt"
    record.write_text(BLUNDER.replace("names Ann Bob", f"names {name} Bob"))
    out = tmp_path / "review.md"
    assert main(["review", str(record), "--worlds", "50", "--out", str(out)]) == 0
    text = out.read_text()
    assert (tmp_path / "review.png").stat().st_size > 1000 and "| Bob |" in text
    assert "Traceback" not in capsys.readouterr().err


def test_a_traced_policy_name_that_is_not_utf8_is_drawn_and_written(tmp_path, capsys):
    """JSON can hold a lone surrogate ("\\udcff"): it is shown escaped, never a crash of the figure or the file."""
    match = next(read_matches(GOLDEN / "2p-standard.jsonl")).recorded
    match[0] = {**match[0], "policies": ["\udcff", "b"]}
    path = tmp_path / "game.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in match))
    out = tmp_path / "review.md"
    assert main(["review", str(path), "--worlds", "20", "--seat", "0", "--out", str(out)]) == 0
    assert "| 0 | \\udcff |" in out.read_text() and (tmp_path / "review.png").stat().st_size > 1000


def test_a_report_name_that_is_not_utf8_is_written(tmp_path, capsys):
    record = tmp_path / "game.txt"
    record.write_text(BLUNDER)
    out = str(tmp_path / "o") + "\udcff.md"  # a byte that is not UTF-8 in the name, as the shell passes it
    assert main(["review", str(record), "--worlds", "50", "--out", out]) == 0
    assert "\\udcff" in Path(out).read_text(errors="surrogateescape")


@pytest.mark.parametrize("out", ["game.md", "game.png"])
def test_a_report_never_writes_over_the_game_it_reviews(tmp_path, capsys, out):
    game = tmp_path / out
    game.write_text(BLUNDER)
    before = game.read_bytes()
    report = tmp_path / "game.md"
    assert main(["review", str(game), "--worlds", "50", "--out", str(report)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(error_lines(err)) == 1 and "over the game being reviewed" in err
    assert game.read_bytes() == before


def test_a_match_asked_twice_is_reviewed_once(capsys):
    path = GOLDEN / "2p-standard.jsonl"
    assert main(["review", str(path), "--worlds", "20", "--seat", "1", "--match", "0", "--json"]) == 0
    once = json.loads(capsys.readouterr().out)
    assert main(["review", str(path), "--worlds", "20", "--seat", "1", "--match", "0", "--match", "0", "--json"]) == 0
    twice = json.loads(capsys.readouterr().out)
    assert twice["decisions"] == once["decisions"] and twice["seats"] == once["seats"]
    assert "provenance" in twice


def test_the_review_base_is_checked_before_the_game_is_read(tmp_path, capsys):
    from bergen_sim.cli import groups
    from bergen_sim.search.position import DEFAULT_BASE, DEFAULT_BATCH, DEFAULT_PLAYER, PLAYERS
    from bergen_sim.search.rollout import BASE_POLICIES

    assert (groups.BASE_POLICIES, groups.DEFAULT_BASE, groups.DEFAULT_BATCH) == (
        BASE_POLICIES,
        DEFAULT_BASE,
        DEFAULT_BATCH,
    )
    assert (groups.PLAYERS, groups.DEFAULT_PLAYER) == (PLAYERS, DEFAULT_PLAYER)
    for option, value, allowed in (("--base", "nosuch", "expert"), ("--policy", "expert", "ismcts")):
        assert main(["review", str(tmp_path / "missing.txt"), option, value]) == 2
        err = capsys.readouterr().err.strip()
        assert len(error_lines(err)) == 1 and option in err and allowed in err


def test_review_by_the_tree_search_names_it_and_reviews_the_same_decisions(tmp_path, capsys):
    """``--policy`` picks the search that ranks the moves (the strongest player's tree search by default): the same
    decisions and moves made whichever ranks them, the engine named in the settings and the report; ``review()``
    refuses an unknown one."""
    games = read_games(GOLDEN / "2p-standard.jsonl")[:1]
    by_reader = review(games, worlds=200, batch=200, seed=3, policy="reader")
    by_tree = review(games, worlds=200, batch=200, seed=3)
    assert [(d.number, d.played) for d in by_tree.decisions] == [(d.number, d.played) for d in by_reader.decisions]
    assert by_tree.settings["player"] == "ismcts" and by_reader.settings["reading"] == "reader:model=expert:trust=20"
    assert "the search of `reader:model=expert:trust=20`, on worlds weighed" in markdown(by_reader)
    assert by_tree.settings["reading"] == "ismcts:model=expert:trust=20:explore=3:prior=5"
    assert "the tree search of `ismcts:model=expert:trust=20:explore=3:prior=5`" in markdown(by_tree)
    assert "`pimc`'s search, on worlds uniform" in markdown(
        review(games[:1], seats=[0], worlds=50, batch=50, policy="pimc")
    )
    with pytest.raises(BergenError, match="policy must be one of reader, pimc, ismcts"):
        review(games, policy="expert")


def test_review_tables_are_never_cut_in_a_pipe(capsys):
    assert main(["review", str(GOLDEN / "2p-standard.jsonl"), "--worlds", "20", "--match", "0"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) > 80  # a row of the decisions' table, on one line


def test_reading_some_matches_of_a_trace_keeps_only_those():
    """``read_games(path, matches)``: the matches asked, in the order asked, as the whole file reads them."""
    from bergen_sim.services.files.record import MatchOutOfRange

    path = GOLDEN / "3p-standard.jsonl"
    every = read_games(path)
    some = read_games(path, matches=[7, 2])
    assert [g.match for g in some] == [every[7].match, every[2].match]
    assert [g.actions for g in some] == [every[7].actions, every[2].actions]
    with pytest.raises(MatchOutOfRange, match=f"match 12: {path} holds matches 0..11"):
        read_games(path, matches=[0, 12])


def _first_match() -> list[str]:
    lines = (GOLDEN / "2p-standard.jsonl").read_text().splitlines()
    second = next(k for k, line in enumerate(lines) if k and json.loads(line)["type"] == "match")
    return lines[:second]


def test_a_play_after_the_match_end_is_refused_before_any_decision_is_analyzed(tmp_path, monkeypatch):
    """The file is replayed whole first: refused in about a second, not after analysing every decision."""
    review_module = importlib.import_module("bergen_sim.services.game_review")  # the package's `review` is the function

    lines = _first_match()
    last_play = next(line for line in reversed(lines) if json.loads(line)["type"] == "play")
    path = tmp_path / "extra.jsonl"
    path.write_text("\n".join([*lines, last_play]) + "\n")
    analysed = []
    monkeypatch.setattr(review_module, "analyze", lambda *a, **k: analysed.append(1))
    with pytest.raises(RecordError, match="the match is already over"):
        review(read_games(path), worlds=2, batch=2)
    assert analysed == []


def test_a_huge_line_is_refused_before_it_is_parsed(tmp_path, capsys):
    head = json.loads(_first_match()[0])
    head["policies"] = ["x" * 1_000_000, "y"]
    path = tmp_path / "huge.jsonl"
    path.write_text("\n".join([json.dumps(head), *_first_match()[1:]]) + "\n")
    assert main(["review", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line 1 is longer than 100,000 characters" in err


@pytest.mark.parametrize("text", ["", "\n\n  \n"])
def test_an_empty_trace_is_told_it_is_empty(tmp_path, capsys, text):
    path = tmp_path / "empty.jsonl"
    path.write_text(text)
    assert main(["review", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the file is empty" in err and "rules" not in err


def test_a_trace_of_names_that_are_not_text_is_refused(tmp_path):
    head = json.loads(_first_match()[0])
    head["policies"] = [1, {"a": 2}]
    path = tmp_path / "names.jsonl"
    path.write_text("\n".join([json.dumps(head), *_first_match()[1:]]) + "\n")
    with pytest.raises(RecordError, match="'policies' must be a list of names"):
        read_games(path)


def test_a_ten_digit_player_count_is_too_large_not_text():
    with pytest.raises(RecordError, match=r"players must be 2\.\.8, not 1234567890"):
        parse_record("bergen-record 1\nrules players=1234567890\n")
