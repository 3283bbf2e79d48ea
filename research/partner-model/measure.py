"""Does ``pimc`` play better in partnerships when its play-outs model its partner as the partner plays?

    python research/partner-model/measure.py --out research/partner-model/partner_model.json          # about 15 minutes on 2 cores
    python research/partner-model/measure.py --matches 200 --out /tmp/p.json        # a quick look

Four players in partnerships: ``pimc`` at seat 0 with a weaker partner at
seat 2 (``random``, then ``greedy``) against ``expert`` at seats 1 and 3.
``pimc`` at its defaults models every seat in its play-outs as ``expert``
(its ``base``); ``pimc:partner=P`` models the partner as ``P``, which is how
the partner really plays.  Both variants play the same matches (one seed:
the same keyed deals, hand by hand), so the sampling unit is the match and
the comparison is paired: the difference of side 0's match wins, with its
95% interval (normal, over matches).  docs/pimc.md quotes the result
(as marked numbers, ``tools/fill_numbers.py``).
"""

from __future__ import annotations

import argparse
import time

from bergen_sim import RunOptions
from bergen_sim.core.provenance import add_allow_dirty, check_clean

PARTNERS = ("random", "greedy")
OPPONENT = "expert"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10000, help="matches per partner and variant")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: every core)")
    parser.add_argument("--out", default="research/partner-model/partner_model.json")
    add_allow_dirty(parser)
    args = parser.parse_args(argv)

    from bergen_sim.core.errors import BergenError
    from bergen_sim.core.limits import MAX_MATCHES, check_run
    from bergen_sim.core.stats import mean_interval
    from bergen_sim.model.rules import Rules
    from bergen_sim.services.files.output import check_file, write_result
    from bergen_sim.services.simulation import simulate

    try:  # one line and exit status 2 before any play: not a traceback after the first partner's runs
        check_run(args.matches, MAX_MATCHES, args.seed, args.workers)
        check_file(args.out, "--out", (".json",))
        check_clean(args.out, args.allow_dirty)
    except BergenError as exc:
        parser.error(str(exc))

    rules = Rules.make(players=4, partnerships=True)
    results = {
        "players": 4,
        "partnerships": True,
        "opponent": OPPONENT,
        "seed": args.seed,
        "matches": args.matches,
        "rows": [],
    }
    for partner in PARTNERS:
        wins = {}
        seconds = {}
        for variant in ("pimc", f"pimc:partner={partner}"):
            start = time.perf_counter()
            run = simulate(
                rules=rules,
                policies=[variant, OPPONENT, partner, OPPONENT],
                matches=args.matches,
                seed=args.seed,
                rows=True,
                options=RunOptions(workers=args.workers),
            )
            wins[variant] = (run.matches.winner == 0).to_numpy().astype(float)
            seconds[variant] = round(time.perf_counter() - start, 1)
        plain, informed = wins["pimc"], wins[f"pimc:partner={partner}"]
        diff = informed - plain
        row = {"partner": partner, "matches": args.matches}
        for name, values in (("plain", plain), ("informed", informed), ("difference", diff)):
            mean, low, high = mean_interval(values.sum(), (values**2).sum(), len(values))
            row[name] = {"mean": mean, "low": low, "high": high}
        row["seconds"] = seconds
        results["rows"].append(row)
        write_result(args.out, results)
        print(
            f"partner {partner}: side 0 wins {plain.mean():.4f} with pimc, {informed.mean():.4f} with "
            f"pimc:partner={partner}; difference {row['difference']['mean']:+.4f} "
            f"[{row['difference']['low']:+.4f}, {row['difference']['high']:+.4f}] ({args.matches} matches)",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
