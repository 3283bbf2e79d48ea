"""Experiment files: a declared batch of runs (rule sets x sizes x policy sets x seeds), resumable.

An experiment is a TOML file (``bergen-sim run FILE``; documented with a
worked example in docs/experiments.md and examples/experiment.toml)::

    kind = "simulate"          # or "compare": a duplicate-deal round-robin of each policy set
    matches = 2000             # per cell (a compare's size is deals = N, deal sets per pair)
    sizes = [2, 3, "4 partnerships"]
    seeds = [0, 1]
    out_dir = "experiment-out" # folder of the results (relative to the current directory)
    rows = false               # simulate: also keep each cell's per-match rows as Parquet

    [rules.standard]           # a named rule set: a preset and any rule settings
    [rules.no-reserve]
    boneyard_reserve = 0

    [policies]                 # named policy sets: one name for every seat, or one per seat
    random = ["random"]
    greedy = ["greedy"]

Every combination is one *cell*.  A finished cell is saved at once as
``OUT/cells/CELL.json`` (its rows, the cell's full description and the
provenance) and is not played again when the same file is run again: an
interrupted batch resumes where it stopped, and a cell whose description
changed (more matches, another setting) is played anew.  A cell interrupted
midway resumes from its checkpoint (``OUT/checkpoints/CELL``).  At the end
the rows of every cell form one results table, ``OUT/results.csv`` and
``OUT/results.parquet`` (provenance in its metadata), estimates as ``x``,
``x_lo``, ``x_hi`` (95% intervals) with their sample sizes; ``bergen-sim run
--json`` prints the rows with each estimate as one object (:func:`results_json`).

Everything in the file is checked before anything is played, and anything
unknown or wrong is refused in one line (:class:`ExperimentError`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import re
import shutil
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bergen_sim.core import feedback, provenance
from bergen_sim.core.errors import BergenError, shown
from bergen_sim.core.estimate import nest
from bergen_sim.core.limits import (
    MAX_CELLS,
    MAX_CHUNK_SIZE,
    MAX_DEAL_SETS,
    MAX_MATCHES,
    check_chunks,
    check_range,
    check_seed,
    is_whole,
    short_number,
)
from bergen_sim.services.files.output import OutputError, check_folder

if TYPE_CHECKING:
    from bergen_sim.model.rules import Rules
    from bergen_sim.services.execution.jobs import RunOptions

KINDS = ("simulate", "compare")
#: the table sizes an experiment can name: players and partnerships
#: table sizes by label: the player counts of bergen_sim.model.rules.PLAYER_COUNTS and PARTNERSHIP_PLAYERS (written
#: out so that reading an experiment file does not load NumPy; tests/services/test_experiment.py checks they agree)
SIZES: dict[str, tuple[int, bool]] = {
    **{str(n): (n, False) for n in range(2, 9)},
    **{f"{n} partnerships": (n, True) for n in (4, 6, 8)},
}
TOP_KEYS = {"kind", "matches", "deals", "sizes", "seeds", "out_dir", "rows", "rules", "policies", "chunk_size"}
#: old key -> its key now: read for this release, with a notice
OLD_KEYS = {"out": "out_dir"}
DEFAULT_OUT = "experiment-out"
#: characters of a cell's readable name kept in its file names (its digest follows; a file name holds 255 bytes)
MAX_READABLE = 120
RESULTS = "results"  # OUT/results.csv and OUT/results.parquet


class ExperimentError(BergenError, ValueError):
    """An experiment file that cannot be run as written."""


@dataclass(frozen=True)
class Cell:
    """One run of the batch: a rule set, a table size, a policy set and a seed."""

    rule_set: str
    size: str
    policy_set: str
    seed: int
    rules: Mapping[str, Any]  # preset and settings, as in the file
    policies: tuple[str, ...]

    @property
    def players(self) -> int:
        return SIZES[self.size][0]

    @property
    def partnerships(self) -> bool:
        return SIZES[self.size][1]

    def to_rules(self) -> Rules:
        """The cell's rules: its size's table, its rule set's preset and settings."""
        from bergen_sim.model.rules import Rules

        settings = {k: v for k, v in self.rules.items() if k != "preset"}
        return Rules.make(players=self.players, partnerships=self.partnerships, preset=self.rules["preset"], **settings)

    def describe(self, experiment: Experiment) -> dict[str, Any]:
        """Everything the cell's result depends on: a saved cell is reused only if this is unchanged."""
        return {
            "kind": experiment.kind,
            "rule_set": self.rule_set,
            "rules": dict(self.rules),
            "size": self.size,
            "policy_set": self.policy_set,
            "policies": list(self.policies),
            "seed": self.seed,
            "matches": experiment.matches,
            "rows": experiment.rows,
        }

    def key(self, experiment: Experiment) -> str:
        """A file name for the cell: readable names, then a hash of its description."""
        digest = hashlib.sha256(json.dumps(self.describe(experiment), sort_keys=True).encode()).hexdigest()[:10]
        readable = re.sub(r"[^A-Za-z0-9._-]+", "-", f"{self.rule_set}_{self.size}p_{self.policy_set}_seed{self.seed}")
        return f"{readable[:MAX_READABLE]}_{digest}"  # the digest tells cells apart; a file name has 255 bytes

    def label(self) -> dict[str, Any]:
        """The columns that name the cell in the results table."""
        return {"rule_set": self.rule_set, "size": self.size, "policy_set": self.policy_set, "seed": self.seed}


