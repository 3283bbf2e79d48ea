"""The tight C loop (``c_loop/bergen_loop.c``): build it, run it, check it plays the same matches.

The C program plays the standard game with uniform-random moves on the
engine's own keyed random streams, so for the same seed and number of matches
its totals (hands, plays, headers, wins) must equal those of
``bergen-sim simulate --policy random``.  :func:`measure` checks that before
reporting a speed ratio: a ratio between programs that did different work
would mean nothing.  Without a C compiler the result says "not measured".
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

SOURCE = Path(__file__).resolve().parent / "c_loop" / "bergen_loop.c"
FLAGS = ("-O3", "-march=native")
#: totals both programs report, by the C program's name -> the engine's summary key
SHARED_TOTALS = {"matches": "matches", "hands": "hands", "plays": "plays",
                 "double_headers": "double_headers", "triple_headers": "triple_headers"}


def compiler() -> str | None:
    """The C compiler to use ($CC, else cc, gcc or clang on PATH), or None."""
    for name in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def build(folder: str | os.PathLike) -> tuple[Path | None, str]:
    """Compile the C loop into ``folder``; (executable, compiler description) or (None, why not)."""
    cc = compiler()
    if cc is None:
        return None, "not measured: no C compiler (cc, gcc or clang) on PATH"
    exe = Path(folder) / "bergen_loop"
    done = subprocess.run([cc, *FLAGS, "-o", str(exe), str(SOURCE)], capture_output=True, text=True)
    if done.returncode != 0:
        return None, f"not measured: {cc} failed: {done.stderr.strip().splitlines()[-1:]}"
    version = subprocess.run([cc, "--version"], capture_output=True, text=True).stdout.splitlines()
    return exe, f"{version[0] if version else cc} {' '.join(FLAGS)}"


def run(exe: Path, players: int, partnerships: bool, matches: int, seed: int) -> dict:
    """One run of the C loop: its JSON totals and wall seconds."""
    done = subprocess.run([str(exe), str(players), str(int(partnerships)), str(matches), str(seed)],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def agree(c_totals: dict, engine_summary: dict) -> list[str]:
    """Names of the totals on which the C loop and the engine differ (empty when they agree)."""
    return [name for name, key in SHARED_TOTALS.items() if int(c_totals[name]) != int(engine_summary[key])]


def measure(players: int, partnerships: bool, matches: int, seed: int, repeats: int = 1) -> dict:
    """Build and run the C loop; hands/s (median of ``repeats``) and its totals, or a 'not measured' note."""
    with tempfile.TemporaryDirectory() as folder:
        exe, how = build(folder)
        if exe is None:
            return {"measured": False, "note": how}
        runs = [run(exe, players, partnerships, matches, seed) for _ in range(repeats)]
    seconds = sorted(r["seconds"] for r in runs)[len(runs) // 2]
    return {"measured": True, "compiler": how, "seconds": seconds, "hands_per_s": runs[0]["hands"] / seconds,
            "totals": runs[0]}
