"""Luck-adjusted comparisons: control variates at every chance event (AIVAT-style).

Why: duplicate deals cancel only the luck the two policies share, and play
soon pulls the deals apart, so most of a match's luck stays in a comparison
(``docs/compare.md``).  The AIVAT estimator (Burch et al. 2018, "AIVAT: A New
Variance Reduction Technique for Agent Evaluation in Imperfect Information
Games") removes it: at every chance event it subtracts how much the event's
outcome moved a value function's estimate of the result, minus that
amount's expectation over the event's possible outcomes.  Each such term has
conditional expectation exactly zero given the history before the event, so
the sum over a match (a martingale of bounded length) has expectation zero
and the adjusted result stays unbiased *whatever the value function*; a good
value function makes the terms cancel most of the luck.

The chance events of Bergen are the deals (the hands as sets, given the
scores) and the draws (given the history, the next tile is uniform over the
tiles still in the boneyard, whose order is a uniform shuffle), and the
decisions of a policy that draws random numbers (``random``, ``pimc``'s
sampled worlds): its move is one draw from its distribution given the view,
which ``DECISION_RUNS`` more runs of the same policy estimate.
:mod:`bergen_sim.search.luck_controls` replays the compiled engine's trace of every
match and, at each chance event, evaluates the position after the actual
outcome and after every possible outcome (all tiles of a draw exactly;
sampled deals for a deal) with three basis functions per side: the
match-win table of ``pimc`` at the scores, and the mean over play-outs of
the rest of the hand (each seat played by its own policy where it is a
built-in, else by ``expert``) of that table at the hand's end and of the
side's points in the hand.  Each basis function gives one zero-mean
*control* per side: the sum over the match of (value after the actual
outcome - mean value over the possible outcomes).

The value function is the linear combination of the basis functions that
removes the most variance.  Its coefficients are fitted by least squares of
each per-deal-set outcome (win share, points per hand) on the deal set's
controls (those of the sides played by either policy), **cross-fitted**:
the deal sets are split into two folds by match index parity and each fold
is adjusted with the coefficients fitted on the other.  An adjusted outcome
is ``y - z @ beta`` with ``E[z] = 0`` and ``beta`` fixed by the other fold's
deal sets (independent of this one's), so ``E[y - z @ beta] = E[y]``
exactly, for any outcome ``y``: the win share, and the per-deal-set ratio of
points to hands too (the controls are never divided by anything).  The
adjusted per-deal-set outcomes are then analysed as the raw ones are
(Student-t over deal sets, paired).  The one approximation is that
interval: the coefficients of a fold come from the other fold, so the
adjusted outcomes are not exactly independent (the usual cross-fitting
argument; the dependence vanishes as the folds grow).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import partial

import numpy as np

from bergen_sim.engine import layout as L
from bergen_sim.engine.tileset import no_tiles_for
from bergen_sim.runtime.registry import resolve
from bergen_sim.runtime.runner import Halted, halt_flag
from bergen_sim.search.luck_controls import (
    CONTROLS,
    D_CODE,
    D_PARTNER,
    D_WORLDS,
    DECIDER_WIDTH,
    SAMPLE_KEY,
    Replay,
    luck_controls,
)
from bergen_sim.search.match_value import table_for
from bergen_sim.search.rollout import BASE_POLICIES
from bergen_sim.services.execution.jobs import TARGET_CHUNKS, Job, engine_for
from bergen_sim.services.execution.parallel import default_workers, executor_for

#: the ``adjust`` choices of ``compare``
ADJUSTMENTS = ("none", "luck")
#: sampled deals per dealt hand for the deal's expectation (each used in every seat rotation)
DEAL_SAMPLES = 32
#: the match-win table's and the play-outs' base policy (the one ``pimc`` uses by default)
TABLE_BASE = "expert"
#: play-outs per evaluated position (the dealt hands, each possible tile of a draw); their noise is
#: much of what the adjustment leaves: 16 left 0.46 of the win-rate interval of expert vs greedy, 32 0.38
ROLLOUTS = 32
#: runs of a seat's own policy at each of its decisions, for the expectation of its decision's term (0: no
#: decision terms); a policy that never draws random numbers costs only the runs, which are cheap calls
DECISION_RUNS = 8
#: most play-outs per position a comparison may ask for (``compare --luck-playouts``): hundreds of times the
#: default, far beyond a useful run, and a count the compiled play-outs take
MAX_PLAYOUTS = 10_000
#: matches traced per kernel call (a trace buffer holds 512 rows of 40 integers per match)
TRACE_BATCH = 250
#: most matches per traced chunk (a traced match costs thousands of hand play-outs: keep chunks short)
LUCK_CHUNK = 500
#: fewest deal sets per control in a fold for fitting coefficients (below, the adjustment is left out)
MIN_FOLD_PER_CONTROL = 10
#: fewest deal sets with which a comparison of two policies is adjusted at all: two folds, each with
#: MIN_FOLD_PER_CONTROL deal sets per control of either policy (fewer: the adjusted figures are the raw ones)
MIN_ADJUSTED_DEAL_SETS = 2 * MIN_FOLD_PER_CONTROL * 2 * CONTROLS
#: ridge penalty relative to the mean diagonal of the controls' cross-product (the controls of the two
#: sides of a 2-sided game are exact opposites; the penalty keeps the fit well posed)
RIDGE = 1e-6


def traced_chunk_size(matches: int) -> int:
    """Matches per traced chunk when none is given: about ``TARGET_CHUNKS`` chunks, at most ``LUCK_CHUNK``.

    Why smaller than an untraced run's chunks (at least ``MIN_CHUNK``, 1,000
    matches): a traced match costs thousands of hand play-outs, so even a
    run of a few hundred matches is worth spreading over every worker, and a
    traced run keeps no checkpoint whose chunks a resumed run must find again.

    >>> traced_chunk_size(300), traced_chunk_size(10_000), traced_chunk_size(10**6), traced_chunk_size(5)
    (10, 313, 500, 1)
    """
    return max(1, min(LUCK_CHUNK, -(-matches // TARGET_CHUNKS)))


@dataclass
class TracedChunk:
    """One chunk of a traced job: its match rows (``M_*``) and every side's controls per match."""

    match_rows: np.ndarray  # (matches, M_WIDTH) int64
    controls: np.ndarray  # (matches, MAX_SEATS, CONTROLS) float64


