"""``simulate``: play many matches and summarise them (the Python API behind the CLI).

>>> result = simulate(players=2, policies=["first"], matches=200, seed=7)
>>> result.summary["matches"]
200
>>> sum(result.summary["match_wins"])
200
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from bergen_sim._version import __version__
from bergen_sim import stats
from bergen_sim.engine import layout as L
from bergen_sim.runtime.runner import seat_policy_names
from bergen_sim.execution import Job, RunOptions, engine_for, options_for, run_job
from bergen_sim.match_table import ParquetSink, match_frame
from bergen_sim.errors import BergenError
from bergen_sim.rules import Rules, rules_for


@dataclass
class SimulationResult:
    """A run's summary (JSON-ready dict) and, when asked, its per-match rows."""

    summary: dict[str, Any]
    matches: pd.DataFrame | None = None


def summarize(totals: np.ndarray, rules: Rules, policies: Sequence[str], seed: int, elapsed: float) -> dict[str, Any]:
    """The summary of a run from its merged totals (layout ``S_*``)."""
    t = L.TOTALS.decode(totals, widths={"match_wins": rules.sides})
    matches, hands, wins = t["matches"], t["hands"], t["match_wins"]
    return {
        **{name: t[name] for name in L.TOTALS.names("count")},
        "points_by_source": {name.removeprefix("points_"): t[name] for name in L.TOTALS.names("points")},
        "match_wins": wins,
        "match_win_rate": [stats.rate(w, matches) for w in wins],
        "decided_hands": t["decided_hands"],
        "leader_side_hand_wins": t["leader_side_wins"],
        "leader_side_hand_win_rate": stats.rate(t["leader_side_wins"], t["decided_hands"]),
        "hands_per_match": stats.mean(hands, t["hands_sq"], matches),
        "double_headers_per_hand": stats.mean(t["double_headers"], t["double_headers_sq"], hands),
        "triple_headers_per_hand": stats.mean(t["triple_headers"], t["triple_headers_sq"], hands),
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
    players: int = 2,
    partnerships: bool = False,
    preset: str = "standard",
    settings: Mapping[str, Any] | None = None,
    policies: Sequence[str] = ("random",),
    matches: int = 10_000,
    seed: int = 0,
    *,
    rows: bool = False,
    out: str | None = None,
    chunk_size: int | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    checkpoint: str | None = None,
    progress: bool = False,
    rules: Rules | None = None,
    options: RunOptions | None = None,
) -> SimulationResult:
    """Play ``matches`` matches and summarise them.

    ``policies``: one name for every seat or one per seat in seat order.
    ``rows``: also return the per-match rows as a DataFrame; ``out``: stream
    them to a Parquet file (written atomically).  ``workers`` (default: every
    core), ``scheduler`` (``"local"`` or a Dask ``tcp://HOST:PORT``),
    ``checkpoint`` (a folder that makes the run resumable), ``chunk_size`` and
    ``progress`` say how the run is carried out, never what it finds: the
    same arguments and seed always give the same result.  ``rules`` (a
    :class:`Rules`) and ``options`` (a :class:`RunOptions`) may replace the
    rule keywords and the run keywords.
    """
    if matches < 1:
        raise BergenError(f"matches must be at least 1, not {matches}")
    rules = rules_for(rules, players=players, partnerships=partnerships, preset=preset, settings=settings)
    seat_names = tuple(seat_policy_names(policies, rules.players))
    job = Job(rules, seat_names, seed, match_rows=rows or out is not None)
    options = options_for(options, workers=workers, scheduler=scheduler, checkpoint=checkpoint, progress=progress)
    totals = np.zeros(L.S_SIZE, dtype=np.int64)
    frames: list[pd.DataFrame] = []
    meta = {"bergen_sim": json.dumps({"rules": rules.to_dict(), "policies": seat_names, "seed": seed})}
    start = time.perf_counter()
    engine_for(rules, seat_names)  # compile or load the kernel before timing the play
    run = run_job(job, matches, chunk_size, options)
    startup = time.perf_counter() - start
    start = time.perf_counter()
    with ParquetSink(out, meta) if out else contextlib.nullcontext() as sink:
        for chunk in run:
            totals += chunk.totals
            if job.match_rows:
                frame = match_frame(chunk.match_rows, rules.sides)
                if sink:
                    sink.write(frame)
                if rows:
                    frames.append(frame)
    elapsed = time.perf_counter() - start
    summary = summarize(totals, rules, seat_names, seed, elapsed)
    played = totals - run.resumed_totals  # chunks read back from a checkpoint took no time here
    summary["matches_per_s"] = int(played[L.S_MATCHES]) / elapsed if elapsed > 0 else None
    summary["hands_per_s"] = int(played[L.S_HANDS]) / elapsed if elapsed > 0 else None
    summary.update(startup_s=startup, workers=run.workers, scheduler=options.scheduler, resumed_matches=run.resumed)
    return SimulationResult(summary, pd.concat(frames, ignore_index=True) if rows else None)
