"""Counter-based random numbers: every stream is a pure function of its key.

The deal of hand ``h`` of match ``i`` (redeal attempt ``r``) is shuffled from
the stream keyed ``(seed, i, h, r)``; seat ``s``'s policy draws from the stream
keyed ``(seed, i, STREAM_POLICY + s)``.  Because nothing depends on how many
matches ran before, results never depend on how work is split across threads,
processes or machines, and the same deals can be replayed under other
policies or rules.

A stream is a SplitMix64 state held in a one-element ``uint64`` array (so
policies can advance it in place).  All arithmetic is kept in ``uint64``:
mixing signed and unsigned integers in Numba silently promotes to float.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bergen_sim.core.errors import shown
from bergen_sim.core.limits import LimitError, check_seed
from bergen_sim.engine import layout as L

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)

#: key offset separating policy streams from deal streams
STREAM_POLICY = 1 << 20


@njit(cache=True, inline="always")
def mix64(z):
    """SplitMix64 finaliser: a bijective scramble of a uint64."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True, inline="always")
def stream_state(seed, a, b, c):
    """Starting state of the stream keyed (seed, a, b, c).

    The casts make one compiled :func:`_stream_state` serve every caller:
    Numba compiles a function once per combination of argument types, and
    each literal (``stream_state(key, w, 1, 0)``) is a type of its own, so
    the search kernels compiled five copies of it.
    """
    return _stream_state(np.uint64(seed), np.int64(a), np.int64(b), np.int64(c))


@njit(cache=True)
def _stream_state(seed, a, b, c):
    """The body of :func:`stream_state`, for (uint64, int64, int64, int64) only."""
    z = mix64(np.uint64(seed) ^ GOLDEN)
    z = mix64(z ^ np.uint64(a))
    z = mix64(z + GOLDEN ^ np.uint64(b))
    return mix64(z + GOLDEN ^ np.uint64(c))


@njit(cache=True, inline="always")
def next_u64(rng):
    """Advance the stream in ``rng[0]`` and return 64 random bits."""
    rng[0] = rng[0] + GOLDEN
    return mix64(rng[0])


@njit(cache=True, inline="always")
def _scaled(bits, n):
    """``bits``' high 32 bits scaled to an integer in ``[0, n)`` (multiply and shift, no division)."""
    return np.int64(((bits >> _S32) * np.uint64(n)) >> _S32)


@njit(cache=True, inline="always")
def below(rng, n):
    """A uniform integer in ``[0, n)`` for ``1 <= n < 2**31`` (bias below n / 2**32)."""
    return _scaled(next_u64(rng), n)


@njit(cache=True, inline="always")
def shuffle(rng, a, n):
    """Shuffle ``a[:n]`` in place, uniformly (Fisher-Yates): the same draws as :func:`below` at each step.

    The stream's state stays in a local variable during the loop and is
    written back once: advanced through ``rng[0]``, each step had to store
    the state and load it back, because the compiler cannot tell that ``a``
    does not overlap ``rng``, and that chain through memory made the next
    step wait (the shuffle was an eighth of a double-nine hand's time).
    """
    state = rng[0]
    for i in range(n - 1, 0, -1):
        state = state + GOLDEN
        j = _scaled(mix64(state), i + 1)
        tmp = a[i]
        a[i] = a[j]
        a[j] = tmp
    rng[0] = state


@njit(cache=True, inline="always")
def shuffled_set(rng, out, n_tiles):
    """Fill ``out[:n_tiles]`` with a uniformly shuffled set of tiles ``0 .. n_tiles - 1`` (Fisher-Yates)."""
    for t in range(n_tiles):
        out[t] = t
    shuffle(rng, out, n_tiles)


@njit(cache=True)
def _keyed_deals(seed, matches, hands, attempts, out):
    rng = np.zeros(1, dtype=np.uint64)
    for i in range(matches.shape[0]):
        rng[0] = stream_state(seed, matches[i], hands[i], attempts[i])
        shuffled_set(rng, out[i], out.shape[1])


def keyed_deals(seed: int, matches, hands, attempts, n_tiles: int = 28) -> np.ndarray:
    """The compiled engine's deals (tile indices: hands in seat order, then the boneyard), one row per key.

    The deal of hand ``h`` of match ``i`` at redeal ``attempt`` of a set of
    ``n_tiles`` tiles (28: double-six) depends only on (seed, i, h, attempt),
    so the deal behind any hand row is ``keyed_deals(seed, rows' match, hand,
    redeals)``: a hand row's ``redeals`` is the attempt that was played.
    """
    sizes = sorted(L.set_size(most) for most in L.DOMINO_SETS.values())
    if isinstance(n_tiles, bool) or not isinstance(n_tiles, (int, np.integer)) or n_tiles not in sizes:
        raise LimitError(
            f"n_tiles must be the size of a set, one of {', '.join(map(str, sizes))}, not {shown(n_tiles)}"
        )
    keys = []
    for name, values in (("matches", matches), ("hands", hands), ("attempts", attempts)):
        array = np.asarray(values)
        if array.ndim != 1 or not (array.size == 0 or np.issubdtype(array.dtype, np.integer)):
            raise LimitError(
                f"{name} must be a one-dimensional sequence of whole numbers, not "
                f"{array.ndim}-dimensional {array.dtype}"
            )
        keys.append(np.ascontiguousarray(array, dtype=np.int64))
    matches, hands, attempts = keys
    if not len(matches) == len(hands) == len(attempts):  # the compiled loop reads all three up to len(matches)
        raise LimitError(
            f"matches, hands and attempts must have the same length (one key per deal), not "
            f"{len(matches):,}, {len(hands):,} and {len(attempts):,}"
        )
    out = np.zeros((len(matches), n_tiles), dtype=np.int64)
    _keyed_deals(np.uint64(seed_to_int(seed)), matches, hands, attempts, out)
    return out


def seed_to_int(seed: int) -> int:
    """The seed as the kernel's uint64 key: a whole number 0 .. 2**64 - 1, others refused (LimitError).

    Not reduced modulo 2**64: seed 2**64 would silently be the run of seed 0.
    """
    return check_seed(seed)
