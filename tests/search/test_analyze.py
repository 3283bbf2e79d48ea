"""``bergen-sim analyze``: position checks, the ranking, reproducibility and the command line.

Every analysis here rolls out with the ``first`` policy, whose match-value
table and compiled code ``tests/search/test_pimc.py`` uses too.
"""

from __future__ import annotations

import itertools
import json
import random

import numpy as np
import pytest

from bergen_sim.cli import main
from bergen_sim.engine import layout as L
from bergen_sim.engine.tileset import from_words
from bergen_sim.model.domain import Move, Tile
from bergen_sim.model.rules import Rules
from bergen_sim.search.position import Position, PositionError, analyze, line_problem, position_view

TWO = Rules.make(players=2)
# seat 0 led 4-4, seat 1 played 3-4, seat 0 played 4-5: the line 3-4 4-4 4-5 shows 3|5
WINNING = {
    "seat": 0,
    "hand": "3-5,1-3,5-6,0-0",
    "ends": "3,5",
    "played": "4-4,3-4,4-5",
    "counts": "4,5",
    "boneyard": 16,
    "scores": "14,12",
}
FAST = dict(base="first", worlds=600, batch=200)


def test_an_immediate_match_winning_header_ranks_first():
    """At 14 of 15, 3-5 makes a header on either end (1 point after the cut) and ends the match."""
    result = analyze(Position.from_mapping(WINNING), TWO, **FAST)
    top = result.moves[:2]
    assert {str(m.move) for m in top} == {"3-5 L", "3-5 R"}
    for move in top:
        assert (move.win.value, move.win.low, move.win.high) == (1.0, 1.0, 1.0)
        assert move.points.value == 1.0
    assert all(m.win.value < 0.95 for m in result.moves[2:])
    assert result.stopped == "tie" and result.worlds == 200  # the two winners tie in every world


def test_ranked_moves_are_moves_with_estimates_a_frame_and_the_json_of_analyze():
    """Each ranked move is a Move with Estimate figures over the worlds; ``to_frame()`` has a row per move, the
    HTML card shows it, ``move()`` finds a move however it is written, and ``to_dict()`` writes the JSON shape."""
    from bergen_sim.core.errors import MoveError
    from bergen_sim.search.position import MOVE_UNITS, RankedMove

    result = analyze(Position.from_mapping({**WINNING, "scores": "9,11"}), TWO, seed=5, **FAST)
    best = result.moves[0]
    assert all(isinstance(m, RankedMove) and isinstance(m.move, Move) for m in result.moves)
    assert [m.rank for m in result.moves] == list(range(1, len(result.moves) + 1))
    for name, unit in MOVE_UNITS.items():
        assert (getattr(best, name).unit, getattr(best, name).n_unit, getattr(best, name).n) == (
            unit,
            "worlds",
            result.worlds,
        )
    assert result.move(best.move) is result.move(str(best.move)) is result.move((best.move.tile, best.move.end.name))
    with pytest.raises(MoveError, match="^0-0 R is not a legal move of this position; legal: .*1-3 L"):
        result.move("0-0 R")
    frame = result.to_frame()
    assert list(frame["move"]) == [str(m.move) for m in result.moves] and len(frame) == len(result.moves)
    assert list(frame.columns[:3]) == ["rank", "move", "ends_after"]
    last = result.moves[-1]
    assert tuple(frame.iloc[-1][["win_behind_best", "win_behind_best_lo", "win_behind_best_hi"]]) == (
        last.win_behind_best.value,
        last.win_behind_best.low,
        last.win_behind_best.high,
    )
    card = result._repr_html_()
    assert f"<td>{best.move}</td>" in card and f"{100 * best.win.value:.1f}% [" in card
    written = result.to_dict()["moves"][-1]
    assert list(written) == ["rank", "tile", "end", "ends_after", *MOVE_UNITS, "mirror_of"]
    assert (written["tile"], written["end"]) == (str(last.move.tile), last.move.end.name)
    assert written["win"] == last.win.to_json() and written["mirror_of"] == (last.mirror_of and str(last.mirror_of))


