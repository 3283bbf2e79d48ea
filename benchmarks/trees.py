"""Speed of two source trees of bergen-sim in one run, interleaved: the "before and after" of a change.

    python benchmarks/trees.py --old /path/to/old/tree            # the new tree is this checkout
    python benchmarks/trees.py --old /work/main --rounds 7 --seconds 3

One long-lived worker process per tree imports that tree's package (the
tree first on ``PYTHONPATH``, its own compile cache), compiles its kernels
and then, on request, plays 2-player matches on one core for about
``--seconds`` and reports hands/s.  Requests alternate between the trees
(old, new, new, old, ...) for ``--rounds`` rounds, so both see the same
machine load; the report gives each tree's median and the median of the
per-round ratios new/old.  Warm start is the wall time of a fresh
``bergen-sim simulate --matches 1000 --workers 1`` process with a filled
compile cache, alternated the same way.

``--game`` measures other tables the same way (each one a comma-separated
list of ``Rules.make`` settings, e.g. ``--game players=4,domino_set=double-nine``;
the default is the 2-player game), and ``--no-start`` skips the warm-start
rows.  ``--save`` keeps the run under ``trees`` in benchmarks/results.json
(results.md shows it as "Old tree against new"), for a change whose speed
the docs quote.  ``--keep-cache`` compiles into a cache per tree under the bergen-sim
cache folder that outlives the run (each kernel is 20 s cold), instead of a
fresh one.

Only public names present in both trees are used (``bergen_sim.Engine``,
``bergen_sim.Rules``, layout ``S_HANDS``).  A shared machine gives noisy
numbers: read the ratio, and repeat on a quiet machine before concluding.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bergen_sim.core.provenance import add_allow_dirty

NEW = Path(__file__).resolve().parent.parent
POLICIES = ("random", "expert")
CLI = "import sys; from bergen_sim.cli import main; sys.exit(main())"

WORKER = r"""
import json, sys, time
import numpy as np
import bergen_sim
from bergen_sim.engine import layout as L
games = json.loads(sys.argv[2]) if len(sys.argv) > 2 else [{"players": 2}]
engines = {}
for g, game in enumerate(games):
    rules = bergen_sim.Rules.make(**game)
    for p in sys.argv[1].split(","):
        engines[g, p] = bergen_sim.Engine(rules, [p])
        engines[g, p].play(seed=1, first_match=0, n_matches=2000, match_rows=False)
print(json.dumps({"ready": bergen_sim.__file__}), flush=True)
first = 0
for line in sys.stdin:
    g, policy, seconds = line.split()
    engine, budget = engines[int(g), policy], float(seconds)
    matches, hands, start = 0, 0, time.perf_counter()
    size = 2000
    while time.perf_counter() - start < budget:
        chunk = engine.play(seed=7, first_match=first, n_matches=size, match_rows=False)
        first += size
        matches += size
        hands += int(chunk.totals[L.S_HANDS])
        size = min(size * 2, 200_000)
    elapsed = time.perf_counter() - start
    print(json.dumps({"hands_per_s": hands / elapsed, "matches": matches, "seconds": elapsed}), flush=True)
"""


def setting(item: str) -> tuple[str, object]:
    """One ``name=value`` rule setting for Rules.make (whole numbers and on/off read as such)."""
    key, sep, value = item.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"give each setting as name=value, not {item!r}")
    value = value.strip()
    return key.strip().replace("-", "_"), int(value) if value.isdigit() else {"on": True, "off": False}.get(
        value, value
    )


def at_least(low: int, high: int | None = None):
    """An argparse type: a whole number in ``low..high`` (no upper limit when ``high`` is None).

    Refused in one line and exit status 2 before anything runs: 0 rounds or
    repeats would end in an empty median, and 0 workers in a refusal, only
    after minutes of compiling and measuring.
    """
    allowed = f"{low:,}..{high:,}" if high is not None else f"{low:,} or more"

    def whole(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number ({allowed})") from None
        if value < low or (high is not None and value > high):
            shown = f"{value:,}" if len(text) < 30 else f"a number of {len(text)} characters"
            raise argparse.ArgumentTypeError(f"must be {allowed}, not {shown}")
        return value

    return whole


def duration(text: str) -> float:
    """An argparse type: seconds, a finite number above 0 (0, a negative or nan would time nothing and divide by
    it; refused before anything runs)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds (above 0)") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text} is not a number of seconds above 0")
    return value


def source_tree(text: str) -> Path:
    """An argparse type: a source tree of bergen-sim (a folder holding ``bergen_sim/__init__.py``).

    Any other folder would put nothing on ``PYTHONPATH`` and silently measure
    the installed package instead of the tree asked for.
    """
    tree = Path(text).resolve()
    if not (tree / "bergen_sim" / "__init__.py").is_file():
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a bergen-sim source tree (no bergen_sim/__init__.py); "
            "give the folder that holds bergen_sim/"
        )
    return tree


