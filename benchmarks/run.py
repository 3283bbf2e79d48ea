"""Benchmarks of bergen-sim: one command, one table, results saved beside this file.

    python benchmarks/run.py            # quick: about 2 minutes on 2 cores
    python benchmarks/run.py --full     # longer timings, 3 repeats each (median reported)
    python benchmarks/run.py --probe    # only how fast this host is now (compare with results.md's header)

What it measures (see docs/scaling.md for how to read it):

1. Throughput, matches/s and hands/s, for 2 players, 3 players and 4 in
   partnerships, with the ``random``, ``greedy`` and ``expert`` policies (a
   policy that is not installed is skipped with a note), on one core
   (in-process) and on every core (worker processes), at the same size.
   Kernels are compiled and worker pools started before timing.  CPU seconds
   of all processes are recorded too: on a shared machine wall-clock scaling
   measures the competition, while equal CPU seconds on 1 and N cores show
   that the work splits without overhead.
2. The naive pure-Python baseline (``bergen_sim.model.state.MatchState``, the Python
   game the step API runs on, with random deals and random moves) on the same games,
   in the same run, and the ratio.
3. Time to first result: ``bergen-sim simulate --matches 1000`` as a fresh
   process with an empty compile cache (cold) and again with the cache it
   filled (warm).
4. Peak memory of a summary run of 10^5 and of 10^7 matches on every core:
   the main process's RSS high-water mark, and the largest sum of RSS over
   the process tree (main process, forkserver, workers), sampled every 50 ms.

Results go to ``benchmarks/results.md`` and ``benchmarks/results.json`` with
the date, the machine and every number (``--no-save`` to skip).  Speed is
measured here, never asserted in the test suite.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import c_anchor  # noqa: E402  (benchmarks/ is a folder of scripts, not a package)
import numba
import numpy as np
import psutil

from bergen_sim._version import __version__
from bergen_sim.core.errors import BergenError
from bergen_sim.core.limits import MAX_WORKERS
from bergen_sim.core.provenance import add_allow_dirty, check_clean, result_record
from bergen_sim.engine import layout as L
from bergen_sim.model.domain import LeadEvent
from bergen_sim.model.rules import Rules
from bergen_sim.model.state import MatchState, play_match, shuffled_deals
from bergen_sim.runtime.registry import BUILTINS
from bergen_sim.services.execution.jobs import Job, RunOptions, default_chunk_size, engine_for, run_job
from bergen_sim.services.execution.parallel import default_workers
from bergen_sim.services.files.output import write_file, write_result

sys.path.insert(0, str(Path(__file__).resolve().parent))
import first_runs  # noqa: E402
import search_compile  # noqa: E402
import sets  # noqa: E402
import sizes  # noqa: E402
import startup_times  # noqa: E402
import trees  # noqa: E402

HERE = Path(__file__).resolve().parent
#: sections that their own scripts measure and save (each with its own date, machine and load); a run keeps the
#: ones it does not measure itself (it measures ``c_loop``, with benchmarks/c_anchor.py's defaults)
SECTIONS = {
    "c_loop": c_anchor.report,
    "size_sweep": sizes.report,
    "startup_times": startup_times.report,
    "sets": sets.report,
    "trees": trees.report,
    "search_compile": search_compile.report,
    "first_runs": first_runs.report,
}
CONFIGS = {
    "2 players": dict(players=2),
    "3 players": dict(players=3),
    "4 partnerships": dict(players=4, partnerships=True),
}
POLICIES = ("random", "greedy", "expert")
#: goals of issues 2, 5 and 12
GOAL_HANDS_PER_S = 1_500_000
#: issue 12: expert hands/s, 2 players, one core (its share of the C anchor: benchmarks/c_anchor.py's goals)
GOAL_EXPERT_HANDS_PER_S = 1_000_000
GOAL_SCALING = 1.9  # issue 12: 2 workers >= 1.9x one on runs of 2 s of work or more
GOAL_WARM_S = 0.8  # issue 12: warm time to first result
CLI = "import sys; from bergen_sim.cli import main; sys.exit(main())"


def machine() -> dict:
    cpu = (
        next(
            (
                line.split(":", 1)[1].strip()
                for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")
            ),
            platform.processor(),
        )
        if Path("/proc/cpuinfo").exists()
        else platform.processor()
    )
    return {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "cpu": cpu,
        "cores": default_workers(),
        "memory_gib": round(psutil.virtual_memory().total / 2**30, 1),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numba": numba.__version__,
        "numpy": np.__version__,
        "bergen_sim": __version__,
        "commit": commit_of(),
        "python_environment": python_environment(),
        **host_state(),
    }


#: a fixed single-threaded Python workload; its time is the machine's speed right now
_PROBE_LOOP = 1_000_000


def speed_probe() -> float:
    """Milliseconds for a fixed pure-Python loop, the median of 7: a virtual host's own speed drifts in ways the
    load average does not show (docs/speed.md), so a run's figures are read beside it."""
    times = []
    for _ in range(7):
        start = time.perf_counter()
        total = 0
        for i in range(_PROBE_LOOP):
            total += i * i
        times.append(time.perf_counter() - start)
    return round(1000 * statistics.median(times), 1)