#: the search a luck model may name besides the built-ins (``pimc``, its settings ``worlds`` and ``base``)
SEARCH_MODEL = "pimc"


def model_codes(model: str) -> tuple[int, int]:
    """How the play-outs play a seat modelled by ``model``: (the code of a built-in, ``pimc`` worlds or 0).

    ``model`` is a built-in a play-out can run (``greedy``) or ``pimc`` with
    optional ``worlds`` and ``base`` settings (``pimc:worlds=16``): a small
    search inside every play-out, whose own play-outs play ``base`` and whose
    leaves are valued by the adjustment's table (``TABLE_BASE``'s).  Raises
    ``ValueError`` (the one-line reason) for anything else.

    >>> model_codes("greedy") == (BASE_POLICIES.index("greedy"), 0)
    True
    >>> model_codes("pimc:worlds=16") == (BASE_POLICIES.index("expert"), 16)
    True
    """
    if model in BASE_POLICIES:
        return BASE_POLICIES.index(model), 0
    if model.partition(":")[0] != SEARCH_MODEL:
        raise ValueError(f"the play-outs can play {', '.join(BASE_POLICIES)} or {SEARCH_MODEL}[:worlds=N]")
    worlds, base, partner = resolve(model).params
    if partner != 0:
        raise ValueError(f"{SEARCH_MODEL} in the play-outs takes worlds and base, not partner")
    return base, worlds