@dataclass
class Experiment:
    """A parsed, checked experiment file."""

    kind: str
    #: a cell's size: matches (simulate) or deal sets per pair (compare)
    matches: int
    cells: list[Cell]
    out: Path
    rows: bool = False
    chunk_size: int | None = None
    source: str = ""

    @property
    def size_text(self) -> str:
        """A cell's size in words: ``2,000 matches`` or ``500 deal sets per pair``."""
        return f"{self.matches:,} {'deal sets per pair' if self.kind == 'compare' else 'matches'}"

    def cell_file(self, cell: Cell) -> Path:
        return self.out / "cells" / f"{cell.key(self)}.json"


def _fail(source: str, message: str) -> ExperimentError:
    return ExperimentError(f"{source}: {message}")


def _whole(source: str, name: str, value: Any, minimum: int | None = None) -> int:
    if not is_whole(value):
        raise _fail(source, f"{name} must be a whole number, not {shown(value)}")
    if minimum is not None and value < minimum:
        raise _fail(source, f"{name} must be at least {minimum}, not {short_number(value)}")
    return value


#: how each table of sets is written, for the message that asks for one (a set the reader then accepts)
_SET_EXAMPLES = {"rules": "[rules.standard]", "policies": 'a line random = ["random"] under [policies]'}


def _names(source: str, key: str, table: Any) -> dict[str, Any]:
    if not isinstance(table, dict) or not table:
        raise _fail(source, f"[{key}] must name at least one set, e.g. {_SET_EXAMPLES[key]}")
    return table


def _size_label(source: str, value: Any) -> str:
    label = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
    if not isinstance(label, str) or label not in SIZES:
        raise _fail(
            source,
            f"sizes: {shown(value)} is not a table size; use 2..8 or "
            "'4 partnerships', '6 partnerships', '8 partnerships'",
        )
    return label


def _rule_set(source: str, name: str, table: Any) -> dict[str, Any]:
    """A rule set's preset and typed settings (checked as ``--set KEY=VALUE`` would be); sizes are checked later."""
    from bergen_sim.model.rules import file_setting

    if not isinstance(table, dict):
        raise _fail(source, f"rules.{name} must be a table of a preset and settings")
    preset = table.get("preset", "standard")
    if not isinstance(preset, str):
        raise _fail(source, f"rules.{name}: preset must be a name, not {shown(preset)}")
    try:
        settings = {key: file_setting(key, value) for key, value in table.items() if key != "preset"}
    except BergenError as exc:
        raise _fail(source, f"rules.{name}: {exc}") from None
    return {"preset": preset, **settings}


def _policy_set(source: str, name: str, value: Any) -> tuple[str, ...]:
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not names or not all(isinstance(n, str) and n.strip() for n in names):
        raise _fail(source, f"policies.{name} must be a policy name or a list of them, not {shown(value)}")
    return tuple(n.strip() for n in names)


