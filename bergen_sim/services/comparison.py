"""``compare``: round-robin tournaments on duplicate deals (the Python API behind the CLI).

Why duplicate deals: most of the spread between two policies' results over a
few thousand matches is the luck of the tiles.  The engine's randomness is
keyed on (seed, match, hand), so the same seed and match index deal the same
tiles whatever policies sit at the table.  A *deal set* is one match index
played once in every *seat rotation* of a pair (the same seed, the policies
moved between seats); the luck of the deal then falls on both policies alike
and cancels in their difference.

Design (see ``docs/compare.md``):

- ``matches`` (M) is the number of deal sets per pair; each deal set is
  played in every rotation, so a pair plays ``M * len(rotation_patterns(rules))``
  matches.  All pairs use the same M match indices, so they meet the same deals.
- Rotations: with two sides (2 players, or 4 in partnerships) the two
  policies swap sides (a partnership's two seats share a policy).  With 3 or
  4 players each for themselves, one policy sits alone in each seat in turn
  against copies of the other, and then the other way round (3 players:
  ``abb bab bba baa aba aab``), so each policy holds every seat equally often.
- The unit of independent observation is the deal set.  Per deal set a
  policy's *win share* is the fraction of the set's matches won by a side it
  plays, and its *points per hand* is its sides' points over its side-hands.
  Intervals and p-values are Student-t over deal sets (:func:`bergen_sim.core.stats.paired_interval`),
  so the pairing is accounted for; a policy's result against the field is the
  per-deal-set mean over its opponents, analysed the same way.
- ``adjust="luck"`` adds the same figures luck-adjusted (``adjusted_*``):
  control variates at every deal and draw, cross-fitted over the deal sets
  (:mod:`bergen_sim.services.luck`).

>>> result = compare(policies=["first", "random"], deals=50, seed=3)
>>> result.pairs[["policy", "opponent", "deal_sets", "matches"]].values.tolist()
[['first', 'random', 50, 100]]
>>> sorted(result.standings["policy"])
['first', 'random']
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import os
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from bergen_sim._version import __version__
from bergen_sim.core import provenance
from bergen_sim.core.display import html_card
from bergen_sim.core.errors import BergenError, renamed_keyword
from bergen_sim.core.estimate import nest
from bergen_sim.core.limits import MAX_DEAL_SETS, check_range, check_seed
from bergen_sim.core.stats import paired_interval
from bergen_sim.engine import layout as L
from bergen_sim.model.rules import Rules
from bergen_sim.runtime.registry import resolve
from bergen_sim.search.luck_controls import CONTROLS
from bergen_sim.search.rollout import BASE_POLICIES
from bergen_sim.services.arguments import (
    RULE_KEYWORDS,
    RUN_KEYWORDS,
    flag,
    old_keywords,
    options_argument,
    policy_names,
    rules_argument,
    whole,
)
from bergen_sim.services.execution.jobs import Job, JobRun, RunOptions, engine_for, run_job
from bergen_sim.services.execution.parallel import default_workers
from bergen_sim.services.execution.progress import match_progress
from bergen_sim.services.files.checkpoint import check_own_folder
from bergen_sim.services.files.output import (
    OutputFile,
    check_file,
    check_folder,
    open_output,
    raise_failures,
    strict_json,
)
from bergen_sim.services.luck import (
    ADJUSTMENTS,
    DECISION_RUNS,
    MAX_PLAYOUTS,
    ROLLOUTS,
    SEARCH_MODEL,
    TracedChunk,
    TracedRun,
    add_controls,
    adjusted_outcomes,
    model_codes,
    traced_chunk_size,
)

#: file types ``TournamentResult.write`` knows, by extension
OUT_FORMATS = (".csv", ".parquet", ".json")
#: opponent name of a policy's row against all the others
FIELD = "field"
#: two-sided significance level of the ``*_significant`` columns
ALPHA = 0.05
#: what each figure of a result row counts (its ``adjusted_`` twin counts the same), as its JSON estimate says
_UNITS = {
    "win_rate": "share of matches won",
    "points_per_hand": "points per hand",
    "opponent_points_per_hand": "opponent's points per hand",
    "points_margin": "points per hand more than the opponent",
}
ESTIMATE_UNITS = {**_UNITS, **{f"adjusted_{name}": unit for name, unit in _UNITS.items()}}


class CompareError(BergenError, ValueError):
    """A tournament that cannot be run as asked (policies, matches, output file)."""


def rotation_patterns(rules: Rules) -> list[tuple[int, ...]]:
    """Seat rotations of a pair: per rotation, 0 (first policy) or 1 (second) for each seat.

    >>> rotation_patterns(Rules.make(players=2))
    [(0, 1), (1, 0)]
    >>> rotation_patterns(Rules.make(players=4, partnerships=True))
    [(0, 1, 0, 1), (1, 0, 1, 0)]
    >>> rotation_patterns(Rules.make(players=3))
    [(0, 1, 1), (1, 0, 1), (1, 1, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
    """
    n = rules.players
    if rules.partnerships:
        return [tuple(rules.side_of(s) for s in range(n)), tuple(1 - rules.side_of(s) for s in range(n))]
    patterns: list[tuple[int, ...]] = []
    for alone in (0, 1):
        for seat in range(n):
            pattern = tuple(alone if s == seat else 1 - alone for s in range(n))
            if pattern not in patterns:
                patterns.append(pattern)
    return patterns


def rotation_seed(seed: int, rotation: int) -> int:
    """An unrelated seed per rotation, for the independent-deals baseline."""
    return int(np.random.SeedSequence([seed % (1 << 64), rotation]).generate_state(1, np.uint64)[0])


@dataclass
class PairOutcomes:
    """Per-deal-set outcomes of one pair (arrays indexed by match index)."""

    policy: str
    opponent: str
    matches: int
    win_share: np.ndarray  # fraction of the deal set's matches won by ``policy``
    points: np.ndarray  # ``policy``'s points per side-hand in the deal set
    opponent_points: np.ndarray
    resumed: int = 0  # matches read back from a checkpoint rather than played
    failures: tuple[str, ...] = ()  # why the checkpoint could not be written (the play went on)
    #: luck-adjusted (win share, points, opponent points) per deal set, with ``adjust="luck"``
    adjusted: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    hands: int = 0  # hands played in all the pair's matches (for the totals a report states)


def rotation_jobs(
    rules: Rules, a: str, b: str, seed: int, *, independent: bool = False, field: tuple[str, ...] = ()
) -> list[Job]:
    """One job per seat rotation of (a, b): the same seed (duplicate deals) unless ``independent``.

    ``field``: every policy of the tournament, compiled into one kernel that all pairs share.
    """
    return [
        Job(
            rules,
            tuple((a, b)[k] for k in pattern),
            rotation_seed(seed, r) if independent else seed,
            match_rows=True,
            kernel_policies=tuple(sorted(field)),
        )
        for r, pattern in enumerate(rotation_patterns(rules))
    ]


def _checkpoint_folder(checkpoint: str | None, job: Job) -> str | None:
    """A rotation's own checkpoint subfolder, named after its seat policies (so reordering --policies still resumes)."""
    if checkpoint is None:
        return None
    name = "+".join(re.sub(r"[^A-Za-z0-9._-]", "_", policy) for policy in job.policies)
    if len(name) > 255:  # longer than a file name may be: shortened, a hash of the whole keeping it unique
        name = f"{name[:200]}~{hashlib.sha256(name.encode()).hexdigest()[:16]}"
    return str(Path(checkpoint) / name)


def parse_luck_models(texts: Sequence[str], option: str = "--luck-model", names: Sequence[str] = ()) -> dict[str, str]:
    """``NAME=MODEL`` texts as a ``luck_models`` mapping; :func:`check_luck_models` checks the names.

    Both sides may hold ``=`` (a policy's settings, a ``pimc`` model's): the
    split is after one of the compared policies ``names`` when the text
    starts with one followed by ``=``, else at the last ``=`` followed by a
    model's name (a built-in a play-out runs, or ``pimc``), else at the last ``=``.

    >>> parse_luck_models(["mypkg.mod:choose=greedy", "pimc:worlds=256=expert", "pimc=pimc:worlds=8"])
    {'mypkg.mod:choose': 'greedy', 'pimc:worlds=256': 'expert', 'pimc': 'pimc:worlds=8'}
    >>> parse_luck_models(["pimc:base=greedy=pimc:base=greedy"], names=["pimc:base=greedy", "expert"])
    {'pimc:base=greedy': 'pimc:base=greedy'}
    """
    models: dict[str, str] = {}
    for text in texts:
        splits = [i for i, char in enumerate(text) if char == "="]
        after_name = [i for i in splits if text[:i] in names]
        named = [i for i in splits if text[i + 1 :].partition(":")[0] in BASE_POLICIES + (SEARCH_MODEL,)]
        at = (after_name or named or splits or [-1])[-1]
        name, model = text[:at], text[at + 1 :]
        if at < 0 or not name:
            raise CompareError(
                f"{option} {text!r}: give NAME=MODEL, e.g. mypkg.mod:choose=greedy or pimc=pimc:worlds=8"
            )
        if name in models:
            raise CompareError(
                f"{option} {text!r}: {name!r} is given a model twice ({models[name]!r} and "
                f"{model!r}); give each policy one model"
            )
        models[name] = model
    return models


def check_luck_models(models: Mapping[str, str] | None, names: Sequence[str], adjust: str) -> dict[str, str]:
    """The ``luck_models`` of a comparison, checked: each a policy of the comparison mapped to a model a
    play-out can run (:func:`bergen_sim.services.luck.model_codes`), and only with ``adjust="luck"``.

    >>> check_luck_models({"greedy": "expert"}, ["greedy", "random"], "luck")
    {'greedy': 'expert'}
    >>> check_luck_models({"nosuch": "expert"}, ["greedy", "random"], "luck")
    Traceback (most recent call last):
    ...
    bergen_sim.services.comparison.CompareError: luck model 'nosuch': not one of the compared policies (greedy, random)
    """
    if models is not None and not isinstance(models, Mapping):
        raise CompareError(
            f"luck_models: give a mapping of policy name to built-in, e.g. {{'mine': 'greedy'}}, "
            f"not {type(models).__name__}"
        )
    models = dict(models or {})
    if models and adjust != "luck":
        raise CompareError(
            "luck models: they say how the luck adjustment's play-outs play a policy; give them with --adjust luck"
        )
    for name, model in models.items():
        if name not in names:
            raise CompareError(f"luck model {name!r}: not one of the compared policies ({', '.join(names)})")
        try:
            model_codes(model)
        except (ValueError, BergenError) as error:
            raise CompareError(f"luck model {name}={model}: {error}") from None
    return models


#: deal sets per pair when a comparison is not told how many
DEFAULT_DEALS = 10_000


@dataclass(frozen=True)
class LuckAdjustment:
    """How :func:`play_pair` adjusts for luck (:mod:`bergen_sim.services.luck`): ``models`` maps a policy to the
    model its seats are played by in the play-outs; ``playouts`` per evaluated position (default
    ``bergen_sim.services.luck.ROLLOUTS``)."""

    models: Mapping[str, str] | None = None
    playouts: int | None = None


def play_pair(
    rules: Rules,
    a: str,
    b: str,
    deal_sets: int,
    seed: int,
    *,
    independent: bool = False,
    options: RunOptions | None = None,
    advance: Callable[[int], None] = lambda n: None,
    field: tuple[str, ...] = (),
    luck: LuckAdjustment | None = None,
) -> PairOutcomes:
    """Play every rotation of (a, b) on ``deal_sets`` match indices and reduce them per deal set.

    ``independent`` gives each rotation its own seed (fresh deals): the
    baseline that shows what duplicate deals buy.  ``options`` say how to run
    (workers, scheduler; its checkpoint folder gets one subfolder per
    rotation); ``advance(n)`` is called as matches finish; ``field`` as in
    :func:`rotation_jobs`.  ``luck`` (a :class:`LuckAdjustment`) plays traced matches and adds
    the luck-adjusted outcomes (:mod:`bergen_sim.services.luck`).
    """
    options = options or RunOptions()
    jobs = rotation_jobs(rules, a, b, seed, independent=independent, field=field)
    side_seat = [next(s for s in range(rules.players) if rules.side_of(s) == side) for side in range(rules.sides)]
    wins = np.zeros(deal_sets)
    points = np.zeros((2, deal_sets))
    side_hands = np.zeros((2, deal_sets))
    resumed = hands = 0
    failures: list[str] = []
    controls = np.zeros((2, deal_sets, CONTROLS)) if luck is not None else None
    for job in jobs:
        side_policy = np.array([int(job.policies[s] == b) for s in side_seat])  # 0: a, 1: b, per side
        run: TracedRun | JobRun
        if luck is not None:
            run = TracedRun(
                job,
                deal_sets,
                options.chunk_size or traced_chunk_size(deal_sets),
                options.workers,
                options.scheduler,
                luck.models,
                luck.playouts,
            )
        else:
            run = run_job(
                job, deal_sets, dataclasses.replace(options, checkpoint=_checkpoint_folder(options.checkpoint, job))
            )
        for chunk in run:
            if controls is not None and isinstance(chunk, TracedChunk):
                add_controls(controls, chunk, side_policy, rules.sides)
            rows = chunk.match_rows
            idx = rows[:, L.M_MATCH]
            hands += int(rows[:, L.M_HANDS].sum())
            wins[idx] += side_policy[rows[:, L.M_WINNER]] == 0
            scores = rows[:, L.M_SCORE : L.M_SCORE + rules.sides]
            for k in (0, 1):
                mine = side_policy == k
                points[k, idx] += scores[:, mine].sum(axis=1)
                side_hands[k, idx] += rows[:, L.M_HANDS] * int(mine.sum())
            advance(len(rows))
        resumed += run.resumed
        failures += [run.failure] if run.failure else []
    outcome = PairOutcomes(
        a,
        b,
        deal_sets * len(jobs),
        wins / len(jobs),
        points[0] / side_hands[0],
        points[1] / side_hands[1],
        resumed,
        tuple(failures),
        hands=hands,
    )
    if controls is not None:
        outcome.adjusted = adjusted_outcomes(outcome.win_share, outcome.points, outcome.opponent_points, controls)
    return outcome


def _row(
    policy: str,
    opponent: str,
    matches: int,
    share: np.ndarray,
    points: np.ndarray,
    opponent_points: np.ndarray,
    adjusted: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> dict[str, Any]:
    """One result row: ``policy`` against ``opponent`` from per-deal-set outcomes.

    ``adjusted``: the luck-adjusted outcomes, reported beside the raw ones
    under the same names with an ``adjusted_`` prefix.
    """
    row = {
        "policy": policy,
        "opponent": opponent,
        "deal_sets": len(share),
        "matches": matches,
        **_figures(share, points, opponent_points),
    }
    if adjusted is not None:
        row.update({f"adjusted_{key}": value for key, value in _figures(*adjusted).items()})
    return row


def _figures(share: np.ndarray, points: np.ndarray, opponent_points: np.ndarray) -> dict[str, Any]:
    """Win rate, points per hand and margin with their intervals and tests, from per-deal-set outcomes."""
    win = paired_interval(share, null=0.5, low=0.0, high=1.0)  # intervals kept to what the figure can be
    own = paired_interval(points, low=0.0)
    other = paired_interval(opponent_points, low=0.0)
    diff = paired_interval(points - opponent_points)
    return {
        "win_rate": win["mean"],
        "win_rate_lo": win["ci95"][0],
        "win_rate_hi": win["ci95"][1],
        "win_p_value": win["p_value"],
        "win_significant": bool(win["p_value"] < ALPHA),
        "points_per_hand": own["mean"],
        "points_per_hand_lo": own["ci95"][0],
        "points_per_hand_hi": own["ci95"][1],
        "opponent_points_per_hand": other["mean"],
        "opponent_points_per_hand_lo": other["ci95"][0],
        "opponent_points_per_hand_hi": other["ci95"][1],
        "points_margin": diff["mean"],
        "points_margin_lo": diff["ci95"][0],
        "points_margin_hi": diff["ci95"][1],
        "points_p_value": diff["p_value"],
        "points_significant": bool(diff["p_value"] < ALPHA),
    }


def results_frame(names: Sequence[str], outcomes: Sequence[PairOutcomes]) -> pd.DataFrame:
    """Result rows from every pair's per-deal-set outcomes: both sides of each pair, then each policy vs the field.

    A policy's outcome against the field in a deal set is the mean of its
    outcomes against each opponent on that deal set, so the field rows are
    paired over deal sets too.  ``rank`` (field rows only) orders by win rate.
    """
    rows: list[dict[str, Any]] = []
    field = {name: np.zeros((3, len(outcomes[0].win_share))) for name in names}  # win share, points, opponents'
    adjusted = all(out.adjusted is not None for out in outcomes)
    field_adjusted = {name: np.zeros((3, len(outcomes[0].win_share))) for name in names}
    played = dict.fromkeys(names, 0)
    for out in outcomes:
        a, b = out.policy, out.opponent
        adj_a = adj_b = None
        if adjusted and out.adjusted is not None:
            share, points, opponent_points = out.adjusted
            adj_a, adj_b = (share, points, opponent_points), (1.0 - share, opponent_points, points)
            field_adjusted[a] += adj_a
            field_adjusted[b] += adj_b
        rows.append(_row(a, b, out.matches, out.win_share, out.points, out.opponent_points, adj_a))
        rows.append(_row(b, a, out.matches, 1.0 - out.win_share, out.opponent_points, out.points, adj_b))
        field[a] += (out.win_share, out.points, out.opponent_points)
        field[b] += (1.0 - out.win_share, out.opponent_points, out.points)
        played[a] += out.matches
        played[b] += out.matches
    for name in names:
        share, points, opponent_points = field[name] / (len(names) - 1)
        rows.append(
            _row(
                name,
                FIELD,
                played[name],
                share,
                points,
                opponent_points,
                tuple(field_adjusted[name] / (len(names) - 1)) if adjusted else None,
            )
        )
    results = pd.DataFrame(rows)
    overall = results["opponent"] == FIELD
    results["rank"] = pd.Series(pd.NA, index=results.index, dtype="Int64")
    results.loc[overall, "rank"] = results.loc[overall, "win_rate"].rank(ascending=False, method="min").astype(int)
    return results


@dataclass
class TournamentResult:
    """A tournament's results: one row per (policy, opponent), ``opponent == "field"`` for the overall row.

    Every rate and mean is over deal sets with a 95% interval (``*_lo``,
    ``*_hi``); ``meta`` says what was played (rules, design, seed, sizes).
    """

    results: pd.DataFrame
    meta: dict[str, Any]

    @property
    def pairs(self) -> pd.DataFrame:
        """One row per pair, from the first-listed policy's side."""
        order = {name: i for i, name in enumerate(self.meta["policies"])}
        own = self.results["policy"].map(order)
        other = self.results["opponent"].map(order)
        return (
            self.results[(self.results["opponent"] != FIELD) & (own < other)]
            .drop(columns="rank")
            .reset_index(drop=True)
        )

    @property
    def standings(self) -> pd.DataFrame:
        """Each policy against the field of all the others, best first."""
        field = self.results[self.results["opponent"] == FIELD]
        return field.sort_values(["rank", "policy"]).reset_index(drop=True)

    def __repr__(self) -> str:
        best = self.standings.iloc[0]
        return (
            f"TournamentResult(policies {', '.join(self.meta['policies'])}; {self.meta['matches']:,} matches; "
            f"best: {best['policy']} {100 * best['win_rate']:.1f}% against the field)"
        )

    def _repr_html_(self) -> str:
        meta = self.meta
        columns = ["rank", "policy", "win_rate", "win_rate_lo", "win_rate_hi", "points_margin", "win_p_value"]
        pair_columns = ["policy", "opponent", "win_rate", "win_rate_lo", "win_rate_hi", "win_p_value"]
        return html_card(
            f"{meta['design']} round-robin of {', '.join(meta['policies'])}: {meta['matches']:,} matches, "
            f"seed {meta['seed']}",
            ["match win rates with 95% intervals; .results has every column"],
            {
                "standings (each policy against the field)": self.standings[columns],
                "pairs (from the first policy's side)": self.pairs[pair_columns],
            },
        )

    def to_json(self) -> dict[str, Any]:
        """One JSON-ready object: ``meta`` plus the ``pairs`` and ``standings`` records, each figure with an
        interval as one :class:`~bergen_sim.core.estimate.Estimate` object over the row's deal sets."""

        def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
            rows = json.loads(frame.to_json(orient="records"))
            return [nest(row, ESTIMATE_UNITS, row["deal_sets"], "deal sets") for row in rows]

        return {**self.meta, "pairs": records(self.pairs), "standings": records(self.standings)}

    def write(self, path: str | os.PathLike | OutputFile) -> None:
        """Write the results to ``.csv``, ``.parquet`` (both: all rows) or ``.json`` (:meth:`to_json`), atomically.

        ``-`` writes CSV to standard output; failures raise :class:`~bergen_sim.services.files.output.OutputError`.
        """
        target = path if isinstance(path, OutputFile) else check_out_path(path)
        with open_output(target, binary=True) as handle:
            if target.suffix == ".parquet":
                table = pa.Table.from_pandas(self.results, preserve_index=False)
                pq.write_table(
                    table.replace_schema_metadata(
                        {
                            **(table.schema.metadata or {}),
                            b"bergen_sim": json.dumps({**self.meta, "provenance": provenance.record()}).encode(),
                        }
                    ),
                    handle,
                )
            elif target.suffix == ".json":
                handle.write(
                    (strict_json({**self.to_json(), "provenance": provenance.record()}, indent=1) + "\n").encode()
                )
            else:
                handle.write(self.results.to_csv(index=False).encode())


def check_out_path(path: str | os.PathLike) -> OutputFile:
    """Check a ``compare --out`` path before playing: .csv, .parquet, .json, or - (CSV on standard output)."""
    return check_file(path, "--out", OUT_FORMATS, stdout=True)


def check_policies(policies: Sequence[str], allowed_by: str | None = None) -> list[str]:
    """The tournament's policy names, validated: at least two, none twice, all known.

    ``allowed_by``: names read from a file, resolved as :func:`~bergen_sim.runtime.registry.resolve` says.
    """
    names = [name.strip() for name in policies]
    if any(not name for name in names):
        raise CompareError("policies: empty name in the list; give names separated by commas, e.g. greedy,random")
    if len(names) < 2:
        raise CompareError(f"policies: a tournament needs at least 2 policies, not {len(names)}")
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise CompareError(f"policies: {', '.join(twice)} listed more than once; list each policy once")
    for name in names:
        resolve(name, allowed_by)  # PolicyError naming the available policies
    return names


def compare(
    rules: Rules | None = None,
    policies: Sequence[str] = ("random", "first"),
    deals: int | None = None,
    seed: int = 0,
    *,
    independent: bool = False,
    adjust: str = "none",
    luck_models: Mapping[str, str] | None = None,
    luck_playouts: int | None = None,
    options: RunOptions | None = None,
    **deprecated: Any,
) -> TournamentResult:
    """Play a round-robin of ``policies`` on duplicate deals and analyse it per pair and overall.

    ``rules``: a :class:`Rules` (default the standard two-player game,
    ``Rules.make()``).  ``deals``: deal sets per pair (default
    :data:`DEFAULT_DEALS`), each played in every seat rotation, so a pair plays
    2 to 6 matches per deal set.  ``independent``: give each rotation its own
    seed instead (no duplicate deals), only to measure what the duplicates buy.
    ``options`` (a :class:`RunOptions`: workers, a Dask scheduler, a
    checkpoint folder with one subfolder per rotation, the chunk size, one
    progress bar for the whole tournament) say how the matches are run, never
    what they find: the same arguments and seed always give the same result.
    ``adjust="luck"`` adds luck-adjusted figures (``adjusted_*`` columns;
    :mod:`bergen_sim.services.luck`); ``luck_models``
    (``{"mypkg.mod:choose": "greedy"}``, ``{"pimc": "pimc:worlds=8"}``) has
    a built-in or a ``pimc`` search play a policy's seats in the
    adjustment's play-outs, for a plug-in or search the play-outs do not
    run by themselves (else played by ``expert``): a closer model narrows the
    adjusted interval, and any model leaves it unbiased; ``luck_playouts``
    sets the play-outs per evaluated position (default 32: more narrow the
    adjusted interval further, at their cost).

    ``matches=`` (the old name of ``deals``: it counted deal sets), the rule
    keywords (``players``, ``partnerships``, ``preset``, ``settings``) and
    run keywords (``workers``, ``scheduler``, ``checkpoint``, ``progress``,
    ``chunk_size``) of earlier releases still work for this one, with a
    DeprecationWarning.
    """
    old_rules, old_run, old_deals = old_keywords("compare", deprecated, RULE_KEYWORDS, RUN_KEYWORDS, ("matches",))
    rules = rules_argument("compare", rules, old_rules)
    options = options_argument("compare", options, old_run)
    deals = renamed_keyword("deals", deals, "matches", old_deals["matches"], CompareError)
    deals, seed = whole("deals", DEFAULT_DEALS if deals is None else deals), whole("seed", seed)
    independent = flag("independent", independent)
    names = check_policies(policy_names(policies))
    check_range("deals (deal sets per pair)", deals, 1, MAX_DEAL_SETS)  # memory: 40 bytes per deal set
    check_seed(seed)
    if adjust not in ADJUSTMENTS:
        raise CompareError(f"adjust: unknown adjustment {adjust!r}; use one of {', '.join(ADJUSTMENTS)}")
    luck_models = check_luck_models(luck_models, names, adjust)
    if luck_playouts is not None:
        luck_playouts = whole("luck_playouts", luck_playouts)
        check_range("luck_playouts (--luck-playouts)", luck_playouts, 1, MAX_PLAYOUTS)
        if adjust != "luck":
            raise CompareError("luck play-outs: they are the luck adjustment's; give them with --adjust luck")
    if adjust == "luck" and options.checkpoint is not None:
        raise CompareError(
            "adjust luck: checkpoints are not kept for luck-adjusted runs; drop --checkpoint or use --adjust none"
        )
    if options.checkpoint is not None:
        check_folder(options.checkpoint, "--checkpoint")  # before the first pair plays
        check_own_folder(options.checkpoint, rotations=True)  # rotation subfolders only: never among other files
    progress = options.progress  # one bar for the whole tournament, drawn here, none per run
    options = dataclasses.replace(options, progress=False)
    pairs = list(itertools.combinations(names, 2))
    rotations = rotation_patterns(rules)
    start = time.perf_counter()
    for a, b in pairs:  # compile or load the tournament's kernel (shared by all pairs) before timing the play
        for job in rotation_jobs(rules, a, b, seed, field=tuple(names)):
            engine_for(job.rules, job.policies, job.kernel_policies)
    startup = time.perf_counter() - start

    start = time.perf_counter()
    with match_progress(len(pairs) * len(rotations) * deals, 0, progress) as advance:
        outcomes = [
            play_pair(
                rules,
                a,
                b,
                deals,
                seed,
                independent=independent,
                options=options,
                advance=advance,
                field=tuple(names),
                luck=LuckAdjustment(luck_models, luck_playouts) if adjust == "luck" else None,
            )
            for a, b in pairs
        ]
    elapsed = time.perf_counter() - start
    total = sum(out.matches for out in outcomes)
    resumed = sum(out.resumed for out in outcomes)
    meta = {
        "design": "independent" if independent else "duplicate",
        "adjust": adjust,
        **({"luck_models": luck_models} if luck_models else {}),
        **(
            {"luck_playouts": luck_playouts or ROLLOUTS, "luck_decision_runs": DECISION_RUNS}
            if adjust == "luck"
            else {}
        ),
        "deal_sets": deals,
        "rotations": ["".join("ab"[k] for k in pattern) for pattern in rotations],
        "matches": total,
        "hands": sum(out.hands for out in outcomes),
        "policies": names,
        "rules": rules.to_dict(),
        "seed": seed,
        "elapsed_s": elapsed,
        "startup_s": startup,
        "matches_per_s": (total - resumed) / elapsed if elapsed > 0 else None,
        "workers": options.workers or default_workers(),
        "scheduler": options.scheduler,
        "resumed_matches": resumed,
        "version": __version__,
    }
    result = TournamentResult(results_frame(names, outcomes), meta)
    raise_failures([failure for out in outcomes for failure in out.failures], result)
    return result
