"""Run the commands whose output the docs show, and save that output (never typed by hand).

    python tools/doc_examples.py             # every example
    python tools/doc_examples.py compare     # one of them

Each example's terminal output (120 columns, trailing spaces stripped) is
written to ``docs/examples/NAME.txt``, first line ``$ COMMAND``; the doc
includes the file in a code block (``--8<--``, the site's snippets), so the two
cannot differ.  Every example takes well under a minute with a warm
kernel cache (the first run of a new kernel compiles it, which the
``start-up`` figure of an example shows).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "docs" / "examples"

#: name -> (the doc that shows it, the command)
EXAMPLES = {
    "compare": ("docs/compare.md", "bergen-sim compare --policy expert,greedy,random --deals 20000 --seed 1"),
    "analyze": (
        "docs/pimc.md",
        "bergen-sim analyze --hand 5-6,1-6,0-5,3-4 --ends 6,5d --played 2-2,2-5,2-6,5-5 "
        "--counts 4,6 --boneyard 14 --scores 12,13 --void 1:5,6",
    ),
}


def run(name: str) -> str:
    command = EXAMPLES[name][1]
    env = dict(
        os.environ,
        COLUMNS="120",
        PYTHONPATH=os.pathsep.join([str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]),
    )
    args = shlex.split(command)
    main = "import sys; from bergen_sim.cli import main; sys.argv[0] = 'bergen-sim'; sys.exit(main())"
    done = subprocess.run(
        [sys.executable, "-c", main, *args[1:]], env=env, cwd=ROOT, capture_output=True, text=True, check=True
    )
    lines = [line.rstrip() for line in done.stdout.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join([f"$ {command}", *lines]) + "\n"


def main(argv: list[str] | None = None) -> int:
    names = (argv if argv is not None else sys.argv[1:]) or list(EXAMPLES)
    unknown = [name for name in names if name not in EXAMPLES]
    if unknown:  # one line and exit status 2, as argparse would say it (this script takes names only)
        print(f"doc_examples.py: no example {unknown[0]!r}; choose from {', '.join(EXAMPLES)}", file=sys.stderr)
        return 2
    FOLDER.mkdir(exist_ok=True)
    for name in names:
        text = run(name)
        (FOLDER / f"{name}.txt").write_text(text)
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
