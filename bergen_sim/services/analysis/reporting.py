"""Analyses: questions about the game answered by simulation, as tables, figures and reports.

An *analysis* is a Python file in an ``analyses/`` folder (the project's, or
one the user names with ``--analyses-dir``: a folder's code runs only when the
user points at it, never because it lies in the current folder); the file
name is its name.  It defines:

- ``TITLE`` (a short heading) and a module docstring (the question, in words);
- ``run(ctx) -> dict[str, DataFrame]``: plays what it needs through
  ``ctx.play`` / ``ctx.tournament`` and returns its tables, every estimate as
  ``x``, ``x_lo``, ``x_hi`` columns (:mod:`bergen_sim.core.stats`) next to its
  sample size;
- ``findings(tables) -> list[str]``: plain-language findings written from the
  numbers in the tables (the direction of every statement chosen by the data);
- optionally ``key_findings(tables) -> list[str]``: the few findings a player
  reads first, in plain words with their interval and unit (the page and the
  index open with them);
- optionally ``figures(tables) -> list[Chart]`` (:mod:`bergen_sim.services.analysis.figures`),
  ``SHOW`` (table name -> caption, or (caption, selection) where the
  selection is a pandas query string or a function of the table returning the
  rows to print: which tables the report prints) and
  ``METHOD`` (analysis-specific method notes).

:func:`run` runs one analysis and returns an :class:`AnalysisResult` (the
notebook API); :func:`save` writes its tables as Parquet with the rules,
seeds, sample sizes and version in the file metadata and in a JSON sidecar,
its figures as PNG and SVG, and its Markdown page; :func:`write_index` writes
the index page of a report folder.  Nothing here knows any particular analysis.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import glob
import importlib
import importlib.resources
import importlib.util
import json
import math
import os
import re
import shlex
import shutil
import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from bergen_sim._version import __version__
from bergen_sim.core import provenance
from bergen_sim.core.display import html_card
from bergen_sim.core.errors import BergenError, renamed_keyword, shown
from bergen_sim.core.i18n import N_, current, tr, use
from bergen_sim.core.modules import module_from_file
from bergen_sim.core.stats import is_proportion, number
from bergen_sim.engine import layout as L
from bergen_sim.model.rules import Rules
from bergen_sim.runtime.registry import BUILTINS, resolve
from bergen_sim.services.analysis import answers
from bergen_sim.services.analysis import figures as figs
from bergen_sim.services.arguments import (
    ArgumentError,
    given_with_warning,
    old_keywords,
    options_argument,
    policy_names,
)
from bergen_sim.services.comparison import compare, rotation_patterns
from bergen_sim.services.execution.jobs import Job, RunOptions, run_job
from bergen_sim.services.execution.parallel import default_workers
from bergen_sim.services.files.output import is_text, write_file

#: matches per configuration of a full-scale report (each headline number rests on at least this many)
FULL_MATCHES = 1_000_000
#: matches per configuration with ``--quick``
QUICK_MATCHES = 2_000
#: the folder :func:`report` writes in when none is given (``bergen-sim report --out-dir``'s default)
DEFAULT_OUT_DIR = "reports"
#: policies of a ``--quick`` report: the baseline and the realistic player
QUICK_POLICIES = ("random", "expert")
#: the player configurations the analyses compare, by label
#: (the labels are data, the same in every language; a report's text names a table with :func:`table_name`)
TABLES: dict[str, tuple[int, bool]] = {
    N_("2 players"): (2, False),
    N_("3 players"): (3, False),
    N_("4 players"): (4, False),
    N_("4 partnerships"): (4, True),
}
#: key findings per analysis at the top of a report folder's index (the realistic player's come first)
KEY_IN_INDEX = 2
#: rows of a table printed in the Markdown before pointing to the Parquet file
MAX_ROWS = 40
#: the first line of every page and index ``bergen-sim report`` writes: how it knows its own files (it writes over
#: them on the next run, and refuses to write over any other file)
MARKER = "<!-- written by bergen-sim report; the next run rewrites this file -->"
#: the heading of a report folder's index (reports written before MARKER existed open with it)
INDEX_TITLE = N_("# Bergen: simulation reports")


def _shipped_analyses() -> Path:
    """The folder of analyses that ships with the project.

    The repository keeps them in its top-level ``analyses/`` folder; the build
    maps that folder into the package as ``bergen_sim.analyses`` (setup.py),
    so an installed wheel and an editable checkout both find them here.  A
    source tree run without installing falls back to the folder beside the package.
    """
    try:
        return Path(str(importlib.resources.files("bergen_sim.analyses")))
    except ModuleNotFoundError:
        return Path(__file__).resolve().parents[3] / "analyses"  # the checkout holding bergen_sim/services/analysis/


#: the folder of analyses that ships with the project (inside the installed package)
PROJECT_ANALYSES = _shipped_analyses()


class AnalysisError(BergenError, ValueError):
    """An analysis that cannot be found, loaded or run as asked."""


# --- discovery --------------------------------------------------------------------------------


def analysis_dirs(extra: str | os.PathLike | None = None) -> list[Path]:
    """Folders searched for analyses, first match wins: ``extra`` (the user's ``--analyses-dir``), the project's.

    ``./analyses`` is not searched: a report folder or a download unpacked in
    the current folder must not run code the user did not point at.
    """
    if extra is not None and not Path(extra).is_dir():
        raise AnalysisError(f"--analyses-dir {os.fspath(extra)!r} is not a folder")
    found: list[Path] = []
    for folder in (extra, PROJECT_ANALYSES):
        if folder is not None and Path(folder).is_dir() and Path(folder).resolve() not in found:
            found.append(Path(folder).resolve())
    return found


def discover(extra: str | os.PathLike | None = None) -> dict[str, Path]:
    """Analysis name -> file, over :func:`analysis_dirs` (files starting with ``_`` are skipped)."""
    names: dict[str, Path] = {}
    for folder in analysis_dirs(extra):
        for path in sorted(folder.glob("*.py")):
            if not path.name.startswith("_"):
                names.setdefault(path.stem, path)
    return names


#: analyses renamed in this release, old name -> new: the old name still works, with a notice, until the next
RENAMED_ANALYSES = {"strategy_table": "policy_table"}


def current_name(name: str, stacklevel: int = 3) -> str:
    """``name``, or the name that replaced it (:data:`RENAMED_ANALYSES`) with a DeprecationWarning."""
    new = RENAMED_ANALYSES.get(name)
    if new is None:
        return name
    warnings.warn(
        f"analysis {name} is deprecated and goes in the next release: use {new}",
        DeprecationWarning,
        stacklevel=stacklevel,
    )
    return new


def load(name: str, extra: str | os.PathLike | None = None) -> ModuleType:
    """Import the analysis module ``name`` (checked to define TITLE, run and findings)."""
    known = discover(extra)
    if name not in known:
        choices = ", ".join(known) or "none found (no analyses/ folder)"
        raise AnalysisError(f"unknown analysis {name!r}; available: {choices}")
    path = known[name]
    if not is_text(name):
        raise AnalysisError(
            f"analysis {shown(name)} ({shown(os.fspath(path), 80)}): its file name is not UTF-8 text; rename it"
        )
    try:
        module = module_from_file(f"bergen_sim_analysis_{name}", path)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # a broken analysis is named on one line; --verbose shows the traceback
        raise AnalysisError(f"analysis {name!r} ({path}) cannot be loaded: {_one_line(exc)}") from exc
    missing = [attr for attr in ("TITLE", "run", "findings") if not hasattr(module, attr)]
    if missing:
        raise AnalysisError(f"analysis {name!r} ({path}) must define {', '.join(missing)}")
    return module


def table_name(label: str) -> str:
    """A table's label (:data:`TABLES`, or an analysis's own label marked for the catalog) in the language of
    the report's text; a label the catalog does not hold is shown as it is."""
    return tr(label)


def reference_policy(policies: Sequence[str]) -> str:
    """The policy findings quote first: ``random`` (the common baseline) when present."""
    return "random" if "random" in policies else policies[0]


#: the realistic player every headline quotes when it was played, before the random baseline
REALISTIC_POLICY = "expert"


