"""Where the compiled match loop spends its time, instruction by instruction (Linux, with ``perf`` and ``gdb``).

    python benchmarks/profile_kernel.py --players 4 --set domino_set=double-nine
    python benchmarks/profile_kernel.py --policy expert --seconds 8 --listing /tmp/run.asm

A child process plays matches with one policy on every seat; ``perf record``
samples it; then ``gdb``, attached to the same process, names the sampled
addresses.  Numba's compiled code has no symbols that perf can read, but
LLVM registers every object it loads with gdb's JIT interface, so gdb knows
each function and can disassemble it.  Nearly everything is inlined into the
kernel's ``_run`` (a policy's ``choose`` and a few helpers stay separate), so
the report lists the time per function, then the hot stretches (runs of
sampled instructions) of the busiest ones, each with its hottest
instructions; ``--listing`` writes their whole annotated disassembly.  Reading a stretch
means matching its instructions to the source (constants such as SplitMix64's
multipliers, ``tzcnt`` walking a tile set, the view's offsets); a sample
lands on the instruction after a slow one.  This is how the legal-move
listing (a third of a double-nine hand), the shuffle's state round trip and
the index wraparound code were found (docs/architecture.md, "The hot loop").
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = r"""
import json, sys, time
from bergen_sim.services.execution.jobs import engine_for
from bergen_sim.model.rules import Rules
settings, policy = json.loads(sys.argv[1]), sys.argv[2]
rules = Rules.make(**settings)
engine = engine_for(rules, (policy,) * rules.players)
engine.play(seed=7, first_match=0, n_matches=500, match_rows=False)
print(json.dumps({"ready": True}), flush=True)
first = 0
while True:
    engine.play(seed=11, first_match=first, n_matches=5000, match_rows=False)
    first += 5000
"""
ADDRESS = re.compile(r"^\s+0x([0-9a-f]+)")

sys.path.insert(0, str(Path(__file__).resolve().parent))
from trees import at_least, duration, setting  # noqa: E402  (benchmarks/ is a folder of scripts)


def gdb(pid: int, commands: list[str]) -> str:
    """Run gdb commands against the (stopped, then resumed) process and return what they printed."""
    with tempfile.NamedTemporaryFile("w", suffix=".gdb", delete=False) as script:
        script.write("set pagination off\n" + "\n".join(commands) + "\n")
    done = subprocess.run(
        ["gdb", "-p", str(pid), "-batch", "-x", script.name], capture_output=True, text=True, timeout=600
    )
    Path(script.name).unlink()
    return done.stdout


def short(symbol: str) -> str:
    """A function's name without Numba's ABI tags and argument types."""
    symbol = re.sub(r"\[abi:[^\]]*\]", "", symbol)
    return symbol.split("(", 1)[0].strip()


def stretches(counts: list[int]) -> list[tuple[int, int]]:
    """Runs of sampled instructions (twelve unsampled ones end a run), busiest first."""
    found, first, gap, last = [], None, 0, 0
    for i, count in enumerate(counts + [0] * 12):
        if count:
            first, gap, last = (i if first is None else first), 0, i
        elif first is not None:
            gap += 1
            if gap >= 12:
                found.append((first, last))
                first = None
    return sorted(found, key=lambda s: -sum(counts[s[0] : s[1] + 1]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument(
        "--set",
        dest="settings",
        action="append",
        type=setting,
        default=[],
        help="a rule setting, e.g. domino_set=double-nine (repeatable)",
    )
    parser.add_argument("--policy", default="random")
    parser.add_argument("--seconds", type=duration, default=6.0, help="how long perf samples")
    parser.add_argument("--top", type=at_least(1), default=8, help="hot stretches to show per function")
    parser.add_argument("--functions", type=at_least(1), default=2, help="how many of the busiest functions to show")
    parser.add_argument("--listing", type=Path, help="write their annotated disassembly here")
    opts = parser.parse_args()
    from bergen_sim.core.errors import BergenError
    from bergen_sim.model.rules import Rules
    from bergen_sim.runtime.registry import resolve
    from bergen_sim.services.files.output import check_file

    settings = {"players": opts.players, **dict(opts.settings)}
    try:  # checked here: in the child a wrong game or policy is a traceback, and --listing is written last
        Rules.make(**settings)
        resolve(opts.policy)
        if opts.listing:
            check_file(opts.listing, "--listing")
    except BergenError as exc:
        parser.error(str(exc))
    missing = [tool for tool in ("perf", "gdb") if not shutil.which(tool)]
    if missing:
        print(f"profile_kernel needs {' and '.join(missing)} on the PATH (Linux)", file=sys.stderr)
        return 2
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, json.dumps(settings), opts.policy], stdout=subprocess.PIPE, text=True
    )
    try:
        json.loads(child.stdout.readline())  # compiled and playing
        time.sleep(0.5)
        with tempfile.TemporaryDirectory() as folder:
            data = Path(folder) / "perf.data"
            subprocess.run(
                [
                    "perf",
                    "record",
                    "-F",
                    "4000",
                    "-o",
                    str(data),
                    "-p",
                    str(child.pid),
                    "--",
                    "sleep",
                    str(opts.seconds),
                ],
                capture_output=True,
                check=True,
            )
            ips = subprocess.run(
                ["perf", "script", "-i", str(data), "-F", "ip"], capture_output=True, text=True, check=True
            ).stdout.split()
        samples = collections.Counter(int(ip, 16) for ip in ips)
        total = sum(samples.values())
        hot = [address for address, _ in samples.most_common(600)]
        names = gdb(child.pid, [f"info symbol {address:#x}" for address in hot])
        by_function: collections.Counter = collections.Counter()
        hottest: dict[str, int] = {}  # function -> its most sampled address
        for address, line in zip(hot, [x for x in names.splitlines() if " in section " in x or "No symbol" in x]):
            name = (
                short(line.split(" + ")[0].split(" in section ")[0])
                if " in section " in line
                else "(outside compiled code)"
            )
            by_function[name] += samples[address]
            hottest.setdefault(name, address)
        shown = [name for name, _ in by_function.most_common(opts.functions) if "::" in name]
        # gdb's "disassemble ADDRESS" lists the whole function holding the address
        listings = {name: gdb(child.pid, [f"disassemble {hottest[name]:#x}"]).splitlines() for name in shown}
    finally:
        child.kill()
        child.wait()
    print(f"{total:,} samples of {opts.policy} on {settings} ({opts.seconds} s at 4 kHz)\n")
    print("time per function (the 600 most sampled addresses):")
    for name, count in by_function.most_common(8):
        print(f"  {100 * count / total:5.1f}%  {name}")
    annotated = []
    for name in shown:
        rows = [(int(m.group(1), 16), line) for line in listings[name] if (m := ADDRESS.match(line))]
        counts = [samples.get(address, 0) for address, _ in rows]
        annotated += [f"# {name}\n"] + [f"{c:7d} {line}\n" for c, (_, line) in zip(counts, rows)]
        print(f"\nhot stretches of {name} (instruction numbers within it):")
        for a, b in stretches(counts)[: opts.top]:
            print(f"  {100 * sum(counts[a : b + 1]) / total:5.1f}%  instructions {a + 1}-{b + 1}; hottest:")
            for i in sorted(range(a, b + 1), key=lambda i: -counts[i])[:3]:
                print(f"           {counts[i]:6d} {re.sub(r' <[^>]*>', '', rows[i][1]).strip()[:90]}")
    if opts.listing:
        opts.listing.write_text("".join(annotated))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
