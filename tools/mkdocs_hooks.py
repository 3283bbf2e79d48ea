"""MkDocs hook: the pages that live beside docs/ (research/, reports/, CHANGELOG.md, the benchmark results) are part of the site.

They stay where they are in the repository, so their relative links work on a checkout and on the site
alike: a page of docs/ links ``../research/luck-adjustment/README.md`` and the site resolves that link
because the file is registered under the same source path (``../research/...``, relative to docs/), with
a destination inside the site (``research/luck-adjustment/``).  ``mkdocs build --strict`` then checks
those links like any other: a link to a file that is not there fails the build.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.structure.files import File, Files, InclusionLevel

ROOT = Path(__file__).resolve().parent.parent

#: (folder or file of the repository, suffixes of the files of it the site carries; None: that one file)
OUTSIDE_DOCS = (
    ("research", {".md", ".json", ".txt", ".py", ".toml", ".png", ".svg"}),
    ("reports", {".md", ".png", ".svg"}),
    ("CHANGELOG.md", None),
    ("benchmarks/results.md", None),
)


def _site_uri(relative: str) -> str:
    """Where a file of the repository lands in the site: README.md is its folder's page."""
    path = Path(relative)
    if path.name == "README.md":
        return str(path.parent / "index.html")
    if path.suffix == ".md":
        return str(path.with_suffix("") / "index.html")
    return relative


def on_files(files: Files, config) -> Files:
    docs = Path(config["docs_dir"]).resolve()
    for name, suffixes in OUTSIDE_DOCS:
        top = ROOT / name
        paths = [top] if suffixes is None else sorted(p for p in top.rglob("*") if p.is_file() and p.suffix in suffixes)
        for path in paths:
            relative = path.relative_to(ROOT).as_posix()
            # included explicitly: a source path that starts with ".." would match the default exclusion of hidden
            # files; NOT_IN_NAV because only some of these pages are in the nav, and none must be
            files.append(
                File(
                    Path("..", relative).as_posix(),
                    str(docs),
                    config["site_dir"],
                    config["use_directory_urls"],
                    dest_uri=_site_uri(relative),
                    inclusion=InclusionLevel.NOT_IN_NAV,
                )
            )
    return files
