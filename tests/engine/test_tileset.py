"""The tile-set operations compile at both widths and agree with their plain-Python versions."""

from __future__ import annotations

import pytest

from bergen_sim.engine import tileset as T


@pytest.mark.parametrize("n_tiles", [28, 190], ids=["one-word", "three-word"])
def test_compiled_operations_agree_with_python_ints(n_tiles):
    # plain Python on ints, cut to what the width holds (one word: tiles 0..63, so number 1's tiles up to 1-9)
    held = T.first_tiles(T.NARROW_TILES if n_tiles <= T.NARROW_TILES else T.WORDS * 64, 0)
    a = T.both(T.union(T.bit(3, 0), T.number_tiles(1, 0)), held)
    want = (
        T.count(T.minus(a, T.first_tiles(2, 0))),
        T.lowest(T.drop_lowest(a)),
        T.has(T.both(a, a), 3),
        T.is_empty(a),
        T.count(T.differ(a, T.bit(3, 0))),
    )
    assert tuple(T._check(T.no_tiles_for(n_tiles))) == want
    assert T.differ(0b1100, 0b1010) == 0b0110
