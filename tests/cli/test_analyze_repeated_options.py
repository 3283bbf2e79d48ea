"""``analyze --void`` and ``--played-by`` repeat: a seat given again adds to it, as if written in one option.

Found by a hostile-input sweep: ``--void 1:5 --void 1:6`` kept only ``1:6``
(a silently wrong analysis).  Repeats for one seat are merged (union, in
order of first appearance, each item once), the same for a seat repeated in
a position file, and a tile credited to two different seats is still
refused on one line with exit status 2.
"""

from __future__ import annotations

import json

import pytest

from bergen_sim.cli import main
from bergen_sim.cli.analyze import _read_file, _seat_items
from bergen_sim.search.position import Position, PositionError

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
]
BASE = {
    "hand": "5-6,1-6,0-5,3-4",
    "ends": "6,5d",
    "played": "2-2,2-5,2-6,5-5",
    "counts": "4,6",
    "boneyard": 14,
    "scores": "12,13",
}


def _position(voids: tuple[str, ...] = (), played_by: tuple[str, ...] = ()) -> Position:
    """The position as the command reads these options."""
    return Position.from_mapping(
        {
            **BASE,
            "voids": _seat_items(voids, "--void") or None,
            "played_by": _seat_items(played_by, "--played-by") or None,
        }
    )


@pytest.mark.parametrize(
    "repeated, single",
    [
        (("1:5", "1:6"), ("1:5,6",)),
        (("1:5", "1:6", "1:5"), ("1:5,6",)),
        (("1:6", "1:5,6"), ("1:6,5",)),
        (("1:5", "01:6", " 1 :5"), ("1:5,6",)),
        (("1:5,5",), ("1:5",)),
    ],
)
def test_repeated_void_is_the_single_option(repeated, single):
    merged, one = _position(voids=repeated), _position(voids=single)
    assert merged == one
    assert dict(merged.voids) == {1: tuple(int(n) for n in single[0].split(":")[1].split(","))}


@pytest.mark.parametrize(
    "repeated, single",
    [
        (("1:2-2,2-6", "1:2-5"), ("1:2-2,2-6,2-5",)),
        (("1:2-2", "1:2-2"), ("1:2-2",)),
        (("1:2-2", "0:2-6", "1:5-2"), ("1:2-2,2-5", "0:2-6")),
    ],
)
def test_repeated_played_by_is_the_single_option(repeated, single):
    assert _position(played_by=repeated) == _position(played_by=single)


def test_seat_items_joins_a_repeated_seat_as_one_option():
    assert _seat_items(("1:5", "2:3", "1:6"), "--void") == {"1": "5,6", "2": "3"}
    assert _seat_items(("1:2-2,2-6", "1:2-5"), "--played-by") == {"1": "2-2,2-6,2-5"}


def test_cli_json_reports_the_merged_tables(capsys):
    args = ["analyze", *POSITION, "--worlds", "200", "--base", "first", "--json"]
    assert main([*args, "--void", "1:5", "--void", "1:6", "--played-by", "1:2-2,2-6", "--played-by", "1:2-5"]) == 0
    merged = json.loads(capsys.readouterr().out)
    assert merged["position"]["voids"] == {"1": [5, 6]}
    assert merged["position"]["played_by"] == {"1": ["2-2", "2-6", "2-5"]}
    assert main([*args, "--void", "1:5,6", "--played-by", "1:2-2,2-6,2-5"]) == 0
    single = json.loads(capsys.readouterr().out)
    assert merged["position"] == single["position"]
    assert merged["moves"] == single["moves"]  # the same worlds, so the same table


def test_a_tile_credited_to_two_seats_is_refused_on_one_line(capsys):
    code = main(["analyze", *POSITION, "--played-by", "1:2-2,2-6", "--played-by", "0:2-6", "--worlds", "200"])
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "played_by: a tile is credited to two seats" in err


def test_a_bad_repeat_keeps_its_error(capsys):
    assert main(["analyze", *POSITION, "--void", "1:5", "--void", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--void takes SEAT:ITEMS (e.g. 1:2,5), not '1'" in err
    assert main(["analyze", *POSITION, "--void", "1:5", "--void", "1:x"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "voids takes whole numbers" in err


def test_a_key_repeated_in_a_json_file_is_refused_as_toml_refuses_it(tmp_path):
    """JSON readers keep the last of a repeated key without a word: a seat's voids would be lost."""
    path = tmp_path / "p.json"
    body = json.dumps(BASE)[:-1]
    path.write_text(body + ', "voids": {"1": [5], "1": "6,5"}}', encoding="utf-8")
    with pytest.raises(PositionError, match="not valid JSON: the key '1' is given twice in one object"):
        _read_file(str(path))


def test_seats_written_differently_in_a_toml_file_are_merged(tmp_path):
    path = tmp_path / "p.toml"
    path.write_text(
        'hand = "5-6,1-6,0-5,3-4"\nends = "6,5d"\nplayed = "2-2,2-5,2-6,5-5"\ncounts = [4, 6]\n'
        "boneyard = 14\nscores = [12, 13]\n[voids]\n1 = [5]\n01 = [6, 5]\n",
        encoding="utf-8",
    )
    assert Position.from_mapping(_read_file(str(path))) == _position(voids=("1:5,6",))


def test_a_key_repeated_elsewhere_in_a_json_file_is_refused_on_one_line(tmp_path, capsys):
    path = tmp_path / "p.json"
    path.write_text(json.dumps(BASE)[:-1] + ', "boneyard": 13}', encoding="utf-8")
    assert main(["analyze", "--position", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the key 'boneyard' is given twice in one object" in err
