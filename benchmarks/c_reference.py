"""The tight C loop (``c_loop/bergen_loop.c``): build it, run it, check it plays the same matches.

The C program plays the standard game with uniform-random moves on the
engine's own keyed random streams, so for the same seed and number of matches
its totals (hands, plays, headers, wins) must equal those of
``bergen-sim simulate --policy random``; benchmarks/c_anchor.py checks that
(:func:`agree`) before reporting a speed ratio: a ratio between programs that
did different work would mean nothing.  Without a C compiler :func:`build`
says "not measured".
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
from pathlib import Path

SOURCE = Path(__file__).resolve().parent / "c_loop" / "bergen_loop.c"
FLAGS = ("-O3", "-march=native")
#: profile-guided optimisation (GCC): an instrumented build plays these tables, then the build uses the profile
PGO_GENERATE, PGO_USE = ("-fprofile-generate",), ("-fprofile-use", "-Wno-missing-profile")
PGO_TRAINING = ((2, 0, 100_000), (3, 0, 20_000), (4, 0, 20_000), (4, 1, 20_000))
#: totals both programs report, by the C program's name -> the engine's summary key
SHARED_TOTALS = {
    "matches": "matches",
    "hands": "hands",
    "plays": "plays",
    "double_headers": "double_headers",
    "triple_headers": "triple_headers",
}


def compiler() -> str | None:
    """The C compiler to use ($CC, else cc, gcc or clang on PATH), or None."""
    for name in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def build(folder: str | os.PathLike, source: Path = SOURCE, pgo: bool = True) -> tuple[Path | None, str]:
    """Compile a C loop into ``folder``; (executable, compiler and flags) or (None, why not).

    With profile-guided optimisation (``pgo``) when the compiler does it (GCC: about 5% faster here,
    c_loop/README.md), else with the plain flags, which the description then says.
    """
    cc = compiler()
    if cc is None:
        return None, "not measured: no C compiler (cc, gcc or clang) on PATH"
    exe = Path(folder) / source.stem
    version = subprocess.run([cc, "--version"], capture_output=True, text=True).stdout.splitlines()
    name = version[0] if version else cc
    if pgo and _compile(cc, source, exe, PGO_GENERATE) and _trained(exe) and _compile(cc, source, exe, PGO_USE):
        return exe, f"{name} {' '.join(FLAGS)} with profile-guided optimisation"
    done = subprocess.run([cc, *FLAGS, "-o", str(exe), str(source)], capture_output=True, text=True)
    if done.returncode != 0:
        return None, f"not measured: {cc} failed: {done.stderr.strip().splitlines()[-1:]}"
    return exe, f"{name} {' '.join(FLAGS)}"


def _compile(cc: str, source: Path, exe: Path, extra: tuple[str, ...]) -> bool:
    return subprocess.run([cc, *FLAGS, *extra, "-o", str(exe), str(source)], capture_output=True).returncode == 0


def _trained(exe: Path) -> bool:
    """Run the instrumented build on every table; whether it wrote its profile (beside itself)."""
    return all(
        subprocess.run([str(exe), *map(str, table), "1"], capture_output=True).returncode == 0 for table in PGO_TRAINING
    ) and any(exe.parent.glob("*.gcda"))


def run(exe: Path, players: int, partnerships: bool, matches: int, seed: int) -> dict:
    """One run of the C loop: its JSON totals, wall seconds (of its own loop) and CPU seconds (of the process)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [str(exe), str(players), str(int(partnerships)), str(matches), str(seed)],
        capture_output=True,
        text=True,
        check=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        **json.loads(done.stdout),
        "cpu_seconds": after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime,
    }


def agree(c_totals: dict, engine_summary: dict) -> list[str]:
    """Names of the totals on which the C loop and the engine differ (empty when they agree)."""
    return [name for name, key in SHARED_TOTALS.items() if int(c_totals[name]) != int(engine_summary[key])]
