"""Cost of sampling worlds (engine/worlds.py): microseconds per ``prepare`` and per ``sample_world``,
and how often a view needs the bounded table's fallback.

    python benchmarks/world_cost.py                        # 4, 6 and 8 players on double-nine, 30 matches each
    python benchmarks/world_cost.py --players 8 --matches 300

The views are those before every play of matches traced by the compiled
engine (``first`` in every seat; the test suite's ``real_views``), seen by
the seat to play, with the lead as evidence as ``pimc`` uses it.  Each view
is prepared once and sampled ``--samples`` times; wall time per call, the
kernels compiled or loaded and warmed first.  The fallback (groups merged
by union, rejection) is counted per view.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from trees import at_least  # noqa: E402  (benchmarks/ is a folder of scripts)

from bergen_sim.core.errors import BergenError  # noqa: E402
from bergen_sim.core.limits import check_seed  # noqa: E402
from bergen_sim.engine import layout as L  # noqa: E402
from bergen_sim.engine.keyed_random import stream_state  # noqa: E402
from bergen_sim.engine.tileset import no_tiles_for  # noqa: E402
from bergen_sim.engine.worlds import W_EXACT, W_GROUPS, prepare, sample_world  # noqa: E402
from bergen_sim.model.rules import Rules  # noqa: E402
from tests.engine.test_worlds import real_views  # noqa: E402


def cost(rules: Rules, matches: int, samples: int, seed: int) -> dict:
    """Mean and worst microseconds per prepare and per sample, the fallback's share and the groups' counts."""
    rv = rules.to_array()
    no_tiles = no_tiles_for(rules.n_tiles)
    views = [view for view, _, _ in real_views(rules, matches=matches, seed=seed)]
    hands = np.zeros(L.MAX_SEATS * L.SET_WORDS, dtype=np.int64)
    bone = np.zeros(L.MAX_TILES, dtype=np.int64)
    rng = np.zeros(1, dtype=np.uint64)
    spec, completions = prepare(views[0], rv, 1, no_tiles)  # compile or load
    sample_world(views[0], spec, completions, rng, hands, bone, no_tiles)
    prep, draw, fallback, groups = [], [], 0, []
    for i, view in enumerate(views):
        start = time.perf_counter()
        spec, completions = prepare(view, rv, 1, no_tiles)
        prep.append(time.perf_counter() - start)
        fallback += spec[W_EXACT] == 0
        groups.append(int(spec[W_GROUPS]))
        rng[0] = stream_state(np.uint64(seed), i, 0, 0)
        start = time.perf_counter()
        for _ in range(samples):
            sample_world(view, spec, completions, rng, hands, bone, no_tiles)
        draw.append((time.perf_counter() - start) / samples)
    prep_us, draw_us = 1e6 * np.array(prep), 1e6 * np.array(draw)
    return {
        "views": len(views),
        "samples": samples * len(views),
        "prepare_us": prep_us.mean(),
        "prepare_max_us": prep_us.max(),
        "sample_us": draw_us.mean(),
        "sample_max_us": draw_us.max(),
        "fallback_views": fallback,
        "mean_groups": float(np.mean(groups)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, action="append", help="seats (repeatable; default 4, 6 and 8)")
    parser.add_argument("--domino-set", default="double-nine")
    parser.add_argument("--matches", type=at_least(1), default=30)
    parser.add_argument("--samples", type=at_least(1), default=20, help="worlds drawn per view")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    try:  # every table and the seed checked before the first is measured: one line and exit status 2
        check_seed(args.seed)
        tables = [
            (players, Rules.make(players=players, domino_set=args.domino_set)) for players in args.players or [4, 6, 8]
        ]
    except BergenError as exc:
        parser.error(str(exc))
    for players, rules in tables:
        r = cost(rules, args.matches, args.samples, args.seed)
        print(
            f"{players} players, {args.domino_set}: {r['views']:,} views, prepare {r['prepare_us']:.1f} us "
            f"(worst {r['prepare_max_us']:.0f}), sample {r['sample_us']:.2f} us over {r['samples']:,} worlds "
            f"(worst view {r['sample_max_us']:.0f}), fallback in {r['fallback_views']} views "
            f"({100 * r['fallback_views'] / r['views']:.2f}%), {r['mean_groups']:.2f} groups on average",
            flush=True,
        )


if __name__ == "__main__":
    main()
