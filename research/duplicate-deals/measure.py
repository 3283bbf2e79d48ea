"""How much do duplicate deals narrow ``compare``'s intervals?  Measured against independent deals.

    python research/duplicate-deals/measure.py --matches 20000 --seeds 1,2,3 --out research/duplicate-deals/duplicate_gain.json

For each pair and table below, ``compare`` is run twice per seed with the
same number of matches: on duplicate deals (the default) and with
``independent=True`` (each seat rotation its own seed, as when the policies
are simply simulated apart).  It records the half-widths of the 95%
intervals of the first policy's win rate and of the points-per-hand margin,
their ratio (duplicate over independent) per seed, and the means over the
seeds.  docs/compare.md quotes the file ("How much duplicate deals narrow
the interval"); tests/docs/test_fill_numbers.py checks the quote.  About a minute
on two cores.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from bergen_sim.core.provenance import add_allow_dirty, check_clean  # noqa: E402

#: (label, players, partnerships, a, b)
ROWS = (
    ("greedy-random, 2 players", 2, False, "greedy", "random"),
    ("greedy-random, 3 players", 3, False, "greedy", "random"),
    ("greedy-random, 4 in partnerships", 4, True, "greedy", "random"),
    ("expert-greedy, 2 players", 2, False, "expert", "greedy"),
)


def _figures(result, a: str) -> dict:
    row = result.pairs.reset_index()
    row = row[row["policy"] == a].iloc[0]
    return {
        "win_rate": float(row["win_rate"]),
        "matches": int(row["matches"]),
        "win_half": float(row["win_rate_hi"] - row["win_rate_lo"]) / 2,
        "margin_half": float(row["points_margin_hi"] - row["points_margin_lo"]) / 2,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20_000, help="deal sets per design, pair and seed")
    parser.add_argument("--seeds", default="1,2,3")
    parser.add_argument("--out", default=str(Path(__file__).with_name("duplicate_gain.json")))
    add_allow_dirty(parser)
    args = parser.parse_args(argv)

    from bergen_sim import Rules, compare
    from bergen_sim.core.errors import BergenError
    from bergen_sim.core.limits import MAX_DEAL_SETS, check_range, check_seed, whole_number
    from bergen_sim.services.files.output import check_file, write_result

    try:  # one line and exit status 2 before any play: not a traceback, nor the figures lost at the last write
        check_range("--matches", args.matches, 1, MAX_DEAL_SETS)
        seeds = [whole_number(s) for s in args.seeds.split(",")]
        if None in seeds:
            raise BergenError(f"--seeds {args.seeds!r}: give whole numbers separated by commas, e.g. 1,2,3")
        for seed in seeds:
            check_seed(seed)
        check_file(args.out, "--out", (".json",))
        check_clean(args.out, args.allow_dirty)
    except BergenError as exc:
        parser.error(str(exc))
    rows = []
    for label, players, partnerships, a, b in ROWS:
        runs = []
        for seed in seeds:
            dup = _figures(
                compare(
                    rules=Rules.make(players=players, partnerships=partnerships),
                    policies=[a, b],
                    deals=args.matches,
                    seed=seed,
                ),
                a,
            )
            ind = _figures(
                compare(
                    rules=Rules.make(players=players, partnerships=partnerships),
                    policies=[a, b],
                    deals=args.matches,
                    seed=seed,
                    independent=True,
                ),
                a,
            )
            runs.append(
                {
                    "seed": seed,
                    "duplicate": dup,
                    "independent": ind,
                    "win_ratio": dup["win_half"] / ind["win_half"],
                    "margin_ratio": dup["margin_half"] / ind["margin_half"],
                }
            )
        mean = lambda f, runs=runs: sum(f(r) for r in runs) / len(runs)  # noqa: E731
        row = {
            "label": label,
            "players": players,
            "partnerships": partnerships,
            "policies": [a, b],
            "matches": runs[0]["duplicate"]["matches"],
            "win_rate": mean(lambda r: r["duplicate"]["win_rate"]),
            "win_half_dup": mean(lambda r: r["duplicate"]["win_half"]),
            "win_half_ind": mean(lambda r: r["independent"]["win_half"]),
            "win_ratio": mean(lambda r: r["win_ratio"]),
            "margin_half_dup": mean(lambda r: r["duplicate"]["margin_half"]),
            "margin_half_ind": mean(lambda r: r["independent"]["margin_half"]),
            "margin_ratio": mean(lambda r: r["margin_ratio"]),
            "seeds": runs,
        }
        row["max_seed_deviation"] = max(
            max(abs(r["win_ratio"] - row["win_ratio"]), abs(r["margin_ratio"] - row["margin_ratio"])) for r in runs
        )
        rows.append(row)
        print(f"{label}: win ratio {row['win_ratio']:.3f}, margin ratio {row['margin_ratio']:.3f}", flush=True)
    write_result(args.out, {"deal_sets": args.matches, "seeds": seeds, "rows": rows}, indent=2)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
