"""The match-value table that ``pimc`` scores hands by: some of its values and how long it takes to build.

    python research/match-value/measure.py --out research/match-value/match_value.json

Builds the table of :mod:`bergen_sim.search.match_value` for the standard
rules with 2, 3 and 4 players (exact tables) and with 6 and 8 players on
double-nine (exchangeable tables) (``base`` expert, the budget and seed of the
module, exactly what ``pimc`` uses), timing each build after one tiny build
has compiled the kernel (the time the first ``pimc`` run of a new rule set
spends on it, before the table is cached), and writes the 2-player table's
values at a few score pairs.  docs/pimc.md quotes the file;
tests/docs/test_fill_numbers.py checks the quote.  A few minutes on one core.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from bergen_sim.core.provenance import add_allow_dirty, check_clean  # noqa: E402

#: the games timed (players, set), each at its default target: exact tables, then exchangeable ones
BUILDS = ((2, "double-six"), (3, "double-six"), (4, "double-six"), (6, "double-nine"), (8, "double-nine"))

#: the score pairs shown in docs/pimc.md (own score, the other side's)
SCORES = (0, 6, 10, 13, 14)
OWN = (0, 10, 13, 14)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).with_name("match_value.json")))
    add_allow_dirty(parser)
    args = parser.parse_args(argv)

    from bergen_sim.core.errors import BergenError
    from bergen_sim.engine.tileset import no_tiles_for
    from bergen_sim.model.rules import Rules
    from bergen_sim.search import match_value as mv
    from bergen_sim.search.rollout import BASE_POLICIES
    from bergen_sim.services.files.output import check_file, write_result

    try:  # checked before the minutes of building the tables, not when they are written
        check_file(args.out, "--out", (".json",))
        check_clean(args.out, args.allow_dirty)
    except BergenError as exc:
        parser.error(str(exc))

    base = "expert"
    out = {
        "base": base,
        "hand_budget": mv.HAND_BUDGET,
        "min_hands_per_state": mv.MIN_HANDS_PER_STATE,
        "seed": mv.TABLE_SEED,
        "builds": [],
        "machine": f"{platform.processor() or platform.machine()}, load average "
        f"{[round(x, 2) for x in __import__('os').getloadavg()]}",
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    tables = {}
    for players, domino_set in BUILDS:
        rules = Rules.make(players=players, domino_set=domino_set)
        kind, states = mv.table_kind(rules.target, rules.sides)
        per_state = max(mv.MIN_HANDS_PER_STATE, mv.HAND_BUDGET // states)
        no_tiles = no_tiles_for(rules.n_tiles)
        head = (rules.to_array(), BASE_POLICIES.index(base), np.uint64(mv.TABLE_SEED))
        if kind == "exact":

            def estimate(hands, table, head=head, no_tiles=no_tiles):
                mv._estimate(*head, hands, table, no_tiles)
        else:
            reps, order = mv._pooled_layout(rules.target, rules.sides)

            def estimate(hands, table, head=head, no_tiles=no_tiles, order=order, reps=reps):
                mv._estimate_pooled(*head, hands, table, no_tiles, order, reps)

        # compile (and load) the kernel on a one-hand-per-state table first: not part of the build time
        estimate(1, np.zeros(states))
        table = np.zeros(states)
        start = time.perf_counter()
        estimate(per_state, table)
        seconds = time.perf_counter() - start
        if kind == "exact":
            tables[players] = mv._normalized(table, rules.target, rules.sides)
        out["builds"].append(
            {
                "players": players,
                "domino_set": domino_set,
                "target": rules.target,
                "sides": rules.sides,
                "kind": kind,
                "score_states": states,
                "hands_per_state": per_state,
                "hands": per_state * states,
                "seconds": round(seconds, 2),
            }
        )
        print(f"{players} players ({domino_set}, {kind}): {states} states x {per_state} hands in {seconds:.2f} s")
    two = tables[2]
    target = Rules.make(players=2).target
    # index of (side 0 = own, side 1 = other) is own + other * target
    out["two_players"] = [
        {"own": own, "other": other, "win": round(float(two[own + other * target]), 4)}
        for own in OWN
        for other in SCORES
    ]
    write_result(args.out, out, indent=2)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
