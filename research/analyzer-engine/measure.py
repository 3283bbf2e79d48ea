"""Which search should rank the moves in ``analyze`` and ``review``: each player's verdicts and cost on real decisions.

    python research/analyzer-engine/measure.py --matches 20 --player reader --player ismcts --player pimc --out research/analyzer-engine/analyzer_players.json

Plays ``--matches`` 2-player matches of the strongest player
(``ismcts.STEERED``) against ``pimc`` (seed ``--seed``), then analyzes
every decision with two or more legal moves (both seats, each from the
deciding seat's own view, as ``review`` does, with review's world budget and
seeds) with every player named by ``--player``. For each player it keeps the
CPU time per decision (after a first decision, timed apart: it loads or compiles the analyzer),
the worlds sampled, how often the best move was separated before the budget,
and its best move; for each pair of players, how often their best moves agree
and, where they differ, how much each one's ranking says the other's pick
loses (match-win probability, with the share of those losses its own interval
shows). Intervals are 95%, over matches (a match's decisions share its
deals): ratios of per-match sums, delta-method intervals (:func:`bergen_sim.core.stats.ratio_interval`).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bergen_sim.cli import main as cli_main
from bergen_sim.core.errors import BergenError
from bergen_sim.core.limits import MAX_WORLDS, MIN_WORLDS, check_range, check_seed
from bergen_sim.core.provenance import add_allow_dirty, check_clean
from bergen_sim.core.stats import ratio_interval
from bergen_sim.search.ismcts import STEERED
from bergen_sim.search.position import ENGINES, PLAYERS, analyze
from bergen_sim.services.files.output import check_file, write_result
from bergen_sim.services.files.record import each_decision, read_games
from bergen_sim.services.game_review import DEFAULT_BATCH, DEFAULT_WORLDS, decision_seed

MAX_MATCHES = 10_000


def _compact(result) -> dict:
    """What the summary needs of one analysis: its cost, its best move (and that move's mirror) and each move's loss."""
    best = result.moves[0]
    return {
        "worlds": result.worlds,
        "stopped": result.stopped,
        "best": str(best.move),
        "mirror_of": None if best.mirror_of is None else str(best.mirror_of),
        "behind": {
            str(m.move): [round(m.win_behind_best.value, 5), round(m.win_behind_best.low, 5)] for m in result.moves
        },
    }


def _same_best(a: dict, b: dict) -> bool:
    """Two rankings pick the same move: the same one, or one the other reports as its mirror (same in every world)."""
    names = {a["best"], a["mirror_of"]}
    return b["best"] in names or b["mirror_of"] in names - {None}


def measure(matches: int, seed: int, players: list[str], worlds: int, batch: int) -> dict:
    """Play the matches, analyze every decision with every player, and summarize (see the module note)."""
    with tempfile.TemporaryDirectory() as folder:
        trace = Path(folder) / "games.jsonl"
        code = cli_main(
            [
                "trace",
                "--policy",
                STEERED,
                "--policy",
                "pimc",
                "--matches",
                str(matches),
                "--seed",
                str(seed),
                "-o",
                str(trace),
                "--quiet",
            ]
        )
        if code != 0:
            raise SystemExit(f"trace failed with status {code}")
        games = read_games(trace)
    rows: list[dict] = []
    compile_s = {}

    def visit(number: int, game, action) -> None:
        if len(game.legal_moves()) < 2:
            return
        view = game.view(action.seat)
        row = {
            "match": game.match,
            "number": number,
            "seat": action.seat,
            "legal_moves": len(game.legal_moves()),
            "by": {},
        }
        for player in players:
            started = time.process_time()
            result = analyze(
                view,
                game.rules,
                worlds=worlds,
                batch=min(batch, worlds),
                seed=decision_seed(seed, game.match, number),
                player=player,
            )
            spent = time.process_time() - started
            if player not in compile_s:
                compile_s[player] = spent  # the first decision compiles the analyzer: timed apart
                row["compiling"] = True
            row["by"][player] = {"cpu_s": round(spent, 6)} | _compact(result)
        rows.append(row)

    for written in games:
        each_decision(written, visit)
    return summarize(rows, players, compile_s, matches, seed, worlds, batch)


def summarize(
    rows: list[dict], players: list[str], compile_s: dict, matches: int, seed: int, worlds: int, batch: int
) -> dict:
    """Per player and per pair, ratio estimates over matches (the sampling unit) with 95% intervals."""
    timed = [r for r in rows if not r.get("compiling")]
    by_match = sorted({r["match"] for r in rows})

    def estimate(selected: list[dict], value) -> dict:
        """The mean of ``value`` over the selected decisions: per-match sums over per-match counts."""
        x, y = np.zeros(len(by_match)), np.zeros(len(by_match))
        for r in selected:
            x[by_match.index(r["match"])] += value(r)
            y[by_match.index(r["match"])] += 1
        mean, lo, hi = ratio_interval(x.sum(), y.sum(), (x * x).sum(), (y * y).sum(), (x * y).sum(), len(x))
        return {"mean": mean, "ci95": [lo, hi], "n": len(selected), "matches": len(by_match)}

    summary = {"players": {}, "pairs": {}}
    for p in players:
        cpu = sorted(r["by"][p]["cpu_s"] for r in timed)
        summary["players"][p] = {
            "engine": ENGINES[p],
            "first_decision_cpu_s": round(compile_s[p], 1),
            "cpu_s_per_decision": estimate(timed, lambda r, p=p: r["by"][p]["cpu_s"]),
            "median_cpu_s": cpu[len(cpu) // 2],
            "worlds_per_decision": estimate(rows, lambda r, p=p: r["by"][p]["worlds"]),
            "separated": estimate(rows, lambda r, p=p: float(r["by"][p]["stopped"] != "budget")),
        }
    for i, a in enumerate(players):
        for b in players[i + 1 :]:
            differ = [r for r in rows if not _same_best(r["by"][a], r["by"][b])]
            pair = {
                "agree": estimate(rows, lambda r, a=a, b=b: float(_same_best(r["by"][a], r["by"][b]))),
                "differ_n": len(differ),
            }
            for judge, other in ((a, b), (b, a)):

                def behind(r, judge=judge, other=other) -> list[float]:
                    """The other's pick in the judge's ranking: [loss, its lower bound] (0 where they agree)."""
                    return r["by"][judge]["behind"][r["by"][other]["best"]]

                if differ:
                    pair[f"{other}_pick_by_{judge}"] = {
                        "loss_per_differing_decision": estimate(differ, lambda r, f=behind: f(r)[0]),
                        "loss_shown": estimate(differ, lambda r, f=behind: float(f(r)[1] > 0)),
                        "loss_per_decision": estimate(rows, lambda r, f=behind: f(r)[0]),
                    }
            summary["pairs"][f"{a} vs {b}"] = pair
    return {
        "games": f"{matches} 2-player matches of {STEERED} against pimc, seed {seed}",
        "worlds": worlds,
        "batch": batch,
        "decisions": len(rows),
        "matches": len(by_match),
        "summary": summary,
        "rows": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10)
    parser.add_argument("--seed", type=int, default=20261230)
    parser.add_argument("--player", action="append", choices=PLAYERS, help="repeatable (default: reader and ismcts)")
    parser.add_argument("--worlds", type=int, default=DEFAULT_WORLDS)
    parser.add_argument("--batch", type=int, default=DEFAULT_BATCH)
    parser.add_argument("--out", help="JSON file to write (the summary is printed either way)")
    add_allow_dirty(parser)
    args = parser.parse_args()
    players = list(dict.fromkeys(args.player or ["reader", "ismcts"]))
    try:
        check_range("--matches", args.matches, 2, MAX_MATCHES)  # two matches at least, for an interval over them
        check_seed(args.seed)
        check_range("--worlds", args.worlds, MIN_WORLDS, MAX_WORLDS)
        check_range("--batch", args.batch, 1, MAX_WORLDS)
        if args.out:
            check_file(args.out, "--out", (".json",))  # refused before the games are played, not after
            check_clean(args.out, args.allow_dirty)
        if len(players) < 2:
            raise BergenError("give two --player values or more: the tool compares analyzers")
    except BergenError as exc:
        parser.error(str(exc))
    result = measure(args.matches, args.seed, players, args.worlds, args.batch)
    result["command"] = "python research/analyzer-engine/measure.py " + " ".join(sys.argv[1:])
    if args.out:  # whole or not at all; the rows (every decision's rankings) go to the file only
        result = write_result(args.out, result)
    print(json.dumps({k: v for k, v in result.items() if k != "rows"}, indent=1))


if __name__ == "__main__":
    main()
