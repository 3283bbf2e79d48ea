"""A new user's first runs from an empty compile cache: the first built-in run, a second mix, the README's "Run it".

    python benchmarks/first_runs.py              # one round (minutes of CPU: run it on a quiet machine)
    python benchmarks/first_runs.py --no-save    # print only

Every built-in mix of a tile-set width plays on one compiled match loop
(``bergen_sim.runtime.kernel_build``), so only a new user's first run
should compile.  Each command is a fresh ``bergen-sim`` process (the tree
first on ``PYTHONPATH``), wall and CPU time (user + system) kept:

* ``first``: ``simulate --matches 1000`` (2 players, ``random``) with an
  empty cache folder: the match loop compiles;
* ``second``: then, in the same cache, another mix at another table size
  (4 players in partnerships, ``expert``/``greedy``/``defensive``/``random``),
  which should load what the first compiled (goal: under 2 s);
* ``run it``: the bergen-sim commands of the README's "Run it" line
  (``simulate --matches 100000``, then ``report lead_advantage --quick``),
  from another empty cache folder: their total CPU time is a new user's cold
  wait (goal: under 3 minutes of CPU; the ``pip install`` before them is not
  counted).

Saved under ``first_runs`` in benchmarks/results.json and shown in
benchmarks/results.md and docs/speed.md.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from startup_times import run_once  # benchmarks/ is a folder of scripts

from bergen_sim.core.provenance import add_allow_dirty

HERE = Path(__file__).resolve().parent
FIRST = ["simulate", "--matches", "1000", "--seed", "1", "--json", "--quiet"]
SECOND = [
    "simulate",
    "--players",
    "4",
    "--partnerships",
    "--policy",
    "expert",
    "--policy",
    "greedy",
    "--policy",
    "defensive",
    "--policy",
    "random",
    "--matches",
    "1000",
    "--seed",
    "1",
    "--json",
    "--quiet",
]
#: (``--json``: the same play, and the summary the timing reads)
RUN_IT = (
    ["simulate", "--matches", "100000", "--json", "--quiet"],
    ["report", "lead_advantage", "--quick", "--out", "reports-quick", "--quiet"],
)
#: the goals of issue 59, item 1 (seconds)
GOAL_SECOND_S = 2.0
GOAL_RUN_IT_CPU_S = 180.0


def _timed(measured: dict) -> dict:
    return {"wall_s": round(measured["wall_s"], 2), "cpu_s": round(measured["cpu_s"], 2)}


def measure(tree: Path) -> dict:
    """The three measurements, one at a time, each cold cache a fresh temporary folder."""
    out: dict = {}
    with tempfile.TemporaryDirectory() as folder:
        out["first"] = _timed(run_once(tree, Path(folder), FIRST))
        print(f"first: {out['first']}", file=sys.stderr, flush=True)
        out["second"] = _timed(run_once(tree, Path(folder), SECOND))
        print(f"second: {out['second']}", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory() as folder:
        steps = [_timed(run_once(tree, Path(folder), args)) for args in RUN_IT]
    out["run_it"] = {
        "steps": steps,
        "wall_s": round(sum(s["wall_s"] for s in steps), 1),
        "cpu_s": round(sum(s["cpu_s"] for s in steps), 1),
    }
    print(f"run it: {out['run_it']}", file=sys.stderr, flush=True)
    return out


def goals(section: dict) -> list[dict]:
    """The issue's goals against what was measured."""
    second, run_it = section["runs"]["second"], section["runs"]["run_it"]
    return [
        {
            "goal": f"a second built-in mix and table size, cold start after the first < {GOAL_SECOND_S:.0f} s",
            "measured": f"{second['wall_s']:.2f} s (CPU {second['cpu_s']:.2f} s)",
            "met": second["wall_s"] < GOAL_SECOND_S,
        },
        {
            "goal": f"README's Run it (its bergen-sim commands), cold < {GOAL_RUN_IT_CPU_S / 60:.0f} minutes of CPU",
            "measured": f"{run_it['cpu_s']:.0f} s CPU ({run_it['wall_s']:.0f} s wall)",
            "met": run_it["cpu_s"] < GOAL_RUN_IT_CPU_S,
        },
    ]


def report(section: dict) -> str:
    """The first runs as Markdown (a section of benchmarks/results.md)."""
    m = section["machine"]
    runs = section["runs"]
    lines = [
        "## A new user's first runs, empty compile cache (`benchmarks/first_runs.py`)",
        "",
        f"{m['date']}; {m['cores']} cores; commit {m['commit']}; load average before "
        f"{section['load_average_before']}, after {section['load_average_after']}; one run of each, a fresh "
        "process each, one at a time. CPU: user + system seconds of the process.",
        "",
        "| run | wall | CPU |",
        "|---|---:|---:|",
        f"| first built-in run: `bergen-sim {' '.join(FIRST)}`, empty cache | {runs['first']['wall_s']:.1f} s | "
        f"{runs['first']['cpu_s']:.1f} s |",
        f"| then another mix and table size: `bergen-sim {' '.join(SECOND)}` | {runs['second']['wall_s']:.2f} s | "
        f"{runs['second']['cpu_s']:.2f} s |",
    ]
    for args, step in zip(RUN_IT, runs["run_it"]["steps"]):
        lines.append(
            f"| Run it, empty cache: `bergen-sim {' '.join(args)}` | {step['wall_s']:.1f} s | {step['cpu_s']:.1f} s |"
        )
    lines += [f"| Run it, total | {runs['run_it']['wall_s']:.1f} s | {runs['run_it']['cpu_s']:.1f} s |", ""]
    lines += [f"- {g['goal']}: {g['measured']} ({'met' if g['met'] else 'not met'})" for g in section["goals"]]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-save", action="store_true", help="print only; leave results.json alone")
    add_allow_dirty(parser)
    opts = parser.parse_args()
    import run as bench  # noqa: E402

    bench.check_saving(parser, not opts.no_save, opts.allow_dirty)

    tree = HERE.parent
    section: dict = {"machine": bench.machine(), "load_average_before": bench.load_average()}
    section["runs"] = measure(tree)
    section["load_average_after"] = bench.load_average()
    section["goals"] = goals(section)
    print(report(section))
    if not opts.no_save:
        bench.save_section("first_runs", section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