def headline_policies(policies: Sequence[str]) -> list[str]:
    """The policies headline findings quote: ``expert`` (realistic play) and ``random`` (the baseline), if played.

    Falls back to the first policy when neither was played.
    """
    chosen = [s for s in (REALISTIC_POLICY, "random") if s in policies]
    return chosen or [policies[0]]


def default_policies() -> tuple[str, ...]:
    """Every built-in policy that does not search, found at run time (so new policies appear in the reports).

    Search policies (``pimc``, ``reader``, ``ismcts``: the built-ins whose
    kernels need a match-value table, ``kernel_arrays``) are thousands of
    times slower per match; a report names them explicitly (``--policy``)
    when it wants them.  (``expert`` has a setting, its lead rule, and plays
    with its default.)
    """
    return tuple(
        name
        for name, (module, _, _) in BUILTINS.items()
        if not hasattr(importlib.import_module(module), "kernel_arrays")
    )


# --- playing ----------------------------------------------------------------------------------


class PerMatch:
    """Per-match values a ``collect`` function keeps whole instead of summing: chunk after chunk, in match order.

    Two configurations played from the same seed meet the same deals match by
    match, so their per-match values (``PerMatch(wins_per_match)``) line up
    index by index for a paired comparison
    (:func:`bergen_sim.core.stats.paired_ratio_difference`).  Costs memory in
    proportion to the matches (8 bytes per value).
    """

    def __init__(self, values: Any):
        self.parts = [np.asarray(values)]

    @property
    def values(self) -> np.ndarray:
        """All chunks' values, concatenated in match order."""
        if len(self.parts) > 1:
            self.parts = [np.concatenate(self.parts)]
        return self.parts[0]


def _add(total: Any, part: Any) -> Any:
    """Add one chunk's sums to the running total (arrays, pandas objects or dicts of them; PerMatch appends)."""
    if total is None:
        return part
    if isinstance(part, PerMatch):
        total.parts.extend(part.parts)
        return total
    if isinstance(part, dict):
        return {key: _add(total.get(key), value) for key, value in part.items()}
    if isinstance(part, (pd.DataFrame, pd.Series)):
        return total.add(part, fill_value=0)
    return total + part


@dataclass
class Played:
    """A finished run: its rules and seat policies, merged totals (``S_*``) and collected sums."""

    rules: Rules
    policies: tuple[str, ...]
    matches: int
    totals: np.ndarray
    sums: Any

    @property
    def counts(self) -> L.Named:
        """The totals by name: ``played.counts["hands"]``, ``played.counts["match_wins"][side]``."""
        return L.TOTALS.named(self.totals)


@dataclass
class Context:
    """What an analysis may use: sizes, seed, policies and the means to play.

    ``play`` runs one configuration chunk by chunk; the ``collect`` function
    reduces each chunk to sums (arrays, DataFrames, or dicts of them) that are
    added up, so memory stays flat at any number of matches.  Every run is
    recorded for the report's method section and the files' metadata.
    """

    matches: int = QUICK_MATCHES
    seed: int = 0
    quick: bool = True
    policies: tuple[str, ...] = QUICK_POLICIES
    options: RunOptions | None = None
    log: Callable[[str], None] | None = None
    runs: list[dict[str, Any]] = field(default_factory=list)

    def rules(self, table: str, preset: str = "standard", **settings: Any) -> Rules:
        """Rules for a player configuration of :data:`TABLES` with a preset and settings."""
        players, partnerships = TABLES[table]
        return Rules.make(players=players, partnerships=partnerships, preset=preset, **settings)

    def play(
        self,
        rules: Rules,
        policies: str | Sequence[str],
        collect: Callable[[Any, Rules], Any] | None = None,
        *,
        hand_rows: bool = False,
        match_rows: bool = False,
        matches: int | None = None,
    ) -> Played:
        """Play ``matches`` (default ``self.matches``) with one policy for all seats or one per seat."""
        seats = (policies,) * rules.players if isinstance(policies, str) else tuple(policies)
        n = matches or self.matches
        # one kernel holds every policy of the report, so all its runs share one compile
        kernel = tuple(sorted(set(self.policies) | set(seats)))
        job = Job(rules, seats, self.seed, match_rows=match_rows, hand_rows=hand_rows, kernel_policies=kernel)
        start = time.perf_counter()
        totals = np.zeros(L.S_SIZE, dtype=np.int64)
        sums = None
        for chunk in run_job(job, n, self.options):
            totals += chunk.totals
            if collect is not None:
                sums = _add(sums, collect(chunk, rules))
        elapsed = time.perf_counter() - start
        self._record(
            {
                "kind": "play",
                "rules": rules.to_dict(),
                "policies": list(seats),
                "seed": self.seed,
                "matches": n,
                "hands": int(totals[L.S_HANDS]),
                "elapsed_s": round(elapsed, 3),
            }
        )
        return Played(rules, seats, n, totals, sums)

    def tournament(
        self, rules: Rules, policies: Sequence[str] | None = None, matches: int | None = None
    ) -> pd.DataFrame:
        """A duplicate-deal round-robin of ``policies`` (default: all of the context's) under ``rules``.

        Enough deal sets that every pair plays at least ``matches`` (default
        ``self.matches``) matches.  One row per (policy, opponent), ``opponent == "field"``
        for each policy against all the others, intervals as ``_lo`` / ``_hi`` columns.
        """
        names = list(policies or self.policies)
        deal_sets = math.ceil((matches or self.matches) / len(rotation_patterns(rules)))
        start = time.perf_counter()
        where = dataclasses.replace(self.options or RunOptions(), checkpoint=None, progress=False)
        result = compare(rules, names, deal_sets, self.seed, options=where)
        elapsed = time.perf_counter() - start
        self._record(
            {
                "kind": "tournament",
                "rules": rules.to_dict(),
                "policies": names,
                "seed": self.seed,
                "matches": int(result.meta["matches"]),
                "hands": int(result.meta["hands"]),
                "deal_sets": deal_sets,
                "rotations": result.meta["rotations"],
                "elapsed_s": round(elapsed, 3),
            }
        )
        return result.results.drop(columns=["rank"])

    def _record(self, run: dict[str, Any]) -> None:
        self.runs.append(run)
        if self.log:
            rules = run["rules"]
            where = f"{rules['players']}p{' partnerships' if rules['partnerships'] else ''}"
            self.log(
                f"  {run['kind']} {where} {','.join(dict.fromkeys(run['policies']))}: "
                f"{run['matches']:,} matches in {run['elapsed_s']:.1f} s"
            )


# --- results ----------------------------------------------------------------------------------


@dataclass
class AnalysisResult:
    """One analysis's tables, findings and the metadata saying how they were made.

    Figures are drawn on demand (:meth:`figures`; :func:`save` draws and
    writes them), since drawing costs more than a small run.
    """

    name: str
    title: str
    question: str
    tables: dict[str, pd.DataFrame]
    findings: list[str]
    meta: dict[str, Any]
    show: dict[str, Any]
    method: str = ""
    draw: Callable[[dict[str, pd.DataFrame]], Iterable[figs.Chart]] | None = None
    path: str = ""  # the analysis's file, named in its error messages
    lang: str = "en"  # the language of its key findings, and so of its page (bergen_sim.core.i18n)

    def figures(self) -> list[figs.Chart]:
        """The analysis's figures drawn from its tables (matplotlib figures; empty if it has none).

        A figure function that raises is one :class:`AnalysisError` naming the analysis.
        """
        if not self.draw:
            return []
        where = f"analysis {self.name!r}{f' ({self.path})' if self.path else ''}"
        try:
            drawn = self.draw(self.tables)
        except BergenError:
            raise
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # SystemExit, GeneratorExit...: a failure of this analysis, not of the command
            raise AnalysisError(f"{where}: figures() raised {_one_line(exc)}") from exc
        return _checked_charts(drawn, where)

    def __repr__(self) -> str:
        return (
            f"AnalysisResult({self.name!r}: {len(self.tables)} tables ({', '.join(self.tables)}), "
            f"{len(self.findings)} findings, {self.meta['total_matches']:,} matches)"
        )

    def _repr_html_(self) -> str:
        shown = {name.replace("_", " "): display_frame(self.tables[name].head(MAX_ROWS)) for name in self.show}
        return html_card(
            f"{self.title} ({self.meta['total_matches']:,} matches)",
            [*self.meta.get("key_findings", []), *self.findings],
            shown,
        )


