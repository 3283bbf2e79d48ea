"""How much is seeing the hidden tiles worth?  ``pimc`` that sees every hand, against a fair opponent.

    python research/clairvoyance/measure.py --out research/clairvoyance/clairvoyance.json     # 1,000 deal sets, a few minutes

Why: the search players (docs/policies.md) land a few points above ``pimc``
and their measured levers (more worlds, more iterations, inference from
plays, exact ends of hands, other play-out weights) add little.  Each of
them works on one of two things: *what the player knows* (the worlds it
deals) and *how it values a position* (the search and play-outs).  This tool
measures the first one's ceiling: a clairvoyant ``pimc`` that deals every
world exactly as it is (every seat's hand; only the boneyard's order, which
nobody knows, is shuffled) but otherwise searches as ``pimc`` does (the
same number of worlds, one play-out per move and world with ``base``
playing every seat, the match-win table at the hand's end, the same
tie-break).  With 2 players that is knowing the opponent's hand.

No inference from plays can know more than the clairvoyant, so its share
against an opponent bounds what better inference alone can give ``pimc``'s
search against that opponent; a goal above the bound needs a better
valuation, not a better reading of the opponent.

Design: 2 players, duplicate deals (deal set ``i`` is match ``i`` of the
seed with the clairvoyant in seat 0, then in seat 1; the step API deals
both the same hands and boneyard), the opponent a built-in by name (default
``pimc``).  The clairvoyant's worlds and play-out streams are keyed by the
seed, the match, its seat and its decision number, so a run repeats
exactly.  Reported: the clairvoyant's match-win share with a 95% Student-t
interval over deal sets (the sampling unit) and a two-sided p-value against
50%.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from numba import njit

from bergen_sim.core.errors import BergenError
from bergen_sim.core.limits import check_range, check_seed
from bergen_sim.core.provenance import add_allow_dirty, check_clean
from bergen_sim.core.stats import paired_interval
from bergen_sim.engine import layout as L
from bergen_sim.engine.hand import scratch_buffers
from bergen_sim.engine.keyed_random import seed_to_int, shuffle, stream_state
from bergen_sim.engine.tileset import no_tiles_for, to_words
from bergen_sim.engine.view import used_slots
from bergen_sim.model.rules import Rules
from bergen_sim.runtime.registry import resolve
from bergen_sim.search.match_value import table_for
from bergen_sim.search.pimc import Rollout, World, best_total, play_move_out
from bergen_sim.search.rollout import BASE_POLICIES
from bergen_sim.services.files.output import merge_target, publish_record
from bergen_sim.services.game import Game

#: most deal sets (each is two matches played through the step API)
MAX_DEAL_SETS = 100_000
#: stream key of the clairvoyant's decisions (apart from the engine's own stream numbers)
CLAIRVOYANT_KEY = 0x636C6169  # "clai"


@njit  # not cached: a tool loaded by path (the tests) has no importable module for Numba's cache
def clairvoyant_choose(
    rules, view, hands0, bone_tiles, n_bone, move_tiles, move_ends, n_moves, worlds, key, base, table, no_tiles
):
    """``pimc``'s choice (pimc.choose) with every world the true one, its boneyard ``bone_tiles[:n_bone]`` reshuffled.

    ``hands0`` holds every seat's true hand (``SET_WORDS`` slots per seat).
    """
    seat = view[L.V_SEAT]
    used = used_slots(view)
    b = scratch_buffers(
        np.zeros(L.V_SIZE, dtype=np.int64),
        np.zeros(L.MAX_SEATS * L.SET_WORDS, dtype=np.int64),
        np.zeros(L.MAX_TILES, dtype=np.int64),
        no_tiles,
    )
    order = np.zeros(L.MAX_TILES, dtype=np.int64)
    world_rng = np.zeros(1, dtype=np.uint64)
    roll_rng = np.zeros(1, dtype=np.uint64)
    every_seat = np.zeros(0, dtype=np.int64)
    values = np.zeros((worlds, n_moves))
    points = np.zeros((worlds, n_moves))
    for w in range(worlds):
        world_rng[0] = stream_state(key, w, 0, 0)
        order[:n_bone] = bone_tiles[:n_bone]
        shuffle(world_rng, order, n_bone)
        world = World(rules, view, used, b, hands0, order, n_bone)
        rollout = Rollout(base, every_seat, stream_state(key, w, 1, 0), roll_rng, table)
        for k in range(n_moves):
            values[w, k], points[w, k] = play_move_out(world, rollout, seat, move_tiles[k], move_ends[k])
    return best_total(values, points, n_moves)


def play_deal_set(args: tuple[int, int, str, int, int]) -> tuple[float, int]:
    """The clairvoyant's match-win share in deal set ``match`` (both seat orders) and its decisions with a choice."""
    seed, match, opponent, worlds, base = args
    rules = Rules.make(players=2)
    rules_array = rules.to_array()
    table = table_for(rules, BASE_POLICIES[base])
    no_tiles = no_tiles_for(rules.n_tiles)
    tiles = np.zeros(L.MAX_MOVES, dtype=np.int64)
    ends = np.zeros(L.MAX_MOVES, dtype=np.int64)
    hands = np.zeros(L.MAX_SEATS * L.SET_WORDS, dtype=np.int64)
    bone = np.zeros(L.MAX_TILES, dtype=np.int64)
    wins, decisions = 0, 0
    for seat in range(2):
        game = Game(rules, seed=seed, match=match)
        while not game.is_over:
            moves = game.legal_moves()
            if game.to_move != seat or len(moves) < 2 or game.choosing_lead:
                game.play(game.policy_move(opponent if game.to_move != seat else "pimc"))
                continue
            for k, move in enumerate(moves):
                tiles[k], ends[k] = move.tile.index, int(move.end)
            for s in range(2):
                hands[s * L.SET_WORDS : (s + 1) * L.SET_WORDS] = to_words(L.tile_mask(game.hand(s)))
            boneyard = game._state.boneyard  # the true boneyard, read only as a set: its order is reshuffled
            bone[: len(boneyard)] = [L.TILE_INDEX[t] for t in boneyard]
            key = stream_state(
                np.uint64(seed_to_int(seed)), np.int64(match), np.int64(CLAIRVOYANT_KEY + seat), np.int64(decisions)
            )
            k = clairvoyant_choose(
                rules_array,
                game.view(seat).array,
                hands,
                bone,
                np.int64(len(boneyard)),
                tiles,
                ends,
                np.int64(len(moves)),
                np.int64(worlds),
                np.uint64(key),
                np.int64(base),
                table,
                no_tiles,
            )
            decisions += 1
            game.play(moves[k])
        wins += game.winner == seat
    return wins / 2, decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opponent", default="pimc", help="the fair opponent (a built-in or plug-in name)")
    parser.add_argument("--deal-sets", type=int, default=1000)
    parser.add_argument("--worlds", type=int, default=64, help="the clairvoyant's worlds per decision (pimc's: 64)")
    parser.add_argument("--seed", type=int, default=20261204)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", help="JSON file to write")
    add_allow_dirty(parser)
    args = parser.parse_args()
    try:
        resolve(args.opponent)
        check_range("--deal-sets", args.deal_sets, 2, MAX_DEAL_SETS)
        check_range("--worlds", args.worlds, 1, 100_000)
        check_range("--workers", args.workers, 1, 64)
        check_seed(args.seed)
        if args.out:
            merge_target(args.out, "--out", "clairvoyant", str)  # an unreadable or foreign file: refused before play
            check_clean(args.out, args.allow_dirty)
    except BergenError as exc:
        parser.error(str(exc))
    started = time.time()
    base = BASE_POLICIES.index("expert")
    jobs = [(args.seed, i, args.opponent, args.worlds, base) for i in range(args.deal_sets)]
    with ProcessPoolExecutor(args.workers) as pool:
        results = list(pool.map(play_deal_set, jobs, chunksize=max(1, len(jobs) // (8 * args.workers))))
    shares = np.array([share for share, _ in results])
    share = paired_interval(shares, null=0.5)
    record = {
        "players": 2,
        "clairvoyant": f"pimc:worlds={args.worlds} seeing every hand",
        "opponent": args.opponent,
        "deal_sets": args.deal_sets,
        "matches": 2 * args.deal_sets,
        "seed": args.seed,
        "clairvoyant_decisions": int(sum(d for _, d in results)),
        "win_share": share["mean"],
        "win_share_ci95": share["ci95"],
        "p_value": share["p_value"],
        "seconds": round(time.time() - started, 1),
    }
    publish_record(record, "python research/clairvoyance/measure.py " + " ".join(sys.argv[1:]), args.out)


if __name__ == "__main__":
    main()
