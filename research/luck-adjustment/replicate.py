"""Replicate ``compare --adjust luck`` on many fresh seeds and check it against a known answer.

Run from the project root::

    python research/luck-adjustment/replicate.py --policies expert,greedy --runs 100 --deal-sets 500 \
        --truth reports/policy_table/tables/pairs.parquet --out research/luck-adjustment/replicate.json
    python research/luck-adjustment/replicate.py --policies pimc,expert --runs 30 --deal-sets 300 \
        --out research/luck-adjustment/replicate.json

Each run plays the pair as ``compare --adjust luck`` does (every seat
rotation on duplicate deals, the adjustment at its defaults, or with
``--playouts`` play-outs per evaluated position) on its own seed,
``--first-seed`` upwards, and records the first policy's raw and adjusted win
rate with their 95% intervals (the Student-t interval over deal sets that
``compare`` prints).  The runs are independent, so across them:

* the standard deviation of the adjusted estimates over that of the raw ones
  is the real cut in spread (not an estimate from one run's deal sets), with
  a bootstrap interval over runs;
* the mean of adjusted - raw has expectation exactly 0 (the controls have
  mean 0), so its t statistic is the pre-declared test of a shift;
* with ``--truth`` (a policy-table ``pairs`` table of a million matches),
  the mean error of each estimate and the share of runs whose interval holds
  the answer (coverage, with a Wilson interval over runs).

Rows are written to ``--out`` after every run, so a stopped study keeps what
it played and continues where it stopped (runs already there are skipped).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from datetime import UTC, datetime

import numpy as np
import pandas as pd
from luck_study import add_pair_arguments, read_pair, sd_ratio_interval

from bergen_sim.core.errors import BergenError
from bergen_sim.core.limits import MAX_DEAL_SETS, check_range, check_seed
from bergen_sim.core.provenance import add_allow_dirty, check_clean, environment, record
from bergen_sim.core.stats import paired_interval, wilson_interval
from bergen_sim.model.rules import Rules
from bergen_sim.services import luck
from bergen_sim.services.comparison import LuckAdjustment, play_pair
from bergen_sim.services.execution.jobs import RunOptions
from bergen_sim.services.files.output import merge_target, write_result

#: bootstrap resamples of the runs for the interval of the spread ratio
RATIO_RESAMPLES = 10_000


def t_interval(values: np.ndarray) -> tuple[float, float, float]:
    """Mean and 95% Student-t interval: the interval ``compare`` gives over deal sets."""
    found = paired_interval(values)
    return found["mean"], *found["ci95"]


def known_answer(path: str, rules: Rules, a: str, b: str) -> dict[str, float]:
    """The pair's win rate in a policy-table ``pairs`` table, with its interval."""
    try:
        table = pd.read_parquet(
            path, columns=["table", "policy", "opponent", "matches", "win_rate", "win_rate_lo", "win_rate_hi"]
        )
    except (OSError, ValueError, KeyError) as exc:  # not a file, not Parquet, or not a pairs table
        raise BergenError(f"--truth {path}: cannot read it as a policy-table pairs.parquet ({exc})") from None
    name = f"{rules.players} {'partnerships' if rules.partnerships else 'players'}"
    row = table[(table["table"] == name) & (table["policy"] == a) & (table["opponent"] == b)]
    if row.empty:
        raise BergenError(f"--truth {path}: no row for {a} against {b} at {name}")
    row = row.iloc[0]
    return {
        "source": path,
        "matches": int(row["matches"]),
        "win_rate": float(row["win_rate"]),
        "low": float(row["win_rate_lo"]),
        "high": float(row["win_rate_hi"]),
    }


