"""What the luck-adjustment studies share: the pair and game they are told to play."""

from __future__ import annotations

import argparse
import math

import numpy as np
from scipy.stats import bootstrap

from bergen_sim.core.errors import BergenError
from bergen_sim.model.rules import Rules
from bergen_sim.runtime.registry import resolve


def add_pair_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--policies", required=True, help="A,B")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--partnerships", action="store_true")


def read_pair(args: argparse.Namespace) -> tuple[list[str], Rules]:
    """The two policies and the rules, or :class:`BergenError` saying what is wrong."""
    pair = args.policies.split(",")
    if len(pair) != 2:
        raise BergenError(f"--policies {args.policies!r}: give two policies, e.g. expert,greedy")
    for name in pair:
        resolve(name)
    return pair, Rules.make(players=args.players, partnerships=args.partnerships)


def sd_ratio_interval(raw: np.ndarray, adjusted: np.ndarray, seed: int, resamples: int) -> tuple[float, float]:
    """95% BCa bootstrap interval of sd(adjusted) / sd(raw), each observation resampled with both its outcomes.

    The observations are deal sets of one run (``measure.py``) or whole runs
    (``replicate.py``); the ratio is an estimate from them, and this says how
    far it can be trusted.  A bound the bootstrap cannot compute (a handful of
    runs) is None, as JSON has no NaN.
    """

    def ratio(r, a, axis):
        return a.std(axis=axis, ddof=1) / r.std(axis=axis, ddof=1)

    interval = bootstrap(
        (raw, adjusted),
        ratio,
        paired=True,
        vectorized=True,
        n_resamples=resamples,
        random_state=np.random.default_rng(seed),
        method="BCa",
    ).confidence_interval
    return tuple(float(x) if math.isfinite(x) else None for x in (interval.low, interval.high))