def host_state() -> dict:
    """The probe, how long the machine has been up and the share of CPU time its host took back (steal)."""
    state: dict = {"speed_probe_ms": speed_probe()}
    uptime, stat = Path("/proc/uptime"), Path("/proc/stat")
    if uptime.exists():
        state["uptime_hours"] = round(float(uptime.read_text().split()[0]) / 3600, 2)
    if stat.exists():
        ticks = [int(x) for x in stat.read_text().splitlines()[0].split()[1:]]
        state["steal_share_since_boot"] = round(ticks[7] / sum(ticks), 4) if len(ticks) > 7 else None
    return state


def python_environment() -> dict:
    """What else makes a fresh process start slower or faster than the code does: the virtual environment (its
    age), and whether the installed modules have their bytecode (a venv whose packages lack it compiles Numba's
    hundreds of modules at every start)."""
    config = Path(sys.prefix) / "pyvenv.cfg"
    numba_sources = list(Path(numba.__file__).parent.rglob("*.py"))
    with_bytecode = sum(Path(importlib.util.cache_from_source(str(path))).exists() for path in numba_sources)
    return {
        "venv": sys.prefix if sys.prefix != sys.base_prefix else None,
        "venv_age_days": round((time.time() - config.stat().st_mtime) / 86400, 2) if config.exists() else None,
        "numba_modules_with_bytecode": f"{with_bytecode}/{len(numba_sources)}",
        "bytecode_writing_here": not os.environ.get("PYTHONDONTWRITEBYTECODE"),
    }


def cached_kernels(cache: Path) -> dict:
    """How warm a compile cache is: generated kernels and compiled functions (Numba index files) in it."""
    return {
        "kernels": len(list((cache / "kernels").glob("kernel_*.py"))),
        "compiled_functions": len(list((cache / "numba").rglob("*.nbi"))),
    }


def load_average() -> list[float]:
    """The 1, 5 and 15 minute load averages now (how busy the shared machine is)."""
    return [round(x, 2) for x in os.getloadavg()]


def save(results: dict) -> None:
    """Write results.json and results.md (goals judged anew from the data), and refill the pages' marked numbers
    (docs/speed.md's table among them) from the new results."""
    results["goals"] = goals(results)
    write_file(HERE / "results.md", report(results))
    write_result(HERE / "results.json", results)
    spec = importlib.util.spec_from_file_location("fill_numbers", HERE.parent / "tools" / "fill_numbers.py")
    fill_numbers = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fill_numbers)
    fill_numbers.main([])
    print(f"saved {HERE / 'results.md'} and {HERE / 'results.json'}", file=sys.stderr)


def save_section(key: str, value: dict) -> None:
    """Replace one section (``SECTIONS``) of the saved results, keeping the rest.

    A section measured now gets this run's ``provenance``; one that has the
    key keeps it (a rejudged section: ``None`` when measured before records
    were kept), so a file of sections measured apart says where each came from.
    """
    results = json.loads((HERE / "results.json").read_text())
    results[key] = value if "provenance" in value else {**value, "provenance": result_record()}
    save(results)


