"""Start-up times of the command line: medians of fresh processes, optionally against another tree.

    python benchmarks/startup_times.py                        # 9 runs of each command (medians)
    python benchmarks/startup_times.py --old /work/i12-old     # before/after, interleaved, with ratios
    python benchmarks/startup_times.py --cold                 # also one cold compile of the default kernel
    python benchmarks/startup_times.py --old /work/old --cold 3  # three per tree, interleaved: medians and new/old

Each command runs as a fresh process (``python -c "...main()"`` with the tree
first on ``PYTHONPATH`` and its own warm compile cache, bytecode caching on as
for an installed package): ``bergen-sim --help``, ``bergen-sim policies``,
``bergen-sim simulate --matches 1000 --json`` (time to first result, warm
cache; its own summary splits off the kernel load and the play) and
``import bergen_sim``.  Trees and commands alternate within each round so
they see the same machine load; the report gives medians and new/old ratios.
It also records which heavy libraries (pandas, pyarrow, matplotlib, SciPy,
Dask) each command imported.  Results are saved under ``startup_times`` in
``benchmarks/results.json`` and shown in ``benchmarks/results.md``.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from trees import add_tree_options, at_least, chosen_trees, tree_env  # benchmarks/ is a folder of scripts

HEAVY = ("pandas", "pyarrow", "matplotlib", "scipy", "dask", "distributed", "numba")
COMMANDS = {
    "bergen-sim --help": ["--help"],
    "bergen-sim policies": ["policies"],
    "simulate --matches 1000 (warm)": ["simulate", "--matches", "1000", "--seed", "1", "--json", "--quiet"],
    "import bergen_sim": None,
}
#: the goals of issue 12, item 2 (seconds, on the machine the table names)
GOALS_S = {"bergen-sim --help": 0.4, "bergen-sim policies": 0.4, "simulate --matches 1000 (warm)": 0.8}
GOAL_COLD_S = 20.0
#: runs the command line (or only imports the package), then names the heavy libraries it imported (on stderr)
PROBE = (
    "import json, sys\n%s\n"
    "print('HEAVY', json.dumps(sorted({m.split('.')[0] for m in sys.modules} & set(%r))), file=sys.stderr)\n"
    "sys.exit(code)"
)


def _code(args: list[str] | None) -> list[str]:
    run = (
        "import bergen_sim\ncode = 0" if args is None else "from bergen_sim.cli import main\ncode = main(sys.argv[1:])"
    )
    return ["-c", PROBE % (run, HEAVY), *(args or [])]


def run_once(tree: Path, cache: Path, args: list[str] | None) -> dict:
    """One fresh process: wall seconds, the heavy libraries it imported, and its summary when it printed one."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, *_code(args)], capture_output=True, text=True, env=tree_env(tree, cache), cwd=cache
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if done.returncode:
        raise RuntimeError(f"{args} failed on {tree}: {done.stderr.strip()}")
    heavy = next((json.loads(line[6:]) for line in done.stderr.splitlines() if line.startswith("HEAVY ")), None)
    out = {"wall_s": wall, "cpu_s": cpu, "heavy_imports": heavy}
    if args and args[0] == "simulate":
        summary = json.loads(done.stdout)
        out.update(kernel_s=summary["startup_s"], play_s=summary["elapsed_s"])
    return out


def cold(tree: Path) -> dict:
    """One ``simulate --matches 1000 --workers 1`` with an empty compile cache: the default kernel compiles."""
    with tempfile.TemporaryDirectory() as folder:
        measured = run_once(tree, Path(folder), ["simulate", "--matches", "1000", "--workers", "1", "--json"])
    return {
        "wall_s": round(measured["wall_s"], 2),
        "cpu_s": round(measured["cpu_s"], 2),
        "kernel_s": round(measured["kernel_s"], 2),
    }


def cold_rounds(trees: dict[str, Path], rounds: int) -> dict:
    """``rounds`` cold compiles per tree, the trees taking turns (so both see the same machine load): medians."""
    runs: dict[str, list[dict]] = {name: [] for name in trees}
    for r in range(rounds):
        for name in trees if r % 2 == 0 else list(reversed(list(trees))):
            runs[name].append(cold(trees[name]))
    out: dict = {
        name: {
            key: round(statistics.median(run[key] for run in measured), 2) for key in ("wall_s", "cpu_s", "kernel_s")
        }
        | {"runs_s": [run["wall_s"] for run in measured]}
        for name, measured in runs.items()
    }
    out["rounds"] = rounds
    if "old" in trees:
        out["ratio"] = round(out["new"]["wall_s"] / out["old"]["wall_s"], 3)
    return out


