"""The C anchor: how tight the C loop is, and the engine's speed as a share of it, in one run on one core.

    python benchmarks/c_anchor.py                       # about a minute of play, plus compiling
    python benchmarks/c_anchor.py --old 74dc0e1         # also the C loop as it was at another commit
    python benchmarks/c_anchor.py --seconds 3 --repeats 5

Two parts, each a median of ``--repeats`` interleaved runs (so every program
sees the same machine load):

1. **Variants of the C loop** (2 players, random), on the same matches: the
   anchor ``c_loop/bergen_loop.c`` built with profile-guided optimisation and
   without (every ratio divides by the faster of the two in the run: which
   one wins changes from run to run), optionally the loop of another commit
   (``--old``), and ``c_loop/experiment_lazy_xoshiro.c``, the same loop with a
   generator and dealing the engine does not use (xoshiro256**, Lemire's
   bounded integers, a lazy shuffle), which plays other matches of the same
   game: what the engine's keyed streams cost; and ``numba_loop.py``, the
   anchor's loop written in Numba and run in this process on the same
   matches: what the compiler alone costs, so that the rest of the engine's
   gap is its shape (numba_loop.py says more).
2. **The engine against the anchor**: hands/s of the anchor on 2 players,
   random, and of the compiled engine in this process (one core) on 2 players
   random (the same matches, whose totals must agree) and expert, double-nine
   4 players and double-eighteen 8 players, random; each run plays at least
   ``--seconds`` (the anchor's matches are sized so that it does, the engine's
   rows are sized by their own speed); ratios are engine / anchor, medians over
   medians.

Wall seconds measure the competition on a shared machine; CPU seconds (user +
system of the process) much less, so both are reported.  Results are saved
under ``c_loop`` in benchmarks/results.json (results.md and docs/speed.md
show them).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bergen_sim.core.provenance import add_allow_dirty
from bergen_sim.engine import layout as L
from bergen_sim.model.rules import Rules
from bergen_sim.services.execution.jobs import engine_for

sys.path.insert(0, str(Path(__file__).resolve().parent))
import c_reference  # noqa: E402  (benchmarks/ is a folder of scripts)
import numba_loop  # noqa: E402
from trees import at_least, duration  # noqa: E402

HERE = Path(__file__).resolve().parent
EXPERIMENT = HERE / "c_loop" / "experiment_lazy_xoshiro.c"
SEED = 2024
DEFAULT_SECONDS, DEFAULT_REPEATS = 2.0, 3
#: the engine's rows: label -> (table, policy); the first plays the anchor's own matches
ENGINE_ROWS = {
    "2 players, random": (dict(players=2), "random"),
    "2 players, expert": (dict(players=2), "expert"),
    "double-nine, 4 players, random": (dict(players=4, domino_set="double-nine"), "random"),
    "double-eighteen, 8 players, random": (dict(players=8, domino_set="double-eighteen"), "random"),
}
#: issue 58: the anchor's speed here, and each engine row's least share of it
GOAL_C_HANDS_PER_S = 2_500_000
GOAL_RATIOS = {
    "2 players, random": 0.7,
    "2 players, expert": 0.35,
    "double-nine, 4 players, random": 0.4,
    "double-eighteen, 8 players, random": 0.08,
}


def anchor_at(commit: str) -> tuple[str, str]:
    """An argparse type: (commit, the anchor's source there), refused in one line before anything runs."""
    shown = subprocess.run(
        ["git", "show", f"{commit}:benchmarks/c_loop/bergen_loop.c"], cwd=HERE, capture_output=True, text=True
    )
    if shown.returncode:
        raise argparse.ArgumentTypeError(
            f"{commit!r} has no benchmarks/c_loop/bergen_loop.c here "
            f"({(shown.stderr.strip().splitlines() or ['git show failed'])[-1]})"
        )
    return commit, shown.stdout


#: the labels of the anchor's own builds (build_variants), one of which every ratio divides by
ANCHOR_BUILDS = ("anchor", "anchor, no PGO")
#: the anchor's loop in Numba (numba_loop.py), run in this process beside the C builds
NUMBA_LOOP = "the same loop in Numba, its state in local variables"


def build_variants(folder: Path, old: tuple[str, str] | None) -> dict[str, tuple[Path, str]]:
    """label -> (executable, how it was built); the anchor with profile-guided optimisation first.

    ``old``: (commit, the anchor's source there), built as it was then, without profile-guided optimisation.
    """
    wanted = [
        (ANCHOR_BUILDS[0], c_reference.SOURCE, True),
        (ANCHOR_BUILDS[1], c_reference.SOURCE, False),
        ("experiment: xoshiro256**, Lemire, lazy shuffle", EXPERIMENT, True),
    ]
    if old:
        commit, text = old
        source = folder / "bergen_loop_old.c"  # it includes nothing of this folder's (it predates bergen_match.h)
        source.write_text(text)
        wanted.append((f"the C loop at {commit}", source, False))
    built = {}
    for label, source, pgo in wanted:
        place = folder / str(len(built))
        place.mkdir()
        exe, how = c_reference.build(place, source, pgo)
        if exe is None:
            raise SystemExit(f"c_anchor.py: cannot build {source.name}: {how}")
        built[label] = (exe, how)
    return built


def engine_run(engine, matches: int) -> tuple[float, float, np.ndarray]:
    """Wall and CPU seconds of one engine run of matches 0 .. matches - 1 of SEED, and its totals."""
    cpu, start = time.process_time(), time.perf_counter()
    chunk = engine.play(seed=SEED, first_match=0, n_matches=matches, match_rows=False)
    return time.perf_counter() - start, time.process_time() - cpu, chunk.totals


def sized(seconds_per_match: float, seconds: float) -> int:
    return max(1_000, int(seconds / max(seconds_per_match, 1e-9)))


def measure(seconds: float, repeats: int, old: tuple[str, str] | None) -> dict:
    """Both parts, interleaved round by round."""
    out: dict = {"seconds": seconds, "repeats": repeats, "seed": SEED}
    with tempfile.TemporaryDirectory() as folder:
        variants = build_variants(Path(folder), old)
        anchor_exe = variants["anchor"][0]
        probe = c_reference.run(anchor_exe, 2, False, 100_000, SEED)
        c_matches = sized(probe["seconds"] / 100_000, seconds)
        engines = {}
        for label, (table, policy) in ENGINE_ROWS.items():
            rules = Rules.make(**table)
            start = time.perf_counter()
            engine = engine_for(rules, (policy,) * rules.players)
            load_s = time.perf_counter() - start
            wall, _, _ = engine_run(engine, 500)  # the first call also loads the kernel's code
            wall, _, _ = engine_run(engine, 1_000)
            matches = c_matches if label == "2 players, random" else sized(wall / 1_000, seconds)
            engines[label] = (engine, matches, round(load_s, 2))
        compiled_s = numba_loop.compile_now()
        variants[NUMBA_LOOP] = (None, f"benchmarks/numba_loop.py, compiled here in {compiled_s:.1f} s")
        c_runs: dict[str, list[dict]] = {label: [] for label in variants}
        e_runs: dict[str, list[tuple]] = {label: [] for label in ENGINE_ROWS}
        for r in range(repeats):
            print(f"round {r + 1} of {repeats} ...", file=sys.stderr, flush=True)
            for label, (exe, _) in variants.items():
                if exe is None:
                    c_runs[label].append(numba_loop.run(c_matches, SEED))
                else:
                    c_runs[label].append(c_reference.run(exe, 2, False, c_matches, SEED))
            for label, (engine, matches, _) in engines.items():
                e_runs[label].append(engine_run(engine, matches))
    anchor_totals = c_runs["anchor"][0]
    out["variants"] = []
    for label, runs in c_runs.items():
        hands = runs[0]["hands"]
        same = not c_reference.agree(runs[0], anchor_totals)
        out["variants"].append(
            {
                "variant": label,
                "built": variants[label][1],
                "matches": c_matches,
                "hands": hands,
                "hands_per_s": statistics.median(hands / r["seconds"] for r in runs),
                "hands_per_cpu_s": statistics.median(hands / r["cpu_seconds"] for r in runs),
                "runs_s": [round(r["seconds"], 3) for r in runs],
                "same_matches_as_anchor": same,
            }
        )
    anchor = fastest_build(out["variants"])
    out["anchor_build"] = anchor["variant"]
    c_hands, c_cpu = anchor["hands_per_s"], anchor["hands_per_cpu_s"]
    out["anchor_hands_per_s"], out["anchor_hands_per_cpu_s"] = c_hands, c_cpu
    numba = next(v for v in out["variants"] if v["variant"] == NUMBA_LOOP)
    out["numba_loop_share"] = numba["hands_per_s"] / c_hands if numba["same_matches_as_anchor"] else None
    out["rows"] = []
    for label, runs in e_runs.items():
        engine, matches, load_s = engines[label]
        hands = int(runs[0][2][L.S_HANDS])
        row = {
            "row": label,
            "matches": matches,
            "hands": hands,
            "kernel_load_s": load_s,
            "hands_per_s": statistics.median(hands / wall for wall, _, _ in runs),
            "hands_per_cpu_s": statistics.median(hands / cpu for _, cpu, _ in runs if cpu > 0),
            "runs_s": [round(wall, 3) for wall, _, _ in runs],
        }
        if label == "2 players, random":
            engine_totals = {
                key: int(runs[0][2][getattr(L, "S_" + key.upper())]) for key in c_reference.SHARED_TOTALS.values()
            }
            differ = c_reference.agree(anchor_totals, engine_totals)
            row["same_totals_as_anchor"] = not differ
            if differ:
                row["note"] = f"totals differ from the anchor's on {', '.join(differ)}"
        row["ratio"] = row["hands_per_s"] / c_hands
        row["cpu_ratio"] = row["hands_per_cpu_s"] / c_cpu
        out["rows"].append(row)
    out["goals"] = goals(out)
    return out


def fastest_build(variants: list[dict]) -> dict:
    """The anchor: the faster of its two builds in this run (which one wins varies from run to run, and a ratio
    to the slower one would flatter the engine).  Only builds of the anchor's own source count: the experiment
    and an older loop play other matches or another loop."""
    builds = [v for v in variants if v["variant"] in ANCHOR_BUILDS and v["same_matches_as_anchor"]]
    return max(builds, key=lambda v: v["hands_per_s"])


def anchor_of(section: dict) -> dict:
    """The variant the ratios divide by (older results name none: their first variant)."""
    label = section.get("anchor_build", section["variants"][0]["variant"])
    return next(v for v in section["variants"] if v["variant"] == label)


def goals(section: dict) -> list[dict]:
    anchor = anchor_of(section)
    out = [
        {
            "goal": f"the anchor plays >= {GOAL_C_HANDS_PER_S:,} hands/s (2 players, random, one core)",
            "measured": f"{anchor['hands_per_s']:,.0f} hands/s ({anchor['hands_per_cpu_s']:,.0f} per CPU-second)",
            "met": anchor["hands_per_s"] >= GOAL_C_HANDS_PER_S,
        }
    ]
    for row in section["rows"]:
        least = GOAL_RATIOS[row["row"]]
        valid = row.get("same_totals_as_anchor", True)
        out.append(
            {
                "goal": f"engine, {row['row']}: >= {least} of the anchor's hands/s",
                # three decimals: at two a ratio of 0.077 printed as "0.08" beside "no"
                "measured": f"{row['ratio']:.3f} (CPU time: {row['cpu_ratio']:.3f})" if valid else row["note"],
                "met": valid and row["ratio"] >= least,
            }
        )
    return out


def report(section: dict) -> str:
    """The section as Markdown (a part of benchmarks/results.md)."""
    if "variants" not in section:  # saved by an earlier run.py, against an earlier C loop: not shown as current
        return (
            "## The C anchor and the engine against it\n\nNot measured with the current C loop: run "
            "`python benchmarks/c_anchor.py`.\n"
        )
    import run as bench  # noqa: E402  (run.py imports this file)

    m = section["machine"]
    anchor = anchor_of(section)
    lines = [
        "## The C anchor and the engine against it (`benchmarks/c_anchor.py`, one core)",
        "",
        f"{m['date']}; {m['cpu']}; commit {m['commit']}; load average before {section['load_average_before']}, "
        f"after {section['load_average_after']}; {bench.host_line(m)}; medians of {section['repeats']} interleaved runs, seed "
        f"{section['seed']}; the anchor: {anchor['built']} (the faster of its two builds in this run).",
        "",
        f"Variants of the C loop (and the same loop in Numba), 2 players, random, {anchor['matches']:,} matches "
        f"({anchor['hands']:,} hands) each:",
        "",
        "| variant | hands/s | hands per CPU-second | / anchor | the anchor's matches |",
        "|---|---:|---:|---:|---|",
    ]
    for v in section["variants"]:
        lines.append(
            f"| {v['variant']}{' (the anchor)' if v is anchor else ''} | {v['hands_per_s']:,.0f} | {v['hands_per_cpu_s']:,.0f} | "
            f"{v['hands_per_s'] / anchor['hands_per_s']:.2f} | "
            f"{'yes' if v['same_matches_as_anchor'] else 'no (other deals)'} |"
        )
    lines += [
        "",
        f"The engine in this process against the anchor (each run at least {section['seconds']} s of play):",
        "",
        "| engine | matches | hands/s | hands per CPU-second | engine / anchor | by CPU time |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for row in section["rows"]:
        same = " (the anchor's matches, same totals)" if row.get("same_totals_as_anchor") else ""
        lines.append(
            f"| {row['row']}{same} | {row['matches']:,} | {row['hands_per_s']:,.0f} | "
            f"{row['hands_per_cpu_s']:,.0f} | {row['ratio']:.2f} | {row['cpu_ratio']:.2f} |"
        )
    lines += ["", "| goal (issue 58) | measured | met |", "|---|---|---|"]
    lines += [f"| {g['goal']} | {g['measured']} | {'yes' if g['met'] else 'no'} |" for g in section["goals"]]
    return "\n".join(lines) + "\n"


def section(
    seconds: float = DEFAULT_SECONDS, repeats: int = DEFAULT_REPEATS, old: tuple[str, str] | None = None
) -> dict:
    """Both parts measured now, with the machine, the commit and the load before and after."""
    import run as bench  # noqa: E402  (run.py imports this file)

    out = {"machine": bench.machine(), "load_average_before": bench.load_average()}
    out.update(measure(seconds, repeats, old))
    out["load_average_after"] = bench.load_average()
    out["machine"]["speed_probe_ms_at_end"] = bench.speed_probe()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seconds",
        type=duration,
        default=DEFAULT_SECONDS,
        help=f"least play of each run (default {DEFAULT_SECONDS:g})",
    )
    parser.add_argument("--repeats", type=at_least(1), default=DEFAULT_REPEATS)
    parser.add_argument("--old", metavar="COMMIT", type=anchor_at, help="also time the C loop of this commit")
    parser.add_argument("--no-save", action="store_true", help="print only; do not write benchmarks/results.*")
    add_allow_dirty(parser)
    args = parser.parse_args(argv)
    import run as bench  # noqa: E402  (run.py imports this file)

    bench.check_saving(parser, not args.no_save, args.allow_dirty)
    if c_reference.compiler() is None:
        print("c_anchor.py: no C compiler (cc, gcc or clang) on PATH: nothing to measure", file=sys.stderr)
        return 2
    measured = section(args.seconds, args.repeats, args.old)
    print(report(measured))
    if not args.no_save:
        bench.save_section("c_loop", measured)
    return 0


if __name__ == "__main__":
    sys.exit(main())
