"""The C anchor's loop written in Numba: what the compiler reaches when the rules' state lives in local variables.

    python benchmarks/numba_loop.py --matches 300000      # hands/s, and the totals against the engine's

The standard game for 2 players with random play, exactly as
``c_loop/bergen_match.h`` plays it (same rules, same order of legal moves,
the engine's keyed random streams from :mod:`bergen_sim.engine.keyed_random`),
so it plays the engine's matches: :func:`check` compares the totals.  It is
a measuring stick, like the C loop, and not a second engine: one table, one
policy, no view, no statistics beyond the totals, no traces.

What it separates: the C anchor against the engine mixes two differences,
the compiler (LLVM through Numba against GCC) and the program's shape (the
engine keeps a hand's state in the arrays its policies and statistics share;
this loop, like the C loop, keeps the hands, the ends and the scores in
local variables, and lists no moves: it counts them and finds the chosen one
by its rank).  ``c_anchor.py`` runs it beside the anchor, so its share of the
anchor is the compiler's part and the rest of the engine's gap is the shape's.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from numba import njit

from bergen_sim.engine import layout as L
from bergen_sim.engine.bits import lowest_tile, popcount
from bergen_sim.engine.keyed_random import GOLDEN, STREAM_POLICY, mix64, shuffled_set, stream_state
from bergen_sim.engine.play_rules import cut_points

N_TILES = 28  # double-six
HAND_SIZE = 6  # 2 players
BONE_STOP = N_TILES - 2  # the last two tiles are never drawn
TARGET = 15
_LO = L.TILE_LO[:N_TILES].astype(np.int64)
_HI = L.TILE_HI[:N_TILES].astype(np.int64)
#: tiles showing number n on either half, pips and double flags of tile t (the engine's tile order)
NUMBER_MASK = np.array([sum(1 << t for t in range(N_TILES) if n in (_LO[t], _HI[t])) for n in range(7)], np.int64)
DOUBLES = np.int64(sum(1 << t for t in range(N_TILES) if _LO[t] == _HI[t]))
PIPS = _LO + _HI
IS_DOUBLE = (_LO == _HI).astype(np.int64)
_S32 = np.uint64(32)


@njit(inline="always")
def _holding(hand):
    """(doubles, pips) left in a hand."""
    doubles = 0
    pips = 0
    while hand:
        t = lowest_tile(hand)
        hand &= hand - 1
        pips += PIPS[t]
        doubles += IS_DOUBLE[t]
    return doubles, pips


@njit(inline="always")
def _settle(h0, h1):
    """The German settlement of a blocked hand: fewest doubles, then fewest pips; -1 on a tie."""
    d0, p0 = _holding(h0)
    d1, p1 = _holding(h1)
    if d0 != d1:
        return 0 if d0 < d1 else 1
    if p0 != p1:
        return 0 if p0 < p1 else 1
    return -1


@njit
def play(seed, n_matches):
    """Matches 0 .. n_matches - 1 of ``seed``: (matches, hands, plays, double headers, triple headers, wins of seat 0)."""
    deal = np.zeros(N_TILES, np.int64)
    rng = np.zeros(1, np.uint64)
    hands = plays = doubles = triples = wins0 = 0
    for match in range(n_matches):
        s0 = s1 = 0
        r0 = stream_state(seed, match, STREAM_POLICY, 0)
        r1 = stream_state(seed, match, STREAM_POLICY + 1, 0)
        hand_no = 0
        over = False
        while not over:
            hand_no += 1
            attempt = 0
            while True:  # redeal while no double is dealt
                rng[0] = stream_state(seed, match, hand_no, attempt)
                shuffled_set(rng, deal, N_TILES)
                h0 = np.int64(0)
                h1 = np.int64(0)
                for k in range(HAND_SIZE):
                    h0 |= np.int64(1) << deal[k]
                    h1 |= np.int64(1) << deal[HAND_SIZE + k]
                if (h0 | h1) & DOUBLES:
                    break
                attempt += 1
            hands += 1
            # the lowest double dealt leads and scores 2
            lead = lowest_tile((h0 | h1) & DOUBLES)
            seat = (h1 >> lead) & 1
            if seat:
                h1 &= ~(np.int64(1) << lead)
            else:
                h0 &= ~(np.int64(1) << lead)
            left = right = _LO[lead]
            left_double = right_double = 1
            score = s1 if seat else s0
            score += cut_points(2, score, TARGET, True)
            if seat:
                s1 = score
            else:
                s0 = score
            if score >= TARGET:
                break
            pos = 2 * HAND_SIZE
            passes = 0
            while True:
                seat ^= 1
                fits_left = NUMBER_MASK[left]
                fits_right = NUMBER_MASK[right]
                hand = h1 if seat else h0
                playable = hand & (fits_left | fits_right)
                if not playable:
                    while pos < BONE_STOP:  # draw until a tile fits
                        t = deal[pos]
                        pos += 1
                        hand |= np.int64(1) << t
                        if ((fits_left | fits_right) >> t) & 1:
                            playable = np.int64(1) << t
                            break
                    if seat:
                        h1 = hand
                    else:
                        h0 = hand
                    if not playable:
                        passes += 1
                        if passes == 2:
                            winner = _settle(h0, h1)
                            if winner == 0:
                                s0 += 2
                            elif winner == 1:
                                s1 += 2
                            over = s0 >= TARGET or s1 >= TARGET
                            break
                        continue
                passes = 0
                # the engine's order: by tile, the left end before the right; one move draws no random number
                n = popcount(playable & fits_left) + popcount(playable & fits_right)
                k = 0
                if n > 1:
                    if seat:
                        r1 += GOLDEN
                        bits = mix64(r1)
                    else:
                        r0 += GOLDEN
                        bits = mix64(r0)
                    k = np.int64(((bits >> _S32) * np.uint64(n)) >> _S32)
                while True:
                    t = lowest_tile(playable)
                    playable &= playable - 1
                    on_left = (fits_left >> t) & 1
                    if k < on_left:
                        on_right = 0
                        break
                    k -= on_left
                    if k < ((fits_right >> t) & 1):
                        on_right = 1
                        break
                    k -= (fits_right >> t) & 1
                hand &= ~(np.int64(1) << t)
                if seat:
                    h1 = hand
                else:
                    h0 = hand
                plays += 1
                if on_right:
                    right = PIPS[t] - right
                    right_double = IS_DOUBLE[t]
                else:
                    left = PIPS[t] - left
                    left_double = IS_DOUBLE[t]
                score = s1 if seat else s0
                ended = False
                if left == right:
                    value = 3 if left_double or right_double else 2
                    triples += value == 3
                    doubles += value == 2
                    score += cut_points(value, score, TARGET, True)
                    ended = score >= TARGET
                if not ended and not hand:  # going out
                    score += 2
                    ended = True
                if seat:
                    s1 = score
                else:
                    s0 = score
                if ended:
                    over = score >= TARGET
                    break
        wins0 += s0 >= TARGET
    return n_matches, hands, plays, doubles, triples, wins0


def run(matches: int, seed: int) -> dict:
    """One timed run (compiled beforehand by the caller): the totals c_reference.SHARED_TOTALS names, the wins,
    wall seconds and CPU seconds, as ``c_reference.run`` reports the C loop's."""
    cpu, start = time.process_time(), time.perf_counter()
    n, hands, plays, doubles, triples, wins0 = play(np.uint64(seed), matches)
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
    return {
        "matches": n,
        "hands": hands,
        "plays": plays,
        "double_headers": doubles,
        "triple_headers": triples,
        "wins": [wins0, n - wins0],
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
    }