def _once(source: str, key: str, values: list[Any], read: Callable[[Any], Any]) -> list[Any]:
    """The grid list ``key`` read value by value, refused if a value comes twice (never merged silently)."""
    seen: dict[Any, Any] = {}
    for value in values:
        item = read(value)
        if item in seen:
            same = "" if seen[item] == value and type(seen[item]) is type(value) else f" (as {shown(seen[item])})"
            raise _fail(source, f"{key}: {shown(value)} is listed twice{same}; give each value once")
        seen[item] = value
    return list(seen)


def _out(source: str, out: Any) -> str:
    """An output folder name: text that is not blank (blank would mean the current folder)."""
    if not isinstance(out, str) or not out.strip():
        raise _fail(source, f"out_dir must be a folder name, not {shown(out)}")
    return out


def _renamed_keys(source: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` with each old key (:data:`OLD_KEYS`) under its name now, and a one-line notice; both is refused."""
    data = dict(data)
    for old, new in OLD_KEYS.items():
        if old in data:
            if new in data:
                raise _fail(source, f"{old} is the old name of {new}: give {new} alone")
            feedback.info(f"{source}: {old} = is deprecated and goes in the next release: use {new} =")
            data[new] = data.pop(old)
    return data


def _size(source: str, kind: str, data: Mapping[str, Any]) -> tuple[str, Any]:
    """The key that sizes a cell and its value: ``matches`` for simulate, ``deals`` (deal sets per pair) for compare.

    A compare's ``matches``, which counted deal sets, still works for this release with a one-line notice.
    """
    if kind == "simulate":
        if "deals" in data:
            raise _fail(source, "deals = sizes a compare; a simulate cell plays matches = N matches")
        return "matches", data.get("matches", 10_000)
    if "matches" in data:
        if "deals" in data:
            raise _fail(source, "matches is the old name of a compare's deals: give deals alone")
        feedback.info(
            f"{source}: matches = in a compare (it counted deal sets) is deprecated and goes in the next release: "
            f"use deals ="
        )
        return "matches", data["matches"]
    return "deals", data.get("deals", 10_000)


def parse(data: Mapping[str, Any], source: str = "experiment", allow_plugins: bool = False) -> Experiment:
    """An :class:`Experiment` from a parsed TOML mapping, every value checked (rules and policies included).

    A policy is looked up last, when everything else has been checked as data,
    and only among the built-ins and installed plug-ins: a
    ``package.module:function`` (whose import runs its code) only with
    ``allow_plugins``, the user's ``run --allow-plugins``.
    """
    from bergen_sim.model.rules import Rules
    from bergen_sim.runtime.registry import resolve  # the registry imports the engine: only when parsing
    from bergen_sim.services.comparison import check_policies

    data = _renamed_keys(source, data)
    unknown = sorted(set(data) - TOP_KEYS)
    if unknown:
        raise _fail(source, f"unknown key {shown(unknown[0])}; an experiment has {', '.join(sorted(TOP_KEYS))}")
    kind = data.get("kind", "simulate")
    if not isinstance(kind, str) or kind not in KINDS:
        raise _fail(source, f"kind must be {' or '.join(repr(k) for k in KINDS)}, not {shown(kind)}")
    size_key, size = _size(source, kind, data)
    matches = _whole(source, size_key, size, 1)
    chunk_size = data.get("chunk_size")
    if chunk_size is not None:
        chunk_size = _whole(source, "chunk_size", chunk_size, 1)
    rows = data.get("rows", False)
    if not isinstance(rows, bool):
        raise _fail(source, f"rows must be true or false, not {shown(rows)}")
    if rows and kind != "simulate":
        raise _fail(source, "rows = true keeps per-match rows of simulate cells; a compare has none")
    sizes = data.get("sizes", [2])
    seeds = data.get("seeds", [0])
    if not isinstance(sizes, list) or not sizes:
        raise _fail(source, f"sizes must be a list of table sizes, e.g. [2, 3], not {shown(sizes)}")
    if not isinstance(seeds, list) or not seeds:
        raise _fail(source, f"seeds must be a list of whole numbers, e.g. [0, 1], not {shown(seeds)}")
    sizes = _once(source, "sizes", sizes, lambda s: _size_label(source, s))
    seeds = _once(source, "seeds", seeds, lambda s: _whole(source, "seeds", s))
    # every number within its limit before any cell plays (a cell would refuse it only when its turn came)
    try:
        for seed in seeds:
            check_seed(seed)
        check_range(size_key, matches, 1, MAX_MATCHES if kind == "simulate" else MAX_DEAL_SETS)
        if chunk_size is not None:
            check_range("chunk_size", chunk_size, 1, MAX_CHUNK_SIZE)
            check_chunks(matches, chunk_size, "chunk_size")
    except BergenError as exc:
        raise _fail(source, str(exc)) from None
    out = _out(source, data.get("out_dir", DEFAULT_OUT))
    rule_tables = _names(source, "rules", data.get("rules", {"standard": {}}))
    policy_values = _names(source, "policies", data.get("policies"))
    # counted from the factors before anything is expanded: a grid of millions would fill memory first
    count = len(rule_tables) * len(sizes) * len(policy_values) * len(seeds)
    if count > MAX_CELLS:
        raise _fail(
            source,
            f"the grid has {count:,} cells ({len(rule_tables):,} rule sets x {len(sizes):,} sizes x "
            f"{len(policy_values):,} policy sets x {len(seeds):,} seeds); at most {MAX_CELLS:,}: "
            "split it into several experiment files",
        )
    rule_sets = {name: _rule_set(source, name, table) for name, table in rule_tables.items()}
    policy_sets = {name: _policy_set(source, name, value) for name, value in policy_values.items()}
    cells = []
    for rule_name, table in rule_sets.items():
        for size in sizes:
            players, partnerships = SIZES[size]
            settings = {k: v for k, v in table.items() if k != "preset"}
            try:
                Rules.make(players=players, partnerships=partnerships, preset=table["preset"], **settings)
            except BergenError as exc:
                raise _fail(source, f"rules.{rule_name} at size {size}: {exc}") from None
            for policy_name, policies in policy_sets.items():
                if kind == "simulate" and len(policies) not in (1, players):
                    raise _fail(
                        source,
                        f"policies.{policy_name} has {len(policies)} names: give one for every "
                        f"seat or one per seat, and size {size} has {players} seats",
                    )
                if kind == "compare" and len(policies) < 2:
                    raise _fail(source, f"policies.{policy_name}: a compare needs at least 2 policies")
                for seed in seeds:
                    cells.append(Cell(rule_name, size, policy_name, seed, table, policies))
    gate = None if allow_plugins else "--allow-plugins"
    for name, policies in policy_sets.items():  # last: an allowed plug-in's import runs its code
        try:
            for policy in policies:
                resolve(policy, gate)
            if kind == "compare":  # the tournament's own check (names listed once), before any cell plays
                check_policies(policies, gate)
        except BergenError as exc:
            raise _fail(source, f"policies.{name}: {str(exc).removeprefix('policies: ')}") from None
    return Experiment(kind, matches, cells, Path(out), rows, chunk_size, source)


#: largest experiment file read: a grid is a few lines, and the TOML reader holds the whole file
MAX_FILE_BYTES = 1_000_000


def read_toml(path: Path) -> dict[str, Any]:
    """The TOML mapping of ``path``, or one line saying why it cannot be read (a UTF-8 byte-order mark is read)."""
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise ExperimentError(f"{path}: no such file") from None
    except OSError as exc:
        raise ExperimentError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if len(raw) > MAX_FILE_BYTES:
        raise ExperimentError(f"{path}: larger than {MAX_FILE_BYTES:,} bytes; an experiment file is a few lines")
    try:
        return tomllib.loads(raw.decode("utf-8").removeprefix("\ufeff"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ExperimentError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:
        raise ExperimentError(f"{path}: arrays or tables nested too deeply; an experiment nests a few levels") from None
    except ValueError:  # int()'s digit limit, hit by the TOML reader
        raise ExperimentError(f"{path}: holds a number of more than 4,300 digits; no setting takes one") from None


def example_path() -> Path:
    """The example experiment file that ships inside the package (``examples/experiment.toml`` in a checkout)."""
    import importlib.resources

    return Path(str(importlib.resources.files("bergen_sim.examples") / "experiment.toml"))


def example_text() -> str:
    """The example experiment file's text."""
    return example_path().read_text(encoding="utf-8")


def load(path: str | os.PathLike, out: str | os.PathLike | None = None, allow_plugins: bool = False) -> Experiment:
    """Read and check an experiment file (``out``, a folder, overrides the file's ``out_dir``).

    ``allow_plugins`` lets a policy named ``package.module:function`` in the
    file be imported (its code runs); without it only built-ins and installed
    plug-ins are taken (see :func:`parse`).
    """
    path = Path(path)
    experiment = parse(read_toml(path), str(path), allow_plugins)
    if out is not None:  # --out-dir '' is refused as out_dir = "" is, not read as the current folder
        experiment.out = Path(_out(str(path), os.fspath(out)))
    # checked before the first cell plays: a folder that cannot be written would lose the cell after playing it
    check_folder(str(experiment.out), "--out-dir" if out is not None else f"{path}: out_dir =")
    return experiment


def _write_json(path: Path, data: Any) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(data, indent=1) + "\n")
        os.replace(tmp, path)  # a cell file is whole or absent: an interrupted batch never reads half a cell
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise OutputError(
            f"cannot save {path} ({exc.strerror or exc}); the cells saved before it are kept: "
            "run the same command again to play the rest"
        ) from None


def rows_digest(rows: list[dict[str, Any]]) -> str:
    """The hash a cell file keeps of its rows, so that rows edited, cut or emptied are not taken as played."""
    return hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()


def _cell_record(experiment: Experiment, cell: Cell, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """What a finished cell's file holds: its description, its rows with their count and hash, the provenance."""
    return {
        "cell": cell.describe(experiment),
        "rows": rows,
        "row_count": len(rows),
        "rows_sha256": rows_digest(rows),
        "provenance": provenance.record(),
    }


def saved_rows(experiment: Experiment, cell: Cell) -> tuple[list[dict[str, Any]] | None, str]:
    """(rows, "") of a finished cell whose file checks against itself, else (None, why it must be played).

    The reason is "" when there is no file (a cell not played yet) or its
    description differs (another cell now); otherwise it says what is
    damaged. A path that cannot be a cell file (a folder, an unreadable
    file) is refused: playing the cell could not save it either.
    """
    path = experiment.cell_file(cell)
    try:
        saved = json.loads(path.read_bytes())
    except FileNotFoundError:
        return None, ""
    except OSError as exc:
        raise ExperimentError(
            f"cell file {path} cannot be read ({exc.strerror or exc}); remove it or make it readable, and run again"
        ) from None
    except RecursionError:
        return None, "nested too deeply to be a cell file"
    except ValueError as exc:  # not JSON, not UTF-8, or a number too long for int()
        return None, f"not a cell file ({type(exc).__name__})"
    if not isinstance(saved, dict) or saved.get("cell") != cell.describe(experiment):
        return None, "" if isinstance(saved, dict) and isinstance(saved.get("cell"), dict) else "not a cell file"
    rows, count = saved.get("rows"), saved.get("row_count")
    if not isinstance(rows, list) or not rows or not all(isinstance(row, dict) for row in rows):
        return None, "it holds no rows"
    if isinstance(count, bool) or count != len(rows) or saved.get("rows_sha256") != rows_digest(rows):
        return None, "its rows do not match the count and hash saved with them"
    return rows, ""


def _finished(play: Callable[[], Any]) -> tuple[Any, str]:
    """A cell's result, and why a file of it (its rows, its checkpoint) could not be written ("" if all were).

    ``simulate`` and ``compare`` raise such a failure after the run, carrying
    its result: the cell was played, and what it found is still shown.
    """
    try:
        return play(), ""
    except OutputError as exc:
        if getattr(exc, "result", None) is None:
            raise
        return exc.result, str(exc)


def _simulate_rows(experiment: Experiment, cell: Cell, options: RunOptions) -> tuple[list[dict], str]:
    from bergen_sim.services.simulation import simulate

    rows_file = experiment.out / "rows" / f"{cell.key(experiment)}.parquet" if experiment.rows else None
    if rows_file:
        rows_file.parent.mkdir(parents=True, exist_ok=True)
    result, failed = _finished(
        lambda: simulate(
            cell.to_rules(),
            list(cell.policies),
            experiment.matches,
            cell.seed,
            out=None if rows_file is None else str(rows_file),
            options=options,
        )
    )
    s = result.summary
    seats = s["policies"]
    sides = len(s["match_wins"])
    rows = []
    for side in range(sides):
        win = s["match_win_rate"][side]
        rows.append(
            {
                **cell.label(),
                "side": side,
                "seats": ",".join(seats[side::sides]),
                "matches": s["matches"],
                "match_wins": s["match_wins"][side],
                "match_win_rate": win["value"],
                "match_win_rate_lo": win["low"],
                "match_win_rate_hi": win["high"],
                "hands_per_match": s["hands_per_match"]["value"],
                "hands_per_match_lo": s["hands_per_match"]["low"],
                "hands_per_match_hi": s["hands_per_match"]["high"],
                "run_id": result.run_id,
            }
        )
    return rows, failed


def _compare_rows(experiment: Experiment, cell: Cell, options: RunOptions) -> tuple[list[dict], str]:
    from bergen_sim.services.comparison import compare

    result, failed = _finished(
        lambda: compare(cell.to_rules(), list(cell.policies), experiment.matches, cell.seed, options=options)
    )
    rows = []
    for _, row in result.standings.iterrows():
        rows.append(
            {
                **cell.label(),
                "policy": row["policy"],
                "rank": int(row["rank"]),
                "matches": int(result.meta["matches"]),
                "win_rate": float(row["win_rate"]),
                "win_rate_lo": float(row["win_rate_lo"]),
                "win_rate_hi": float(row["win_rate_hi"]),
                "points_margin": float(row["points_margin"]),
                "points_margin_lo": float(row["points_margin_lo"]),
                "points_margin_hi": float(row["points_margin_hi"]),
                "win_p_value": float(row["win_p_value"]),
            }
        )
    return rows, failed


def results_json(experiment: Experiment, table: Any) -> list[dict[str, Any]]:
    """The results rows as JSON objects, each ``x``, ``x_lo``, ``x_hi`` as one
    :class:`~bergen_sim.core.estimate.Estimate` object: over the cell's matches (simulate) or its deal sets per
    pair (compare)."""
    from bergen_sim.services.comparison import ESTIMATE_UNITS
    from bergen_sim.services.simulation import UNITS

    rows = json.loads(table.to_json(orient="records", double_precision=15))
    if experiment.kind == "simulate":
        units = {name: UNITS[name] for name in ("match_win_rate", "hands_per_match")}
        return [nest(row, units, row["matches"], "matches") for row in rows]
    units = {name: ESTIMATE_UNITS[name] for name in ("win_rate", "points_margin")}
    return [nest(row, units, experiment.matches, "deal sets") for row in rows]


@dataclass
class ExperimentResult:
    """The results table of a batch and what happened to its cells."""

    table: Any  # pandas DataFrame: the rows of every cell
    played: list[str]
    reused: list[str]
    files: list[Path]
    #: why the results could not all be saved ("" when they were): the table still holds what was played
    unsaved: str = ""

    def __repr__(self) -> str:
        lost = f"; NOT SAVED: {self.unsaved}" if self.unsaved else ""
        return (
            f"ExperimentResult({len(self.played) + len(self.reused)} cells: {len(self.played)} played, "
            f"{len(self.reused)} reused; {len(self.table)} rows{lost})"
        )

    def _repr_html_(self) -> str:
        from bergen_sim.core.display import html_card
        from bergen_sim.services.analysis.reporting import display_frame

        return html_card(
            repr(self),
            [f"written to {', '.join(map(str, self.files))}"],
            {"results (95% intervals in brackets)": display_frame(self.table)},
        )


def run(
    experiment: Experiment,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool = False,
    log: Callable[[str], None] | None = None,
) -> ExperimentResult:
    """Play every cell not already saved, then write and return the results table.

    ``workers`` and ``scheduler`` say where cells are played (never what they find).
    Saved cells are checked first, all of them, before any cell plays. When
    a cell or the table cannot be saved (a full disk, a file size limit),
    no further cell is played and the result holds the rows played so far,
    with ``unsaved`` saying why (the command prints them, then the error).
    """
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    from bergen_sim.services.execution.jobs import RunOptions

    where = RunOptions(workers=workers, scheduler=scheduler, progress=progress, chunk_size=experiment.chunk_size)
    play = _simulate_rows if experiment.kind == "simulate" else _compare_rows
    all_rows, played, reused, unsaved = [], [], [], ""
    saved = [saved_rows(experiment, cell) for cell in experiment.cells]  # every file checked before any cell plays
    for number, (cell, (rows, damaged)) in enumerate(zip(experiment.cells, saved), 1):
        name = f"{cell.rule_set} / {cell.size} / {cell.policy_set} / seed {cell.seed}"
        if rows is not None:
            reused.append(name)
            all_rows.extend(rows)
            if log:
                log(f"[{number}/{len(experiment.cells)}] {name}: done before, reused")
            continue
        if log:
            again = f" again: its saved file {experiment.cell_file(cell)} is damaged ({damaged})" if damaged else ""
            log(f"[{number}/{len(experiment.cells)}] {name}: playing {experiment.size_text}{again}")
        checkpoint = experiment.out / "checkpoints" / cell.key(experiment)
        rows, unsaved = play(experiment, cell, dataclasses.replace(where, checkpoint=str(checkpoint)))
        played.append(name)
        all_rows.extend(rows)
        if unsaved:  # its rows or checkpoint could not be written: shown, not saved as done
            break
        try:
            _write_json(experiment.cell_file(cell), _cell_record(experiment, cell, rows))
        except OutputError as exc:  # what was played is still returned, and printed
            unsaved = str(exc)
            break
        shutil.rmtree(checkpoint, ignore_errors=True)  # the cell file now holds the result
    table = pd.DataFrame(all_rows)
    if unsaved:
        return ExperimentResult(table, played, reused, [], unsaved)
    with contextlib.suppress(OSError):  # every cell finished: no checkpoint is left to keep
        (experiment.out / "checkpoints").rmdir()
    csv_path, parquet_path = experiment.out / f"{RESULTS}.csv", experiment.out / f"{RESULTS}.parquet"
    meta = {
        "experiment": experiment.source,
        "kind": experiment.kind,
        "matches_per_cell": experiment.matches,
        "cells": len(experiment.cells),
        "provenance": provenance.record(),
    }
    arrow = pa.Table.from_pandas(table, preserve_index=False)
    arrow = arrow.replace_schema_metadata({**(arrow.schema.metadata or {}), b"bergen_sim": json.dumps(meta).encode()})
    for path, write in (
        (parquet_path, lambda tmp: pq.write_table(arrow, tmp)),
        (csv_path, lambda tmp: table.to_csv(tmp, index=False)),
    ):
        tmp = path.with_name(f".{path.name}.{os.getpid()}.partial")
        try:
            write(tmp)
            os.replace(tmp, path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink()
            return ExperimentResult(
                table,
                played,
                reused,
                [],
                f"cannot write {path} ({exc.strerror or exc}); every "
                f"cell is saved in {experiment.out / 'cells'}: run the same command again to "
                "write it",
            )
    return ExperimentResult(table, played, reused, [csv_path, parquet_path])


def headline_columns(kind: str) -> Sequence[str]:
    """The columns the command prints (the files keep them all)."""
    if kind == "simulate":
        return (
            "rule_set",
            "size",
            "policy_set",
            "seed",
            "side",
            "seats",
            "matches",
            "match_win_rate",
            "match_win_rate_lo",
            "match_win_rate_hi",
            "hands_per_match",
            "hands_per_match_lo",
            "hands_per_match_hi",
        )
    return (
        "rule_set",
        "size",
        "policy_set",
        "seed",
        "rank",
        "policy",
        "matches",
        "win_rate",
        "win_rate_lo",
        "win_rate_hi",
        "points_margin",
        "points_margin_lo",
        "points_margin_hi",
    )