#: what a chart's name (its files' stem) may contain
_CHART_NAME = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")


def _close_figures(values: Iterable[Any]) -> None:
    """Close the matplotlib figures of the charts among ``values`` (a refused list is not drawn)."""
    for value in values:
        if isinstance(value, figs.Chart) and isinstance(value.figure, figs.Figure):
            figs.plt.close(value.figure)


def _checked_charts(drawn: Any, where: str) -> list[figs.Chart]:
    """``figures()``'s return value checked to be a list of Chart with distinct file-safe names and captions."""
    allowed = (
        "must return a list of Chart (bergen_sim.services.analysis.figures.Chart: a name of letters, digits, '_', '-' or '.', "
        "a matplotlib Figure and a caption)"
    )
    if isinstance(drawn, (str, bytes, Mapping, figs.Chart)) or not isinstance(drawn, Iterable):
        _close_figures([drawn])
        raise AnalysisError(f"{where}: figures() {allowed}, not {_kind(drawn)}")
    try:
        charts = list(drawn)
    except (BergenError, KeyboardInterrupt):
        raise
    except BaseException as exc:
        raise AnalysisError(f"{where}: figures() raised {_one_line(exc)}") from exc
    problem = None
    names: set[str] = set()
    for k, chart in enumerate(charts):
        if not isinstance(chart, figs.Chart):
            problem = f"item {k} is {_kind(chart)}"
        elif not isinstance(chart.figure, figs.Figure):
            problem = f"chart {k}'s figure is {_kind(chart.figure)}, not a matplotlib Figure"
        elif not isinstance(chart.caption, str):
            problem = f"chart {k}'s caption is {_kind(chart.caption)}, not str"
        elif (
            not isinstance(chart.name, str)
            or not chart.name
            or chart.name.startswith(".")
            or not set(chart.name) <= _CHART_NAME
        ):
            problem = (
                f"chart {k}'s name is {shown(chart.name, 40) if isinstance(chart.name, str) else _kind(chart.name)}"
            )
        elif chart.name in names:
            problem = f"two charts are named {chart.name!r}"
        if problem:
            _close_figures(charts)
            raise AnalysisError(f"{where}: figures() {allowed}; {problem}")
        names.add(chart.name)
    return charts


def _checked_show(show: Any, tables: Mapping[str, pd.DataFrame], where: str) -> dict[str, Any]:
    """``SHOW`` checked: table name (one run() returned) -> caption, or (caption, selection)."""
    allowed = (
        "SHOW must be a dict of table name -> caption (str) or (caption, selection), the selection a pandas "
        "query string or a function of the table"
    )
    existing = ", ".join(tables) or "none"
    if not isinstance(show, Mapping):
        raise AnalysisError(f"{where}: {allowed}, not {_kind(show)}")
    for name, spec in show.items():
        if not isinstance(name, str) or name not in tables:
            raise AnalysisError(
                f"{where}: SHOW names table {shown(name, 40) if isinstance(name, str) else _kind(name)}, "
                f"which run() did not return; its tables: {existing}"
            )
        if isinstance(spec, str):
            continue
        if not (
            isinstance(spec, (tuple, list))
            and len(spec) == 2
            and isinstance(spec[0], str)
            and (spec[1] is None or isinstance(spec[1], str) or callable(spec[1]))
        ):
            raise AnalysisError(
                f"{where}: {allowed}; SHOW[{name!r}] is {_kind(spec)}"
                f"{' ' + shown(repr(spec), 60) if isinstance(spec, (tuple, list)) else ''}"
            )
    return dict(show)


def _selected(result: AnalysisResult, name: str, query: Any) -> pd.DataFrame:
    """The rows of table ``name`` that SHOW selects; a selection that fails is one AnalysisError."""
    frame = result.tables[name]
    if query is None:
        return frame
    where = f"analysis {result.name!r}{f' ({result.path})' if result.path else ''}"
    try:
        chosen = query(frame) if callable(query) else frame.query(query)
    except BergenError:
        raise
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        raise AnalysisError(
            f"{where}: the selection of SHOW[{name!r}] raised {_one_line(exc)}; a selection is a "
            f"pandas query string or a function of the table returning its rows"
        ) from exc
    if not isinstance(chosen, pd.DataFrame):
        raise AnalysisError(
            f"{where}: the selection of SHOW[{name!r}] must give a pandas DataFrame (rows of the "
            f"table), not {_kind(chosen)}"
        )
    return chosen


@dataclass
class Reports:
    """What :func:`report` wrote: each analysis's result and Markdown page, and the folder's index page."""

    index: Path | None  # None when no analysis succeeded
    results: list[AnalysisResult]
    pages: list[Path]
    failed: dict[str, str] = field(default_factory=dict)  # analysis name -> why it failed

    def __repr__(self) -> str:
        failed = f", {len(self.failed)} failed" if self.failed else ""
        return f"Reports({len(self.results)} written{failed}, index {os.fspath(self.index) if self.index else None!r})"

    def _repr_html_(self) -> str:
        notes = [
            f"{r.title}: {page} ({r.meta['total_matches']:,} matches)" for r, page in zip(self.results, self.pages)
        ]
        return html_card(f"reports indexed in {self.index}", notes)


def _command(
    name: str,
    matches: int,
    seed: int,
    quick: bool,
    policies: Sequence[str],
    analyses_dir: str | os.PathLike | None,
    out: str | os.PathLike | None = None,
) -> str:
    """The ``bergen-sim report`` command line that reproduces a result."""
    words = ["bergen-sim", "report", name]
    if quick:
        words.append("--quick")
    if not quick or matches != QUICK_MATCHES:
        words += ["--matches", str(matches)]
    words += ["--seed", str(seed)]
    if tuple(policies) != (QUICK_POLICIES if quick else default_policies()):
        words += ["--policy", ",".join(policies)]
    if analyses_dir is not None:
        words += ["--analyses-dir", os.fspath(analyses_dir)]
    if out is not None:
        words += ["--out-dir", os.fspath(out)]
    return shlex.join(words)


def run(
    name: str,
    matches: int | None = None,
    seed: int = 0,
    quick: bool = False,
    policies: Sequence[str] | None = None,
    analyses_dir: str | os.PathLike | None = None,
    *,
    options: RunOptions | None = None,
    log: Callable[[str], None] | None = None,
    lang: str | None = None,
    **deprecated: Any,
) -> AnalysisResult:
    """Run analysis ``name`` and return its tables, findings and figures.

    ``lang``: the language of its key findings and of the page :func:`save` writes (``"en"`` or ``"da"``;
    default: the language in force, :mod:`bergen_sim.core.i18n`); tables and metadata are the same in every language.

    ``matches``: matches per configuration (default :data:`FULL_MATCHES`, or
    :data:`QUICK_MATCHES` with ``quick``); ``policies``: the policies it
    compares (default every built-in, or :data:`QUICK_POLICIES` with
    ``quick``; ``strategies=``, its old name, still works for this release).
    Every configuration is played from the same ``seed``, so they meet the same
    deals; the same arguments always give the same tables, whatever ``options`` (a :class:`RunOptions`: workers,
    Dask scheduler, chunk size) say about where to play (``chunk_size=``, its old form, still works for this release).

    >>> result = run("header_frequency", matches=200, quick=True)  # doctest: +SKIP
    >>> result.tables["per_hand"].head()  # doctest: +SKIP
    """
    (strategies, chunk_size) = old_keywords("run_analysis", deprecated, ("strategies", "chunk_size"))[0].values()
    policies = renamed_keyword("policies", policies, "strategies", strategies, AnalysisError)
    options = options_argument("run_analysis", options, {"chunk_size": chunk_size})
    name = current_name(name)
    with use(lang):
        return _run(name, matches, seed, quick, policies, analyses_dir, options, log)