def test_a_few_worlds_give_no_verdict_and_intervals_stay_within_what_a_probability_can_be():
    """A tiny batch is not a licence to stop at the first world: one world has no spread, so its interval was a
    point and the best move 'separated'; the rule waits for MIN_VERDICT_WORLDS, and a few worlds give Student's
    t intervals clipped to 0..100% (a normal interval of 20 worlds reached 103.5%)."""
    from bergen_sim.core.errors import BergenError
    from bergen_sim.search.position import MIN_VERDICT_WORLDS

    position = Position.from_mapping({**WINNING, "scores": "9,11"})
    result = analyze(position, TWO, base="first", worlds=5000, batch=1)
    assert result.worlds >= MIN_VERDICT_WORLDS
    assert all(m.win.high - m.win.low > 0 for m in result.moves if 0 < m.win.value < 1)
    small = analyze(position, TWO, base="first", worlds=5, batch=5)
    assert small.stopped == "budget" and small.worlds == 5
    for move in small.moves:
        assert 0.0 <= move.win.low <= move.win.value <= move.win.high <= 1.0
        assert -1.0 <= move.win_behind_best.low and move.win_behind_best.high <= 1.0
    wide = [m for m in small.moves if m.win.high - m.win.low > 0]
    assert wide and all(m.win.high - m.win.low > 0.1 for m in wide)  # t with 4 df: wide
    with pytest.raises(BergenError, match="worlds must be 2..1,000,000"):
        analyze(position, TWO, base="first", worlds=1)


def test_results_reproduce_from_the_seed():
    position = Position.from_mapping({**WINNING, "scores": "9,11"})
    one = analyze(position, TWO, seed=5, **FAST).to_dict()
    two = analyze(position, TWO, seed=5, **FAST).to_dict()
    other = analyze(position, TWO, seed=6, **FAST).to_dict()
    for result in (one, two, other):
        result.pop("elapsed_s")
    assert one == two
    assert one["moves"] != other["moves"]
    assert [m["win"]["n"] for m in one["moves"]] == [one["worlds"]] * len(one["moves"])


def test_voids_and_the_worlds_they_allow():
    position = Position.from_mapping({**WINNING, "scores": "9,11", "voids": {"1": [3, 5]}})
    result = analyze(position, TWO, **FAST)
    # of the 21 unseen tiles, 0-3 2-3 3-3 3-6 0-5 1-5 2-5 5-5 show a 3 or a 5; seat 1 holds 5 of the other 13
    assert result.consistent_worlds == 1287  # C(13, 5)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"hand": "3-5,1-3,5-6,4-4"}, "tile 4-4 is listed twice (the hand and the table)"),
        ({"hand": "3-5,1-3,5-6,7-7"}, "tile 7-7 is not in the double-six set"),
        ({"hand": "3-5,1-3,5-6,19-7"}, "'19-7' is not a tile"),
        ({"counts": "4,6"}, "= 29 tiles, not the 28 of double-six"),
        ({"counts": "3,5"}, "seat 0 holds 4 tiles (the hand), not 3"),
        ({"counts": "4,5,1"}, "one tile count per seat (2), not 3"),
        ({"boneyard": 17, "counts": "4,4"}, "boneyard must be 2..16"),
        ({"scores": "15,3"}, "scores must be 0..14"),
        ({"ends": "4,5"}, "needs exactly those numbers an odd number of times"),
        ({"ends": "3d,5"}, "the left end is a double end but 3-3 is not on the table"),
        ({"played": "3-4,4-5,0-2"}, "no double is on the table"),
        ({"ends": "3,5", "played": "4-4,3-4,4-5,1-2", "counts": "4,4"}, "do not form one connected line"),
        ({"ends": "3,5,6"}, "give the left and right end as L,R"),
        ({"voids": {"1": [0, 1, 2, 3, 4, 5, 6]}}, "no deal of the unseen tiles"),
        ({"voids": {"0": [1]}}, "voids: give numbers for the other seats, not seat 0"),
        ({"hand": "0-0,1-1,0-1,2-2", "played": "4-4,3-4,4-5"}, "no tile in the hand fits the ends 3|5"),
        ({"voids": [3, 5]}, 'voids is a table of seat -> numbers (e.g. {"1": ...}), not [3, 5]'),
        ({"played_by": [["3-4"]]}, "played_by is a table of seat -> tiles"),
        ({"ends": "9" * 5000 + ",5"}, "ends: '" + "9" * 36 + "... is not a number 0..18"),
        ({"boneyard": "9" * 5000}, "boneyard takes whole numbers, not '" + "9" * 36 + "..."),
    ],
)
def test_impossible_positions_are_one_line_errors(change, message):
    with pytest.raises(PositionError) as info:
        analyze(Position.from_mapping({**WINNING, **change}), TWO, **FAST)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_ends_whose_tiles_are_all_in_the_hand():
    """Every tile showing 6 is in the hand: no line on the table can end in 6."""
    sixes = [f"{a}-6" for a in range(7)]
    problem = line_problem({"4-4", "3-4"}, 3, 6, False, False)
    assert problem and "no tile on the table shows 6" in problem
    position = {**WINNING, "hand": ",".join(sixes), "ends": "3,6", "played": "4-4,3-4", "counts": "7,5", "boneyard": 14}
    with pytest.raises(PositionError, match="no tile on the table shows 6"):
        analyze(Position.from_mapping(position), TWO, **FAST)


