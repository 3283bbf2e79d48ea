"""Check that two source trees of bergen-sim give identical results for the same seeds.

Runs a fixed list of configurations (``simulate --json``, ``compare --json``,
``trace`` files and ``analyze --json``) once with each tree's package first on
``PYTHONPATH`` and compares the outputs byte for byte, after removing the
fields that measure time (``elapsed_s``, ``startup_s``, ``*_per_s``,
``seconds``).  Each tree gets its own compile cache so that neither can load
the other's machine code.

    python tools/compare_trees.py --old /work/main --new . --out /tmp/trees

prints one line per configuration (``same`` or ``DIFFERENT`` with the first
differing line) and exits 1 if any differs.  ``--reuse-old`` keeps outputs of
the old tree already in ``--out`` (the old tree does not change between runs).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

CLI = "import sys; from bergen_sim.cli import main; sys.exit(main())"
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from trees import source_tree  # noqa: E402  (the benchmarks' check of a tree: a folder of scripts)

#: name -> arguments of one ``bergen-sim`` run; ``{out}`` is replaced by the run's output file
CONFIGS: dict[str, list[str]] = {
    "simulate-2p-random": ["simulate", "--matches", "400", "--seed", "3", "--json", "--workers", "1"],
    "simulate-2p-expert-greedy": [
        "simulate",
        "--policy",
        "expert",
        "--policy",
        "greedy",
        "--matches",
        "300",
        "--seed",
        "11",
        "--json",
        "--workers",
        "1",
    ],
    "simulate-3p-pips-reserve0": [
        "simulate",
        "--players",
        "3",
        "--set",
        "settlement=pips",
        "--set",
        "boneyard_reserve=0",
        "--policy",
        "defensive",
        "--matches",
        "300",
        "--seed",
        "5",
        "--json",
        "--workers",
        "1",
    ],
    "simulate-4p-partners-american": [
        "simulate",
        "--players",
        "4",
        "--partnerships",
        "--set",
        "settlement=american",
        "--policy",
        "doubles-first",
        "--matches",
        "300",
        "--seed",
        "9",
        "--json",
        "--workers",
        "2",
    ],
    "simulate-classic-4p": [
        "simulate",
        "--players",
        "4",
        "--preset",
        "classic",
        "--policy",
        "heavy-first",
        "--matches",
        "200",
        "--seed",
        "1",
        "--json",
        "--workers",
        "1",
    ],
    "simulate-pimc": [
        "simulate",
        "--policy",
        "pimc:worlds=8",
        "--policy",
        "random",
        "--matches",
        "12",
        "--seed",
        "2",
        "--json",
        "--workers",
        "1",
    ],
    "compare-2p": [
        "compare",
        "--policy",
        "expert,greedy,random",
        "--deals",
        "100",
        "--seed",
        "1",
        "--json",
        "--workers",
        "1",
    ],
    "compare-3p": [
        "compare",
        "--players",
        "3",
        "--policy",
        "first,greedy",
        "--deals",
        "60",
        "--seed",
        "4",
        "--json",
        "--workers",
        "1",
    ],
    "trace-2p-expert": [
        "trace",
        "--policy",
        "expert",
        "--policy",
        "random",
        "--matches",
        "4",
        "--seed",
        "7",
        "-o",
        "{out}",
    ],
    "trace-3p-highest": [
        "trace",
        "--players",
        "3",
        "--set",
        "lead=highest-double",
        "--matches",
        "3",
        "--seed",
        "5",
        "-o",
        "{out}",
    ],
    "trace-4p-partners-pips": [
        "trace",
        "--players",
        "4",
        "--partnerships",
        "--set",
        "settlement=pips",
        "--policy",
        "greedy",
        "--matches",
        "3",
        "--seed",
        "8",
        "-o",
        "{out}",
    ],
    "analyze-position": [
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
        "--worlds",
        "512",
        "--batch",
        "128",
        "--seed",
        "1",
        "--json",
    ],
}
TIMING_KEYS = {"elapsed_s", "startup_s", "seconds"}


def _without_timing(value):
    if isinstance(value, dict):
        return {
            k: _without_timing(v)
            for k, v in value.items()
            if k not in TIMING_KEYS and not k.endswith("_per_s") and not k.endswith("_ms")
        }
    if isinstance(value, list):
        return [_without_timing(v) for v in value]
    return value


def run(tree: Path, name: str, args: list[str], folder: Path) -> str:
    """Output of one configuration with ``tree``'s package: the file it wrote, or its stdout."""
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / f"{name}.jsonl"
    argv = [a.replace("{out}", str(out)) for a in args]
    env = {**os.environ, "PYTHONPATH": str(tree), "BERGEN_SIM_CACHE_DIR": str(folder / "cache")}
    env.pop("NUMBA_CACHE_DIR", None)
    done = subprocess.run([sys.executable, "-c", CLI, *argv], capture_output=True, text=True, env=env, cwd=folder)
    if done.returncode:
        raise SystemExit(f"{name} failed with {tree}: {done.stderr.strip().splitlines()[-1:]}")
    if "{out}" in " ".join(args):
        text = out.read_text()
    else:
        text = json.dumps(_without_timing(json.loads(done.stdout)), indent=1, sort_keys=True)
    (folder / f"{name}.out").write_text(text)
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=source_tree, required=True, help="the tree before the change (e.g. /work/main)")
    parser.add_argument("--new", type=source_tree, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--out", type=Path, required=True, help="folder for outputs and caches")
    parser.add_argument("--reuse-old", action="store_true", help="reuse the old tree's outputs already in --out")
    parser.add_argument("--only", action="append", default=[], help="run only these configurations")
    opts = parser.parse_args()
    unknown = [name for name in opts.only if name not in CONFIGS]
    if unknown:  # else nothing is compared and the run says nothing differs
        parser.error(f"--only {unknown[0]}: no such configuration; choose from {', '.join(CONFIGS)}")
    from bergen_sim.core.errors import BergenError
    from bergen_sim.services.files.output import check_folder

    try:  # a file or an unwritable folder: one line, not a traceback once the first configuration has run
        check_folder(opts.out, "--out")
    except BergenError as exc:
        parser.error(str(exc))
    different = 0
    for name, args in CONFIGS.items():
        if opts.only and name not in opts.only:
            continue
        saved = opts.out / "old" / f"{name}.out"
        old = (
            saved.read_text()
            if opts.reuse_old and saved.exists()
            else run(opts.old.resolve(), name, args, opts.out / "old")
        )
        new = run(opts.new.resolve(), name, args, opts.out / "new")
        if old == new:
            print(f"same       {name}  ({len(new.splitlines())} lines)")
            continue
        different += 1
        first = next(
            (i for i, (a, b) in enumerate(zip(old.splitlines(), new.splitlines())) if a != b),
            min(len(old.splitlines()), len(new.splitlines())),
        )
        print(f"DIFFERENT  {name}: line {first + 1}")
    return 1 if different else 0


if __name__ == "__main__":
    sys.exit(main())
