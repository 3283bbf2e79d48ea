"""Do the larger games need ``expert`` weights of their own?  Measured head to head, on deals the tuning never saw.

    python research/expert-weights/measure.py --matches 20000 --out research/expert-weights/expert_weights.json

``expert`` plays by ``WEIGHTS`` (tuned on the standard game);
``expert:weights=spinner`` by ``SPINNER_WEIGHTS``, re-tuned on 4-player
double-nine with the spinner by ``tools/tune_expert.py``.  This plays the
two against each other with ``compare`` (duplicate deals, every seat
rotation, paired intervals) in spinner games (the tuning game on fresh
deals, and games the tuning never played: other sets, player counts,
partnerships, double-six with the spinner) and in line games, and records
the re-tuned set's match-win share.  Its result decided the default
(the module note of ``bergen_sim/policies/expert.py``).

docs/policies.md quotes the table this script writes (as a marked table, ``tools/fill_numbers.py``).
"""

from __future__ import annotations

import argparse

from bergen_sim.core.provenance import add_allow_dirty, check_clean

#: title -> the game's rules
GAMES = {
    "4 players, double-nine (the tuning game)": {"players": 4, "settings": {"domino_set": "double-nine"}},
    "2 players, double-six, spinner on": {"players": 2, "settings": {"spinner": True}},
    "3 players, double-fifteen": {"players": 3, "settings": {"domino_set": "double-fifteen"}},
    "4 players in partnerships, double-nine": {
        "players": 4,
        "partnerships": True,
        "settings": {"domino_set": "double-nine"},
    },
    "6 players, double-twelve": {"players": 6, "settings": {"domino_set": "double-twelve"}},
    "2 players, standard (line)": {"players": 2, "settings": {}},
    "4 players, double-nine, spinner off (line)": {
        "players": 4,
        "settings": {"domino_set": "double-nine", "spinner": False},
    },
}
RETUNED = "expert:weights=spinner"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20_000, help="deal sets per game")
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: every core)")
    parser.add_argument("--out", default="research/expert-weights/expert_weights.json")
    add_allow_dirty(parser)
    args = parser.parse_args(argv)

    from bergen_sim import Rules, RunOptions, compare
    from bergen_sim.core.errors import BergenError
    from bergen_sim.core.limits import MAX_DEAL_SETS, check_run
    from bergen_sim.services.files.output import check_file, write_result

    try:  # one line and exit status 2 before any play: not a traceback, nor the figures lost at the last write
        check_run(args.matches, MAX_DEAL_SETS, args.seed, args.workers)
        check_file(args.out, "--out", (".json",))
        check_clean(args.out, args.allow_dirty)
    except BergenError as exc:
        parser.error(str(exc))

    results = {"deal_sets_per_game": args.matches, "seed": args.seed, "games": {}}
    for title, game in GAMES.items():
        rules = Rules.make(players=game["players"], partnerships=game.get("partnerships", False), **game["settings"])
        result = compare(
            rules=rules,
            policies=[RETUNED, "expert"],
            deals=args.matches,
            seed=args.seed,
            options=RunOptions(workers=args.workers),
        )
        pair = result.pairs.reset_index().to_dict(orient="records")[0]
        if pair["policy"] != RETUNED:
            raise RuntimeError(f"{title}: the pair lists {pair['policy']} first")
        results["games"][title] = {"spinner": rules.spinner, **pair}
        print(
            f"{title}: {RETUNED} wins {pair['win_rate']:.4f} [{pair['win_rate_lo']:.4f}, "
            f"{pair['win_rate_hi']:.4f}] against expert",
            flush=True,
        )
    write_result(args.out, results, indent=2, default=str)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