def _reachable_ends(tiles: list[str]) -> set[tuple[int, int, bool, bool]]:
    """Every (left, right, left double, right double) a line of exactly these tiles can show,
    found by growing lines from each double outward tile by tile (brute force)."""
    halves = {t: tuple(int(x) for x in t.split("-")) for t in tiles}
    out = set()
    start = [((a, a, True, True), frozenset([t])) for t, (a, b) in halves.items() if a == b]
    seen = set(start)
    stack = list(start)
    while stack:
        (left, right, ld, rd), used = stack.pop()
        if len(used) == len(tiles):
            out.add((left, right, ld, rd))
            continue
        for t, (a, b) in halves.items():
            if t in used:
                continue
            for end, shown in ((0, left), (1, right)):
                if shown not in (a, b):
                    continue
                new = b if a == shown else a
                state = (new, right, a == b, rd) if end == 0 else (left, new, ld, a == b)
                item = (state, used | {t})
                if item not in seen:
                    seen.add(item)
                    stack.append(item)
    return out


def test_line_check_agrees_with_brute_force():
    rng = random.Random(2)
    for _ in range(400):
        tiles = rng.sample(L.TILE_NAMES[:28], rng.randint(1, 6))
        reachable = _reachable_ends(tiles)
        for left, right, ld, rd in itertools.product(range(7), range(7), (False, True), (False, True)):
            possible = line_problem(set(tiles), left, right, ld, rd) is None
            assert possible == ((left, right, ld, rd) in reachable), (tiles, left, right, ld, rd)