def game_settings(text: str) -> dict:
    """``players=4,domino_set=double-nine`` as Rules.make settings (:func:`setting` each)."""
    return dict(setting(item) for item in text.split(","))


def game_label(game: dict) -> str:
    """A short name for a measured table: ``2p``, ``4p double-nine``, ``4p partnerships``."""
    rest = [
        f"{v}" if k == "domino_set" else (k if v is True else f"{k}={v}") for k, v in game.items() if k != "players"
    ]
    return " ".join([f"{game.get('players', 2)}p", *rest])


def report(section: dict) -> str:
    """The saved old-against-new run as Markdown (a section of benchmarks/results.md)."""
    m = section["machine"]
    lines = [
        "## Old tree against new (`benchmarks/trees.py`)",
        "",
        f"{section['change']}",
        "",
        f"{m['date']}; {m['cpu']}, {m['cores']} cores; load average before {section['load_average'][0]:.2f}, "
        f"after {section['load_average_after'][0]:.2f}; {section['rounds']} rounds of about "
        f"{section['seconds']} s per tree, interleaved; one core each.",
        "",
        f"old: {section['trees']['old']}  ",
        f"new: {section['trees']['new']}",
        "",
        "| measure | old | new | new/old (median of the rounds' ratios) |",
        "|---|---:|---:|---:|",
    ]
    for key, row in section.items():
        if key.endswith(" hands/s") or key == "warm start s":
            number = (lambda x: f"{x:,.0f}") if key.endswith("hands/s") else (lambda x: f"{x:.2f}")
            lines.append(f"| {key} | {number(row['old'])} | {number(row['new'])} | {row['ratio']:.3f} |")
    return "\n".join(lines) + "\n"


def tree_env(tree: Path, cache: Path) -> dict:
    """The tree first on the path, its own compile cache; bytecode caching on, as for an installed package."""
    env = {**os.environ, "PYTHONPATH": str(tree), "BERGEN_SIM_CACHE_DIR": str(cache)}
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def start_worker(tree: Path, cache: Path, script: str = WORKER, *args: str) -> subprocess.Popen:
    """A long-lived process running ``script`` on ``tree``; it prints ``{"ready": bergen_sim.__file__}`` first."""
    process = subprocess.Popen(
        [sys.executable, "-c", script, *(args or [",".join(POLICIES)])],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=tree_env(tree, cache),
        cwd=cache,
    )
    ready = json.loads(process.stdout.readline())
    if not ready["ready"].startswith(str(tree)):
        raise SystemExit(f"worker for {tree} imported {ready['ready']}")
    return process


def bench_cache(tree_name: str) -> Path:
    """A compile cache per tree that outlives the run (a cold compile costs 20 s): under BERGEN_SIM_CACHE_DIR."""
    base = Path(os.environ.get("BERGEN_SIM_CACHE_DIR") or Path.home() / ".cache" / "bergen-sim")
    cache = base / "benchmark-trees" / tree_name
    cache.mkdir(parents=True, exist_ok=True)
    return cache


def add_tree_options(parser: argparse.ArgumentParser) -> None:
    """--old (a second tree, measured the same way, interleaved), --no-save and --allow-dirty."""
    parser.add_argument("--old", type=source_tree, help="another tree to measure the same way, interleaved")
    parser.add_argument("--no-save", action="store_true", help="print only; do not write benchmarks/results.*")
    add_allow_dirty(parser)


def chosen_trees(opts: argparse.Namespace) -> tuple[dict[str, Path], dict[str, Path]]:
    """The trees to measure ("new": this checkout, "old": --old) and a warm compile cache for each."""
    trees = {"new": NEW.resolve(), **({"old": opts.old.resolve()} if opts.old else {})}
    return trees, {name: bench_cache(name) for name in trees}


def measure(worker: subprocess.Popen, policy: str, seconds: float, game: int = 0) -> float:
    """hands/s of ``policy`` on the worker's game number ``game`` for about ``seconds``."""
    worker.stdin.write(f"{game} {policy} {seconds}\n")
    worker.stdin.flush()
    return json.loads(worker.stdout.readline())["hands_per_s"]


