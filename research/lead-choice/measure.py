"""Which double should a policy lead under ``lead = any-double``?  Measured, not guessed.

    python research/lead-choice/measure.py --matches 20000 --out research/lead-choice/lead_choice.json

``expert`` takes the rule as a setting (``expert:lead=lowest|highest|follow``,
the rules of :func:`bergen_sim.policies.base.lead_by`: the lowest double, the
highest, or the double whose number the rest of the hand shows most often).
This plays the three against each other with ``compare`` (duplicate deals,
seats rotated, paired intervals) in games where the leader chooses: the
classic preset (double-six, any double leads) with 2 players, and
double-nine with 4 players, any double leading.  The rule with the best
standing in both is ``expert``'s default and the ``LEAD_RULE`` of the other
built-ins; docs/policies.md quotes the table this script writes.
"""

from __future__ import annotations

import argparse

from bergen_sim.core.provenance import add_allow_dirty, check_clean

POLICIES = ("expert:lead=lowest", "expert:lead=highest", "expert:lead=follow")
GAMES = {
    "2 players, classic (double-six, any double)": {"players": 2, "preset": "classic", "settings": {}},
    "4 players, double-nine, any double": {
        "players": 4,
        "preset": "standard",
        "settings": {"domino_set": "double-nine", "lead": "any-double"},
    },
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20_000, help="deal sets per pair and game")
    parser.add_argument("--seed", type=int, default=20261130)
    parser.add_argument("--out", default="research/lead-choice/lead_choice.json")
    add_allow_dirty(parser)
    args = parser.parse_args(argv)

    from bergen_sim import Rules, compare
    from bergen_sim.core.errors import BergenError
    from bergen_sim.core.limits import MAX_DEAL_SETS, check_run
    from bergen_sim.services.files.output import check_file, write_result

    try:  # one line and exit status 2 before any play: not a traceback, nor the figures lost at the last write
        check_run(args.matches, MAX_DEAL_SETS, args.seed, None)
        check_file(args.out, "--out", (".json",))
        check_clean(args.out, args.allow_dirty)
    except BergenError as exc:
        parser.error(str(exc))

    results = {"matches_per_pair": args.matches, "seed": args.seed, "policies": list(POLICIES), "games": {}}
    for title, game in GAMES.items():
        result = compare(
            rules=Rules.make(players=game["players"], preset=game["preset"], **game["settings"]),
            policies=list(POLICIES),
            deals=args.matches,
            seed=args.seed,
        )
        results["games"][title] = {
            "standings": result.standings.reset_index().to_dict(orient="records"),
            "pairs": result.pairs.reset_index().to_dict(orient="records"),
        }
        print(title)
        print(result.standings.to_string())
    write_result(args.out, results, indent=2, default=str)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
