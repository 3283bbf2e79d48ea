"""``simulate``: play many matches and summarise them (the Python API behind the CLI).

>>> result = simulate(policies=["first"], matches=200, seed=7)
>>> result.summary["matches"]
200
>>> sum(result.summary["match_wins"])
200
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from bergen_sim._version import __version__
from bergen_sim.core import provenance, stats
from bergen_sim.core.display import ci, html_card
from bergen_sim.core.estimate import Estimate
from bergen_sim.core.limits import MAX_MATCHES, check_range, check_seed
from bergen_sim.engine import layout as L
from bergen_sim.model.rules import Rules
from bergen_sim.runtime.runner import seat_policy_names
from bergen_sim.services.arguments import (
    RULE_KEYWORDS,
    RUN_KEYWORDS,
    flag,
    old_keywords,
    optional_text,
    options_argument,
    policy_names,
    rules_argument,
    whole,
)
from bergen_sim.services.execution.jobs import Job, RunOptions, engine_for, run_job
from bergen_sim.services.files.match_table import FrameSink, check_rows_path, match_frame
from bergen_sim.services.files.output import OutputError, check_folder, raise_failures

if TYPE_CHECKING:  # pandas is imported only when rows are asked for: a summary run starts faster without it
    import pandas as pd


@dataclass
class SimulationResult:
    """A run's summary (JSON-ready dict; every estimate in it an :class:`~bergen_sim.core.estimate.Estimate`'s JSON
    object) and, when asked, its per-match rows."""

    summary: dict[str, Any]
    matches: pd.DataFrame | None = None
    #: identifies this run: in the provenance of its outputs and in every row of its ``out`` file
    run_id: str | None = None

    def _headline(self) -> str:
        s = self.summary
        rules = s["rules"]
        return (
            f"{s['matches']:,} matches, {rules['players']} players"
            f"{' (partnerships)' if rules['partnerships'] else ''}, policies {', '.join(s['policies'])}, "
            f"seed {s['seed']}"
        )

    def __repr__(self) -> str:
        wins = ", ".join(f"{100 * r['value']:.1f}%" for r in self.summary["match_win_rate"])
        rows = "" if self.matches is None else f"; rows: {len(self.matches):,}"
        return f"SimulationResult({self._headline()}; side match wins {wins}{rows})"

    def _repr_html_(self) -> str:
        s = self.summary
        notes = [
            f"side {side} wins {s['match_wins'][side]:,} matches: {ci(Estimate.from_json(record))}"
            for side, record in enumerate(s["match_win_rate"])
        ]
        notes += [
            f"hands per match: {ci(Estimate.from_json(s['hands_per_match']), percent=False)}",
            f"leader's side wins a decided hand: {ci(Estimate.from_json(s['leader_side_hand_win_rate']))}",
            "95% intervals in brackets; .summary has every count, .matches the rows (rows=True)",
        ]
        return html_card(self._headline(), notes)


def _concat(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """The match rows of every chunk as one DataFrame (pandas is imported here, only when rows are asked for)."""
    import pandas as pd

    return pd.concat(frames, ignore_index=True)


#: what each estimate of a summary counts, as its JSON object says
UNITS = {
    "match_win_rate": "share of matches won",
    "leader_side_hand_win_rate": "share of decided hands won by the side that led",
    "hands_per_match": "hands per match",
    "double_headers_per_hand": "double-headers per hand",
    "triple_headers_per_hand": "triple-headers per hand",
}


def summarize(totals: np.ndarray, rules: Rules, policies: Sequence[str], seed: int, elapsed: float) -> dict[str, Any]:
    """The summary of a run from its merged totals (layout ``S_*``)."""
    t = L.TOTALS.decode(totals, widths={"match_wins": rules.sides})
    matches, hands, wins = t["matches"], t["hands"], t["match_wins"]
    return {
        **{name: t[name] for name in L.TOTALS.names("count")},
        "points_by_source": {name.removeprefix("points_"): t[name] for name in L.TOTALS.names("points")},
        "match_wins": wins,
        "match_win_rate": [stats.rate(w, matches, UNITS["match_win_rate"]).to_json() for w in wins],
        "decided_hands": t["decided_hands"],
        "leader_side_hand_wins": t["leader_side_wins"],
        "leader_side_hand_win_rate": stats.per_match_ratio(
            t["leader_side_wins"],
            t["decided_hands"],
            t["leader_side_wins_sq"],
            t["decided_hands_sq"],
            t["leader_side_wins_decided"],
            matches,
            UNITS["leader_side_hand_win_rate"],
            high=1.0,
        ).to_json(),
        "hands_per_match": stats.mean(hands, t["hands_sq"], matches, UNITS["hands_per_match"]).to_json(),
        "double_headers_per_hand": stats.per_match_ratio(
            t["double_headers"],
            hands,
            t["double_headers_sq"],
            t["hands_sq"],
            t["double_headers_hands"],
            matches,
            UNITS["double_headers_per_hand"],
        ).to_json(),
        "triple_headers_per_hand": stats.per_match_ratio(
            t["triple_headers"],
            hands,
            t["triple_headers_sq"],
            t["hands_sq"],
            t["triple_headers_hands"],
            matches,
            UNITS["triple_headers_per_hand"],
        ).to_json(),
        "policy_calls": t["policy_calls"],
        "elapsed_s": elapsed,
        "matches_per_s": matches / elapsed if elapsed > 0 else None,
        "hands_per_s": hands / elapsed if elapsed > 0 else None,
        "rules": rules.to_dict(),
        "policies": list(policies),
        "seed": seed,
        "version": __version__,
    }


def simulate(
    rules: Rules | None = None,
    policies: Sequence[str] = ("random",),
    matches: int = 10_000,
    seed: int = 0,
    *,
    rows: bool = False,
    out: str | None = None,
    options: RunOptions | None = None,
    **deprecated: Any,
) -> SimulationResult:
    """Play ``matches`` matches and summarise them.

    ``rules``: a :class:`Rules` (default the standard two-player game,
    ``Rules.make()``).  ``policies``: one name for every seat or one per
    seat in seat order (a list, or one string with names separated by commas).
    ``rows``: also return the per-match rows as a DataFrame; ``out``: stream
    them to a ``.parquet`` or ``.csv`` file (checked before the run, written
    atomically; ``-`` is CSV on standard output, see :mod:`bergen_sim.services.files.output`).
    If writing ``out`` or the checkpoint fails, the run still plays to the end
    and then raises :class:`~bergen_sim.services.files.output.OutputError` with the finished
    result as its ``result``.  ``options`` (a :class:`RunOptions`: workers,
    a Dask scheduler, a checkpoint folder that makes the run resumable, a
    progress bar, the chunk size) say how the run is carried out, never what
    it finds: the same arguments and seed always give the same result.

    The rule keywords (``players``, ``partnerships``, ``preset``,
    ``settings``) and run keywords (``workers``, ``scheduler``,
    ``checkpoint``, ``progress``, ``chunk_size``) of earlier releases still
    work for this one, with a DeprecationWarning.
    """
    old_rules, old_run = old_keywords("simulate", deprecated, RULE_KEYWORDS, RUN_KEYWORDS)
    rules = rules_argument("simulate", rules, old_rules)
    options = options_argument("simulate", options, old_run)
    matches, seed = whole("matches", matches), whole("seed", seed)
    rows = flag("rows", rows)
    policies = policy_names(policies)
    out = optional_text("out", out)
    check_range("matches", matches, 1, MAX_MATCHES)
    check_seed(seed)
    seat_names = tuple(seat_policy_names(policies, rules.players))
    target = check_rows_path(out) if out is not None else None  # a bad path fails before anything is played
    if options.checkpoint is not None:
        check_folder(options.checkpoint, "--checkpoint")  # ... and before the kernel compiles
    job = Job(rules, seat_names, seed, match_rows=rows or out is not None)
    totals = np.zeros(L.S_SIZE, dtype=np.int64)
    frames: list[pd.DataFrame] = []
    run_id = provenance.new_run_id()
    meta = {
        "bergen_sim": json.dumps(
            {"rules": rules.to_dict(), "policies": seat_names, "seed": seed, "provenance": provenance.record(run_id)}
        )
    }
    start = time.perf_counter()
    run = run_job(job, matches, options)  # first: bad options and checkpoints fail before the kernel loads
    engine_for(rules, seat_names)  # compile or load the kernel before timing the play
    startup = time.perf_counter() - start
    start = time.perf_counter()
    failures: list[str] = []
    sink = FrameSink(target, meta) if target else None
    try:
        for chunk in run:
            totals += chunk.totals
            if job.match_rows:
                frame = match_frame(chunk.match_rows, rules.sides)
                if sink:
                    try:
                        sink.write(frame.assign(run_id=run_id))
                    except OutputError as exc:  # keep playing: the summary of a finished run is never lost
                        failures.append(str(exc))
                        sink = None
                if rows:
                    frames.append(frame)
        if sink:
            sink.close()
            sink = None
    except OutputError as exc:
        failures.append(str(exc))
    finally:
        if sink:
            sink.abort()
    elapsed = time.perf_counter() - start
    summary = summarize(totals, rules, seat_names, seed, elapsed)
    played = totals - run.resumed_totals  # chunks read back from a checkpoint took no time here
    summary["matches_per_s"] = int(played[L.S_MATCHES]) / elapsed if elapsed > 0 else None
    summary["hands_per_s"] = int(played[L.S_HANDS]) / elapsed if elapsed > 0 else None
    summary.update(startup_s=startup, workers=run.workers, scheduler=options.scheduler, resumed_matches=run.resumed)
    result = SimulationResult(summary, _concat(frames) if rows else None, run_id)
    raise_failures(([run.failure] if run.failure else []) + failures, result)
    return result