def summarize(runs: list[dict], truth: dict | None, seed: int) -> dict:
    """What the runs say together: spread cut, shift, and (with a known answer) bias and coverage."""
    raw = np.array([r["raw"] for r in runs])
    adjusted = np.array([r["adjusted"] for r in runs])
    ratio_low, ratio_high = sd_ratio_interval(raw, adjusted, seed, RATIO_RESAMPLES)
    shift = adjusted - raw
    mean, low, high = t_interval(shift)
    out = {
        "runs": len(runs),
        "sd_raw": float(raw.std(ddof=1)),
        "sd_adjusted": float(adjusted.std(ddof=1)),
        "sd_ratio": float(adjusted.std(ddof=1) / raw.std(ddof=1)),
        "sd_ratio_low": ratio_low,
        "sd_ratio_high": ratio_high,
        "mean_half_ratio": float(np.mean([r["adjusted_half"] / r["raw_half"] for r in runs])),
        "shift": {
            "mean": mean,
            "low": low,
            "high": high,
            "t": float(mean / (shift.std(ddof=1) / math.sqrt(len(shift)))),
        },
    }
    if truth is not None:
        for name in ("raw", "adjusted"):
            values = np.array([r[name] for r in runs])
            error, e_low, e_high = t_interval(values - truth["win_rate"])
            hits = sum(r[f"{name}_low"] <= truth["win_rate"] <= r[f"{name}_high"] for r in runs)
            c_low, c_high = wilson_interval(hits, len(runs))
            out[name] = {
                "error": error,
                "error_low": e_low,
                "error_high": e_high,
                "error_t": float(error / (values.std(ddof=1) / math.sqrt(len(values)))),
                "covered": int(hits),
                "coverage": hits / len(runs),
                "coverage_low": c_low,
                "coverage_high": c_high,
            }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_pair_arguments(parser)
    parser.add_argument("--deal-sets", type=int, default=500, help="deal sets per run")
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--first-seed", type=int, default=1000, help="runs play seeds first-seed, first-seed+1, ...")
    parser.add_argument("--truth", help="a policy-table pairs.parquet holding the pair's million-match answer")
    parser.add_argument("--workers", type=int, default=1, help="threads per run (the figures do not depend on it)")
    parser.add_argument(
        "--playouts", type=int, help="play-outs per evaluated position (compare --luck-playouts; default: compare's)"
    )
    parser.add_argument("--out", required=True, help="JSON file to merge the study into")
    add_allow_dirty(parser)
    args = parser.parse_args()
    try:  # a wrong pair, game, count, answer or --out is one line and exit status 2 before any play
        pair, rules = read_pair(args)
        check_range("--deal-sets", args.deal_sets, luck.MIN_ADJUSTED_DEAL_SETS, MAX_DEAL_SETS)
        check_range("--runs", args.runs, 3, 10_000)
        check_seed(args.first_seed)
        check_range("--workers", args.workers, 1, 256)
        playouts = luck.ROLLOUTS if args.playouts is None else args.playouts
        check_range("--playouts", playouts, 1, luck.MAX_PLAYOUTS)
        truth = known_answer(args.truth, rules, *pair) if args.truth else None
        saved = merge_target(args.out, "--out", "studies", list) or {"studies": []}
        check_clean(args.out, args.allow_dirty)
    except (BergenError, OSError) as exc:
        parser.error(str(exc))
    a, b = pair
    key = {
        "policies": pair,
        "players": args.players,
        "partnerships": args.partnerships,
        "deal_sets": args.deal_sets,
        "first_seed": args.first_seed,
        "rollouts": playouts,
    }
    study = next((s for s in saved["studies"] if {k: s.get(k) for k in key} == key), None)
    if study is None:
        study = {**key, "runs": []}
        saved["studies"].append(study)
    study.update(
        deal_samples=luck.DEAL_SAMPLES,
        decision_runs=luck.DECISION_RUNS,
        truth=truth,
        provenance={**record(), **environment()},
    )
    done = {r["seed"] for r in study["runs"]}
    for seed in range(args.first_seed, args.first_seed + args.runs):
        if seed in done:
            continue
        cpu = time.process_time()
        out = play_pair(
            rules,
            a,
            b,
            args.deal_sets,
            seed,
            options=RunOptions(workers=args.workers),
            field=(a, b),
            luck=LuckAdjustment(playouts=playouts),
        )
        raw, raw_low, raw_high = t_interval(out.win_share)
        adjusted, adjusted_low, adjusted_high = t_interval(out.adjusted[0])
        study["runs"].append(
            {
                "seed": seed,
                "matches": int(out.matches),
                "raw": raw,
                "raw_low": raw_low,
                "raw_high": raw_high,
                "raw_half": (raw_high - raw_low) / 2,
                "adjusted": adjusted,
                "adjusted_low": adjusted_low,
                "adjusted_high": adjusted_high,
                "adjusted_half": (adjusted_high - adjusted_low) / 2,
                "cpu_seconds": round(time.process_time() - cpu, 1),
            }
        )
        study["runs"].sort(key=lambda r: r["seed"])
        study["summary"] = summarize(study["runs"], truth, args.first_seed) if len(study["runs"]) >= 3 else None
        study["updated"] = datetime.now(UTC).isoformat(timespec="seconds")
        write_result(args.out, saved)
        print(f"{a} vs {b} seed {seed}: raw {100 * raw:.2f}  adjusted {100 * adjusted:.2f}", flush=True)
    if study.get("summary"):
        print(json.dumps(study["summary"], indent=1))


if __name__ == "__main__":
    main()
