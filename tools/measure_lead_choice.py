"""Which double should a policy lead under ``lead = any-double``?  Measured, not guessed.

    python tools/measure_lead_choice.py --matches 20000 --out docs/lead_choice.json

For each candidate rule of :mod:`bergen_sim.policies.base` (``LEAD_LOWEST``,
``LEAD_HIGHEST``, ``LEAD_FOLLOW``) it writes a tiny plug-in that plays
``expert``'s moves and leads by that rule, and plays every pair of rules
against each other with ``compare`` (duplicate deals, seats rotated) in
games where the choice exists: the classic preset (double-six, any double
leads) with 2 players, and double-nine with 4 players, any double leading.
The rule with the best overall standing is what the built-ins use
(``LEAD_RULE`` in each policy module); docs/policies.md quotes the table this
script writes.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

RULES = {"lowest": "LEAD_LOWEST", "highest": "LEAD_HIGHEST", "follow": "LEAD_FOLLOW"}
GAMES = {
    "2 players, classic (double-six, any double)": {"players": 2, "preset": "classic", "settings": {}},
    "4 players, double-nine, any double": {"players": 4, "preset": "standard",
                                           "settings": {"domino_set": "double-nine", "lead": "any-double"}},
}

PLUGIN = '''"""expert's moves; leads by base.{rule} under lead = any-double."""
from numba import njit
from bergen_sim.policies import expert
from bergen_sim.policies.base import {rule}, lead_by


@njit(cache=True)
def choose(view, move_tiles, move_ends, n_moves, rng, no_tiles):
    return expert.best_move(view, move_tiles, move_ends, n_moves, expert.WEIGHTS, no_tiles)


@njit(cache=True)
def choose_lead(view, move_tiles, move_ends, n_moves, rng, no_tiles):
    return lead_by(view, move_tiles, n_moves, {rule}, no_tiles)
'''


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20_000, help="deal sets per pair and game")
    parser.add_argument("--seed", type=int, default=20261130)
    parser.add_argument("--out", default="docs/lead_choice.json")
    args = parser.parse_args(argv)

    from bergen_sim import compare

    folder = Path(tempfile.mkdtemp(prefix="bergen-lead-"))
    for name, constant in RULES.items():
        (folder / f"lead_{name}.py").write_text(PLUGIN.format(rule=constant))
    sys.path.insert(0, str(folder))
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")]))  # workers
    results = {"matches_per_pair": args.matches, "seed": args.seed, "games": {}}
    for title, game in GAMES.items():
        policies = [f"lead_{name}:choose" for name in RULES]
        result = compare(players=game["players"], preset=game["preset"], settings=game["settings"],
                         policies=policies, matches=args.matches, seed=args.seed)
        standings = result.standings.reset_index().to_dict(orient="records")
        pairs = result.pairs.reset_index().to_dict(orient="records")
        results["games"][title] = {"standings": standings, "pairs": pairs}
        print(title)
        print(result.standings.to_string())
    Path(args.out).write_text(json.dumps(results, indent=2, default=str) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