def rollout_policies(
    seat_policies: list[str], models: Mapping[str, str] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Per seat, how its play-outs play it: the code of a built-in, and the worlds of a ``pimc`` search
    (0: the built-in plays it).  The model ``models`` names for its policy (the ``luck_models`` of a
    comparison, :func:`model_codes`), else its own policy if a rollout can play it, else ``TABLE_BASE``
    (``pimc`` and plug-ins are too slow or unknown to the compiled play-outs unless named as a model).

    The closer the play-outs are to the real play, the more luck the value function explains; whatever
    plays them, the controls' expectation stays zero, so a model changes only the precision.

    >>> bases, worlds = rollout_policies(["greedy", "pimc"])
    >>> bases.tolist() == [BASE_POLICIES.index("greedy"), BASE_POLICIES.index("expert")], worlds.tolist()
    (True, [0, 0])
    >>> bases, worlds = rollout_policies(["mine:f", "pimc"], {"mine:f": "greedy", "pimc": "pimc:worlds=8"})
    >>> bases.tolist() == [BASE_POLICIES.index("greedy"), BASE_POLICIES.index("expert")], worlds.tolist()
    (True, [0, 8])
    """
    codes = [
        model_codes((models or {}).get(name, name if name in BASE_POLICIES else TABLE_BASE)) for name in seat_policies
    ]
    return (
        np.array([base for base, _ in codes], dtype=np.int64),
        np.array([worlds for _, worlds in codes], dtype=np.int64),
    )


def decider_rows(seat_policies: list[str]) -> np.ndarray:
    """Per seat, how the adjustment runs the seat's own policy again at its decisions (``luck_controls.D_*``).

    A built-in by its plain name, or ``pimc`` whose base is the adjustment's table's (``TABLE_BASE``: the
    table its leaves are valued by must be the one it plays with), is run as the match ran it; any other
    policy (a plug-in, the other searches, a built-in with settings) gets code -1: its decisions add no
    term, which leaves the estimate unbiased and only less precise.

    >>> rows = decider_rows(["pimc:worlds=16", "expert", "ismcts"])
    >>> rows[:3].tolist() == [[BASE_POLICIES.index("expert"), 16, 0], [BASE_POLICIES.index("expert"), 0, 0],
    ...                       [-1, 0, 0]]
    True
    """
    rows = np.zeros((L.MAX_SEATS, DECIDER_WIDTH), dtype=np.int64)
    rows[:, D_CODE] = -1
    for seat, name in enumerate(seat_policies):
        if name in BASE_POLICIES:
            rows[seat, D_CODE] = BASE_POLICIES.index(name)
        elif name.partition(":")[0] == SEARCH_MODEL:
            worlds, base, partner = resolve(name).params
            if BASE_POLICIES[base] == TABLE_BASE:
                rows[seat, D_CODE], rows[seat, D_WORLDS], rows[seat, D_PARTNER] = base, worlds, partner
    return rows


def traced_chunk(
    job: Job,
    first_match: int,
    n_matches: int,
    deal_samples: int | None = None,
    rollouts: int | None = None,
    halt: np.ndarray | None = None,
    models: Mapping[str, str] | None = None,
    decision_runs: int | None = None,
) -> TracedChunk:
    """Play matches of a job with tracing and reduce each to its result and its sides' luck controls.

    ``models``: per policy name, the built-in that plays its seats in the play-outs (:func:`rollout_policies`).

    ``deal_samples``, ``rollouts`` and ``decision_runs`` default to :data:`DEAL_SAMPLES`,
    :data:`ROLLOUTS` and :data:`DECISION_RUNS` as they are when called (``research/luck-adjustment/measure.py`` sets
    them to measure what the play-outs buy).  ``halt``: the run's stop flag
    (:class:`bergen_sim.services.execution.parallel.ThreadWorkers`); once it is set, the chunk
    raises :class:`~bergen_sim.runtime.runner.Halted` after the match it is
    playing or replaying, so a stopped run does not wait for its chunks.
    """
    deal_samples = DEAL_SAMPLES if deal_samples is None else deal_samples
    rollouts = ROLLOUTS if rollouts is None else rollouts
    decision_runs = DECISION_RUNS if decision_runs is None else decision_runs
    rules = job.rules
    engine = engine_for(rules, job.policies, job.kernel_policies)
    rows = np.zeros((n_matches, L.M_WIDTH), dtype=np.int64)
    controls = np.zeros((n_matches, L.MAX_SEATS, CONTROLS), dtype=np.float64)
    replay = Replay(
        rules.to_array(),
        table_for(rules, TABLE_BASE),
        np.uint64((job.seed ^ SAMPLE_KEY) % (1 << 64)),
        np.int64(deal_samples),
        np.int64(rollouts),
        *rollout_policies(engine.policy_names, models),
        decider_rows(engine.policy_names),
        np.int64(decision_runs),
        no_tiles_for(rules.n_tiles),
    )
    flag = halt_flag() if halt is None else halt
    for start in range(0, n_matches, TRACE_BATCH):
        count = min(TRACE_BATCH, n_matches - start)
        trace = engine.trace_rows(job.seed, first_match + start, count, halt=halt)
        read = luck_controls(replay, trace, controls[start : start + count], rows[start : start + count], flag)
        if read != count and flag[0] != 0:
            raise Halted.after(first_match, n_matches, start + read)
        if read != count:  # the kernel's own trace always replays; anything else is a bug here
            raise RuntimeError(f"luck controls: read {read} of {count} traced matches from match {first_match + start}")
    return TracedChunk(rows, controls)


class TracedRun:
    """A job's traced chunks in match order, on the workers or cluster asked for.

    Checkpoints are not kept for traced runs (``compare`` refuses the
    combination), so ``resumed`` is always 0 and no checkpoint ``failure``
    can happen (the attributes a :class:`~bergen_sim.services.execution.jobs.JobRun` has).
    """

    resumed = 0
    failure: str | None = None

    def __init__(
        self,
        job: Job,
        matches: int,
        chunk_size: int,
        workers: int | None,
        scheduler: str | None,
        models: Mapping[str, str] | None = None,
        rollouts: int | None = None,
    ):
        self.job, self.matches, self.chunk_size = job, matches, max(1, min(chunk_size, LUCK_CHUNK))
        self.workers, self.scheduler, self.models = workers or default_workers(), scheduler, dict(models or {})
        self.rollouts = rollouts

    def __iter__(self) -> Iterator[TracedChunk]:
        ranges = [
            (first, min(self.chunk_size, self.matches - first)) for first in range(0, self.matches, self.chunk_size)
        ]
        engine_for(self.job.rules, self.job.policies, self.job.kernel_policies)  # compile here, once
        table_for(self.job.rules, TABLE_BASE)  # build (or load) the table here, not in every worker
        workers = min(self.workers, len(ranges)) if self.scheduler is None else self.workers
        with executor_for(max(workers, 1), self.scheduler) as (executor, in_flight):
            # threads get the executor's halt flag, which it sets if the run stops early (executor_for);
            # a Dask cluster's chunks cannot be reached once sent
            halt = getattr(executor, "halt_flag", None)
            work = partial(traced_chunk, self.job, halt=halt, models=self.models, rollouts=self.rollouts)
            pending = []
            todo = iter(ranges)
            for part in todo:
                pending.append(executor.submit(work, *part))
                if len(pending) >= in_flight:
                    break
            while pending:
                chunk = pending.pop(0).result()
                following = next(todo, None)
                if following is not None:
                    pending.append(executor.submit(work, *following))
                yield chunk


def add_controls(totals: np.ndarray, chunk: TracedChunk, side_policy: np.ndarray, sides: int) -> None:
    """Add a chunk's controls to ``totals[k, deal set]`` for the sides played by policy ``k`` (0: a, 1: b)."""
    idx = chunk.match_rows[:, L.M_MATCH]
    for k in (0, 1):
        mine = np.flatnonzero(side_policy[:sides] == k)
        if len(mine):
            totals[k, idx] += chunk.controls[:, mine, :].sum(axis=1)


def _fit(z: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Ridge least-squares coefficients of ``y`` on ``z`` (both centred on their fold means).

    The penalty, and giving up (no adjustment) below
    ``MIN_FOLD_PER_CONTROL`` deal sets per control, change the variance
    removed, never the unbiasedness (the coefficients come from the other fold).
    """
    n, p = z.shape
    if n < MIN_FOLD_PER_CONTROL * p:  # too few deal sets to fit: no adjustment rather than a noisy one
        return np.zeros(p)
    zc = z - z.mean(axis=0)
    yc = y - y.mean()
    gram = zc.T @ zc
    scale = np.trace(gram) / p if p else 0.0
    if scale <= 0.0:
        return np.zeros(p)
    penalty = scale * RIDGE
    return np.linalg.solve(gram + penalty * np.eye(p), zc.T @ yc)


def cross_fitted(y: np.ndarray, z: np.ndarray) -> np.ndarray:
    """``y - z @ beta``, each deal set's beta fitted on the deal sets of the other fold.

    ``y`` (M,) per-deal-set outcomes, ``z`` (M, p) their controls, whose
    expectation is zero; folds are the even and the odd deal sets.
    """
    folds = np.arange(len(y)) % 2
    adjusted = y.astype(np.float64).copy()
    for fold in (0, 1):
        this, other = folds == fold, folds != fold
        beta = _fit(z[other], y[other])
        adjusted[this] = y[this] - z[this] @ beta
    return adjusted


def adjusted_outcomes(
    win_share: np.ndarray, points: np.ndarray, opponent_points: np.ndarray, controls: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Luck-adjusted per-deal-set win share and points per hand of a pair.

    ``controls`` (2, M, C): the controls of the sides played by the first
    and by the second policy, summed over the deal set's matches.  Every
    outcome is regressed on both policies' controls together.
    """
    z = np.concatenate([controls[0], controls[1]], axis=1)
    return cross_fitted(win_share, z), cross_fitted(points, z), cross_fitted(opponent_points, z)
