"""Numbers in the pages filled from the result files the code wrote: a marker names the file, a path in it, a format.

    python tools/fill_numbers.py            # rewrite every marked number and table of the pages
    python tools/fill_numbers.py --check    # exit 1 if a page and its files disagree

A marked number reads, in a page's Markdown (hidden where the page is shown)::

    <!-- number: FILE :: PATH :: FORMAT -->49.75<!-- /number -->

``FILE`` is a result file, relative to the project root: a JSON file, or a
Parquet table (``reports/NAME/tables/TABLE.parquet``), which reads as a list
of its rows, each an object of its columns.  ``PATH`` is a JMESPath expression
(https://jmespath.org) that selects what the marker shows, e.g.
``games."4 players".standings[?policy=='expert:lead=follow'].win_rate`` or, in a
table, ``[?table=='2 players' && policy=='expert'].[win_rate, win_rate_lo, win_rate_hi]``
(a filter that matches one item counts as that item).  ``FORMAT`` is

- a Python format specification for one number (``.2f``, ``,d``, ``.1%``), whose
  type ``p`` gives percentage points without the sign (``.2p``: 0.4975 -> ``49.75``);
- ``text``, to quote a sentence the file holds (a report's key finding) as it is;
- a template with a ``{}`` field for each value of a list the path selects
  (``{:.2p}% [{:.2p}, {:.2p}]`` -> ``49.75% [49.60, 49.90]``), the fields' specifications as above.

The text between the marker and ``<!-- /number -->`` is what the format makes of
what the path selects; ``tests/docs/test_fill_numbers.py`` fails when it is not.

A marked table is a Markdown table between two markers, each line on its own
with a blank line either side of the table, whose rows the file gives::

    <!-- table: FILE :: PATH :: ROW -->

    | policy | win rate |
    |---|---|
    | `expert` | 73.44% |

    <!-- /table -->

``PATH`` selects a list of rows, each a list of values
(``sort_by([?table=='2 players'], &rank)[].[policy, win_rate]``), and ``ROW`` is
the template of one row (``| `{}` | {:.2p}% |``); the heading and its rule are
the page's own.
"""

from __future__ import annotations

import json
import re
import string
import sys
from pathlib import Path

import jmespath
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent

_FIELDS = r"(?P<file>[^<>]+?) :: (?P<path>[^<>]+?) :: (?P<format>[^<>]+?)"
MARKER = re.compile(rf"<!-- number: {_FIELDS} -->(?P<value>[^<>]*?)<!-- /number -->")
TABLE = re.compile(
    rf"<!-- table: {_FIELDS} -->\n\n(?P<head>\|[^\n]*\n\|[-:| ]+\|\n)(?P<value>(?:\|[^\n]*\n)*)\n<!-- /table -->"
)


class MarkerError(ValueError):
    """A marker that names no readable file, selects nothing it can show, or gives a format that cannot be applied."""


class _Points(string.Formatter):
    """Python's formatting, with the type ``p``: a share in percentage points without the sign."""

    def format_field(self, value, spec: str) -> str:
        if spec.endswith("p"):
            return format(value * 100, spec[:-1] + "f")
        return format(value, spec)


def pages(root: Path = ROOT) -> list[Path]:
    """The pages that may hold marked numbers: the README, the user guide, the research index and the studies' notes."""
    research = [root / "research" / "README.md", *sorted((root / "research").glob("*/README.md"))]
    return [root / "README.md", *sorted((root / "docs").glob("*.md")), *research]


def _load(root: Path, file: str) -> object:
    source = root / file
    try:
        if file.endswith(".parquet"):
            return pq.read_table(source).to_pylist()
        return json.loads(source.read_text())
    except (OSError, ValueError) as exc:
        kind = "a Parquet table" if file.endswith(".parquet") else "JSON"
        reason = " ".join(str(exc).split())
        raise MarkerError(f"{file}: cannot read it as {kind} ({reason})") from None


def _data(root: Path, file: str, cache: dict | None) -> object:
    """``file``'s contents, read once per fill (a page quotes one file many times)."""
    if cache is None:
        return _load(root, file)
    if file not in cache:
        cache[file] = _load(root, file)
    return cache[file]


def _select(data: object, file: str, path: str) -> object:
    try:
        found = jmespath.search(path, data)
    except jmespath.exceptions.JMESPathError as exc:
        reason = " ".join(str(getattr(exc, "msg", exc)).split())  # jmespath's own text spans lines, with a caret
        raise MarkerError(f"{file} :: {path}: not a JMESPath expression ({reason})") from None
    return found


def _shown(value: object) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def _format(found: object, fmt: str, where: str) -> str:
    """``found`` (one value, or a list of them for a template) as ``fmt`` says."""
    fmt = fmt.strip()
    template = fmt if "{" in fmt else "{}" if fmt == "text" else "{:" + fmt + "}"
    values = found if "{" in fmt and isinstance(found, list) else [found]
    if not values or not all(_shown(v) for v in values):
        raise MarkerError(f"{where}: selects {found!r}, not a number or a sentence")
    quotes, spec = fmt == "text", "{" not in fmt and fmt != "text"  # a sentence as it is; one number's specification
    if quotes and not isinstance(found, str) or spec and isinstance(found, str):
        raise MarkerError(f"{where}: selects {found!r}; 'text' quotes a sentence, a format specification a number")
    try:
        shown = _Points().format(template, *values)
    except (ValueError, IndexError, KeyError) as exc:
        raise MarkerError(f"{where}: format {fmt!r} cannot show {found!r} ({exc})") from None
    if "<" in shown or ">" in shown or "\n" in shown:  # it would end the marker or split the line it stands in
        raise MarkerError(f"{where}: selects {found!r}, which holds '<', '>' or a line break")
    return shown


def number(root: Path, file: str, path: str, fmt: str, cache: dict | None = None) -> str:
    """What ``path`` selects in ``file`` (under ``root``), formatted by ``fmt``."""
    found = _select(_data(root, file, cache), file, path)
    template = "{" in fmt
    if isinstance(found, list) and (not template or len(found) == 1 and isinstance(found[0], list)):
        if len(found) != 1:
            raise MarkerError(f"{file} :: {path}: selects {len(found)} values; give a path to exactly one")
        found = found[0]
    return _format(found, fmt, f"{file} :: {path}")


def rows(root: Path, file: str, path: str, row: str, cache: dict | None = None) -> str:
    """The Markdown rows of the list of rows ``path`` selects in ``file``, each formatted by the template ``row``."""
    found = _select(_data(root, file, cache), file, path)
    if not isinstance(found, list) or not found or not all(isinstance(r, list) for r in found):
        raise MarkerError(f"{file} :: {path}: selects {found!r}, not a list of rows (lists of values)")
    return "".join(_format(r, row, f"{file} :: {path}") + "\n" for r in found)


def fill(text: str, root: Path = ROOT) -> str:
    """``text`` with every marked number and table replaced by what its file says."""
    cache: dict = {}

    def filled(m: re.Match, render) -> str:
        start, end = m.start("value") - m.start(), m.end("value") - m.start()
        return m[0][:start] + render(root, m["file"], m["path"], m["format"], cache) + m[0][end:]

    text = TABLE.sub(lambda m: filled(m, rows), text)
    return MARKER.sub(lambda m: filled(m, number), text)


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