def test_cli_table_json_and_toml(tmp_path, capsys):
    args = [
        "analyze",
        "--hand",
        "3-5,1-3,5-6,0-0",
        "--ends",
        "3,5",
        "--played",
        "4-4,3-4,4-5",
        "--counts",
        "4,5",
        "--boneyard",
        "16",
        "--scores",
        "14,12",
        "--base",
        "first",
        "--worlds",
        "400",
        "--batch",
        "200",
    ]
    assert main(args + ["--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["moves"][0]["tile"] == "3-5" and result["stopped"] == "tie"
    assert main(args) == 0
    table = capsys.readouterr().out
    assert "3-5 L" in table and "100.0%" in table
    toml = tmp_path / "position.toml"
    toml.write_text(
        'hand = ["3-5", "1-3", "5-6", "0-0"]\nends = "3,5"\nplayed = ["4-4", "3-4", "4-5"]\n'
        "counts = [4, 5]\nboneyard = 16\nscores = [14, 12]\n[rules]\nplayers = 2\ntarget = 15\n"
    )
    assert main(["analyze", "--position", str(toml), "--base", "first", "--worlds", "400", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["moves"][0]["tile"] == "3-5"
    assert main(["analyze", "--position", str(toml), "--players", "3", "--json"]) == 2
    assert "give the rules there or as options, not both" in capsys.readouterr().err


@pytest.mark.parametrize(
    "text, message",
    [
        ('{"hand": ' * 100_000, "not valid JSON: nested too deep"),
        ('{"boneyard": ' + "9" * 5000 + "}", "not valid JSON: a number of more than 4,300 digits"),
    ],
)
def test_a_position_file_python_cannot_read_is_one_line(tmp_path, capsys, text, message):
    path = tmp_path / "p.json"
    path.write_text(text)
    assert main(["analyze", "--position", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_cli_bad_position_exits_2_with_one_line(capsys):
    code = main(
        [
            "analyze",
            "--hand",
            "3-5,4-4",
            "--ends",
            "3,5",
            "--played",
            "4-4,3-4,4-5",
            "--counts",
            "2,7",
            "--boneyard",
            "16",
            "--scores",
            "0,0",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "tile 4-4 is listed twice" in err


# --- the spinner: four arms (double-nine, 4 players, spinner on by default) -----------------------------

NINE = Rules.make(players=4, domino_set="double-nine")
# seat 0 led the spinner 4-4; seats 1, 2, 3 put 4-7 on L, 2-4 on R (U and D opened), 4-9 on U: arms 7,2,9,*
SPINNER = {
    "seat": 0,
    "spinner": 4,
    "ends": "7,2,9,*",
    "played": "4-4,4-7,2-4,4-9",
    "hand": "0-4,2-7,1-9,3-8",
    "counts": "4,4,4,4",
    "boneyard": 35,
    "scores": "2,0,0,0",
}


def test_a_spinner_position_ranks_moves_on_every_open_arm():
    position = Position.from_mapping(SPINNER)
    assert position.arms() == [(7, False), (2, False), (9, False), (4, True)]
    assert position.ends_text() == "7,2,9,*"
    result = analyze(position, NINE, **FAST)
    moves = {str(m.move): m.ends_after for m in result.moves}
    # 0-4 fits only the empty D arm; 2-7 fits L and R; 1-9 fits U
    assert moves == {"0-4 D": "7,2,9,0", "2-7 L": "2,2,9,*", "2-7 R": "7,7,9,*", "1-9 U": "7,2,1,*"}
    assert result.to_dict()["position"]["spinner"] == 4


def test_empty_up_and_down_arms_are_mirror_images():
    """Right after L and R take their first tiles, a tile showing the spinner's number fits U and D alike."""
    data = {
        **SPINNER,
        "seat": 3,
        "ends": "7,2,*,*",
        "played": "4-4,4-7,2-4",
        "counts": "4,4,4,5",
        "hand": "0-4,2-8,1-9,3-8,5-5",
    }
    result = analyze(Position.from_mapping(data), NINE, **FAST)
    up, down = result.move("0-4 U"), result.move(("0-4", "D"))
    assert up.mirror_of == Move("0-4", "D") and down.mirror_of == Move("0-4", "U")
    assert up.ends_after == "7,2,0,*"
    # one move seen in a mirror has one value: the twins share every world's evaluation
    assert up.win == down.win and up.points == down.points


def test_twins_on_a_line_share_one_evaluation_so_review_sees_no_loss():
    """0-2 on either end of 0|0 is one move: the rollouts (which break ties by end) once valued them a point apart."""
    from pathlib import Path

    from bergen_sim.services.files.record import drive, read_games

    games = read_games(Path(__file__).resolve().parents[1] / "golden" / "2p-standard.jsonl")[:1]
    seen = []
    drive(
        games[0],
        lambda game, action: (
            seen.append((game.view(action.seat), action))
            if (game.hand_number, action.seat, action.tile) == (2, 0, "0-2")
            else None
        ),
    )
    view, action = seen[0]
    result = analyze(view, games[0].rules, worlds=2000, batch=1000, seed=0)
    left = result.move("0-2 L")
    assert left.mirror_of == Move("0-2", "R") and left.win == result.move("0-2 R").win
    twin = result.moves[1].win_behind_best
    assert (twin.value, twin.low, twin.high, twin.n) == (0.0, 0.0, 0.0, result.worlds)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"spinner": None}, "four ends are a spinner's arms L,R,U,D: give spinner=N too"),
        ({"spinner": None, "ends": "7,2"}, "with the spinner on, give spinner=N"),
        ({"ends": "7,2,9"}, "ends: give the arms as L,R or L,R,U,D"),
        ({"spinner": 5}, "the spinner 5-5 is not on the table"),
        ({"ends": "*,2,9,*", "played": "4-4,2-4,4-9", "counts": "4,5,4,4"}, "U and D arms open only once L and R"),
        ({"ends": "7,2,9d,*"}, "the U arm ends in the double 9-9, which is not on the table"),
        ({"ends": "7,3,9,*"}, "cannot use exactly these tiles"),
        ({"spinner": "4-5"}, "spinner: the led double"),
        ({"spinner": "-1"}, "spinner: the led double"),
        ({"spinner": "4-4-4"}, "spinner: the led double"),
        ({"spinner": " ", "ends": "7,2"}, "with the spinner on, give spinner=N"),
        ({"ends": "7,2,10,*"}, "number 10 is not in double-nine"),
    ],
)
def test_impossible_spinner_positions_are_one_line_errors(change, message):
    data = {k: v for k, v in {**SPINNER, **change}.items() if v is not None}
    with pytest.raises(PositionError, match=message):
        analyze(Position.from_mapping(data), NINE, **FAST)


def test_a_spinner_is_refused_in_a_line_game_and_a_star_outside_a_spinner_game():
    with pytest.raises(PositionError, match="the rules play a line"):
        analyze(Position.from_mapping(SPINNER), Rules.make(players=4, domino_set="double-nine", spinner=False), **FAST)
    with pytest.raises(PositionError, match="not a number"):
        Position.from_mapping({**WINNING, "ends": "3,*"})


def test_every_reached_spinner_position_passes_the_checks_and_rebuilds_the_engines_view():
    """Positions of real double-nine games (views from the step API) are accepted, and the view the
    analyzer builds from them has the engine's ends, arms, open ends and counting ends, and its moves."""
    from bergen_sim.engine.play_rules import hand_moves
    from bergen_sim.search.position import ends_after, position_view
    from bergen_sim.services.game import Game

    rng = random.Random(7)
    checked = 0
    for match in range(4):
        game = Game(NINE, seed=11, match=match)
        while not game.is_over and checked < 400:
            moves = game.legal_moves()
            if not game.choosing_lead and len(moves) > 0:
                view = game.view()
                engine = view.array
                built = position_view(view.position(), NINE)
                for field in (L.V_END, L.V_END_DOUBLE):
                    assert list(built[field : field + L.N_ENDS]) == list(engine[field : field + L.N_ENDS])
                for field in (L.V_OPEN_ENDS, L.V_COUNTING, L.V_SPINNER, L.V_HAND, L.V_PLAYED):
                    assert built[field] == engine[field]
                held = [bool(x) for x in engine[L.V_END_TILES : L.V_END_TILES + L.N_ENDS]]
                assert [bool(x) for x in built[L.V_END_TILES : L.V_END_TILES + L.N_ENDS]] == held
                tiles = np.zeros(L.MAX_MOVES, dtype=np.int64)
                ends = np.zeros(L.MAX_MOVES, dtype=np.int64)
                n = hand_moves(built[L.V_HAND], built, tiles, ends)
                assert list(zip(tiles[:n].tolist(), ends[:n].tolist())) == [m.kernel() for m in moves]
                checked += 1
                move, hand = rng.choice(moves), game.hand_number
                game.play(move)
                if not game.is_over and game.hand_number == hand:  # the ends the analyzer says follow
                    assert ends_after(built, *move.kernel()) == game.view().position().ends_text(), str(move)
                continue
            game.play(rng.choice(moves))
    assert checked >= 100


def test_cli_spinner_position_as_options_and_json_round_trip(tmp_path, capsys):
    """The docs' double-nine example: options in, a JSON position out that reads back to the same analysis."""
    args = [
        "analyze",
        "--players",
        "4",
        "--set",
        "domino_set=double-nine",
        "--spinner",
        "4",
        "--ends",
        "7,2,9,*",
        "--played",
        "4-4,4-7,2-4,4-9",
        "--hand",
        "0-4,2-7,1-9,3-8",
        "--counts",
        "4,4,4,4",
        "--boneyard",
        "35",
        "--scores",
        "2,0,0,0",
        "--base",
        "first",
        "--worlds",
        "400",
        "--batch",
        "200",
    ]
    assert main(args) == 0
    table = capsys.readouterr().out
    assert "7|2|9|* (spinner 4-4)" in table and "0-4 D" in table
    assert main(args + ["--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["position"]["ends"] == "7,2,9,*" and first["position"]["spinner"] == 4
    saved = tmp_path / "position.json"
    saved.write_text(json.dumps({**first["position"], "rules": first["rules"]}))
    assert (
        main(["analyze", "--position", str(saved), "--base", "first", "--worlds", "400", "--batch", "200", "--json"])
        == 0
    )
    again = json.loads(capsys.readouterr().out)
    assert again["moves"] == first["moves"]
    spinner = args.index("--spinner") + 1
    assert main([*args[:spinner], "4-5", *args[spinner + 1 :]]) == 2
    assert "spinner: the led double" in capsys.readouterr().err


#: a six-seat double-nine line (two partnerships): seats 3 and 5 are void in 7 and 9, so alike (one group)
SIX_SEATS = {
    "hand": "0-4,2-7,1-9,3-8,7-9",
    "ends": "7,2",
    "played": "4-4,4-7,2-4",
    "counts": "5,4,4,4,5,5",
    "boneyard": 25,
    "scores": "2,0",
    "voids": {"3": [7, 9], "5": [7, 9]},
}


def test_positions_of_five_to_eight_seats_and_of_three_word_sets_are_read():
    """Worlds cover 2 to 8 seats on every set: a six-seat double-nine position reads, and the same on
    double-twelve, whose hand and table take three words in the view."""
    rules = Rules.make(players=6, partnerships=True, domino_set="double-nine", spinner=False)
    view = position_view(Position.from_mapping(SIX_SEATS), rules)
    assert view[L.V_PLAYERS] == 6 and view[L.V_VOID + 3] == view[L.V_VOID + 5] == (1 << 7) | (1 << 9)
    twelve = Rules.make(players=6, partnerships=True, domino_set="double-twelve", spinner=False)
    view = position_view(Position.from_mapping({**SIX_SEATS, "hand": "0-4,2-7,1-9,3-8,7-12", "boneyard": 61}), twelve)
    assert from_words(view[L.V_HAND : L.V_HAND + L.SET_WORDS]) == L.tile_mask(["0-4", "2-7", "1-9", "3-8", "7-12"])
    assert L.TILE_INDEX["7-12"] >= 64  # in the second word
    assert from_words(view[L.V_PLAYED : L.V_PLAYED + L.SET_WORDS]) == L.tile_mask(["4-4", "4-7", "2-4"])


@pytest.mark.slow  # compiles the analyzer's three-word rollouts and builds a double-twelve table: over a minute
def test_a_double_twelve_spinner_position_of_a_real_game_is_analyzed():
    """A three-word set with four open arms: every legal move is ranked with a win chance, reproducibly."""
    from bergen_sim.services.game import Game

    twelve = Rules.make(players=3, domino_set="double-twelve")
    game = Game(twelve, seed=5, match=0)
    rng = random.Random(3)
    while True:
        moves = game.legal_moves()
        if not game.choosing_lead and len(moves) >= 2 and game.view().array[L.V_OPEN_ENDS] == 4:
            break
        game.play(rng.choice(moves))
    position = game.view().position()
    result = analyze(position, twelve, **FAST)
    assert {m.move for m in result.moves} == set(moves)  # the analysis ranks the game's own Moves
    assert all(0.0 <= m.win.value <= 1.0 for m in result.moves)
    assert analyze(position, twelve, **FAST).to_dict()["moves"] == result.to_dict()["moves"]


def test_a_games_view_is_analyzed_with_the_other_seats_plays_read(monkeypatch):
    """A game's View holds the order of the hand's plays, a Position does not: given the view, the reader weighs
    its worlds by the other seats' plays (expert's model, ``reader.STRONGEST``), so at some decisions of a real
    game its estimates differ from the same reading with no trust in the plays; the legal moves are the
    position's, the caller's view is not written, and ``plays_read`` counts the other seats' plays read (none
    with the spinner, which the model does not read)."""
    from bergen_sim.search import position as position_module
    from bergen_sim.services import game as game_module

    rules = Rules.make(players=2)
    read_differs = decisions = plays_read = 0
    for match in range(3):
        game = game_module.Game(rules, seed=5, match=match, policies=["greedy", "greedy"])
        while not game.is_over and decisions < 24:
            if len(game.legal_moves()) > 1 and game.view().play_number >= 2:
                view = game.view()
                before = view.array.copy()
                read = analyze(view, rules, worlds=300, batch=300, seed=1)
                assert np.array_equal(view.array, before)
                as_position = analyze(view.position(), rules, worlds=300, batch=300, seed=1)
                assert as_position.plays_read == 0 and 0 <= read.plays_read < view.array[L.V_PLAYS_N]  # not the lead
                plays_read += read.plays_read
                assert {m.move for m in read.moves} == {m.move for m in as_position.moves}
                with monkeypatch.context() as patch:
                    patch.setattr(position_module, "READER_TRUST", 0.0)
                    unread = analyze(view, rules, worlds=300, batch=300, seed=1)
                wins = {m.move: m.win.value for m in unread.moves}
                read_differs += any(m.win.value != wins[m.move] for m in read.moves)
                decisions += 1
            game.play(game.policy_move("greedy"))
    assert decisions >= 10 and read_differs >= 3 and plays_read >= decisions
    spinner = Rules.make(players=2, spinner=True)  # the model reads no spinner layout: nothing is read
    game = game_module.Game(spinner, seed=5, match=0, policies=["greedy", "greedy"])
    while game.view().play_number < 3 or len(game.legal_moves()) < 2:
        game.play(game.policy_move("greedy"))
    assert analyze(game.view(), spinner, worlds=50, batch=50, seed=1).plays_read == 0


def test_a_leader_choosing_its_double_is_analyzed_lead_by_lead():
    """Under lead=any-double the leader's choice of double is a decision: its moves are its doubles, each led
    on L as the engine leads (scoring the lead); at 13 of 15 every lead wins the match at once."""
    from bergen_sim.services.game import Game

    classic = Rules.make(players=2, preset="classic")
    game = Game(classic, seed=1, match=1)
    assert game.choosing_lead and len(game.legal_moves()) == 3
    result = analyze(game.view(), classic, worlds=400, batch=200, seed=2)
    assert result.leading and {m.move for m in result.moves} == {Move(m.tile, "L") for m in game.legal_moves()}
    assert {str(m.move.tile): m.ends_after for m in result.moves} == {"0-0": "0d,0d", "1-1": "1d,1d", "5-5": "5d,5d"}
    assert all(m.points.low > 2 for m in result.moves)  # the lead's 2 points, then the hand's headers
    data = result.to_dict()["position"]
    assert data["leading"] is True and data["ends"] is None and data["played"] == []
    view = game.view()
    view.array[L.V_SCORE + view.array[L.V_SIDE]] = 13  # the lead's 2 points reach the target of 15
    won = analyze(view, classic, worlds=200, batch=100, seed=2)
    assert won.stopped == "tie" and all(m.win.value == 1.0 and m.points.value == 2.0 for m in won.moves)


def test_an_empty_table_is_a_lead_only_under_any_double():
    from bergen_sim.services.game import Game

    classic = Rules.make(players=2, preset="classic")
    view = Game(classic, seed=1, match=1).view()
    with pytest.raises(PositionError, match="with lead=lowest-double the lead is not a choice"):
        analyze(view, Rules.make(players=2, preset="classic", lead="lowest-double"), worlds=10, batch=10)
    view.array[L.V_BONEYARD] -= 1
    with pytest.raises(PositionError, match="a leader choosing its double holds 6 tiles"):
        analyze(view, classic, worlds=10, batch=10)
    view.array[L.V_BONEYARD] += 1
    from bergen_sim.engine.tileset import to_words

    for hand, message in (
        (["0-1", "0-2", "0-3", "0-4", "0-5", "0-6"], "the leader holds no double"),
        (["0-0", "0-2", "0-3", "0-4", "0-5", "7-7"], "tile 7-7 is not in the double-six set"),
    ):
        view.array[L.V_HAND : L.V_HAND + L.SET_WORDS] = to_words(sum(1 << L.TILE_INDEX[t] for t in hand))
        with pytest.raises(PositionError, match=message):
            analyze(view, classic, worlds=10, batch=10)


def test_a_leaders_view_with_mistyped_fields_is_a_one_line_error():
    """The lead's checks read the counts and scores: their types are checked first (no TypeError)."""
    import dataclasses

    from bergen_sim.services.game import Game

    classic = Rules.make(players=2, preset="classic")
    real = Game(classic, seed=1, match=1).view()
    position = dataclasses.replace(real.position(), scores=("a", "b"))
    given = type("View", (), {"array": real.array, "position": lambda self: position})()
    with pytest.raises(PositionError, match="scores"):
        analyze(given, classic, worlds=10, batch=10)


@pytest.mark.parametrize(
    "given, message",
    [
        (object(), "analyze reads a Position or a game's View"),
        (type("View", (), {"array": np.zeros(3, dtype=np.int64), "position": lambda self: None})(), "a view is"),
        (
            type("View", (), {"array": np.zeros(L.V_SIZE, dtype=np.int64), "position": lambda self: "6-6"})(),
            "a view's position",
        ),
    ],
)
def test_what_is_neither_a_position_nor_a_view_is_a_one_line_error(given, message):
    with pytest.raises(PositionError, match=message):
        analyze(given, Rules.make(players=2), worlds=10, batch=10)


def test_the_tree_search_ranks_moves_in_every_world_and_keeps_its_tree_small():
    """``player="ismcts"``: every move meets every world (the analyzer's paired unit), the match-winning header
    ranks first with a sure win, results reproduce from the seed, a full tree stops growing, and a lead (which
    the tree's walk does not play) is ranked by the reader."""
    from bergen_sim.search import ismcts
    from bergen_sim.search import position as position_module
    from bergen_sim.services.game import Game

    result = analyze(Position.from_mapping(WINNING), TWO, player="ismcts", **FAST)
    assert result.player == "ismcts" and {m.move.tile for m in result.moves[:2]} == {Tile(3, 5)}
    assert all(m.win.value == 1.0 for m in result.moves[:2]) and result.stopped == "tie"
    assert [m.win.n for m in result.moves] == [result.worlds] * len(result.moves)
    position = Position.from_mapping({**WINNING, "scores": "9,11"})
    again = [analyze(position, TWO, player="ismcts", seed=5, **FAST).to_dict() for _ in range(2)]
    for one in again:
        one.pop("elapsed_s")
    assert again[0] == again[1]
    nodes = ismcts.analyzer_tree(position_module.analysis_walks(), 10**6, 12).nodes
    assert len(nodes) == ismcts.ANALYZER_NODES + 1  # 64 bytes a node: the tree of a million worlds stays small
    from pathlib import Path

    policies_md = (Path(__file__).resolve().parents[2] / "docs" / "policies.md").read_text()
    assert f"up to {ismcts.ANALYZER_NODES:,} nodes" in policies_md.replace("\n", " ")
    small = position_module.ismcts.ANALYZER_NODES
    try:
        position_module.ismcts.ANALYZER_NODES = 40  # full after ten worlds of four moves: the walks play on
        full = analyze(position, TWO, player="ismcts", seed=5, **FAST)
    finally:
        position_module.ismcts.ANALYZER_NODES = small
    assert [m.win.n for m in full.moves] == [full.worlds] * len(full.moves)
    assert [m["win"] for m in full.to_dict()["moves"]] != [m["win"] for m in again[0]["moves"]]  # it stopped growing
    classic = Rules.make(players=2, preset="classic")
    lead = analyze(Game(classic, seed=1, match=1).view(), classic, player="ismcts", worlds=200, batch=100, seed=2)
    assert lead.leading and lead.player == "reader"


def test_the_cli_analyzes_with_the_tree_search(capsys):
    args = [
        "analyze",
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
        "--void",
        "1:5,6",
        "--worlds",
        "400",
        "--batch",
        "200",
        "--base",
        "first",
        "--policy",
        "ismcts",
        "--json",
    ]
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["player"] == "ismcts" and len(data["moves"]) == 4


@pytest.mark.parametrize(
    "rules, message",
    [
        ({"partnerships": "false", "players": 4}, "rules.partnerships must be true or false, not 'false'"),
        ({"players": "4"}, "rules.players must be a whole number, not '4'"),
        ({"players": True}, "rules.players must be a whole number, not True"),
        ({"players": 1234567890}, "players must be 2..8, not 1234567890"),
        ({"preset": ["standard"]}, "rules.preset must be a name"),
        ({"target": "10"}, "setting target takes a whole number, not '10'"),
        ({"reduced_headers": "no"}, "setting reduced_headers takes true or false, not 'no'"),
    ],
)
def test_a_position_files_rules_are_checked_for_their_types(tmp_path, capsys, rules, message):
    """A JSON string is not a boolean: "false" would have been a partnership game (bool("false") is True)."""
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"rules": rules, "seat": 0, "hand": "1-2"}))
    assert main(["analyze", "--position", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


def test_a_position_file_with_a_byte_order_mark_is_read(tmp_path, capsys):
    path = tmp_path / "p.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"rules": {"partnerships": "false"}}).encode())
    assert main(["analyze", "--position", str(path)]) == 2
    assert "must be true or false" in capsys.readouterr().err  # read as JSON, then refused for the type


def test_a_line_with_equal_ends_is_told_every_number_shows_an_even_number_of_times():
    problem = line_problem({"3-3", "3-4", "4-5"}, 3, 3, False, False)
    assert problem and "both show 3" in problem and "3, 5 show an odd number of times" in problem
    assert "needs exactly those numbers" not in problem