def check_saving(parser: argparse.ArgumentParser, save: bool, allow_dirty: bool) -> None:
    """Refuse in one line, before anything is measured, to ``save`` into results.json while the checkout has
    uncommitted changes unless ``allow_dirty`` (the benchmarks' ``--allow-dirty``)."""
    if save:
        try:
            check_clean(HERE / "results.json", allow_dirty)
        except BergenError as exc:
            parser.error(str(exc))


def commit_of(tree: Path = HERE) -> str:
    """A checkout's commit, with "+changes" when the tree differs from it ("unknown" outside git)."""

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=tree, capture_output=True, text=True).stdout.strip()

    try:
        commit = git("rev-parse", "--short=12", "HEAD")
        return (commit + ("+changes" if git("status", "--porcelain", "--untracked-files=no") else "")) or "unknown"
    except OSError:
        return "unknown"


def cpu_seconds() -> float:
    """CPU time used so far by this process and its live descendants (the worker pool)."""
    me = psutil.Process()
    total = 0.0
    for process in (me, *me.children(recursive=True)):
        try:
            times = process.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system
    return total


def play(job: Job, matches: int, workers: int) -> tuple[float, float, np.ndarray]:
    """Wall seconds and CPU seconds to play ``matches`` of a job on ``workers``, and the merged totals.

    CPU seconds count every process involved, so on a busy machine, where wall
    time mostly measures the competition, their ratio still shows what running
    in parallel costs: equal CPU seconds mean the work splits without overhead.
    """
    cpu, start = cpu_seconds(), time.perf_counter()
    totals = sum(
        chunk.totals
        for chunk in run_job(job, matches, RunOptions(workers=workers, chunk_size=default_chunk_size(matches)))
    )
    return time.perf_counter() - start, cpu_seconds() - cpu, totals


def throughput(config: dict, policy: str, cores: int, budget: float, repeats: int) -> dict:
    """matches/s and hands/s on one core and on ``cores``, at the same size."""
    rules = Rules.make(**config)
    job = Job(rules, (policy,) * rules.players, seed=2024)
    compile_start = time.perf_counter()
    engine_for(rules, job.policies)
    compile_s = time.perf_counter() - compile_start
    seconds, _, _ = play(job, 2_000, 1)  # calibrate: size the run to take about `budget` seconds on one core
    matches = int(min(max(2_000 / seconds * budget, 40_000 * cores), 20_000_000))
    row = {"matches": matches, "kernel_load_s": round(compile_s, 3)}
    for label, workers in (("1 core", 1), (f"{cores} cores", cores)):
        if workers > 1:
            # one untimed run of the same size starts the pool and loads the kernel in every worker (a short
            # one would now play in this process: runs start a pool only when it pays, see execution.py)
            play(job, matches, workers)
        runs = [play(job, matches, workers) for _ in range(repeats)]
        seconds = statistics.median(s for s, _, _ in runs)
        cpu = statistics.median(c for _, c, _ in runs)
        totals = runs[0][2]
        row[label] = {
            "seconds": round(seconds, 3),
            "cpu_seconds": round(cpu, 3),
            "matches_per_s": matches / seconds,
            "hands_per_s": int(totals[L.S_HANDS]) / seconds,
            "hands_per_cpu_s": int(totals[L.S_HANDS]) / cpu if cpu > 0 else None,
            "runs_s": [round(s, 3) for s, _, _ in runs],
        }
    row["scaling"] = row[f"{cores} cores"]["matches_per_s"] / row["1 core"]["matches_per_s"]
    row["cpu_ratio"] = row[f"{cores} cores"]["cpu_seconds"] / row["1 core"]["cpu_seconds"]
    return row


def python_baseline(config: dict, budget: float) -> dict:
    """The package's Python game, random deals and random moves, for about ``budget`` seconds."""
    rules = Rules.make(**config)
    rng = random.Random(2024)
    deal = shuffled_deals(rng, rules)
    matches = hands = 0
    start = time.perf_counter()
    while time.perf_counter() - start < budget:
        state = play_match(MatchState(rules), deal, lambda s: rng.choice(s.moves))
        matches += 1
        hands += sum(1 for e in state.events if isinstance(e, LeadEvent))
    seconds = time.perf_counter() - start
    return {
        "matches": matches,
        "seconds": round(seconds, 3),
        "matches_per_s": matches / seconds,
        "hands_per_s": hands / seconds,
    }


