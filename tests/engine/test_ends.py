"""The open ends as one packed value (engine/ends.py): what it holds reads back exactly, and a play moves it by
the rules, checked against a plain-Python statement of them on every domino set's range of numbers."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from bergen_sim.engine import layout as L
from bergen_sim.engine.ends import counting_mask, ends_led, header, holds_tile, moved, number_at, open_count
from bergen_sim.engine.view import ends_of, store_end, view_lay_lead

MOST = max(L.DOMINO_SETS.values())  # the largest number a set shows (double-eighteen)


@st.composite
def layouts(draw):
    """A view's end slots as the rules can leave them: L and R always count; U and D only with the spinner."""
    spinner = draw(st.booleans())
    open_ends = 4 if spinner and draw(st.booleans()) else 2
    counting = 3 | (draw(st.integers(0, 3)) << 2 if open_ends == 4 else 0)
    return {
        "numbers": [draw(st.integers(0, MOST)) for _ in range(L.N_ENDS)],
        "doubles": [draw(st.integers(0, 1)) for _ in range(L.N_ENDS)],
        "tiles": [draw(st.integers(0, L.MAX_TILES)) for _ in range(L.N_ENDS)],
        "open": open_ends,
        "counting": counting,
        "spinner": draw(st.integers(0, MOST)) if spinner else -1,
    }


def view_of(layout) -> np.ndarray:
    view = np.zeros(L.V_SIZE, dtype=np.int64)
    view[L.V_END : L.V_END + L.N_ENDS] = layout["numbers"]
    view[L.V_END_DOUBLE : L.V_END_DOUBLE + L.N_ENDS] = layout["doubles"]
    view[L.V_END_TILES : L.V_END_TILES + L.N_ENDS] = layout["tiles"]
    view[L.V_OPEN_ENDS] = layout["open"]
    view[L.V_COUNTING] = layout["counting"]
    view[L.V_SPINNER] = layout["spinner"]
    return view


@settings(max_examples=300, deadline=None)
@given(layouts())
def test_the_packed_ends_read_back_every_slot_of_the_view(layout):
    """What a play on each end stores is what the view held: its number and flag, the open ends and the counting
    mask (the tiles on an end the view counts itself: one more per play)."""
    view = view_of(layout)
    ends = ends_of(view)
    copy = view.copy()
    copy[L.V_END : L.V_COUNTING + 1] = -7
    for e in range(L.N_ENDS):
        copy[L.V_END_TILES + e] = layout["tiles"][e] - 1
        store_end(copy, ends, e)
    assert (copy == view).all()
    assert open_count(ends) == layout["open"] and counting_mask(ends) == layout["counting"]
    assert [holds_tile(ends, e) for e in range(L.N_ENDS)] == [int(t > 0) for t in layout["tiles"]]


@settings(max_examples=300, deadline=None)
@given(layouts(), st.data())
def test_a_play_moves_one_end_and_may_open_the_spinners_arms(layout, data):
    view = view_of(layout)
    end = data.draw(st.integers(0, layout["open"] - 1))
    shown = layout["numbers"][end]
    other = data.draw(st.integers(0, MOST))
    tile = int(L.TILE_AT[shown, other])
    after = moved(ends_of(view), end, tile)

    numbers, doubles, tiles = list(layout["numbers"]), list(layout["doubles"]), list(layout["tiles"])
    numbers[end], doubles[end], tiles[end] = other, int(shown == other), tiles[end] + 1
    opens = layout["spinner"] >= 0 and layout["open"] == 2 and tiles[0] > 0 and tiles[1] > 0
    assert [number_at(after, e) for e in range(L.N_ENDS)] == numbers
    assert [holds_tile(after, e) for e in range(L.N_ENDS)] == [int(t > 0) for t in tiles]
    assert open_count(after) == (4 if opens else layout["open"])
    assert counting_mask(after) == layout["counting"] | 1 << end
    shown_now = [numbers[e] for e in range(L.N_ENDS) if counting_mask(after) >> e & 1]
    if len(set(shown_now)) > 1:
        assert header(after) == 0
    else:
        counted = [e for e in range(L.N_ENDS) if counting_mask(after) >> e & 1]
        assert header(after) == (3 if any(doubles[e] for e in counted) else 2)


def test_a_lead_leaves_every_end_showing_the_double():
    view = np.zeros(L.V_SIZE, dtype=np.int64)
    view_lay_lead(view, 3, 18, True)
    assert list(view[L.V_END : L.V_END + L.N_ENDS]) == [18] * 4
    assert view[L.V_OPEN_ENDS] == 2 and view[L.V_COUNTING] == 3 and view[L.V_SPINNER] == 18
    assert ends_of(view) == ends_led(18, True)
