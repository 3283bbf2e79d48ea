"""Numbers in the pages filled from the result files the code wrote: a marker names the file, a path in it, a format.

    python tools/fill_numbers.py            # rewrite every marked number of the pages
    python tools/fill_numbers.py --check    # exit 1 if a page and its files disagree

A marked number reads, in a page's Markdown (hidden where the page is shown)::

    <!-- number: FILE :: PATH :: FORMAT -->49.75<!-- /number -->

``FILE`` is a JSON file, relative to the project root. ``PATH`` is a JMESPath
expression (https://jmespath.org) that selects exactly one number in it, e.g.
``games."4 players".standings[?policy=='expert:lead=follow'].win_rate``
(a filter that matches one item counts as one number). ``FORMAT`` is a Python
format specification (``.2f``, ``,d``, ``.1%``), after ``x100`` for
percentage points without the sign (``x100 .2f``: 0.4975 -> ``49.75``).  The
text between the marker and ``<!-- /number -->`` is what the format makes of
the number; ``tests/docs/test_fill_numbers.py`` fails when it is not.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import jmespath

ROOT = Path(__file__).resolve().parent.parent

MARKER = re.compile(
    r"<!-- number: (?P<file>[^<>]+?) :: (?P<path>[^<>]+?) :: (?P<format>[^<>]+?) -->"
    r"(?P<value>[^<>]*?)<!-- /number -->"
)


class MarkerError(ValueError):
    """A marker that names no file, selects no single number, or gives a format that cannot be applied."""


def pages(root: Path = ROOT) -> list[Path]:
    """The pages that may hold marked numbers: the README, the user guide and the studies' notes."""
    return [root / "README.md", *sorted((root / "docs").glob("*.md")), *sorted((root / "research").glob("*/README.md"))]


def number(root: Path, file: str, path: str, fmt: str) -> str:
    """The number ``path`` selects in ``file`` (under ``root``), formatted by ``fmt``."""
    source = root / file
    try:
        data = json.loads(source.read_text())
    except (OSError, ValueError) as exc:
        raise MarkerError(f"{file}: cannot read it as JSON ({exc})") from None
    try:
        found = jmespath.search(path, data)
    except jmespath.exceptions.JMESPathError as exc:
        reason = " ".join(str(getattr(exc, "msg", exc)).split())  # jmespath's own text spans lines, with a caret
        raise MarkerError(f"{file} :: {path}: not a JMESPath expression ({reason})") from None
    if isinstance(found, list):
        if len(found) != 1:
            raise MarkerError(f"{file} :: {path}: selects {len(found)} values; give a path to exactly one")
        found = found[0]
    if isinstance(found, bool) or not isinstance(found, int | float):
        raise MarkerError(f"{file} :: {path}: selects {found!r}, not a number")
    scale, _, spec = fmt.strip().rpartition(" ")
    if scale not in ("", "x100"):
        raise MarkerError(f"format {fmt!r}: give a format specification, after 'x100' for percentage points")
    try:
        return format(found * 100 if scale else found, spec)
    except ValueError as exc:
        raise MarkerError(f"format {fmt!r}: {exc}") from None


def fill(text: str, root: Path = ROOT) -> str:
    """``text`` with every marked number replaced by what its file says."""

    def filled(m: re.Match) -> str:
        start, end = m.start("value") - m.start(), m.end("value") - m.start()
        return m[0][:start] + number(root, m["file"], m["path"], m["format"]) + m[0][end:]

    return MARKER.sub(filled, text)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if any(arg != "--check" for arg in args):  # a misspelt --check would rewrite the pages instead of checking them
        print("fill_numbers.py: the only option is --check", file=sys.stderr)
        return 2
    stale = []
    for page in pages(ROOT):
        text = page.read_text()
        try:
            new = fill(text, ROOT)
        except MarkerError as exc:
            print(f"fill_numbers.py: {page.relative_to(ROOT)}: {exc}", file=sys.stderr)
            return 2
        if new != text:
            stale.append(str(page.relative_to(ROOT)))
            if not args:
                page.write_text(new)
    if args:
        if stale:
            print("stale: " + ", ".join(stale) + " (run python tools/fill_numbers.py)")
        return 1 if stale else 0
    print("rewrote " + (", ".join(stale) if stale else "nothing (all current)"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
