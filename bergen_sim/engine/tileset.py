"""Sets of tiles for compiled code, in one word or three.

Why two representations: a double-six or double-nine set (28 or 55 tiles)
fits one ``int64``, and the standard game's speed depends on every set
operation being a single instruction; double-twelve to double-eighteen
(91 to 190 tiles) need three words.  Compiled code therefore holds a set
either as an ``int64`` (*narrow*) or as a ``UniTuple(int64, 3)`` (*wide*),
and every function here is overloaded on that type: the same source of a
rule (``hand.py``, the policies) compiles to one-word code for the small sets
and to three-word code for the large ones, and Numba specialises each
compiled function per type on its own.  Nothing checks the width at run
time.

Which width a game uses is carried by a value: :func:`no_tiles_for`
returns the empty set of the game's width (``0`` or ``(0, 0, 0)``), and
compiled code derives every other set from it (``bit(t, no_tiles)``,
``number_tiles(n, no_tiles)``, ``load(vector, at, no_tiles)``).  In vectors
(the policy view, the hands array) a set always occupies
:data:`~bergen_sim.engine.layout.SET_WORDS` slots, narrow sets using the first.

Tile ``t`` is bit ``t % 64`` of word ``t // 64`` (layout.py orders tiles so
that every set is a prefix of the next).  In plain Python a set is simply an
``int`` with bit ``t`` set (:func:`from_words`, :func:`to_words`).

>>> to_words(1 << 70 | 1)
[1, 64, 0]
>>> from_words([1, 64, 0]) == 1 << 70 | 1
True
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import overload

from bergen_sim.engine import layout as L
from bergen_sim.engine.bits import popcount, slot

WORDS = L.SET_WORDS
NUMBER_TILES = L.NUMBER_TILES
DOUBLE_TILES = L.DOUBLE_TILES
#: one-word sets hold tiles 0..63: enough for double-nine's 55
NARROW_TILES = 64
_MASK64 = (1 << 64) - 1


def no_tiles_for(n_tiles: int):
    """The empty set of the width a set of ``n_tiles`` tiles needs (its type picks the compiled code)."""
    return np.int64(0) if n_tiles <= NARROW_TILES else (np.int64(0),) * WORDS


def from_words(words) -> int:
    """A set's ``SET_WORDS`` int64 words as one Python ``int``."""
    return sum((int(w) & _MASK64) << (64 * i) for i, w in enumerate(words))


def to_words(tiles: int) -> list[int]:
    """A Python ``int`` set as its ``SET_WORDS`` words (signed int64 values)."""
    out = []
    for i in range(WORDS):
        w = tiles >> (64 * i) & _MASK64
        out.append(w - (1 << 64) if w >> 63 else w)
    return out


def _is_wide(t) -> bool:
    return isinstance(t, types.UniTuple)


# The functions below are written in plain Python for Python callers on ``int`` sets; compiled
# code gets the overloads, one implementation per width.


def union(a, b):
    """Tiles in ``a`` or ``b``."""
    return a | b


def both(a, b):
    """Tiles in ``a`` and in ``b``."""
    return a & b


def minus(a, b):
    """Tiles in ``a`` but not in ``b``."""
    return a & ~b


def differ(a, b):
    """Tiles in exactly one of ``a`` and ``b`` (empty when the sets are equal)."""
    return a ^ b


def is_empty(a):
    return a == 0


def count(a):
    """Number of tiles in the set."""
    return bin(a).count("1")


def lowest(a):
    """Index of the lowest tile of a non-empty set."""
    return (a & -a).bit_length() - 1


def drop_lowest(a):
    """The set without its lowest tile."""
    return a & (a - 1)


def bit(t, no_tiles):
    """The set holding tile ``t`` alone."""
    return 1 << t


def has(a, t):
    return a >> t & 1 == 1


def number_tiles(n, no_tiles):
    """The tiles showing number ``n`` (of any set: intersect with the game's tiles where it matters)."""
    return from_words(NUMBER_TILES[n])


def double_tiles(no_tiles):
    """Every double (of any set)."""
    return from_words(DOUBLE_TILES)


def first_tiles(n, no_tiles):
    """Tiles ``0 .. n - 1``: a whole set of ``n`` tiles."""
    return (1 << n) - 1


def load(vector, at, no_tiles):
    """The set stored at ``vector[at : at + SET_WORDS]``."""
    return from_words(vector[at : at + WORDS])


def compiled_set(vector, at, no_tiles):
    """The set at ``vector[at : at + SET_WORDS]`` as compiled code takes it from Python: an ``int64`` for
    a one-word ``no_tiles``, a tuple of ``SET_WORDS`` ``int64`` for a three-word one (a Python ``int``
    of more than 64 bits cannot be passed)."""
    return tuple(vector[at : at + WORDS]) if isinstance(no_tiles, tuple) else vector[at]


def load_split(vector, first, high, no_tiles):
    """The set whose word 0 is ``vector[first]`` and whose words 1.. follow ``vector[high]`` (per-seat fields)."""
    return from_words([vector[first], *vector[high : high + WORDS - 1]])


def store_split(vector, first, high, a):
    """Store a set as :func:`load_split` reads it."""
    words_ = to_words(a)
    vector[first] = words_[0]
    vector[high : high + WORDS - 1] = words_[1:]


def store(vector, at, a):
    """Store a set at ``vector[at : at + SET_WORDS]``."""
    vector[at : at + WORDS] = to_words(a)


@overload(union)
def _union(a, b):
    if _is_wide(a):
        return lambda a, b: (a[0] | b[0], a[1] | b[1], a[2] | b[2])
    return lambda a, b: a | b