def first_result(env: dict) -> dict:
    """Wall and CPU time of a fresh ``bergen-sim simulate --matches 1000`` process, and its parts."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CLI, "simulate", "--matches", "1000", "--workers", "1", "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    summary = json.loads(done.stdout)
    return {
        "wall_s": round(wall, 3),
        "kernel_s": round(summary["startup_s"], 3),
        "play_s": round(summary["elapsed_s"], 3),
        "python_and_imports_s": round(wall - summary["startup_s"] - summary["elapsed_s"], 3),
        "cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 3),
    }


def startup() -> dict:
    """Time to first result with a cold and then a warm compile cache (a fresh cache folder), and the load."""
    with tempfile.TemporaryDirectory() as folder:
        env = trees.tree_env(HERE.parent, Path(folder))  # bytecode caching on, as for an installed package
        out = {"load_average_before": load_average(), "cold": first_result(env)}
        out["warm_cache"] = cached_kernels(Path(folder))
        out["warm"] = first_result(env)
        out["load_average_after"] = load_average()
        return out


def peak_memory(matches: int) -> dict:
    """Peak RSS of a summary run of ``matches`` on every core, in MiB."""
    code = (
        "import resource, sys; from bergen_sim.cli import main; code = main(); "
        "print('MAXRSS', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr); sys.exit(code)"
    )
    args = [sys.executable, "-c", code, "simulate", "--matches", str(matches), "--json"]
    warm = [sys.executable, "-c", CLI, "simulate", "--matches", "100000", "--json"]
    subprocess.run(warm, capture_output=True, check=True)  # kernel cached, so no compile is measured
    start = time.perf_counter()
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    watched = psutil.Process(process.pid)
    tree_peak = worker_peak = 0
    while process.poll() is None:
        try:
            members = [watched, *watched.children(recursive=True)]
            sizes = [p.memory_info().rss for p in members]
        except psutil.Error:  # a process ended between listing and reading
            continue
        tree_peak = max(tree_peak, sum(sizes))
        worker_peak = max([worker_peak, *sizes[1:]])
        time.sleep(0.05)
    out, err = process.communicate()
    if process.returncode:
        raise RuntimeError(f"memory run failed: {err}")
    wall = time.perf_counter() - start
    main_kib = int(next(line.split()[1] for line in err.splitlines() if line.startswith("MAXRSS")))
    summary = json.loads(out)
    return {
        "matches": matches,
        "wall_s": round(wall, 2),
        "matches_per_s": summary["matches_per_s"],
        "main_process_peak_mib": round(main_kib / 1024, 1),
        "largest_process_tree_mib": round(tree_peak / 2**20, 1),
        "largest_other_process_mib": round(worker_peak / 2**20, 1),
    }


def host_line(m: dict) -> str:
    """The host's state in words (an older results file may lack it)."""
    if "speed_probe_ms" not in m:
        return "speed probe not recorded"
    end = f" at the start, {m['speed_probe_ms_at_end']} ms at the end" if "speed_probe_ms_at_end" in m else ""
    return (
        f"speed probe (a fixed Python loop; lower is faster) {m['speed_probe_ms']} ms{end}, "
        f"up {m.get('uptime_hours', '?')} h, steal {100 * (m.get('steal_share_since_boot') or 0):.1f}% since boot"
    )


def fmt(x: float) -> str:
    return f"{x:,.0f}"