def _run(
    name: str,
    matches: int | None,
    seed: int,
    quick: bool,
    policies: Sequence[str] | None,
    analyses_dir: str | os.PathLike | None,
    options: RunOptions | None,
    log: Callable[[str], None] | None,
) -> AnalysisResult:
    module = load(name, analyses_dir)
    matches = matches or (QUICK_MATCHES if quick else FULL_MATCHES)
    if matches < 1:
        raise AnalysisError(f"matches must be at least 1, not {matches}")
    chosen = tuple(check_policies(policies) or (QUICK_POLICIES if quick else default_policies()))
    ctx = Context(matches=matches, seed=seed, quick=quick, policies=chosen, options=options, log=log)
    start = time.perf_counter()
    tables = _call(module, name, "run", ctx)
    if not isinstance(tables, Mapping) or not all(
        isinstance(k, str) and isinstance(v, pd.DataFrame) for k, v in tables.items()
    ):
        raise AnalysisError(
            f"analysis {name!r} ({module.__file__}): run() must return a dict of table name -> "
            f"pandas DataFrame, not {_kind(tables)}"
        )
    tables = dict(tables)
    found = _sentences(module, name, "findings", tables)
    key = _sentences(module, name, "key_findings", tables) if hasattr(module, "key_findings") else []
    elapsed = time.perf_counter() - start
    doc = (module.__doc__ or "").strip()
    meta = {
        "analysis": name,
        "title": module.TITLE,
        "version": __version__,
        "seed": seed,
        "seeds": sorted({r["seed"] for r in ctx.runs}),
        "matches_per_configuration": matches,
        "quick": quick,
        "policies": list(chosen),
        "configurations": len(ctx.runs),
        "total_matches": sum(r["matches"] for r in ctx.runs),
        "total_hands": sum(r.get("hands", 0) for r in ctx.runs),
        "elapsed_s": round(elapsed, 1),
        "workers": "dask " + options.scheduler
        if options and options.scheduler
        else (options.workers if options and options.workers else default_workers()),
        "environment": provenance.environment(),
        "policy_parameters": policy_parameters({p for r in ctx.runs for p in r["policies"]}),
        "command": _command(name, matches, seed, quick, chosen, analyses_dir),
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "key_findings": key,
        "runs": ctx.runs,
    }
    show = _checked_show(
        getattr(module, "SHOW", {table: "" for table in tables}), tables, f"analysis {name!r} ({module.__file__})"
    )
    return AnalysisResult(
        name,
        module.TITLE,
        doc,
        tables,
        found,
        meta,
        show,
        getattr(module, "METHOD", "").strip(),
        getattr(module, "figures", None),
        str(module.__file__),
        current(),
    )


def check_clean_for_full_scale(
    matches: int | None, quick: bool, allow_dirty: bool, out: str | os.PathLike = "reports"
) -> None:
    """Refuse a full-scale run into the package's own checkout while it has uncommitted changes (see :func:`report`).

    Reports written there are the published ones, and each names the commit
    that made it; a report written anywhere else is the user's own.
    """
    full = not quick and (matches or FULL_MATCHES) >= FULL_MATCHES
    if full:
        provenance.check_clean(
            out, allow_dirty, "a full-scale report", "--allow-dirty (options=ReportOptions(allow_dirty=True))"
        )


def check_policies(policies: str | Sequence[str] | None) -> list[str] | None:
    """The policies asked for (``--policy``, a comma-separated string or a list), checked before anything runs.

    None (not given) stays None (the default policies); an empty list, an
    empty name, a name listed twice or an unknown policy is one error.
    """
    if policies is None:
        return None
    names = [name.strip() for name in policy_names(policies, "--policy")]  # a string or a list of str
    text = shown(",".join(names), 60)
    if not any(names):
        raise AnalysisError("--policy is empty: give at least one policy, e.g. --policy random,expert")
    if not all(names):
        raise AnalysisError(
            f"--policy {text}: empty name in the list; give at least one policy, names "
            f"separated by commas, e.g. random,expert"
        )
    twice = [name for name in dict.fromkeys(names) if names.count(name) > 1]
    if twice:
        label = twice[0] if len(twice[0]) <= 40 and twice[0].isprintable() else shown(twice[0], 40)
        raise AnalysisError(f"--policy {text}: {label} is listed twice; list each policy once")
    for name in names:
        resolve(name)  # PolicyError naming the available policies
    return names


def _sentences(module: ModuleType, name: str, function: str, tables: dict[str, pd.DataFrame]) -> list[str]:
    """``module.function(tables)`` checked to be a list of sentences."""
    returned = _call(module, name, function, tables)
    where = f"analysis {name!r} ({module.__file__}): {function}() must return a list of sentences (str)"
    if isinstance(returned, (str, bytes, Mapping)) or not isinstance(returned, Iterable):
        raise AnalysisError(f"{where}, not {_kind(returned)}")
    try:
        found = list(returned)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        raise AnalysisError(f"analysis {name!r} ({module.__file__}): {function}() raised {_one_line(exc)}") from exc
    wrong = [_kind(text) for text in found if not isinstance(text, str)]
    if wrong:
        raise AnalysisError(f"{where}, not a list holding {', '.join(dict.fromkeys(wrong))}")
    return found


def policy_parameters(names: Iterable[str]) -> dict[str, dict[str, float]]:
    """The tuned weights of every built-in policy among ``names`` that has them (``expert``'s WEIGHTS).

    A policy module with ``WEIGHTS`` (and ``FEATURES`` naming them) is a
    tuned policy; its weights are part of what a result depends on.  A
    policy whose ``weights`` setting picks another set (``WEIGHT_CHOICES``,
    the vector ``<CHOICE>_WEIGHTS``) is listed under its full name.
    """
    out = {}
    for policy in sorted(set(names)):
        base = policy.split(":")[0]
        if base in BUILTINS:
            module = importlib.import_module(BUILTINS[base][0])
            weights = getattr(module, "WEIGHTS", None)
            params = getattr(module, "PARAMS", {})
            if weights is not None:
                key = base
                if "weights" in params and policy != base:
                    choice = module.WEIGHT_CHOICES[resolve(policy).params[list(params).index("weights")]]
                    if choice != params["weights"].default:
                        weights, key = getattr(module, f"{choice.upper()}_WEIGHTS"), policy
                labels = getattr(module, "FEATURES", range(len(weights)))
                out[key] = {str(k): float(w) for k, w in zip(labels, np.asarray(weights).tolist())}
    return out


def _one_line(exc: BaseException) -> str:
    """``Type: message`` of an exception, on one line (a SyntaxError with its line number)."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _kind(value: Any) -> str:
    return type(value).__name__


def _call(module: ModuleType, name: str, function: str, argument: Any) -> Any:
    """``module.function(argument)``; an exception it raises becomes one AnalysisError naming the file."""
    try:
        return getattr(module, function)(argument)
    except BergenError:  # the user's own input (a policy, a setting): its message says it all
        raise
    except KeyboardInterrupt:  # the user stopping the command, not the analysis failing
        raise
    except (
        BaseException
    ) as exc:  # sys.exit() (or GeneratorExit...) in an analysis would end `report all` without a word
        raise AnalysisError(f"analysis {name!r} ({module.__file__}): {function}() raised {_one_line(exc)}") from exc


@dataclass(frozen=True)
class ReportOptions(RunOptions):
    """How to run a report: the :class:`RunOptions` of its runs, and how the report talks to you.  None of these
    changes the results.

    ``log`` receives a progress line as each analysis starts and ends (default: none); ``warn`` the one line
    that names an analysis that failed, and the index's notes (default: a Python warning); with
    ``tracebacks`` the failure's traceback follows its line.  ``allow_dirty`` lets a full-scale run
    (:data:`FULL_MATCHES` per configuration or more) write into the package's own git checkout while it has
    uncommitted changes, which is refused otherwise: its reports would name a commit that did not make them.
    """

    log: Callable[[str], None] | None = None
    warn: Callable[[str], None] | None = None
    tracebacks: bool = False
    allow_dirty: bool = False

    @classmethod
    def of(cls, run: RunOptions, **report: Any) -> ReportOptions:
        """These report settings over the run options ``run``."""
        return cls(**_run_fields(run), **report)

    def run_options(self) -> RunOptions:
        """The options of the report's runs alone."""
        return RunOptions(**_run_fields(self))


