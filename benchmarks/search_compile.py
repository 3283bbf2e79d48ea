"""Cold compile of the search players: how long a first run with each waits, from an empty compile cache.

    python benchmarks/search_compile.py                         # this tree: pimc, reader, ismcts, the analyzer
    python benchmarks/search_compile.py --old /path/to/old/tree  # before and after, interleaved, with ratios

Each measurement is one fresh ``bergen-sim`` process with an empty cache
folder (``BERGEN_SIM_CACHE_DIR``), so it waits for everything a user's first
run waits for: the match loop, the search and its rollouts with every base
policy, and the match-value table, simulated and saved.  The commands are
``compare --policy P,expert --deals 2`` for ``pimc``, ``reader`` and
``ismcts``'s time-limit player (``bergen_sim.search.ismcts.AT_TIME_LIMIT``; the
strongest, ``STEERED``, compiles the same functions, its ``prior`` being a
value they are passed, and older trees know only ``AT_TIME_LIMIT``),
and ``analyze`` on the README's position (the analyzer's rollouts).  Trees
and commands take turns (old, new, new, old, ...), so both see the same
machine load; wall time and CPU time (user + system of the process) are
kept, and CPU time is the figure to compare on a shared machine.
A cold compile is minutes of CPU: ``--rounds`` defaults to 1.

Saved under ``search_compile`` in benchmarks/results.json and shown in
benchmarks/results.md; ``bergen_sim.core.feedback.SEARCH_COMPILE_NOTE`` (what a
first compile of a search player is said to cost) quotes it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from startup_times import run_once  # benchmarks/ is a folder of scripts
from trees import add_tree_options, at_least, chosen_trees

from bergen_sim.search.ismcts import AT_TIME_LIMIT

ANALYZE = [
    "analyze",
    "--hand",
    "5-6,1-6,0-5,3-4",
    "--ends",
    "6,5d",
    "--played",
    "2-2,2-5,2-6,5-5",
    "--counts",
    "4,6",
    "--boneyard",
    "14",
    "--scores",
    "12,13",
    "--void",
    "1:5,6",
    "--json",
]
COMMANDS = {
    "pimc": ["compare", "--policy", "pimc,expert", "--deals", "2", "--workers", "1", "--json"],
    "reader": ["compare", "--policy", "reader,expert", "--deals", "2", "--workers", "1", "--json"],
    "ismcts (AT_TIME_LIMIT)": [
        "compare",
        "--policy",
        f"{AT_TIME_LIMIT},expert",
        "--deals",
        "2",
        "--workers",
        "1",
        "--json",
    ],
    "analyze": ANALYZE,
}


def cold_run(tree: Path, args: list[str]) -> dict:
    """One fresh process of ``args`` on ``tree`` with an empty cache folder: wall and CPU seconds."""
    with tempfile.TemporaryDirectory() as folder:
        measured = run_once(tree, Path(folder), args)
    return {"wall_s": round(measured["wall_s"], 1), "cpu_s": round(measured["cpu_s"], 1)}


def report(section: dict) -> str:
    """The cold compiles as Markdown (a section of benchmarks/results.md)."""
    trees = list(section["trees"])
    m = section["machine"]
    lines = [
        "## Cold compile of the search players (`benchmarks/search_compile.py`)",
        "",
        f"{m['date']}; {m['cores']} cores; commit {m['commit']}; load average before "
        f"{section['load_average_before']}, after {section['load_average_after']}; "
        f"{section['rounds']} run(s) per command and tree (medians), interleaved, each a fresh process with an "
        "empty compile cache: the match loop, the search, its rollouts and base policies, and the match-value "
        "table.",
        "",
        "| first run | "
        + " | ".join(f"{t}: wall, CPU" for t in trees)
        + (" | new / old (CPU)" if "old" in trees else "")
        + " |",
        "|---|" + "---:|" * len(trees) + ("---:|" if "old" in trees else ""),
    ]
    for name, row in section["commands"].items():
        cells = [f"{row[t]['wall_s']:.0f} s, {row[t]['cpu_s']:.0f} s" for t in trees]
        ratio = [f"{row['ratio_cpu']:.2f}"] if "old" in trees else []
        lines.append(f"| {name} | " + " | ".join(cells + ratio) + " |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=at_least(1), default=1)
    add_tree_options(parser)
    opts = parser.parse_args()
    import run as bench  # noqa: E402

    bench.check_saving(parser, not opts.no_save, opts.allow_dirty)

    trees, _ = chosen_trees(opts)
    section: dict = {
        "machine": bench.machine(),
        "rounds": opts.rounds,
        "load_average_before": bench.load_average(),
        "trees": {k: str(v) for k, v in trees.items()},
    }
    runs: dict = {(c, t): [] for c in COMMANDS for t in trees}
    turn = 0
    for _ in range(opts.rounds):
        for command, args in COMMANDS.items():
            for name in trees if turn % 2 == 0 else list(reversed(list(trees))):
                runs[command, name].append(cold_run(trees[name], args))
                print(f"{command} {name}: {runs[command, name][-1]}", file=sys.stderr, flush=True)
            turn += 1
    section["load_average_after"] = bench.load_average()
    section["commands"] = {}
    for command in COMMANDS:
        row: dict = {
            name: {key: round(statistics.median(x[key] for x in runs[command, name]), 1) for key in ("wall_s", "cpu_s")}
            for name in trees
        }
        if "old" in trees:
            row["ratio_cpu"] = round(row["new"]["cpu_s"] / row["old"]["cpu_s"], 3)
        section["commands"][command] = row
    print(report(section))
    if not opts.no_save:
        bench.save_section("search_compile", section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
