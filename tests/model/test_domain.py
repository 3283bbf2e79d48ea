"""The domain model (tiles, moves, trace events) and the declared layouts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from numba import njit

from bergen_sim.engine import layout as L
from bergen_sim.model.domain import EVENT_TYPES, Move, Tile, parse_end, parse_event, tiles_of_set
from bergen_sim.services.files.trace import read_jsonl

GOLDEN = sorted((Path(__file__).resolve().parents[1] / "golden").glob("*.jsonl"))


def test_every_tile_round_trips_through_text_and_index():
    for index, name in enumerate(L.TILE_NAMES):
        tile = Tile.parse(name)
        assert str(tile) == name and tile.index == index and Tile.from_index(index) == tile
    assert Tile.parse(" 5-3 ") == Tile(3, 5)


@pytest.mark.parametrize("text", ["", "3", "3-", "a-b", "19-1", "3-5-1", "-1-2"])
def test_tile_parse_refuses_with_what_is_allowed(text):
    with pytest.raises(ValueError, match="not a tile"):
        Tile.parse(text)


def test_moves_round_trip_and_match_the_kernel_codes():
    for tile in L.TILE_NAMES:
        for end in L.End:
            move = Move.parse(f"{tile} {end.name}")
            assert str(move) == f"{tile} {end.name}"
            assert Move.from_kernel(*move.kernel()) == move
    assert parse_end("u") == L.End.U and parse_end("D") == L.End.D
    with pytest.raises(ValueError, match="ends are L, R, U, D"):
        parse_end("X")


def test_one_move_type_for_texts_kernel_codes_and_actions():
    """domain.Move is also the step API's Move: built from texts or values, numbered as actions."""
    from bergen_sim.core.errors import MoveError
    from bergen_sim.services import game

    assert game.Move is Move
    for index, name in enumerate(L.TILE_NAMES):
        for end in L.End:
            move = Move(name, end.name.lower())
            assert move == Move(Tile.parse(name), end) == Move.of((name, end.name)) == Move.of(str(move))
            assert move.action == 4 * index + int(end) and Move.from_action(move.action) == move
    # a tile equals its text, with the same hash: moves can be looked up among a hand's texts
    assert Tile(3, 5) == "3-5" and "3-5" == Tile(3, 5) and Tile(3, 5) != "5-3" and Tile(3, 5) != (3, 5)
    assert {Tile(3, 5)} == {"3-5"} and Move("5-3", "L").tile in ["1-2", "3-5"]
    for bad in ["3-5", "3-5 X", "3-5 L R", "x-5 L", "3-19 R", ""]:
        with pytest.raises(MoveError) as caught:
            Move.parse(bad)
        assert "\n" not in str(caught.value)
    with pytest.raises(MoveError, match="not a tile"):
        Move("3", "L")
    with pytest.raises(MoveError, match="a move is a Move"):
        Move.of(42)


def test_tiles_up_to_double_eighteen_and_their_sets():
    assert str(Tile.parse("12-9")) == "9-12" and Tile.parse("18-18").index == 189
    assert [len(tiles_of_set(n)) for n in (6, 9, 12, 15, 18)] == [28, 55, 91, 136, 190]
    assert tiles_of_set(9)[:28] == tiles_of_set(6)  # every set a prefix of the next
    assert Tile.parse("6-6").in_set(6) and not Tile.parse("6-7").in_set(6) and Tile.parse("6-7").in_set(9)


def test_golden_trace_events_round_trip_through_the_event_types():
    """Every event of every golden trace parses into its type and writes back to the same JSON object."""
    seen = set()
    for path in GOLDEN:
        for event in read_jsonl(path):
            parsed = parse_event(event)
            assert parsed.to_dict() == event and list(parsed.to_dict()) == list(event)
            seen.add(event["type"])
    assert seen <= set(EVENT_TYPES) and {"match", "deal", "lead", "play", "draw", "pass", "match_end"} <= seen


def test_unknown_event_type_is_named():
    with pytest.raises(ValueError, match="unknown event type 'jump'"):
        parse_event({"type": "jump"})


@pytest.mark.parametrize("vector", L.VECTORS, ids=lambda v: v.prefix)
def test_declared_vectors_tile_their_slots(vector):
    """Offsets are contiguous from 0 in declaration order and every kernel constant matches its field."""
    at = 0
    constants = vector.constants()
    for f in vector.fields:
        assert vector.offset(f.name) == at == constants[f"{vector.prefix}_{f.name.upper()}"]
        at += f.width
    assert vector.size == at == constants[vector.size_name]
    assert getattr(L, vector.size_name) == vector.size


def test_named_reads_rows_and_vectors_by_field():
    rows = np.arange(3 * L.H_WIDTH, dtype=np.int64).reshape(3, L.H_WIDTH)
    hands = L.HAND_ROW.named(rows)
    assert hands["plays"].tolist() == rows[:, L.H_PLAYS].tolist()
    assert hands["seat_points"].shape == (3, L.MAX_SEATS)
    totals = L.TOTALS.named(np.arange(L.S_SIZE))
    assert totals["match_wins"].tolist() == list(range(L.S_MATCH_WINS, L.S_MATCH_WINS + L.MAX_SEATS))
    with pytest.raises(ValueError, match="slots"):
        L.HAND_ROW.named(np.zeros((1, 3), dtype=np.int64))


def test_code_enums_work_inside_compiled_code():
    @njit
    def probe(out, code):
        out[0] = L.Event.PLAY
        out[1] = 1 if code == L.End.R else 0
        out[L.HandEnd.CUT] = L.EV_MATCH_END
        return out[0] + L.KernelError.SCRIPT

    out = np.zeros(3, dtype=np.int64)
    assert probe(out, np.int64(1)) == L.Event.PLAY + L.KernelError.SCRIPT
    assert out.tolist() == [int(L.Event.PLAY), 1, int(L.Event.MATCH_END)]


def test_code_names_are_the_formats():
    assert L.END_NAMES == ("L", "R", "U", "D")
    assert L.LEAD_NAMES == ("lowest-double", "highest-double", "any-double")
    assert L.SETTLEMENT_NAMES == ("german", "pips", "american")
    assert L.EVENT_NAMES[L.EV_MATCH_END] == "match_end"