def _run_fields(options: RunOptions) -> dict[str, Any]:
    """The :class:`RunOptions` fields of ``options`` (a :class:`ReportOptions` holds more)."""
    return {part.name: getattr(options, part.name) for part in dataclasses.fields(RunOptions)}


#: ``report``'s keywords of the last release that are now fields of :class:`ReportOptions`
_REPORT_KEYWORDS = ("log", "warn", "tracebacks", "allow_dirty")


def report(
    names: str | Sequence[str] = "all",
    out_dir: str | os.PathLike | None = None,
    *,
    quick: bool = False,
    matches: int | None = None,
    seed: int = 0,
    policies: Sequence[str] | None = None,
    analyses_dir: str | os.PathLike | None = None,
    options: RunOptions | None = None,
    lang: str | None = None,
    **deprecated: Any,
) -> Reports:
    """Run analyses ``names`` (``"all"``, one name or a list) and write their reports in folder ``out_dir``.

    ``out_dir`` defaults to :data:`DEFAULT_OUT_DIR`.  ``options``: how to run, a :class:`RunOptions`, or a
    :class:`ReportOptions`, which adds progress lines (``log``), where failures are told (``warn``,
    ``tracebacks``) and ``allow_dirty``.  Deprecated, working for this release with a DeprecationWarning:
    ``out=`` (``out_dir``), ``strategies=`` (``policies``), ``chunk_size=`` (a field of the options), and
    ``log=``, ``warn=``, ``tracebacks=``, ``allow_dirty=`` (fields of :class:`ReportOptions`).

    A full-scale run (:data:`FULL_MATCHES` per configuration or more) into
    the package's own git checkout while it has uncommitted changes is
    refused unless ``allow_dirty``: its reports would name a commit that did
    not make them.

    Each analysis is :func:`run` with these arguments and :func:`save`-d, then
    the folder's index page is rewritten.  An analysis that fails (cannot be
    imported, raises, returns the wrong type) is named on one line and the
    others still run: :attr:`Reports.failed` lists them.  A report that
    cannot be written raises
    :class:`~bergen_sim.services.files.output.OutputError`.  ``lang``: the language of the
    pages' headings and key findings (default: the language in force).  This
    is ``bergen-sim report``'s Python face.
    """
    renamed, run_old, report_old = old_keywords(
        "report", deprecated, ("strategies", "out"), ("chunk_size",), _REPORT_KEYWORDS
    )
    policies = renamed_keyword("policies", policies, "strategies", renamed["strategies"], AnalysisError)
    out_dir = renamed_keyword("out_dir", out_dir, "out", renamed["out"], AnalysisError)
    run_options = options_argument("report", options, run_old)
    given = given_with_warning("report", "options=ReportOptions(...)", report_old, stacklevel=2)
    if given and isinstance(options, ReportOptions):
        raise ArgumentError(
            "report: give options=ReportOptions(...) or the old keywords log, warn, tracebacks and allow_dirty, not both"
        )
    settings = run_options if isinstance(run_options, ReportOptions) else ReportOptions.of(run_options, **given)
    plan = _Plan(matches, seed, quick, policies, analyses_dir, settings.run_options(), settings.log)
    with use(lang):
        return _report(names, DEFAULT_OUT_DIR if out_dir is None else out_dir, plan, settings)


class _Plan(NamedTuple):
    """What :func:`report` runs every analysis with: :func:`run`'s arguments but its name."""

    matches: int | None
    seed: int
    quick: bool
    policies: Sequence[str] | None
    analyses_dir: str | os.PathLike | None
    options: RunOptions | None
    log: Callable[[str], None] | None


def _report(names: str | Sequence[str], out: str | os.PathLike, plan: _Plan, settings: ReportOptions) -> Reports:
    import traceback

    from bergen_sim.services.files.output import STDOUT, OutputError, check_folder

    say = plan.log or (lambda text: None)
    warn = settings.warn or (lambda text: warnings.warn(text, stacklevel=3))
    tracebacks, allow_dirty = settings.tracebacks, settings.allow_dirty
    known = discover(plan.analyses_dir)
    wanted = [current_name(name, stacklevel=4) for name in ([names] if isinstance(names, str) else names)]
    for name in wanted:
        if name != "all" and name not in known:
            raise AnalysisError(f"unknown analysis {name!r}; available: {', '.join(known) or 'none'}, or all")
    twice = [name for name in dict.fromkeys(wanted) if wanted.count(name) > 1]
    if twice:
        raise AnalysisError(f"analysis {twice[0]} is listed twice; name each analysis once (or all)")
    chosen = list(known) if not wanted or "all" in wanted else wanted
    plan = plan._replace(policies=check_policies(plan.policies))  # before anything runs
    if os.fspath(out) == STDOUT:
        raise OutputError("--out-dir -: a report is a folder of files, it cannot go to standard output")
    for option, folder in (("--out-dir", out), ("--analyses-dir", plan.analyses_dir)):
        if folder is not None and not is_text(os.fspath(folder)):
            raise OutputError(
                f"{option} {shown(os.fspath(folder), 80)}: the folder name is not UTF-8 text, and a "
                f"report quotes it in its pages; use another name"
            )
    check_folder(out, "--out-dir")  # before anything runs
    check_own_files(out, chosen)
    check_clean_for_full_scale(plan.matches, plan.quick, allow_dirty, out)
    results, pages, failed = [], [], {}
    for name in chosen:
        say(f"{name}: running")
        try:
            result = run(name, **plan._asdict())
        except AnalysisError as exc:  # a broken analysis: say so, go on with the others
            failed[name] = str(exc)
            warn(f"{name}: failed: {exc}")
            if tracebacks and exc.__cause__ is not None:
                warn("".join(traceback.format_exception(exc.__cause__)).rstrip())
            continue
        try:
            page = save(result, out)
        except AnalysisError as exc:  # its figures failed: say so, go on with the others
            failed[name] = str(exc)
            warn(f"{name}: failed: {exc}")
            continue
        except OSError as exc:
            raise OutputError(
                f"--out-dir {out}: cannot write the report of {name} "
                f"({exc.strerror or exc}{': ' + str(exc.filename) if exc.filename else ''})"
            ) from None
        say(f"{name}: wrote {page} ({result.meta['total_matches']:,} matches, {result.meta['elapsed_s']:,.0f} s)")
        results.append(result)
        pages.append(page)
    index = None
    if results:
        try:
            index = write_index(out, warn)
        except OSError as exc:
            raise OutputError(f"--out-dir {out}: cannot write the index ({exc.strerror or exc})") from None
    return Reports(index, results, pages, failed)


# --- saving -----------------------------------------------------------------------------------


def _write_parquet(frame: pd.DataFrame, path: Path, meta: Mapping[str, Any]) -> None:
    """Write a table with the run metadata in the file's key-value metadata (into a report's staging folder)."""
    table = pa.Table.from_pandas(frame, preserve_index=False)
    table = table.replace_schema_metadata({**(table.schema.metadata or {}), b"bergen_sim": json.dumps(meta).encode()})
    pq.write_table(table, path)


def read_table(path: str | os.PathLike) -> tuple[pd.DataFrame, dict[str, Any]]:
    """A saved table and the metadata it was written with."""
    table = pq.read_table(path)
    meta = json.loads((table.schema.metadata or {}).get(b"bergen_sim", b"{}"))
    return table.to_pandas(), meta