def report(results: dict) -> str:
    """The results as Markdown tables (printed, and saved as results.md)."""
    m, cores = results["machine"], results["machine"]["cores"]
    lines = [
        f"# bergen-sim benchmarks ({'full' if results['full'] else 'quick'} run)",
        "",
        f"{m['date']}; {m['cpu']}, {cores} cores, {m['memory_gib']} GiB; Python {m['python']}, "
        f"Numba {m['numba']}, NumPy {m['numpy']}, bergen-sim {m['bergen_sim']}; "
        f"load average at start {m['load_average_at_start']}; {host_line(m)}.",
        "",
        "## Throughput (summary runs, warm kernels)",
        "",
        f"| game | policy | matches | 1 core matches/s | 1 core hands/s | {cores} cores matches/s "
        f"| {cores} cores hands/s | scaling | CPU-time ratio |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in results["throughput"]:
        one, many = row["1 core"], row[f"{cores} cores"]
        lines.append(
            f"| {row['game']} | {row['policy']} | {fmt(row['matches'])} | {fmt(one['matches_per_s'])} | "
            f"{fmt(one['hands_per_s'])} | {fmt(many['matches_per_s'])} | {fmt(many['hands_per_s'])} | "
            f"{row['scaling']:.2f}x | {row['cpu_ratio']:.2f} |"
        )
    lines += [
        "",
        f"Scaling: {cores}-core matches/s over 1-core matches/s (wall clock; low when other programs share "
        f"the cores). CPU-time ratio: CPU seconds of all processes on {cores} cores over those on 1 core for "
        "the same matches; near 1.00 means the work splits without overhead.",
    ]
    lines += [f"\n{note}" for note in results["notes"]]
    lines += [
        "",
        "## Naive pure-Python baseline (bergen_sim.model.state, random deals and moves, one core)",
        "",
        "| game | matches/s | hands/s | compiled random, 1 core | ratio |",
        "|---|---:|---:|---:|---:|",
    ]
    for game, base in results["python_baseline"].items():
        lines.append(
            f"| {game} | {fmt(base['matches_per_s'])} | {fmt(base['hands_per_s'])} | "
            f"{fmt(base['compiled_hands_per_s'])} hands/s | {base['ratio']:.0f}x |"
        )
    s = results["startup"]
    lines += [
        "",
        "## Time to first result (`bergen-sim simulate --matches 1000`, fresh process)",
        "",
        "| cache | wall | CPU | Python + imports | kernel compile/load | play |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name in ("cold", "warm"):
        r = s[name]
        cpu = f"{r['cpu_s']:.2f} s" if "cpu_s" in r else "not recorded"
        lines.append(
            f"| {name} | {r['wall_s']:.2f} s | {cpu} | {r['python_and_imports_s']:.2f} s | "
            f"{r['kernel_s']:.2f} s | {r['play_s']:.3f} s |"
        )
    if "warm_cache" in s:
        lines += [
            "",
            f"Cold: an empty compile cache; warm: the cache the cold run filled ({s['warm_cache']['kernels']} "
            f"kernels, {s['warm_cache']['compiled_functions']} compiled functions); bytecode caching on; load "
            f"average {s['load_average_before']} before, {s['load_average_after']} after (on a busy machine "
            "wall time grows with the load, CPU time much less).",
        ]
    lines += [
        "",
        f"## Peak memory, summary runs, random, 2 players, all {cores} cores",
        "",
        "| matches | wall | matches/s | main process peak RSS | largest process-tree RSS | largest other process |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results["memory"]:
        lines.append(
            f"| {fmt(r['matches'])} | {r['wall_s']:.1f} s | {fmt(r['matches_per_s'])} | "
            f"{r['main_process_peak_mib']} MiB | {r['largest_process_tree_mib']} MiB | "
            f"{r['largest_other_process_mib']} MiB |"
        )
    lines += ["", "## Goals", "", "| goal | measured | met |", "|---|---|---|"]
    for goal in results["goals"]:
        lines.append(f"| {goal['goal']} | {goal['measured']} | {'yes' if goal['met'] else 'no'} |")
    for key, render in SECTIONS.items():
        if key in results:
            lines += ["", render(results[key]).rstrip("\n")]
    return "\n".join(lines) + "\n"


def goals(results: dict) -> list[dict]:
    cores = results["machine"]["cores"]
    two = next((r for r in results["throughput"] if r["game"] == "2 players" and r["policy"] == "random"), None)
    out = []
    if two:
        hands, per_cpu = two["1 core"]["hands_per_s"], two["1 core"]["hands_per_cpu_s"]
        cpu_note = f" ({fmt(per_cpu)} per CPU-second)" if per_cpu else ""
        out += [
            {
                "goal": f">= {fmt(GOAL_HANDS_PER_S)} hands/s, 2 players, random, one core",
                "measured": f"{fmt(hands)} hands/s{cpu_note}",
                "met": hands >= GOAL_HANDS_PER_S,
            },
        ]
        out += [
            *expert_goals(results),
            {
                "goal": f"near-linear scaling: {cores} workers >= {GOAL_SCALING if cores == 2 else 0.9 * cores}x of 1",
                # three decimals: at two a ratio of 1.895 printed as "1.90x" beside "no"
                "measured": f"{two['scaling']:.3f}x",
                "met": two["scaling"] >= (GOAL_SCALING if cores == 2 else 0.9 * cores),
            },
        ]
    warm = results["startup"]["warm"]["wall_s"]
    out.append(
        {
            "goal": f"warm time to first result < {GOAL_WARM_S:.1f} s",
            "measured": f"{warm:.2f} s",
            "met": warm < GOAL_WARM_S,
        }
    )
    return out


def expert_goals(results: dict) -> list[dict]:
    """Issue 12's expert goal in hands/s (its share of the C anchor is judged in the ``c_loop`` section)."""
    expert = next((r for r in results["throughput"] if r["game"] == "2 players" and r["policy"] == "expert"), None)
    if not expert:
        return []
    hands = expert["1 core"]["hands_per_s"]
    return [
        {
            "goal": f">= {fmt(GOAL_EXPERT_HANDS_PER_S)} hands/s, 2 players, expert, one core",
            "measured": f"{fmt(hands)} hands/s",
            "met": hands >= GOAL_EXPERT_HANDS_PER_S,
        }
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="longer timings, 3 repeats (median)")
    parser.add_argument("--no-save", action="store_true", help="print only; do not write benchmarks/results.*")
    parser.add_argument(
        "--probe",
        action="store_true",
        help="measure nothing else: print the speed probe, the uptime and the steal share (the host's speed now)",
    )
    add_allow_dirty(parser)
    parser.add_argument(
        "--workers",
        type=trees.at_least(1, MAX_WORKERS),
        default=default_workers(),
        help="'all cores' (default: every core)",
    )
    args = parser.parse_args()
    if args.probe:
        print(host_line(host_state()))
        return
    check_saving(parser, not args.no_save, args.allow_dirty)
    budget, repeats = (6.0, 3) if args.full else (1.5, 1)
    results = {"full": args.full, "machine": machine(), "throughput": [], "notes": []}
    policies = [p for p in POLICIES if p in BUILTINS]
    results["notes"] += [f"Policy `{p}` is not installed here: skipped." for p in POLICIES if p not in BUILTINS]

    for game, config in CONFIGS.items():
        for policy in policies:
            print(f"throughput: {game}, {policy} ...", file=sys.stderr, flush=True)
            results["throughput"].append(
                {"game": game, "policy": policy, **throughput(config, policy, args.workers, budget, repeats)}
            )
    print("C anchor and the engine against it ...", file=sys.stderr, flush=True)
    results["c_loop"] = c_anchor.section()
    results["python_baseline"] = {}
    for game, config in CONFIGS.items():
        print(f"pure-Python baseline: {game} ...", file=sys.stderr, flush=True)
        base = python_baseline(config, budget)
        compiled = next(r for r in results["throughput"] if r["game"] == game and r["policy"] == "random")
        base["compiled_hands_per_s"] = compiled["1 core"]["hands_per_s"]
        base["ratio"] = base["compiled_hands_per_s"] / base["hands_per_s"]
        results["python_baseline"][game] = base
    print("time to first result (cold compile cache, then warm) ...", file=sys.stderr, flush=True)
    results["startup"] = startup()
    results["memory"] = []
    for matches in (10**5, 10**7):
        print(f"peak memory, {matches:,} matches ...", file=sys.stderr, flush=True)
        results["memory"].append(peak_memory(matches))
    results["goals"] = goals(results)
    results["machine"]["speed_probe_ms_at_end"] = speed_probe()

    saved = HERE / "results.json"
    if saved.exists():  # the sections other scripts measured stay (each says when and where)
        previous = json.loads(saved.read_text())
        results.update({key: previous[key] for key in SECTIONS if key in previous and key not in results})
    print(report(results))
    if not args.no_save:
        save(results)


if __name__ == "__main__":
    main()