def compile_now() -> float:
    """Compile :func:`play` (not cached on disk: a measuring stick is compiled where it runs); the seconds it took."""
    start = time.perf_counter()
    play(np.uint64(1), 1)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=300_000)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    if not 1 <= args.matches <= 100_000_000 or not 0 <= args.seed < 2**64:
        print("numba_loop.py: --matches must be 1 .. 100,000,000 and --seed 0 .. 2**64 - 1", file=sys.stderr)
        return 2
    from bergen_sim.model.rules import Rules
    from bergen_sim.services.execution.jobs import engine_for

    compiled_s = compile_now()
    mine = run(args.matches, args.seed)
    engine = engine_for(Rules.make(players=2), ("random", "random"))
    totals = engine.play(seed=args.seed, first_match=0, n_matches=args.matches, match_rows=False).totals
    differ = [
        k
        for k in ("matches", "hands", "plays", "double_headers", "triple_headers")
        if mine[k] != totals[getattr(L, "S_" + k.upper())]
    ]
    print(
        f"compiled in {compiled_s:.1f} s; {mine['hands']:,} hands in {mine['seconds']:.2f} s: {mine['hands'] / mine['seconds']:,.0f} hands/s"
    )
    print(
        "totals: the same as the engine's" if not differ else f"totals differ from the engine's on {', '.join(differ)}"
    )
    return 0 if not differ else 1


if __name__ == "__main__":
    sys.exit(main())