def save(result: AnalysisResult, out: str | os.PathLike) -> Path:
    """Write a result under ``out``: NAME.md, NAME/tables/*.parquet, NAME/metadata.json, NAME/figures/*.

    Returns the Markdown page's path.
    """
    out = Path(out)
    folder = out / result.name
    result.meta["command"] = _command_with_out(result.meta["command"], out)
    result.meta["provenance"] = provenance.record()
    # the figures drawn and the page rendered before anything is written: an analysis whose figures() or SHOW
    # fails leaves no partial folder
    charts = result.figures()
    try:
        figures = [(chart.caption, figs.path_of(chart, Path(result.name) / "figures")) for chart in charts]
        text = f"{MARKER}\n{markdown_page(result, figures)}"
    except BaseException:
        _close_figures(charts)
        raise
    out.mkdir(parents=True, exist_ok=True)
    _remove_leftovers(out, result.name)
    # everything is written into a new folder beside the report's, then swapped in: a failure or a kill while
    # writing leaves the previous report whole, and nothing is written through a link inside ``out``
    staging = out / f".{result.name}.{os.getpid()}{_STAGING}"
    try:
        shutil.rmtree(staging, ignore_errors=True)
        (staging / "tables").mkdir(parents=True)
        for table_name, frame in result.tables.items():
            _write_parquet(frame, staging / "tables" / f"{table_name}.parquet", {**result.meta, "table": table_name})
        sidecar = {
            **result.meta,
            "question": result.question,
            "findings": result.findings,
            "tables": {k: {"rows": len(v), "columns": list(v.columns)} for k, v in result.tables.items()},
        }
        write_file(staging / "metadata.json", json.dumps(sidecar, indent=1) + "\n")
        for chart in charts:
            figs.save(chart, staging / "figures")
        write_file(staging / _STAGED_PAGE, text)
        page = out / f"{result.name}.md"
        _swap_in(staging, folder, page)
    except BaseException:
        _close_figures(charts)
        shutil.rmtree(staging, ignore_errors=True)
        raise
    _remove_renamed(out, result.name)
    return page


def _remove_renamed(out: Path, name: str) -> None:
    """Remove the report ``name`` replaces (:data:`RENAMED_ANALYSES`) from ``out``, if ``bergen-sim report`` wrote it,
    so the index does not list one report under two names."""
    for old in (old for old, new in RENAMED_ANALYSES.items() if new == name):
        if (out / old).is_dir() and not (out / old).is_symlink() and _own_folder(out / old):
            shutil.rmtree(out / old)
        if (
            (out / f"{old}.md").is_file()
            and not (out / f"{old}.md").is_symlink()
            and _own_page(out / f"{old}.md", False)
        ):
            (out / f"{old}.md").unlink()


#: the ends of the names of a report's staging folder and of the folder it replaces, while :func:`save` swaps
_STAGING, _REPLACED = ".partial", ".replaced"
#: the page's name inside the staging folder, until it is moved beside the report's folder
_STAGED_PAGE = "page.md"


def _swap_in(staging: Path, folder: Path, page: Path) -> None:
    """Put the staged report in place: its folder where ``folder`` was, its page at ``page``.

    Three renames in a row, after every file is written: the old folder (or a
    link in its place: the link itself, never what it points to) moves aside,
    the staged folder takes its name, the page replaces the old page.
    """
    replaced = folder.with_name(f".{folder.name}.{os.getpid()}{_REPLACED}")
    if os.path.lexists(folder):
        os.replace(folder, replaced)
    os.replace(staging, folder)
    os.replace(folder / _STAGED_PAGE, page)
    if replaced.is_symlink() or not replaced.is_dir():
        replaced.unlink(missing_ok=True)
    else:
        shutil.rmtree(replaced, ignore_errors=True)


def _remove_leftovers(out: Path, name: str) -> None:
    """Remove the staging and replaced folders of ``name`` that a killed report left in ``out`` (those of a
    process still running are its own)."""
    for path in out.glob(f".{glob.escape(name)}.*"):
        pid, _, end = path.name[len(name) + 2 :].partition(".")
        if not (pid.isdigit() and f".{end}" in (_STAGING, _REPLACED)) or path.is_symlink() or _running(int(pid)):
            continue
        shutil.rmtree(path, ignore_errors=True)


def _running(pid: int) -> bool:
    """Whether process ``pid`` is alive (this one included)."""
    if pid == os.getpid():
        return False  # this process's own leftovers are from an earlier save that failed
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # alive, another user's
        return True
    return True


def _own_sidecar(path: Path) -> dict[str, Any] | None:
    """The metadata.json :func:`save` wrote in the report folder ``path.parent``, or None if it is another file."""
    try:
        if not path.is_file() or path.stat().st_size > 64 << 20:
            return None
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    needed = ("analysis", "title", "version", "question", "findings", "total_matches", "elapsed_s", "command")
    if isinstance(meta, dict) and meta.get("analysis") == path.parent.name and all(k in meta for k in needed):
        if "strategies" in meta and "policies" not in meta:  # written before the rename: read as it is now
            meta["policies"] = meta.pop("strategies")
        return meta
    return None


def _own_page(path: Path, index: bool) -> bool:
    """Whether the Markdown file ``path`` is a page (or, with ``index``, the index) ``bergen-sim report`` wrote."""
    try:
        with open(path, "rb") as handle:
            text = handle.read(4 << 20).decode("utf-8", errors="replace").replace("\r\n", "\n")
    except OSError:
        return False
    if text.split("\n", 1)[0] == MARKER:
        return True
    if index:  # an index written before MARKER existed (the committed reports/README.md)
        return text.startswith(INDEX_TITLE + "\n") and "\n## Changes since the previous reports\n" in text
    return text.startswith("# ") and "\n- **Reproduce:** `bergen-sim report " in text  # a page from before MARKER


def _own_folder(folder: Path) -> bool:
    """Whether ``folder`` (out/NAME) holds only what :func:`save` writes: its sidecar, or (a run stopped while
    writing the tables) nothing but its own Parquet tables."""
    if _own_sidecar(folder / "metadata.json"):
        return True
    for path in folder.rglob("*"):
        if path.is_dir() and not path.is_symlink():
            continue
        inside = path.relative_to(folder).parts
        if not (len(inside) == 2 and inside[0] == "tables" and path.is_file() and not path.is_symlink()):
            return False
        if path.name.endswith(".partial"):
            continue
        try:
            if b"bergen_sim" not in (pq.read_schema(path).metadata or {}):
                return False
        except Exception:  # not a Parquet file
            return False
    return True


def check_own_files(out: str | os.PathLike, names: Sequence[str]) -> None:
    """Refuse (before anything runs) to write over a file in ``out`` that ``bergen-sim report`` did not write.

    The report writes README.md (the index), NAME.md and the folder NAME/ of
    each analysis; each that exists must be one it wrote before (pages and
    index open with :data:`MARKER`; a folder holds its ``metadata.json``).
    """
    from bergen_sim.services.files.output import OutputError

    out = Path(out)
    targets = [(out / "README.md", "index")] + [
        (p, kind) for name in names for p, kind in ((out / f"{name}.md", "page"), (out / name, "folder"))
    ]
    for path, kind in targets:
        if not os.path.lexists(path):
            continue
        where = path.name + ("/" if kind == "folder" else "")  # a name the report gives it (out may be long)
        if path.is_symlink():
            problem = "is a symbolic link (a report never writes through one)"
        elif kind == "folder":
            if not path.is_dir():
                problem = "exists and is not a folder"
            elif _own_folder(path):
                continue
            else:
                problem = "is a folder that bergen-sim report did not write (it has no report metadata.json)"
        elif not path.is_file():
            problem = "exists and is not a regular file"
        elif _own_page(path, kind == "index"):
            continue
        else:
            problem = "exists and bergen-sim report did not write it"
        raise OutputError(
            f"--out-dir {shown(os.fspath(out), 80)}: {where} {problem}; refusing to write over it: "
            f"give --out-dir a new or empty folder, or one holding only earlier reports"
        )


def _command_with_out(command: str, out: Path) -> str:
    words = shlex.split(command)
    for option in ("--out-dir", "--out"):  # --out: the old spelling, in the metadata of older reports
        if option in words:
            del words[words.index(option) : words.index(option) + 2]
    return shlex.join(words + ["--out-dir", os.fspath(out)])


# --- Markdown ---------------------------------------------------------------------------------


