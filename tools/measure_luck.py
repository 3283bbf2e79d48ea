"""Measure what ``compare --adjust luck`` buys for one pair: interval widths and the unbiasedness check.

Run from the project root::

    python tools/measure_luck.py --policies expert,greedy --matches 2000 --seed 14
    python tools/measure_luck.py --policies greedy,random --matches 4000 --seed 21 --rollouts 4 --deal-samples 8

It plays the pair as ``compare`` does (every seat rotation on duplicate
deals, :func:`bergen_sim.tournament.play_pair` with ``adjust="luck"``) and
prints one Markdown row: per figure (the first policy's win rate, in
percent, and the points margin per hand) the raw and the adjusted mean with
their 95% half-widths, the ratio of the half-widths, and the t statistic of
the per-deal-set difference raw - adjusted, whose expectation is exactly 0
(``docs/compare.md``, "Unbiasedness").  ``--rollouts`` and
``--deal-samples`` set the adjustment's play-outs per position and sampled
deals per hand (``bergen_sim.luck.ROLLOUTS`` / ``DEAL_SAMPLES``) in this
process, which is why it plays on one worker.

``--out FILE.json`` also records the row in FILE (merged into what it
already holds, one entry per pair, table, seed and settings);
docs/compare.md quotes docs/luck_gain.json ("Measured gains",
"Unbiasedness") and tests/test_docs_numbers.py checks the quotes.
"""

from __future__ import annotations

import argparse
import json
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from bergen_sim import luck
from bergen_sim.execution import RunOptions
from bergen_sim.rules import Rules
from bergen_sim.stats import paired_interval
from bergen_sim.tournament import play_pair


def _half(values: np.ndarray) -> float:
    low, high = paired_interval(values)["ci95"]
    return (high - low) / 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policies", required=True, help="A,B")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--partnerships", action="store_true")
    parser.add_argument("--matches", type=int, default=2000, help="deal sets")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rollouts", type=int, default=luck.ROLLOUTS)
    parser.add_argument("--deal-samples", type=int, default=luck.DEAL_SAMPLES)
    parser.add_argument("--out", help="JSON file to merge the row into")
    args = parser.parse_args()
    a, b = args.policies.split(",")
    luck.ROLLOUTS, luck.DEAL_SAMPLES = args.rollouts, args.deal_samples
    rules = Rules.make(players=args.players, partnerships=args.partnerships)
    out = play_pair(rules, a, b, args.matches, args.seed, options=RunOptions(workers=1), field=(a, b),
                    adjust="luck")
    share, points, opponent_points = out.adjusted
    cells = [f"{a} vs {b}", f"{args.players}{' (partnerships)' if args.partnerships else ''}", str(args.seed),
             f"{args.matches:,} ({out.matches:,})", f"{args.rollouts} / {args.deal_samples}"]
    record = {"policies": [a, b], "players": args.players, "partnerships": args.partnerships, "seed": args.seed,
              "deal_sets": args.matches, "matches": int(out.matches), "rollouts": args.rollouts,
              "deal_samples": args.deal_samples, "created": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    for name, raw, adjusted, scale, digits in (("win_rate", out.win_share, share, 100, 2),
                                               ("margin", out.points - out.opponent_points,
                                                points - opponent_points, 1, 3)):
        difference = raw - adjusted
        t = difference.mean() / (difference.std(ddof=1) / np.sqrt(len(difference)))
        record[name] = {"raw": float(raw.mean()), "raw_half": float(_half(raw)), "adjusted": float(adjusted.mean()),
                        "adjusted_half": float(_half(adjusted)), "ratio": float(_half(adjusted) / _half(raw)),
                        "t_difference": float(t)}
        cells += [f"{scale * raw.mean():.{digits}f} ± {scale * _half(raw):.{digits}f}",
                  f"{scale * adjusted.mean():.{digits}f} ± {scale * _half(adjusted):.{digits}f}",
                  f"{_half(adjusted) / _half(raw):.2f}", f"{t:+.1f}"]
    print("| " + " | ".join(cells) + " |")
    if args.out:
        path = Path(args.out)
        saved = json.loads(path.read_text()) if path.exists() else {"rows": []}
        same = lambda r: all(r[k] == record[k] for k in ("policies", "players", "partnerships", "seed",  # noqa: E731
                                                         "deal_sets", "rollouts", "deal_samples"))
        saved["rows"] = [r for r in saved["rows"] if not same(r)] + [record]
        path.write_text(json.dumps(saved, indent=2) + "\n")


if __name__ == "__main__":
    main()
