"""Measure what ``compare --adjust luck`` buys for one pair: interval widths and the unbiasedness check.

Run from the project root::

    python research/luck-adjustment/measure.py --policies expert,greedy --matches 2000 --seed 14
    python research/luck-adjustment/measure.py --policies greedy,random --matches 4000 --seed 21 --rollouts 4 --deal-samples 8

It plays the pair as ``compare`` does (every seat rotation on duplicate
deals, :func:`bergen_sim.services.comparison.play_pair` with ``luck=LuckAdjustment(...)``) and
prints one Markdown row: per figure (the first policy's win rate, in
percent, and the points margin per hand) the raw and the adjusted mean with
their 95% half-widths, the ratio of the half-widths with a 95% bootstrap
interval (the ratio is an estimate from the same deal sets), and the t statistic of
the per-deal-set difference raw - adjusted, whose expectation is exactly 0
(``docs/compare.md``, "Unbiasedness").  ``--rollouts`` sets the
adjustment's play-outs per position (``compare --luck-playouts``);
``--deal-samples`` the sampled deals per hand (``bergen_sim.services.luck.DEAL_SAMPLES``)
and ``--decision-runs`` the runs of a seat's own policy per decision
(``bergen_sim.services.luck.DECISION_RUNS``; 0: no decision terms, as every row
before them) in this process, which is why it plays on this process's threads
(``--workers``, default 1), never on a cluster.  ``--model NAME=MODEL``
(repeatable; ``compare --luck-model``) has ``MODEL`` (a built-in, or
``pimc[:worlds=N]``) play the seats of policy ``NAME`` in the play-outs
instead of its own: with
``--policies expert,greedy --model greedy=expert`` it measures what a wrong
model of a seat's play costs, the situation of every policy the play-outs
cannot run (``pimc``, the searches, plug-ins, played by ``expert``).

``--out FILE.json`` also records the row in FILE (merged into what it
already holds, one entry per pair, table, seed and settings);
docs/compare.md quotes research/luck-adjustment/luck_gain.json ("Measured gains",
"Unbiasedness") as marked numbers: tests/docs/test_fill_numbers.py checks them.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from luck_study import add_pair_arguments, read_pair, sd_ratio_interval

from bergen_sim.core.errors import BergenError
from bergen_sim.core.limits import MAX_DEAL_SETS, check_range, check_seed
from bergen_sim.core.provenance import add_allow_dirty, check_clean, result_record
from bergen_sim.core.stats import paired_interval
from bergen_sim.services import luck
from bergen_sim.services.comparison import LuckAdjustment, check_luck_models, parse_luck_models, play_pair
from bergen_sim.services.execution.jobs import RunOptions
from bergen_sim.services.files.output import merge_target, write_result

#: most --rollouts and --deal-samples: hundreds of times the defaults, far beyond a useful run, and a count the
#: compiled play-outs take (their int64; a 10**30 would be a traceback after the play)
MAX_SAMPLES = 10_000


def _half(values: np.ndarray) -> float:
    low, high = paired_interval(values)["ci95"]
    return (high - low) / 2


#: bootstrap resamples of the deal sets for the ratio's interval
RATIO_RESAMPLES = 4000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_pair_arguments(parser)
    parser.add_argument("--matches", type=int, default=2000, help="deal sets")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rollouts", type=int, default=luck.ROLLOUTS)
    parser.add_argument("--deal-samples", type=int, default=luck.DEAL_SAMPLES)
    parser.add_argument(
        "--decision-runs",
        type=int,
        default=luck.DECISION_RUNS,
        help="runs of a seat's own policy per decision (0: no decision terms)",
    )
    parser.add_argument(
        "--model",
        action="append",
        default=[],
        metavar="NAME=MODEL",
        help="play policy NAME's seats by MODEL (a built-in or pimc[:worlds=N]) in the play-outs (repeatable)",
    )
    parser.add_argument("--workers", type=int, default=1, help="threads (the figures do not depend on it)")
    parser.add_argument("--out", help="JSON file to merge the row into")
    add_allow_dirty(parser)
    args = parser.parse_args()
    try:  # a wrong pair, game, count or --out is one line and exit status 2 before any play
        pair, rules = read_pair(args)
        models = check_luck_models(parse_luck_models(args.model, "--model", pair), pair, "luck")
        # fewer deal sets leave the adjustment out, and a ratio of 1 would measure nothing
        check_range("--matches", args.matches, luck.MIN_ADJUSTED_DEAL_SETS, MAX_DEAL_SETS)
        check_range("--rollouts", args.rollouts, 1, MAX_SAMPLES)
        check_range("--deal-samples", args.deal_samples, 1, MAX_SAMPLES)
        check_range("--decision-runs", args.decision_runs, 0, MAX_SAMPLES)
        check_seed(args.seed)
        check_range("--workers", args.workers, 1, 256)
        saved = (merge_target(args.out, "--out", "rows", list) or {"rows": []}) if args.out else None
        if args.out:
            check_clean(args.out, args.allow_dirty)
    except BergenError as exc:
        parser.error(str(exc))
    a, b = pair
    luck.DEAL_SAMPLES = args.deal_samples
    luck.DECISION_RUNS = args.decision_runs
    cpu = time.process_time()  # every thread's: the play and the adjustment's play-outs (its cost)
    out = play_pair(
        rules,
        a,
        b,
        args.matches,
        args.seed,
        options=RunOptions(workers=args.workers),
        field=(a, b),
        luck=LuckAdjustment(models, args.rollouts),
    )
    share, points, opponent_points = out.adjusted
    cells = [
        f"{a} vs {b}" + "".join(f" ({name} played as {model})" for name, model in models.items()),
        f"{args.players}{' (partnerships)' if args.partnerships else ''}",
        str(args.seed),
        f"{args.matches:,} ({out.matches:,})",
        f"{args.rollouts} / {args.deal_samples}",
    ]
    record = {
        "policies": [a, b],
        "players": args.players,
        "partnerships": args.partnerships,
        "seed": args.seed,
        "deal_sets": args.matches,
        "matches": int(out.matches),
        "rollouts": args.rollouts,
        "deal_samples": args.deal_samples,
        "decision_runs": args.decision_runs,
        "cpu_seconds": round(time.process_time() - cpu, 1),
        "provenance": result_record(),  # each row its own: the file keeps rows of earlier runs
    }
    if models:  # rows without the key are of each seat's own model (all rows before the option)
        record["models"] = models
    for name, raw, adjusted, scale, digits in (
        ("win_rate", out.win_share, share, 100, 2),
        ("margin", out.points - out.opponent_points, points - opponent_points, 1, 3),
    ):
        difference = raw - adjusted
        t = difference.mean() / (difference.std(ddof=1) / np.sqrt(len(difference)))
        low, high = sd_ratio_interval(raw, adjusted, args.seed, RATIO_RESAMPLES)
        record[name] = {
            "raw": float(raw.mean()),
            "raw_half": float(_half(raw)),
            "adjusted": float(adjusted.mean()),
            "adjusted_half": float(_half(adjusted)),
            "ratio": float(_half(adjusted) / _half(raw)),
            "ratio_low": low,
            "ratio_high": high,
            "t_difference": float(t),
        }
        cells += [
            f"{scale * raw.mean():.{digits}f} ± {scale * _half(raw):.{digits}f}",
            f"{scale * adjusted.mean():.{digits}f} ± {scale * _half(adjusted):.{digits}f}",
            f"{_half(adjusted) / _half(raw):.2f} [{low:.2f}, {high:.2f}]",
            f"{t:+.1f}",
        ]
    print("| " + " | ".join(cells) + " |")
    if saved is not None:
        same = lambda r: (  # noqa: E731
            all(
                r.get(k) == record.get(k)
                for k in (
                    "policies",
                    "players",
                    "partnerships",  # noqa: E731
                    "seed",
                    "deal_sets",
                    "rollouts",
                    "deal_samples",
                    "models",
                )
            )
            and (r.get("decision_runs", 0) == record["decision_runs"])
        )
        saved["rows"] = [r for r in saved["rows"] if not same(r)] + [record]
        write_result(args.out, saved, indent=2)


if __name__ == "__main__":
    main()