def display_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A table for reading: each ``x``/``x_lo``/``x_hi`` triple becomes one ``x [95% CI]`` column."""
    columns: dict[str, list[str]] = {}
    for column in frame.columns:
        if column.endswith(("_lo", "_hi")) and column[:-3] in frame.columns:
            continue
        if (
            column.endswith(("_adj_lo", "_adj_hi", "_family", "_holm"))
            and column.rsplit("_", 2 if "_adj_" in column else 1)[0] in frame.columns
        ):
            continue
        values = frame[column]
        if f"{column}_lo" in frame.columns and f"{column}_hi" in frame.columns:
            columns[f"{column.replace('_', ' ')} [95% CI]"] = [
                number(v, lo, hi, column) for v, lo, hi in zip(values, frame[f"{column}_lo"], frame[f"{column}_hi"])
            ]
            if f"{column}_adj_lo" in frame.columns:
                columns[f"{column.replace('_', ' ')} [simultaneous 95% CI]"] = [
                    "[" + number(v, lo, hi, column).partition(" [")[2] if math.isfinite(v) else "n/a"
                    for v, lo, hi in zip(values, frame[f"{column}_adj_lo"], frame[f"{column}_adj_hi"])
                ]
        elif pd.api.types.is_integer_dtype(values):
            columns[column.replace("_", " ")] = [f"{int(v):,}" for v in values]
        elif pd.api.types.is_float_dtype(values):
            form = "{:.1%}" if is_proportion(column) else "{:.4g}"
            columns[column.replace("_", " ")] = ["n/a" if pd.isna(v) else form.format(v) for v in values]
        else:
            columns[column.replace("_", " ")] = [str(v) for v in values]
    return pd.DataFrame(columns)


def markdown_table(frame: pd.DataFrame) -> str:
    """A pipe table of already formatted cells."""

    def cell(text: str) -> str:
        return str(text).replace("|", "\\|").replace("\n", " ")

    lines = [
        "| " + " | ".join(cell(c) for c in frame.columns) + " |",
        "|" + "|".join("---" for _ in frame.columns) + "|",
    ]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


def _method(result: AnalysisResult) -> list[str]:
    meta = result.meta
    plays = [r for r in meta["runs"] if r["kind"] == "play"]
    tournaments = [r for r in meta["runs"] if r["kind"] == "tournament"]
    lines = ["## " + tr("Method"), ""]
    hands = f", {meta['total_hands']:,} hands" if meta["total_hands"] else ""
    lines.append(
        f"- **Sample:** {meta['configurations']} configurations (rule set x seat policies), "
        f"{meta['matches_per_configuration']:,} matches per configuration"
        f"{' (tournaments: at least that many per pair)' if tournaments else ''}; "
        f"{meta['total_matches']:,} matches in all{hands}."
    )
    lines.append(
        f"- **Seed:** {meta['seed']} for every configuration. The engine's randomness is keyed on "
        "(seed, match, hand), so every configuration meets the same deals and results do not depend on "
        "how the work was split."
    )
    lines.append(
        f"- **Policies:** {', '.join(meta['policies'])}"
        f"{' (the --quick subset)' if meta['quick'] else ' (every built-in policy)'}."
    )
    lines.append(
        "- **Intervals** (`bergen_sim/core/stats.py`): every estimate carries a 95% confidence interval and its "
        "sample size. Proportions of matches: Wilson score intervals. Means over matches: normal intervals "
        "from the sample variance. Rates and means per hand or per play: ratio estimators with delta-method "
        "intervals clustered by match (hands of one match are not independent); a clustered proportion takes "
        "Agresti and Coull's interval at the sample size that variance implies (its coverage holds in small and "
        "extreme cells). Differences between "
        "configurations played on the same keyed deals: paired by match where the analysis says so, else "
        "Newcombe's method combining the two intervals (conservative when the deals are shared)."
        + (
            " Tournament results: Student-t intervals over deal sets (each deal set played in every seat rotation)."
            if tournaments
            else ""
        )
    )
    lines.append(
        "- **Multiple comparisons:** each family of comparisons the analysis names gets simultaneous 95% "
        "intervals (Bonferroni: every interval of a family of m at level 1 - 0.05/m, so all of them hold their "
        "true values together at least 95% of the time), and a difference is called a difference only when its "
        "simultaneous interval excludes zero; Holm's step-down test, which rejects at least as much, is in the "
        "Parquet tables as the `_holm` column. A comparison that is not a difference states the largest effect its "
        "simultaneous interval leaves possible. Units: % for rates, pp (percentage points) for differences of "
        "rates, points or hands where said."
    )
    if result.method:
        lines.append(f"- **This analysis:** {result.method}")
    lines.append(
        f"- **Reproduce:** `{meta['command']}` (bergen-sim {meta['version']}; "
        f"took {meta['elapsed_s']:,.0f} s here, created {meta['created']})."
    )
    lines.append(f"- **Provenance:** {_provenance_words(meta)}.")
    lines.append(
        f"- **Data:** the tables below are in `{result.name}/tables/*.parquet` (the rules, seeds and "
        f"sample sizes are in each file's metadata and in `{result.name}/metadata.json`)."
    )
    if plays or tournaments:
        lines += ["", "<details><summary>Configurations played</summary>", ""]
        for r in meta["runs"]:
            rules = r["rules"]
            changed = {k: v for k, v in rules.items() if k not in ("players", "partnerships")}
            where = f"{rules['players']} players{' (partnerships)' if rules['partnerships'] else ''}"
            lines.append(
                f"- {r['kind']}: {where}, policies {', '.join(r['policies'])}, {r['matches']:,} matches; "
                f"rules {json.dumps(changed)}"
            )
        lines += ["", "</details>"]
    return lines


def _provenance_words(meta: Mapping[str, Any]) -> str:
    """Commit, clean flag, library versions, workers and tuned weights, in one line."""
    source = meta.get("provenance", {}).get("git")
    words = [
        f"commit {source['commit'][:12]}{' with uncommitted changes' if source['dirty'] else ' (clean tree)'}"
        if source
        else "no git checkout (an installed package)"
    ]
    env = meta.get("environment")
    if env:
        words.append(", ".join(f"{k} {v}" for k, v in env["versions"].items() if v))
        words.append(f"{env['cpus']} CPUs")
    if "workers" in meta:
        words.append(f"workers: {meta['workers']}")
    for policy, weights in meta.get("policy_parameters", {}).items():
        words.append(f"{policy} weights " + ", ".join(f"{k} {v:g}" for k, v in weights.items()))
    return "; ".join(words)


def markdown_page(result: AnalysisResult, figures: Sequence[tuple[str, Path]]) -> str:
    """The Markdown report of one analysis: question, key findings, findings, figures (caption, PNG path), tables,
    method; its title and headings in the language of its key findings (``result.lang``)."""
    with use(result.lang):
        return _markdown_page(result, figures)


def _markdown_page(result: AnalysisResult, figures: Sequence[tuple[str, Path]]) -> str:
    lines = [f"# {tr(result.title)}", "", result.question, ""]
    if result.meta.get("key_findings"):
        lines += ["## " + tr("Key findings"), ""]
        lines += [f"- {text}" for text in result.meta["key_findings"]]
        lines.append("")
    lines += ["## " + tr("Findings"), ""]
    lines += [f"- {text}" for text in result.findings]
    lines.append("")
    if figures:
        lines += ["## " + tr("Figures"), ""]
        for caption, image in figures:
            lines += [
                f"![{caption}]({image.as_posix()})",
                "",
                f"*{caption}* ([SVG]({image.with_suffix('.svg').as_posix()}))",
                "",
            ]
    lines += ["## " + tr("Tables"), ""]
    for name, spec in result.show.items():
        caption, query = (spec, None) if isinstance(spec, str) else spec
        frame = _selected(result, name, query)
        lines += [f"### {name.replace('_', ' ')}", ""]
        if caption:
            lines += [caption, ""]
        lines.append(markdown_table(display_frame(frame.head(MAX_ROWS))))
        rest = len(result.tables[name]) - min(len(frame), MAX_ROWS)
        if rest:
            lines.append(f"\n{rest:,} more rows (not shown) in `{result.name}/tables/{name}.parquet`.")
        lines.append("")
    hidden = [name for name in result.tables if name not in result.show]
    if hidden:
        lines += [f"Also saved: {', '.join(f'`{result.name}/tables/{n}.parquet`' for n in hidden)}.", ""]
    lines += _method(result)
    return "\n".join(lines) + "\n"


#: what changed in the rules or the engine since the previous published reports, newest first; the index
#: (reports/README.md) lists it, so that a reader comparing two sets of reports knows which numbers moved and why
CHANGES = (
    'The `classic` preset now leads `any-double`, as the older rule book says ("the lead player sets down the '
    'first domino (any double)"); it led `highest-double` before, so every classic-preset number here '
    "(variants) is of the new preset. `--set lead=highest-double` plays the old classic game.",
    "Larger sets (double-nine to double-eighteen), the spinner, the any-double lead and 5 to 8 players are new; "
    "the larger_games report covers them. The standard game's rules did not change (the version-1 golden traces "
    "replay event for event), but tiles are now numbered so that every set extends the last, which changes the "
    "keyed deals: for a given seed the matches are not the previous reports', and their numbers differ from "
    "those by sampling error.",
)


#: what the index reads from a sidecar, and the kind each must be (bool is not a whole number here)
_INDEX_FIELDS: dict[str, Callable[[Any], bool]] = {
    "analysis": lambda v: isinstance(v, str) and re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", v) is not None,
    "title": lambda v: isinstance(v, str),
    "question": lambda v: isinstance(v, str),
    "findings": lambda v: isinstance(v, list) and all(isinstance(t, str) for t in v),
    "key_findings": lambda v: v is None or isinstance(v, list) and all(isinstance(t, str) for t in v),
    "total_matches": lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
    "matches_per_configuration": lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
    "elapsed_s": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0,
    "seed": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "quick": lambda v: isinstance(v, bool),
    "policies": lambda v: isinstance(v, list) and all(isinstance(t, str) for t in v),
    "command": lambda v: isinstance(v, str),
}


def sidecar_problem(meta: Mapping[str, Any]) -> str | None:
    """What keeps a report's sidecar out of the index (a field missing or of the wrong kind), or None.

    >>> sidecar_problem({"analysis": "x", "title": 3})
    'title is 3, not text'
    """
    kinds = {
        "findings": "a list of texts",
        "key_findings": "a list of texts",
        "policies": "a list of texts",
        "total_matches": "a whole number",
        "matches_per_configuration": "a whole number",
        "seed": "a whole number",
        "elapsed_s": "a number of seconds",
        "quick": "true or false",
        "analysis": "a report name",
    }
    for key, valid in _INDEX_FIELDS.items():
        if key not in meta and key != "key_findings":
            return f"{key} is missing"
        if not valid(meta.get(key)):
            return f"{key} is {shown(meta.get(key))}, not {kinds.get(key, 'text')}"
    return None


#: characters a sidecar's text may not use as Markdown anywhere: the brackets of links and images, code spans,
#: table cells and escapes (``<`` and ``&`` become HTML entities).  Emphasis (* and _) and parentheses are kept:
#: the findings are written with them, and without brackets or ``<`` they can neither link nor run anything.
_MARKDOWN_SPECIAL = re.compile(r"([\\`\[\]|])")
#: what would open a block (a heading, a list, a quote, a rule) at the start of a text
_BLOCK_START = re.compile(r"^(?:[#+*=-](?=\s|$)|[-*_](?=(?:\s*[-*_]){2,}\s*$)|\d+(?=[.)](?:\s|$)))")


def markdown_text(text: str) -> str:
    """A sidecar's text as inline Markdown that shows it and nothing else: on one line, HTML escaped (``<`` is
    ``&lt;``), and every character that could make a link, an image, a code span or a block escaped.

    >>> print(markdown_text("[x](javascript:alert(1)) <script>"))
    \\[x\\](javascript:alert(1)) &lt;script&gt;
    >>> print(markdown_text("# 2 players: **1.5** points"))
    \\# 2 players: **1.5** points
    """
    one_line = " ".join(str(text).split())
    html_safe = one_line.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", html_safe)
    return _BLOCK_START.sub(lambda m: m[0] + "\\" if m[0][0].isdigit() else "\\" + m[0], escaped, count=1)


def markdown_command(text: str) -> str:
    """A command line as inline code, or (when it holds a backtick or ``<``, ``>``, ``&``, which a code span
    would show raw) as :func:`markdown_text`.

    >>> print(markdown_command("bergen-sim report all --out-dir reports"), markdown_command("a `b` <c>"))
    `bergen-sim report all --out-dir reports` a \\`b\\` &lt;c&gt;
    """
    one_line = " ".join(str(text).split())
    return markdown_text(one_line) if re.search(r"[`<>&]", one_line) else f"`{one_line}`"


def _regenerate_all(command: str) -> str | None:
    """The command that rewrites every report, from one report's ``bergen-sim report NAME ...``, or None."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if words[:2] != ["bergen-sim", "report"] or len(words) < 3:
        return None
    return shlex.join(words[:2] + ["all"] + words[3:])


