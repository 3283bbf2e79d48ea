"""Hands per second for every domino set and table size, one core (issue 10's speed goals).

    python benchmarks/sets.py            # about a minute of play, plus compiling
    python benchmarks/sets.py --seconds 4 --repeats 3

Each row plays one game (set, spinner, players) with one policy on every seat
in this process for about ``--seconds`` (after a warm-up that loads or
compiles its kernel) and reports the median hands/s of ``--repeats`` runs.
The one-word kernels (double-six, double-nine) and the three-word kernels
(double-twelve and up) are separate compiled specialisations of the same
source (engine/tileset.py), so each set size pays its own first compile,
which is reported too.  Writes benchmarks/sets.json and benchmarks/sets.md, and
the same under ``sets`` in benchmarks/results.json (results.md and the
docs/speed.md's speed table show it).
Whether the double-six game got slower is measured by ``benchmarks/trees.py``
(old and new tree interleaved in one run), not here.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from bergen_sim.core.provenance import add_allow_dirty
from bergen_sim.engine import layout as L
from bergen_sim.model.rules import Rules
from bergen_sim.services.execution.jobs import engine_for
from bergen_sim.services.files.output import write_file, write_result

sys.path.insert(0, str(Path(__file__).resolve().parent))
from trees import at_least, duration  # noqa: E402  (benchmarks/ is a folder of scripts)

HERE = Path(__file__).resolve().parent
GAMES = {
    "double-six, 2 players": dict(players=2),
    "double-six, 3 players, spinner": dict(players=3, domino_set="double-six", spinner=True),
    "double-six, 4 partnerships": dict(players=4, partnerships=True),
    "double-nine, 2 players": dict(players=2, domino_set="double-nine"),
    "double-nine, 4 players": dict(players=4, domino_set="double-nine"),
    "double-nine, 5 players": dict(players=5, domino_set="double-nine"),
    "double-twelve, 6 players": dict(players=6, domino_set="double-twelve"),
    "double-fifteen, 7 players": dict(players=7, domino_set="double-fifteen"),
    "double-eighteen, 8 players": dict(players=8, domino_set="double-eighteen"),
    "double-eighteen, 8 partnerships": dict(players=8, partnerships=True, domino_set="double-eighteen"),
}
POLICIES = ("random", "expert")
#: issue 10: hands/s per core
GOALS = {("double-nine, 4 players", "random"): 1_000_000, ("double-eighteen, 8 players", "random"): 200_000}


def measure(config: dict, policy: str, seconds: float, repeats: int) -> dict:
    """Median hands/s of ``repeats`` runs of about ``seconds`` each, and the kernel's load/compile time."""
    settings = {k: v for k, v in config.items() if k not in ("players", "partnerships")}
    rules = Rules.make(players=config["players"], partnerships=config.get("partnerships", False), **settings)
    start = time.perf_counter()
    engine = engine_for(rules, (policy,) * rules.players)
    load_s = time.perf_counter() - start
    t = time.perf_counter()
    engine.play(seed=7, first_match=0, n_matches=500, match_rows=False)
    per_match = (time.perf_counter() - t) / 500
    matches = max(1_000, int(seconds / max(per_match, 1e-7)))
    rates = []
    for r in range(repeats):
        t = time.perf_counter()
        chunk = engine.play(seed=2024 + r, first_match=0, n_matches=matches, match_rows=False)
        rates.append(int(chunk.totals[L.S_HANDS]) / (time.perf_counter() - t))
    return {
        "matches": matches,
        "kernel_load_s": round(load_s, 2),
        "hands_per_s": statistics.median(rates),
        "runs": [round(x) for x in rates],
    }


def report(results: dict) -> str:
    lines = [
        "## Hands per second by domino set and table (one core, `benchmarks/sets.py`)",
        "",
        f"{results['machine'].get('date', '?')}; {results['machine'].get('cpu', '?')}; load before the run "
        f"{results['machine'].get('load_average_at_start', '?')}; commit {results['machine'].get('commit', '?')}.",
        f"Each figure is the median of {results['repeats']} runs of about {results['seconds']} s "
        "(written by benchmarks/sets.py).",
        "",
        "| game | policy | hands/s | matches per run | kernel load or compile, s |",
        "|---|---|---|---|---|",
    ]
    for row in results["rows"]:
        lines.append(
            f"| {row['game']} | {row['policy']} | {row['hands_per_s']:,.0f} | {row['matches']:,} | "
            f"{row['kernel_load_s']} |"
        )
    lines += ["", "| goal (issue 10) | measured | met |", "|---|---|---|"]
    for goal in results["goals"]:
        lines.append(f"| {goal['goal']} | {goal['measured']:,.0f} | {'yes' if goal['met'] else 'no'} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=duration, default=2.0)
    parser.add_argument("--repeats", type=at_least(1), default=3)
    parser.add_argument("--no-save", action="store_true")
    add_allow_dirty(parser)
    args = parser.parse_args(argv)
    import run as bench  # noqa: E402  (benchmarks/ is a folder of scripts; run.py imports this one)

    bench.check_saving(parser, not args.no_save, args.allow_dirty)

    results = {"machine": bench.machine(), "seconds": args.seconds, "repeats": args.repeats, "rows": [], "goals": []}
    for game, config in GAMES.items():
        for policy in POLICIES:
            print(f"{game}, {policy} ...", file=sys.stderr, flush=True)
            results["rows"].append(
                {"game": game, "policy": policy, **measure(config, policy, args.seconds, args.repeats)}
            )
    for (game, policy), goal in GOALS.items():
        row = next(r for r in results["rows"] if r["game"] == game and r["policy"] == policy)
        results["goals"].append(
            {
                "goal": f">= {goal:,} hands/s, {game}, {policy}",
                "measured": row["hands_per_s"],
                "met": row["hands_per_s"] >= goal,
            }
        )
    text = report(results)
    print(text)
    if not args.no_save:
        results = write_result(HERE / "sets.json", results, default=float)
        write_file(HERE / "sets.md", text)
        bench.save_section("sets", json.loads(json.dumps(results, default=float)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
