"""Confidence intervals for the numbers the project reports.

Every reported rate or mean carries its sample size and a 95% interval:
Wilson score intervals for proportions (well behaved near 0 and 1, unlike
the normal approximation), normal intervals for means from sums and sums of
squares (the samples here are in the hundreds of thousands).
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Any

import numpy as np

Z95 = NormalDist().inv_cdf(0.975)


def wilson_interval(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """95% Wilson score interval of a proportion ``successes / n``.

    >>> lo, hi = wilson_interval(50, 100)
    >>> round(lo, 3), round(hi, 3)
    (0.404, 0.596)
    """
    if n <= 0:
        return (math.nan, math.nan)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_interval(total: float, total_sq: float, n: float, z: float = Z95) -> tuple[float, float, float]:
    """(mean, low, high) of a sample given its sum, sum of squares and size.

    >>> mean_interval(10, 30, 5)[0]
    2.0
    """
    if n <= 0:
        return (math.nan, math.nan, math.nan)
    mean = total / n
    var = max(total_sq / n - mean * mean, 0.0) * n / max(n - 1, 1)
    half = z * math.sqrt(var / n)
    return (mean, mean - half, mean + half)


def rate(successes: int, n: int) -> dict:
    """A proportion as a JSON-ready record: rate, 95% interval and sample size."""
    lo, hi = wilson_interval(successes, n)
    return {"rate": successes / n if n else math.nan, "ci95": [lo, hi], "n": int(n)}


def mean(total: float, total_sq: float, n: int) -> dict:
    """A mean as a JSON-ready record: mean, 95% interval and sample size."""
    m, lo, hi = mean_interval(total, total_sq, n)
    return {"mean": m, "ci95": [lo, hi], "n": int(n)}


def paired_interval(values: np.ndarray, null: float = 0.0) -> dict[str, Any]:
    """Mean of per-deal-set outcomes with a 95% Student-t interval and a two-sided p-value.

    The observations are independent deal sets; the p-value tests ``mean ==
    null``.  With one deal set there is no interval (NaN); with no spread at
    all the interval is the point and the p-value is 0 or 1.

    >>> r = paired_interval(np.array([0.0, 1.0, 0.5, 0.5]), null=0.5)
    >>> r["mean"], r["n"], round(r["p_value"], 3)
    (0.5, 4, 1.0)
    """
    n = len(values)
    mean = float(np.mean(values)) if n else math.nan
    if n < 2:
        return {"mean": mean, "ci95": [math.nan, math.nan], "n": n, "p_value": math.nan}
    se = float(np.std(values, ddof=1)) / math.sqrt(n)
    if se == 0.0:
        return {"mean": mean, "ci95": [mean, mean], "n": n, "p_value": float(mean == null)}
    from scipy import stats as sps  # imported here: scipy.stats costs half a second at start-up

    half = float(sps.t.ppf(0.975, n - 1)) * se
    p_value = 2.0 * float(sps.t.sf(abs(mean - null) / se, n - 1))
    return {"mean": mean, "ci95": [mean - half, mean + half], "n": n, "p_value": p_value}
