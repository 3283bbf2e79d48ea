"""Cost of the search policies: milliseconds of CPU per decision, with the machine's load beside it.

    python benchmarks/search_cost.py                       # pimc and reader, 2 players, 60 matches each
    python benchmarks/search_cost.py --policy reader:worlds=512 --players 4 --partnerships --matches 40
    python benchmarks/search_cost.py --policy pimc --players 8 --set domino_set=double-nine --set target=4

Each policy plays every seat of ``--matches`` matches in one process (the
kernel is compiled or loaded and warmed on two matches first); the time is
the process's CPU time (``time.process_time``), divided by the decisions the
engine counts (``policy_calls``: calls with two or more legal moves; a forced
move costs nothing).  CPU time is less sensitive than wall time to other jobs,
but on a shared machine caches and hyper-threads still slow it, so the
1-minute load average is printed before and after and pimc, whose cost is
documented (docs/pimc.md), is measured in the same run as a yardstick.
Speed is measured here, never asserted in the tests.

``--out FILE.json`` also records each policy's figures in FILE (merged into
what the file already holds, keyed by policy, so the policies can be timed in
separate runs); docs/pimc.md and docs/policies.md quote research/search-cost/search_cost.json
(research/search-cost/README.md gives the command) as marked numbers, and
tests/docs/test_fill_numbers.py checks them.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

from trees import at_least  # benchmarks/ is a folder of scripts

from bergen_sim.core.errors import BergenError
from bergen_sim.core.limits import MAX_SEED, check_range
from bergen_sim.core.provenance import add_allow_dirty, check_clean, result_record
from bergen_sim.engine import layout as L
from bergen_sim.model.rules import Rules, parse_settings
from bergen_sim.runtime.registry import resolve
from bergen_sim.services.execution.jobs import engine_for
from bergen_sim.services.files.output import merge_target, write_result


def cost(rules: Rules, policy: str, matches: int, seed: int) -> dict:
    """CPU ms per decision of ``policy`` in every seat, over ``matches`` matches."""
    engine = engine_for(rules, (policy,) * rules.players)
    engine.play(seed=seed + 1, first_match=0, n_matches=2)  # compile or load, and warm up
    load_before = os.getloadavg()[0]
    start = time.process_time()
    chunk = engine.play(seed=seed, first_match=0, n_matches=matches)
    cpu = time.process_time() - start
    calls = int(chunk.totals[L.S_POLICY_CALLS])
    return {
        "policy": policy,
        "matches": matches,
        "decisions": calls,
        "cpu_s": cpu,
        "ms_per_decision": 1000 * cpu / max(calls, 1),
        "load_before": load_before,
        "load_after": os.getloadavg()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policy", action="append", help="policy to time (repeatable; default pimc and reader)")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--partnerships", action="store_true")
    parser.add_argument("--matches", type=at_least(1), default=60)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a rule setting (repeatable)")
    parser.add_argument("--out", help="JSON file to merge the figures into")
    add_allow_dirty(parser)
    args = parser.parse_args()
    try:  # a wrong game, policy, seed or --out is one line and exit status 2 before any play, not a traceback
        rules = Rules.make(players=args.players, partnerships=args.partnerships, **parse_settings(args.set))
        for policy in args.policy or []:
            resolve(policy)
        check_range("seed", args.seed, 0, MAX_SEED - 1)  # the warm-up plays seed + 1
        saved = (merge_target(args.out, "--out", "runs", dict) if args.out else None) or {"runs": {}}
        if args.out:
            check_clean(args.out, args.allow_dirty)
    except BergenError as exc:
        parser.error(str(exc))
    print(f"cores {os.cpu_count()}, {args.players} players{' in partnerships' if args.partnerships else ''}")
    for policy in args.policy or ["pimc", "reader"]:
        r = cost(rules, policy, args.matches, args.seed)
        print(
            f"{r['policy']:>28}: {r['matches']} matches, {r['decisions']:,} decisions, {r['cpu_s']:.2f} s CPU, "
            f"{r['ms_per_decision']:.3f} ms per decision (1-min load {r['load_before']:.1f} -> "
            f"{r['load_after']:.1f})",
            flush=True,
        )
        if args.out:
            r.update(
                players=args.players,
                partnerships=args.partnerships,
                seed=args.seed,
                cores=os.cpu_count(),
                machine=platform.processor() or platform.machine(),
                provenance=result_record(),  # each run its own: the file keeps runs of earlier commands
            )
            saved["runs"][policy] = r
            write_result(args.out, saved, indent=2)


if __name__ == "__main__":
    main()