def write_index(out: str | os.PathLike, warn: Callable[[str], None] | None = None) -> Path:
    """``README.md`` of a report folder: every report saved in it, with its findings and how it was made.

    Built from the ``*/metadata.json`` sidecars, so reports written by
    separate commands into one folder all appear.  A sidecar is data: one
    with a field missing or of the wrong kind is left out, and ``warn`` gets
    one line saying which and why; its texts are escaped
    (:func:`markdown_text`, :func:`markdown_command`), so none makes a link or HTML.
    """
    out = Path(out)
    metas = []
    for path in sorted(out.glob("*/metadata.json")):
        meta = _own_sidecar(path)
        if meta is None:
            continue
        problem = sidecar_problem(meta)
        if problem is None:
            metas.append(meta)
        elif warn is not None:
            warn(f"{shown(os.fspath(path.relative_to(out)), 80)}: left out of the index: {problem}")
    known = list(discover())
    metas.sort(key=lambda m: (known.index(m["analysis"]) if m["analysis"] in known else len(known), m["analysis"]))
    lines = [MARKER, tr(INDEX_TITLE), ""]
    if metas:
        total = sum(m["total_matches"] for m in metas)
        seconds = sum(m["elapsed_s"] for m in metas)
        sizes = sorted({m["matches_per_configuration"] for m in metas})
        lines += [
            f"{len(metas)} analyses, {', '.join(f'{s:,}' for s in sizes)} matches per configuration, "
            f"{total:,} matches in all, {seconds / 60:,.1f} minutes of computing. Every number carries its "
            "sample size and a 95% confidence interval; each report's method section says how they were "
            "computed and gives the command that reproduces it.",
            "",
        ]
        same = {(m["matches_per_configuration"], m["seed"], m["quick"], tuple(m["policies"])) for m in metas}
        regenerate = _regenerate_all(metas[0]["command"])
        if len(same) == 1 and regenerate:
            lines += [f"Regenerate them all: {markdown_command(regenerate)}", ""]
    plain = answers.plain_answers(out, missing=False) if metas else {}
    if plain:
        lines += ["## " + tr("Three questions, answered"), ""]
        for question, answer in plain.items():
            lines += [f"**{question}** {markdown_text(answer)}", ""]
    keyed = [meta for meta in metas if meta.get("key_findings")]
    if keyed:
        lines += ["## " + tr("Key findings"), ""]
        for meta in keyed:
            lines += [
                f"- [{markdown_text(tr(meta['title']))}]({meta['analysis']}.md): "
                + " ".join(markdown_text(t) for t in meta["key_findings"][:KEY_IN_INDEX])
            ]
        lines.append("")
    for meta in metas:
        lines += [
            f"## [{markdown_text(tr(meta['title']))}]({meta['analysis']}.md)",
            "",
            markdown_text(meta["question"].split("\n\n")[0]),
            "",
        ]
        if meta.get("key_findings"):
            lines += ["**" + tr("Key findings") + "**", ""] + [
                f"- {markdown_text(text)}" for text in meta["key_findings"]
            ]
            lines += ["", "<details><summary>" + tr("All findings") + "</summary>", ""]
        lines += [f"- {markdown_text(text)}" for text in meta["findings"]]
        if meta.get("key_findings"):
            lines += ["", "</details>"]
        lines += [
            "",
            f"*{meta['total_matches']:,} matches, {meta['elapsed_s']:,.0f} s; {markdown_command(meta['command'])}*",
            "",
        ]
    lines += ["## " + tr("Changes since the previous reports"), ""] + [f"- {text}" for text in CHANGES] + [""]
    path = out / "README.md"
    write_file(path, "\n".join(lines))
    return path