def report(section: dict) -> str:
    """The start-up times as Markdown (a section of benchmarks/results.md)."""
    m = section["machine"]
    trees = list(section["trees"])
    lines = [
        "## Start-up times, fresh processes (`benchmarks/startup_times.py`)",
        "",
        f"{m['date']}; {m['cores']} cores; commit {m['commit']}; load average before "
        f"{section['load_average_before']}, after {section['load_average_after']}; medians of "
        f"{section['rounds']} interleaved runs per command and tree.",
        "",
        "Wall: elapsed time (inflated by the machine's other load); CPU: user + system seconds of the "
        "process, which other programs' load inflates much less.",
        "",
        "| command | "
        + " | ".join(f"{t}: wall, CPU" for t in trees)
        + (" | new / old (wall)" if "old" in trees else "")
        + " | heavy libraries imported (new) |",
        "|---|" + "---:|" * len(trees) + ("---:|" if "old" in trees else "") + "---|",
    ]
    for name, row in section["commands"].items():
        cells = [f"{row[t]['median_s']:.3f} s, {row[t].get('median_cpu_s', float('nan')):.3f} s" for t in trees]
        ratio = [f"{row['ratio']:.2f}"] if "old" in trees else []
        lines.append(
            f"| {name} | " + " | ".join(cells + ratio) + f" | {', '.join(row['new']['heavy_imports'] or []) or '-'} |"
        )
    warm = section["commands"]["simulate --matches 1000 (warm)"]["new"]
    lines += [
        "",
        f"Time to first result (new): kernel load from the warm cache {warm['kernel_s']:.3f} s and play "
        f"{warm['play_s']:.3f} s of the median {warm['median_s']:.3f} s; the rest is Python and imports.",
    ]
    if "warm_cache" in section:
        env = m.get("python_environment", {})
        lines += [
            "",
            "Warm: each tree's own compile cache, filled before the timing ("
            + "; ".join(
                f"{t}: {c['kernels']} kernels, {c['compiled_functions']} compiled functions"
                for t, c in section["warm_cache"].items()
            )
            + f"); bytecode caching on in every process; Numba modules with bytecode in the environment "
            f"{env.get('numba_modules_with_bytecode', '?')}; virtual environment "
            f"{env.get('venv_age_days', '?')} days old.",
        ]
    if section.get("cold"):
        cold_runs = section["cold"]
        rounds = cold_runs.get("rounds", 1)
        lines += [
            "",
            "Cold compile of the default kernel (`simulate --matches 1000 --workers 1`, empty cache"
            + (f"; medians of {rounds} per tree, interleaved" if rounds > 1 else "")
            + "): "
            + "; ".join(
                f"{t} {c['wall_s']:.1f} s (kernel {c['kernel_s']:.1f} s; CPU {c.get('cpu_s', float('nan')):.1f} s)"
                for t, c in cold_runs.items()
                if isinstance(c, dict)
            )
            + (f"; new / old {cold_runs['ratio']:.2f}" if "ratio" in cold_runs else ""),
        ]
    lines += ["", "| goal | measured (new) | met |", "|---|---|---|"]
    lines += [f"| {g['goal']} | {g['measured']} | {'yes' if g['met'] else 'no'} |" for g in section["goals"]]
    return "\n".join(lines) + "\n"


def goals(section: dict) -> list[dict]:
    out = [
        {
            "goal": f"{name} < {limit} s",
            "measured": f"{section['commands'][name]['new']['median_s']:.3f} s",
            "met": section["commands"][name]["new"]["median_s"] < limit,
        }
        for name, limit in GOALS_S.items()
    ]
    if section.get("cold"):
        out.append(
            {
                "goal": f"cold compile of the default kernel < {GOAL_COLD_S:.0f} s",
                "measured": f"{section['cold']['new']['wall_s']:.1f} s",
                "met": section["cold"]["new"]["wall_s"] < GOAL_COLD_S,
            }
        )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=at_least(1), default=9)
    parser.add_argument(
        "--cold",
        type=at_least(0),
        nargs="?",
        const=1,
        default=0,
        metavar="ROUNDS",
        help="also time cold compiles of the default kernel: ROUNDS per tree, interleaved (default 1; about 20 s each)",
    )
    add_tree_options(parser)
    opts = parser.parse_args()
    import run as bench  # noqa: E402

    bench.check_saving(parser, not opts.no_save, opts.allow_dirty)

    trees, caches = chosen_trees(opts)
    for name, tree in trees.items():
        for args in COMMANDS.values():  # compile caches and bytecode written once, outside the timing
            run_once(tree, caches[name], args)
    section: dict = {
        "machine": bench.machine(),
        "rounds": opts.rounds,
        "load_average_before": bench.load_average(),
        "trees": {k: str(v) for k, v in trees.items()},
        "warm_cache": {name: bench.cached_kernels(cache) for name, cache in caches.items()},
    }
    runs: dict = {(c, t): [] for c in COMMANDS for t in trees}
    for r in range(opts.rounds):
        for name in trees if r % 2 == 0 else list(reversed(list(trees))):
            for command, args in COMMANDS.items() if r % 2 == 0 else reversed(list(COMMANDS.items())):
                runs[command, name].append(run_once(trees[name], caches[name], args))
    section["load_average_after"] = bench.load_average()
    section["commands"] = {}
    for command in COMMANDS:
        row: dict = {}
        for name in trees:
            measured = runs[command, name]
            row[name] = {
                "median_s": round(statistics.median(x["wall_s"] for x in measured), 3),
                "median_cpu_s": round(statistics.median(x["cpu_s"] for x in measured), 3),
                "runs_s": [round(x["wall_s"], 3) for x in measured],
                "heavy_imports": measured[0]["heavy_imports"],
            }
            if "kernel_s" in measured[0]:
                row[name]["kernel_s"] = round(statistics.median(x["kernel_s"] for x in measured), 3)
                row[name]["play_s"] = round(statistics.median(x["play_s"] for x in measured), 4)
        if "old" in trees:
            row["ratio"] = row["new"]["median_s"] / row["old"]["median_s"]
        section["commands"][command] = row
    if opts.cold:
        section["cold"] = cold_rounds(trees, opts.cold)
    section["goals"] = goals(section)
    print(report(section))
    if not opts.no_save:
        bench.save_section("startup_times", section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