@overload(both)
def _both(a, b):
    if _is_wide(a):
        return lambda a, b: (a[0] & b[0], a[1] & b[1], a[2] & b[2])
    return lambda a, b: a & b


@overload(minus)
def _minus(a, b):
    if _is_wide(a):
        return lambda a, b: (a[0] & ~b[0], a[1] & ~b[1], a[2] & ~b[2])
    return lambda a, b: a & ~b


@overload(differ)
def _differ(a, b):
    if _is_wide(a):
        return lambda a, b: (a[0] ^ b[0], a[1] ^ b[1], a[2] ^ b[2])
    return lambda a, b: a ^ b


@overload(is_empty)
def _is_empty(a):
    if _is_wide(a):
        return lambda a: (a[0] | a[1] | a[2]) == 0
    return lambda a: a == 0


@overload(count)
def _count(a):
    if _is_wide(a):
        return lambda a: popcount(a[0]) + popcount(a[1]) + popcount(a[2])
    return lambda a: popcount(a)


@overload(lowest)
def _lowest(a):
    if _is_wide(a):

        def impl(a):
            if a[0] != 0:
                return np.int64(trailing_zeros(a[0]))
            if a[1] != 0:
                return np.int64(64 + trailing_zeros(a[1]))
            return np.int64(128 + trailing_zeros(a[2]))

        return impl
    return lambda a: np.int64(trailing_zeros(a))


@overload(drop_lowest)
def _drop_lowest(a):
    if _is_wide(a):

        def impl(a):
            if a[0] != 0:
                return (a[0] & (a[0] - 1), a[1], a[2])
            if a[1] != 0:
                return (a[0], a[1] & (a[1] - 1), a[2])
            return (a[0], a[1], a[2] & (a[2] - 1))

        return impl
    return lambda a: a & (a - 1)


@overload(bit)
def _bit(t, no_tiles):
    if _is_wide(no_tiles):

        def impl(t, no_tiles):
            one = np.int64(1) << (t & 63)
            w = t >> 6
            zero = np.int64(0)
            return (one if w == 0 else zero, one if w == 1 else zero, one if w == 2 else zero)

        return impl
    return lambda t, no_tiles: np.int64(1) << t


@overload(has)
def _has(a, t):
    if _is_wide(a):

        def impl(a, t):
            w = t >> 6
            word = a[0] if w == 0 else (a[1] if w == 1 else a[2])
            return (word >> (t & 63)) & 1 == 1

        return impl
    return lambda a, t: (a >> t) & 1 == 1


@overload(number_tiles)
def _number_tiles(n, no_tiles):
    if _is_wide(no_tiles):
        return lambda n, no_tiles: (NUMBER_TILES[n, 0], NUMBER_TILES[n, 1], NUMBER_TILES[n, 2])
    return lambda n, no_tiles: NUMBER_TILES[n, 0]


@overload(double_tiles)
def _double_tiles(no_tiles):
    if _is_wide(no_tiles):
        return lambda no_tiles: (DOUBLE_TILES[0], DOUBLE_TILES[1], DOUBLE_TILES[2])
    return lambda no_tiles: DOUBLE_TILES[0]


@njit(cache=True, inline="always")
def _prefix_word(k):
    """Word of the first ``k`` bits (all 64 when k >= 64, none when k <= 0)."""
    if k >= 64:
        return np.int64(-1)
    if k <= 0:
        return np.int64(0)
    return (np.int64(1) << k) - 1


@overload(first_tiles)
def _first_tiles(n, no_tiles):
    if _is_wide(no_tiles):
        return lambda n, no_tiles: (_prefix_word(n), _prefix_word(n - 64), _prefix_word(n - 128))
    return lambda n, no_tiles: _prefix_word(n)


def words(no_tiles):
    """int64 words of a set of this width: 1 or SET_WORDS (a compile-time constant in compiled code)."""
    return 1 if isinstance(no_tiles, (int, np.integer)) else WORDS


@overload(words)
def _words(no_tiles):
    if _is_wide(no_tiles):
        return lambda no_tiles: WORDS
    return lambda no_tiles: 1


@overload(load)
def _load(vector, at, no_tiles):
    if _is_wide(no_tiles):
        return lambda vector, at, no_tiles: (vector[slot(at)], vector[slot(at + 1)], vector[slot(at + 2)])
    return lambda vector, at, no_tiles: vector[slot(at)]


@overload(load_split)
def _load_split(vector, first, high, no_tiles):
    if _is_wide(no_tiles):
        return lambda vector, first, high, no_tiles: (vector[slot(first)], vector[slot(high)], vector[slot(high + 1)])
    return lambda vector, first, high, no_tiles: vector[slot(first)]


@overload(store_split)
def _store_split(vector, first, high, a):
    if _is_wide(a):

        def impl(vector, first, high, a):
            vector[slot(first)] = a[0]
            vector[slot(high)] = a[1]
            vector[slot(high + 1)] = a[2]

        return impl

    def narrow(vector, first, high, a):
        vector[slot(first)] = a

    return narrow


@overload(store)
def _store(vector, at, a):
    if _is_wide(a):

        def impl(vector, at, a):
            vector[slot(at)] = a[0]
            vector[slot(at + 1)] = a[1]
            vector[slot(at + 2)] = a[2]

        return impl

    def narrow(vector, at, a):
        vector[slot(at)] = a

    return narrow


@njit(cache=True)
def _check(no_tiles):  # compiled once per width by the tests: every overload types
    a = union(bit(3, no_tiles), number_tiles(1, no_tiles))
    return (
        count(minus(a, first_tiles(2, no_tiles))),
        lowest(drop_lowest(a)),
        has(both(a, a), 3),
        is_empty(a),
        count(differ(a, bit(3, no_tiles))),
    )