def warm_start(tree: Path, cache: Path) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", CLI, "simulate", "--matches", "1000", "--workers", "1", "--json"],
        env=tree_env(tree, cache),
        cwd=cache,
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=source_tree, required=True, help="the tree before the change")
    parser.add_argument("--new", type=source_tree, default=NEW, help="the tree after the change (default: this one)")
    parser.add_argument("--rounds", type=at_least(1), default=5)
    parser.add_argument("--seconds", type=duration, default=2.0, help="timed play per measurement")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument(
        "--game",
        action="append",
        type=game_settings,
        default=[],
        help="a table to measure, as Rules.make settings: players=4,domino_set=double-nine "
        "(repeat for more; default: the 2-player game)",
    )
    parser.add_argument("--policies", default=",".join(POLICIES), help="comma-separated (default: random,expert)")
    parser.add_argument("--no-start", action="store_true", help="skip the warm-start rows")
    parser.add_argument(
        "--save", metavar="CHANGE", help="keep this run, described as CHANGE, under trees in benchmarks/results.json"
    )
    add_allow_dirty(parser)
    parser.add_argument(
        "--keep-cache",
        action="store_true",
        help="compile into a lasting cache per tree (see bench_cache), not a fresh one",
    )
    opts = parser.parse_args()
    trees = {"old": opts.old.resolve(), "new": opts.new.resolve()}
    games = opts.game or [{"players": 2}]
    policies = opts.policies.split(",")
    from bergen_sim.core.errors import BergenError
    from bergen_sim.model.rules import Rules
    from bergen_sim.runtime.registry import resolve

    try:  # checked here (this tree's rules and policies), not as a worker's crash after the other tree compiled
        for game in games:
            Rules.make(**game)
        for name in policies:
            resolve(name)
    except BergenError as exc:
        parser.error(str(exc))
    if opts.save:
        import run as bench  # noqa: E402  (benchmarks/ is a folder of scripts; run.py imports this one)

        bench.check_saving(parser, True, opts.allow_dirty)
    with tempfile.TemporaryDirectory() as folder:
        caches = {name: bench_cache(f"trees-{name}") if opts.keep_cache else Path(folder) / name for name in trees}
        for cache in caches.values():
            cache.mkdir(parents=True, exist_ok=True)
        workers = {
            name: start_worker(tree, caches[name], WORKER, ",".join(policies), json.dumps(games))
            for name, tree in trees.items()
        }
        results: dict = {
            "rounds": opts.rounds,
            "seconds": opts.seconds,
            "load_average": os.getloadavg(),
            "trees": {k: str(v) for k, v in trees.items()},
        }
        try:
            for g, game in enumerate(games):
                for policy in policies:
                    runs: dict[str, list[float]] = {"old": [], "new": []}
                    for r in range(opts.rounds):
                        for name in ("old", "new") if r % 2 == 0 else ("new", "old"):
                            runs[name].append(measure(workers[name], policy, opts.seconds, g))
                    ratios = [n / o for n, o in zip(runs["new"], runs["old"])]
                    results[f"{game_label(game)} {policy} hands/s"] = {
                        "old": statistics.median(runs["old"]),
                        "new": statistics.median(runs["new"]),
                        "ratio": statistics.median(ratios),
                        "runs": runs,
                    }
        finally:
            for worker in workers.values():
                worker.stdin.close()
                worker.wait()
        if not opts.no_start:
            for name, tree in trees.items():
                warm_start(tree, caches[name])  # the simulate kernel is compiled and cached once
            starts: dict[str, list[float]] = {"old": [], "new": []}
            for r in range(opts.rounds):
                for name in ("old", "new") if r % 2 == 0 else ("new", "old"):
                    starts[name].append(warm_start(trees[name], caches[name]))
            results["warm start s"] = {
                "old": statistics.median(starts["old"]),
                "new": statistics.median(starts["new"]),
                "ratio": statistics.median(starts["new"]) / statistics.median(starts["old"]),
                "runs": starts,
            }
    if opts.save:
        import run as bench  # noqa: E402  (benchmarks/ is a folder of scripts; run.py imports this one)

        results.update(
            change=opts.save,
            machine=bench.machine(),
            load_average_after=bench.load_average(),
            trees={name: f"{tree} ({bench.commit_of(tree)})" for name, tree in trees.items()},
        )
        bench.save_section("trees", results)
    if opts.json:
        print(json.dumps(results, indent=1))
        return 0
    print(
        f"old: {trees['old']}\nnew: {trees['new']}\n{opts.rounds} rounds, load average at start "
        f"{', '.join(f'{x:.2f}' for x in results['load_average'])}"
    )
    keys = [k for k in results if k.endswith(" hands/s") or k == "warm start s"]
    width = max(24, *(len(k) + 2 for k in keys))
    print(f"{'measure':<{width}}{'old':>14}{'new':>14}{'new/old':>10}")
    for key in keys:
        row = results[key]
        print(f"{key:<{width}}{row['old']:>14,.2f}{row['new']:>14,.2f}{row['ratio']:>10.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
