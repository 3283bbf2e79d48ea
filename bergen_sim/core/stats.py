"""The project's statistics: every interval, paired comparison and multiple-comparison control in one place.

Every reported rate or mean carries its sample size and a 95% interval:

- proportions of independent units (matches): Wilson score intervals (well
  behaved near 0 and 1, unlike the normal approximation);
- means of independent units: normal intervals from sums and sums of squares
  (the samples here are in the thousands to millions);
- rates and means *per hand or per play* are ratios of sums over matches
  (hands and plays are clustered in matches and are not independent): the
  delta-method interval of a ratio estimator with the match as the unit
  (:func:`ratio_interval`, from the per-match sums of :func:`cluster_sums`),
  and for a proportion Agresti and Coull's interval at the sample size that
  variance implies (:func:`clustered_proportion`), which keeps its coverage
  in small and extreme cells;
- paired comparisons (two rule sets played on the same keyed deals, the same
  end states settled two ways, policies on duplicate deals): the interval
  of the mean per-unit difference (:func:`paired_ratio_difference`,
  :func:`paired_interval`), which uses the pairing instead of treating the two
  sides as independent;
- unpaired differences: Newcombe's MOVER combination of the two intervals
  (:func:`difference`);
- a *family* of comparisons: simultaneous 95% intervals (Bonferroni: each
  interval at level ``1 - 0.05 / m``, :func:`simultaneous`, :func:`add_family`),
  which hold every true value of the family at once at least 95% of the time
  whatever the dependence between them; the words "clearly higher/lower" are
  said only when a simultaneous interval excludes zero, and a comparison whose
  interval covers zero states the largest effect it leaves possible
  (:func:`equivalence_bound`).  Holm's step-down test (:func:`holm`) stays for
  decisions: it rejects at least what the simultaneous intervals separate, and
  its verdicts are written as a column beside them.

The table helpers write ``x``, ``x_lo``, ``x_hi`` columns (the convention the
Markdown writer and the figures rely on) and the phrase helpers write numbers
and their units the same way everywhere in the reports.  Only NumPy is
imported at start-up; SciPy's distributions are imported on first use.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

import numpy as np

from bergen_sim.core.estimate import Estimate
from bergen_sim.core.i18n import num, percent_sign, tr

if TYPE_CHECKING:  # pandas is only needed by callers that pass DataFrames
    import pandas as pd

Z95 = NormalDist().inv_cdf(0.975)


def wilson_interval(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """95% Wilson score interval of a proportion ``successes / n``.

    >>> lo, hi = wilson_interval(50, 100)
    >>> round(lo, 3), round(hi, 3)
    (0.404, 0.596)

    It always holds the observed proportion, exactly: with none (or all) of
    20 the bound is 0 (or 1), not a rounding error beside it, which a
    figure's whisker (its length ``p - low``) would have made negative.

    >>> wilson_interval(0, 20)[0], wilson_interval(20, 20)[1]
    (0.0, 1.0)
    """
    if n <= 0:
        return (math.nan, math.nan)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half)))


def mean_interval(total: float, total_sq: float, n: float, z: float = Z95) -> tuple[float, float, float]:
    """(mean, low, high) of a sample given its sum, sum of squares and size.

    >>> mean_interval(10, 30, 5)[0]
    2.0
    """
    if n <= 0:
        return (math.nan, math.nan, math.nan)
    mean = total / n
    if n < 2:  # one observation has no spread: no interval (not a point)
        return (mean, math.nan, math.nan)
    var = max(total_sq / n - mean * mean, 0.0) * n / max(n - 1, 1)
    half = z * math.sqrt(var / n)
    return (mean, mean - half, mean + half)


def rate(successes: int, n: int, unit: str, n_unit: str = "matches") -> Estimate:
    """A proportion of ``n`` independent units with its 95% Wilson interval.

    >>> round(rate(50, 100, "share of matches won").low, 3)
    0.404
    """
    lo, hi = wilson_interval(successes, n)
    return Estimate(successes / n if n else math.nan, lo, hi, int(n), unit, n_unit)


def t95(df: int) -> float:
    """Student's t quantile of a two-sided 95% interval with ``df`` degrees of freedom (SciPy on first use).

    >>> round(t95(9), 3)
    2.262
    """
    from scipy import stats as sps  # imported here: scipy.stats costs half a second at start-up

    return float(sps.t.ppf(0.975, df))


def mean(total: float, total_sq: float, n: int, unit: str, n_unit: str = "matches") -> Estimate:
    """A mean over ``n`` independent units with its 95% normal interval."""
    m, lo, hi = mean_interval(total, total_sq, n)
    return Estimate(m, lo, hi, int(n), unit, n_unit)


def per_match_ratio(sx, sy, sxx, syy, sxy, matches, unit: str, high: float = math.inf) -> Estimate:
    """A per-hand rate of a run, its interval with the match as the unit.

    The arguments are the run's per-match sums (:func:`ratio_interval`).  The
    interval is clipped to the values the rate can take (``0 .. high``): a
    clipped interval covers whenever the unclipped one does, and a count per
    hand reported as [-0.01, 0.15] says something impossible.  ``n`` is the
    number of matches, the independent units (the hands the rate is over are
    counted in the run's summary).

    >>> r = per_match_ratio(1, 40, 1, 400, 20, 4, "double-headers per hand")
    >>> r.value, r.low, r.n, r.n_unit
    (0.025, 0.0, 4, 'matches')
    """
    ratio, lo, hi = ratio_interval(sx, sy, sxx, syy, sxy, matches)
    if not math.isnan(lo):
        lo, hi = max(lo, 0.0), min(hi, high)
    return Estimate(ratio, lo, hi, int(matches), unit, "matches")


def paired_interval(
    values: np.ndarray, null: float = 0.0, low: float = -math.inf, high: float = math.inf
) -> dict[str, Any]:
    """Mean of per-deal-set outcomes with a 95% Student-t interval and a two-sided p-value.

    ``low`` and ``high`` bound what the mean can be (a win share 0..1): the
    interval is kept within them, which loses no coverage (a few deal sets
    gave a win rate of 66.67% +- 71.71%).

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

    half = t95(n - 1) * se
    p_value = 2.0 * float(sps.t.sf(abs(mean - null) / se, n - 1))
    return {"mean": mean, "ci95": [max(mean - half, low), min(mean + half, high)], "n": n, "p_value": p_value}


#: words that mark a column as a proportion (printed as a percentage): ``win_rate``, ``lead_share_lowest``
PROPORTION_WORDS = frozenset({"rate", "share"})


def is_proportion(name: str) -> bool:
    """Whether a value column is a proportion (a word of its name is "rate" or "share")."""
    return not PROPORTION_WORDS.isdisjoint(name.split("_"))


def _set(df: pd.DataFrame, name: str, values, lows, highs) -> pd.DataFrame:
    df[name] = np.asarray(values, dtype=float)
    df[f"{name}_lo"] = np.asarray(lows, dtype=float)
    df[f"{name}_hi"] = np.asarray(highs, dtype=float)
    return df


def add_rate(df: pd.DataFrame, name: str, successes: str, n: str) -> pd.DataFrame:
    """Add proportion ``name`` = successes / n with its Wilson interval (in place; returns df)."""
    pairs = [wilson_interval(float(s), float(k)) for s, k in zip(df[successes], df[n])]
    values = [s / k if k else math.nan for s, k in zip(df[successes], df[n])]
    return _set(df, name, values, [p[0] for p in pairs], [p[1] for p in pairs])


def add_mean(df: pd.DataFrame, name: str, total: str, total_sq: str, n: str) -> pd.DataFrame:
    """Add mean ``name`` from a sum, a sum of squares and a count, with its normal interval."""
    triples = [mean_interval(float(t), float(q), float(k)) for t, q, k in zip(df[total], df[total_sq], df[n])]
    return _set(df, name, *zip(*triples)) if triples else _set(df, name, [], [], [])


def ratio_interval(sx, sy, sxx, syy, sxy, n, z: float = Z95):
    """(ratio, low, high) of sum(x) / sum(y) over n independent units (matches), delta-method interval.

    The arguments are sums over the units of x, y, x², y² and x·y
    (:func:`cluster_sums`); x and y are per-unit totals (headers and plays of
    a match, hands won and hands decided).  Works elementwise on arrays.

    >>> r, lo, hi = ratio_interval(50, 100, 30, 110, 55, 100)
    >>> round(r, 2)
    0.5
    """
    sx, sy, sxx, syy, sxy, n = (np.asarray(v, dtype=float) for v in (sx, sy, sxx, syy, sxy, n))
    with np.errstate(all="ignore"):
        ratio = sx / sy
        mx, my = sx / n, sy / n
        var_x = (sxx - n * mx * mx) / (n - 1)
        var_y = (syy - n * my * my) / (n - 1)
        cov = (sxy - n * mx * my) / (n - 1)
        half = z * np.sqrt(np.maximum(var_x - 2 * ratio * cov + ratio * ratio * var_y, 0.0) / (n * my * my))
    bad = (n < 2) | (sy == 0)  # one match: the ratio is known, its spread is not
    out = (np.where(sy == 0, math.nan, ratio), *(np.where(bad, math.nan, v) for v in (ratio - half, ratio + half)))
    return tuple(float(v) for v in out) if out[0].ndim == 0 else out


def cluster_sums(x, y) -> dict[str, Any]:
    """The sums :func:`ratio_interval` needs, from per-unit totals ``x`` and ``y`` (one row per match).

    ``x`` may be (units,) or (units, k) (k ratios sharing the denominator
    ``y``, or each with its own when ``y`` is (units, k) too); the sums add
    up chunk by chunk, so memory stays flat.

    >>> s = cluster_sums(np.array([1, 0, 2]), np.array([2, 1, 2]))
    >>> int(s["n"]), int(s["sx"]), int(s["sxy"])
    (3, 3, 6)
    """
    x = np.asarray(x, dtype=np.int64)
    y = np.asarray(y, dtype=np.int64)
    yy = y if y.ndim == x.ndim else y[:, None]
    return {
        "n": np.array(len(y)),
        "sx": x.sum(0),
        "sy": y.sum(0),
        "sxx": (x * x).sum(0),
        "syy": (y * y).sum(0),
        "sxy": (x * yy).sum(0),
    }


def cluster_column(sums: dict[str, Any], k: int) -> dict[str, Any]:
    """Column k of a multi-column :func:`cluster_sums` record, as a record of its own (shared entries kept)."""
    return {key: (value[k] if np.ndim(value) else value) for key, value in sums.items()}


def group_cluster_sums(units, groups, x, y, n_groups: int) -> dict[str, np.ndarray]:
    """:func:`cluster_sums` for every group at once: per-observation ``x``, ``y`` summed per (unit, group) first.

    ``units`` (match numbers), ``groups`` (0 .. n_groups - 1: a score cell,
    a count of doubles held) and the values ``x``, ``y`` have one entry per
    observation (a hand, a seat's hand).  Each group's sums treat the match
    as the unit, as :func:`ratio_interval` needs (``n`` counts the matches
    that have the group at all); every entry is an array of length
    ``n_groups``, so chunks add up.

    >>> s = group_cluster_sums([0, 0, 1], [1, 1, 0], [1, 0, 1], [1, 1, 1], 2)
    >>> s["sy"].tolist(), s["syy"].tolist(), s["n"].tolist()
    ([1, 2], [1, 4], [1, 1])
    """
    units, groups = np.asarray(units, dtype=np.int64), np.asarray(groups, dtype=np.int64)
    key = (units - units.min(initial=0)) * n_groups + groups
    pairs, index = np.unique(key, return_inverse=True)
    px = np.bincount(index, np.asarray(x, dtype=float), len(pairs))
    py = np.bincount(index, np.asarray(y, dtype=float), len(pairs))
    g = pairs % n_groups

    def per_group(values) -> np.ndarray:
        return np.rint(np.bincount(g, values, n_groups)).astype(np.int64)

    return {
        "n": per_group(np.ones(len(pairs))),
        "sx": per_group(px),
        "sy": per_group(py),
        "sxx": per_group(px * px),
        "syy": per_group(py * py),
        "sxy": per_group(px * py),
    }


def group_cross_sums(units, groups, x, y, n_groups: int) -> dict[str, np.ndarray]:
    """Per-match sums of ``x`` and ``y`` in every group, and their cross products between groups, summed over matches.

    Two groups of one match (two seats of one hand, two feature values seen
    in the same matches) are not independent; these sums let
    :func:`group_difference` compare any two groups with the match as the
    unit, their covariance included.  ``n`` counts the matches (a match
    without the group adds zeros), and every entry adds up chunk by chunk.

    >>> s = group_cross_sums([0, 0, 1], [0, 1, 1], [1, 0, 1], [1, 1, 1], 2)
    >>> s["x"].tolist(), s["xy"].tolist(), int(s["n"])
    ([1, 1], [[1, 1], [0, 1]], 2)
    """
    units, groups = np.asarray(units, dtype=np.int64), np.asarray(groups, dtype=np.int64)
    _, unit = np.unique(units, return_inverse=True)
    n_units = int(unit.max(initial=-1)) + 1
    cell = unit * n_groups + groups

    def per_match(values) -> np.ndarray:
        return np.bincount(cell, np.asarray(values, dtype=float), n_units * n_groups).reshape(n_units, n_groups)

    px, py = per_match(x), per_match(y)
    whole = {"x": px.sum(0), "y": py.sum(0), "xx": px.T @ px, "xy": px.T @ py, "yy": py.T @ py}
    return {"n": np.array(n_units), **{k: np.rint(v).astype(np.int64) for k, v in whole.items()}}


def group_difference(sums: dict[str, np.ndarray], a: int, b: int, z: float = Z95) -> tuple[float, float, float]:
    """(Ra - Rb, low, high): group a's ratio sum(x) / sum(y) minus group b's, paired by match.

    The delta method over :func:`group_cross_sums`: with each match's
    influences ``u = (xa - Ra ya) / mean(ya)`` and ``v`` likewise for b, the
    variance of the difference is that of ``u - v``, whose cross term holds
    the dependence of the two groups within a match (negative for two seats
    of one hand: when one wins, the other loses).  The same as
    :func:`paired_ratio_difference` given the per-match values.

    >>> s = group_cross_sums([0, 0, 1, 1, 2, 2], [0, 1, 0, 1, 0, 1], [1, 0, 0, 1, 1, 0], [1] * 6, 2)
    >>> d, lo, hi = group_difference(s, 0, 1)
    >>> round(d, 3), round(lo, 6) == round(paired_ratio_difference([1, 0, 1], [1, 1, 1], [0, 1, 0], [1, 1, 1])[1], 6)
    (0.333, True)
    """
    n = float(sums["n"])
    x, y = sums["x"].astype(float), sums["y"].astype(float)
    if n < 2 or y[a] == 0 or y[b] == 0:
        return (math.nan, math.nan, math.nan)
    ra, rb = float(x[a] / y[a]), float(x[b] / y[b])
    ya, yb = float(y[a] / n), float(y[b] / n)

    def cross(i: int, ri: float, j: int, rj: float) -> float:  # sum over matches of (xi - ri yi)(xj - rj yj)
        return float(sums["xx"][i, j] - rj * sums["xy"][i, j] - ri * sums["xy"][j, i] + ri * rj * sums["yy"][i, j])

    spread = cross(a, ra, a, ra) / ya**2 + cross(b, rb, b, rb) / yb**2 - 2 * cross(a, ra, b, rb) / (ya * yb)
    half = z * math.sqrt(max(spread, 0.0) / (n - 1) / n)
    return (ra - rb, ra - rb - half, ra - rb + half)


def clustered_ratio(sums: dict[str, Any], z: float = Z95):
    """(ratio, low, high) from :func:`cluster_sums`' sums (elementwise when x had k columns)."""
    return ratio_interval(sums["sx"], sums["sy"], sums["sxx"], sums["syy"], sums["sxy"], sums["n"], z)


def paired_ratio_difference(xa, ya, xb, yb, z: float = Z95) -> tuple[float, float, float]:
    """(Ra - Rb, low, high) for two ratios of sums measured on the *same* units (paired by match).

    ``xa[i] / ya[i]`` and ``xb[i] / yb[i]`` are unit i's totals under two
    configurations played on the same keyed deals (lead rule A and B, match
    i).  The delta-method influence of unit i on the difference is
    ``(xa_i - Ra ya_i) / mean(ya) - (xb_i - Rb yb_i) / mean(yb)``; the
    interval is normal with the sample variance of those influences, so the
    positive correlation the shared deals create narrows it (unlike
    :func:`difference`, which assumes independence).

    >>> d, lo, hi = paired_ratio_difference([1, 2, 0, 1], [2, 2, 1, 2], [1, 1, 0, 1], [2, 2, 1, 2])
    >>> round(d, 3), lo < d < hi
    (0.143, True)
    """
    xa, ya, xb, yb = (np.asarray(v, dtype=float) for v in (xa, ya, xb, yb))
    n = len(ya)
    if n < 2 or ya.sum() == 0 or yb.sum() == 0:
        return (math.nan, math.nan, math.nan)
    ra, rb = xa.sum() / ya.sum(), xb.sum() / yb.sum()
    influence = (xa - ra * ya) / ya.mean() - (xb - rb * yb) / yb.mean()
    half = z * float(np.std(influence, ddof=1)) / math.sqrt(n)
    d = float(ra - rb)
    return (d, d - half, d + half)


def add_clustered(df: pd.DataFrame, name: str, sums: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """Add ratio ``name`` per row from each row's :func:`cluster_sums` (clustered by match), in place.

    A proportion (``rate``/``share`` in the name) gets :func:`clustered_proportion`'s interval, which keeps its
    coverage in small or extreme cells where the delta method's does not.
    """
    interval = clustered_proportion if is_proportion(name) else clustered_ratio
    triples = [interval(row) for row in sums]
    return _set(df, name, *zip(*triples)) if triples else _set(df, name, [], [], [])


def clustered_proportion(sums: dict[str, Any], z: float = Z95) -> tuple[float, float, float]:
    """(proportion, low, high) of a proportion clustered by match: Agresti-Coull's interval at the effective size.

    The delta-method variance of the clustered ratio (:func:`clustered_ratio`)
    is read as a binomial one of ``n_eff = p (1 - p) / variance``
    observations (the sample size divided by the design effect), and
    Agresti and Coull's interval (:func:`agresti_coull_interval`) is taken at
    that size: the delta method's width for large cells, and coverage kept
    near 0 and 1 and in small cells, where a normal interval's falls (0.88 at
    30 matches and p = 0.07) and Wilson's dips to 0.94 (200 matches, p =
    0.03).  With p at 0 or 1 there is no spread to read, and the matches are
    taken as the sample size.

    >>> p, lo, hi = clustered_proportion(cluster_sums(np.r_[np.ones(2), np.zeros(28)], np.ones(30)))
    >>> round(p, 3), round(lo, 3), round(hi, 3)
    (0.067, 0.007, 0.227)
    """
    ratio, lo, hi = clustered_ratio(sums, z)
    if not (math.isfinite(ratio) and math.isfinite(lo)):
        return (ratio, lo, hi)
    variance = ((hi - lo) / (2 * z)) ** 2
    spread = ratio * (1 - ratio)
    n_eff = spread / variance if spread > 0 and variance > 0 else float(sums["n"])
    low, high = agresti_coull_interval(ratio * n_eff, n_eff, z)
    return (ratio, min(low, ratio), max(high, ratio))


def agresti_coull_interval(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Agresti and Coull's 95% interval of a proportion: the normal interval around ``(x + z²/2) / (n + z²)``.

    >>> [round(v, 3) for v in agresti_coull_interval(0, 20)]
    [0.0, 0.19]
    """
    if n <= 0:
        return (math.nan, math.nan)
    size = n + z * z
    centre = (successes + z * z / 2) / size
    half = z * math.sqrt(centre * (1 - centre) / size)
    return (max(0.0, centre - half), min(1.0, centre + half))


def se_from_interval(lo, hi, z: float = Z95):
    """The standard error a symmetric 95% interval implies, ``(hi - lo) / (2 z)`` (elementwise)."""
    return (np.asarray(hi, dtype=float) - np.asarray(lo, dtype=float)) / (2 * z)


def holm(estimates, ses, level: float = 0.95) -> dict[str, Any]:
    """Holm's step-down test of ``estimate == 0`` over a family: p-values and which are rejected.

    Normal p-values ``2 (1 - Phi(|est| / se))`` are sorted; the comparison
    with the k-th smallest (k = 0, 1, ...) is tested at ``alpha / (m - k)``
    until the first one that fails; that one and all after it are not
    rejected.  The family-wise error rate (any true zero called a
    difference) is at most ``1 - level``.  Holm gives decisions, not
    intervals: intervals widened to each step's level do not cover jointly
    (:func:`simultaneous` gives intervals that do).  NaN estimates are left
    out of the family.

    >>> r = holm([0.5, 0.01, -0.3], [0.1, 0.1, 0.1])
    >>> r["reject"].tolist(), r["m"]
    ([True, False, True], 3)
    """
    from scipy.special import ndtr  # imported here: SciPy costs start-up time

    est, se, valid, m = _family(estimates, ses)
    alpha = 1.0 - level
    with np.errstate(all="ignore"):
        p = np.where(se > 0, 2.0 * ndtr(-np.abs(est) / se), np.where(est == 0, 1.0, 0.0))
    p = np.where(valid, p, np.nan)
    reject = np.zeros(est.shape, dtype=bool)
    for k, i in enumerate(np.argsort(np.where(valid, p, np.inf), kind="stable")[:m]):
        if p[i] >= alpha / (m - k):
            break
        reject[i] = True
    return {"p": p, "reject": reject, "m": m}


def simultaneous(estimates, ses, level: float = 0.95) -> dict[str, Any]:
    """Simultaneous intervals over a family: all m cover their true values together with probability >= ``level``.

    Bonferroni: each interval is ``est ± z se`` with ``z`` the normal quantile
    of ``1 - (1 - level) / (2 m)``, valid whatever the dependence between the
    estimates (for independent ones the joint coverage is ``(1 - alpha/m)^m``,
    within 0.2 points of ``level``).  NaN estimates are left out of the family.

    >>> r = simultaneous([0.5, 0.01, -0.3], [0.1, 0.1, 0.1])
    >>> round(r["z"], 3), r["m"], [round(float(x), 3) for x in r["lo"]]
    (2.394, 3, [0.261, -0.229, -0.539])
    """
    est, se, _, m = _family(estimates, ses)
    z = NormalDist().inv_cdf(1.0 - (1.0 - level) / (2.0 * max(m, 1)))
    return {"lo": est - z * se, "hi": est + z * se, "z": z, "m": m}


def _family(estimates, ses) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(estimates, standard errors, which are finite, how many) of a family, as float arrays."""
    est = np.atleast_1d(np.asarray(estimates, dtype=float))
    se = np.atleast_1d(np.asarray(ses, dtype=float))
    valid = np.isfinite(est) & np.isfinite(se)
    return est, se, valid, int(valid.sum())


def equivalence_bound(lo, hi):
    """The largest |effect| an interval leaves possible, ``max(|lo|, |hi|)``: what a null result rules out."""
    return np.maximum(np.abs(np.asarray(lo, dtype=float)), np.abs(np.asarray(hi, dtype=float)))


def add_family(columns: Sequence[tuple[pd.DataFrame, str]], level: float = 0.95) -> int:
    """Give one family of comparisons simultaneous intervals and Holm's decisions; returns the family's size m.

    ``columns`` lists (table, column) pairs, each column an estimated
    difference with its 95% ``_lo``/``_hi`` columns; every finite row of every
    listed column is one comparison.  Adds ``{column}_adj_lo`` and
    ``{column}_adj_hi`` (the simultaneous interval, :func:`simultaneous`),
    ``{column}_holm`` (whether Holm's test rejects zero, :func:`holm`) and
    ``{column}_family`` (m) to each table in place.  The standard error of each
    comparison is read off its 95% interval (:func:`se_from_interval`).
    """
    est = np.concatenate([df[c].to_numpy(float) for df, c in columns]) if columns else np.zeros(0)
    se = np.concatenate([se_from_interval(df[f"{c}_lo"], df[f"{c}_hi"]) for df, c in columns]) if columns else est
    family = simultaneous(est, se, level)
    decisions = holm(est, se, level)
    start = 0
    for df, c in columns:
        stop = start + len(df)
        df[f"{c}_adj_lo"] = family["lo"][start:stop]
        df[f"{c}_adj_hi"] = family["hi"][start:stop]
        df[f"{c}_holm"] = decisions["reject"][start:stop]
        df[f"{c}_family"] = family["m"]
        start = stop
    return family["m"]


def add_ratio(df: pd.DataFrame, name: str, sx: str, sy: str, sxx: str, syy: str, sxy: str, n: str) -> pd.DataFrame:
    """Add ratio ``name`` = sum(x) / sum(y) from per-unit sums (columns), with its delta-method interval."""
    triples = [ratio_interval(*map(float, values)) for values in zip(df[sx], df[sy], df[sxx], df[syy], df[sxy], df[n])]
    return _set(df, name, *zip(*triples)) if triples else _set(df, name, [], [], [])


def difference(a: float, a_lo: float, a_hi: float, b: float, b_lo: float, b_hi: float) -> tuple[float, float, float]:
    """(a - b, low, high) combining the two 95% intervals (Newcombe's MOVER method).

    >>> d, lo, hi = difference(0.6, 0.5, 0.7, 0.5, 0.4, 0.6)
    >>> round(d, 3), round(lo, 3), round(hi, 3)
    (0.1, -0.041, 0.241)
    """
    d = a - b
    return (d, d - math.hypot(a - a_lo, b_hi - b), d + math.hypot(a_hi - a, b - b_lo))


def add_difference(df: pd.DataFrame, name: str, a: str, b: str) -> pd.DataFrame:
    """Add ``name`` = column a minus column b (both with _lo/_hi columns), with the MOVER interval."""
    triples = [
        difference(*values) for values in zip(df[a], df[f"{a}_lo"], df[f"{a}_hi"], df[b], df[f"{b}_lo"], df[f"{b}_hi"])
    ]
    return _set(df, name, *zip(*triples)) if triples else _set(df, name, [], [], [])


# --- words -------------------------------------------------------------------------------------

#: words that mark a proportion column as a *difference* of proportions (printed in percentage points)
DIFFERENCE_WORDS = frozenset({"gain", "change", "minus", "difference", "advantage"})


def is_difference(name: str) -> bool:
    """Whether a column is a difference (a word of its name is "gain", "change", "minus", ...)."""
    return not DIFFERENCE_WORDS.isdisjoint(name.split("_"))


def unit_mark(name: str) -> tuple[float, str]:
    """(scale, mark) a column is printed with: ``%`` for a proportion, `` pp`` for a difference of two."""
    if not is_proportion(name):
        return 1.0, ""
    return 100.0, (" pp" if is_difference(name) else "%")


def _decimals(half_width: float, scale: float, significant: int = 2) -> int:
    """Enough decimals to show the interval's width: ``significant`` digits of the half-width (two in tables,
    one in running text, where more digits than the interval supports only slow the reader down)."""
    half = abs(half_width) * scale
    if not math.isfinite(half) or half == 0:
        return 2
    return int(min(max(significant - 1 - math.floor(math.log10(half)), 0), 6))


def _text_decimals(lo: float, hi: float, scale: float) -> int:
    """Decimals for running text: one significant digit of the half-width, and enough that an interval which
    excludes zero does not print a bound of 0 (``-0.13 to -0.01``, not ``-0.1 to -0.0``)."""
    digits = _decimals((hi - lo) / 2, scale, significant=1)
    if math.isfinite(lo) and math.isfinite(hi) and (lo > 0 or hi < 0):
        near = min(abs(lo), abs(hi)) * scale
        while digits < 6 and round(near, digits) == 0:
            digits += 1
    return digits


def number(value: float, lo: float, hi: float, proportion: bool | str, significant: int = 2) -> str:
    """``57.3% [57.1, 57.5]``, ``+0.07 pp [-0.01, +0.15]`` or ``4.23 [4.21, 4.25]``: a value and its interval.

    ``proportion`` is a column name (its unit is :func:`unit_mark`'s) or a
    bool (True: a proportion in %); ``significant`` digits of the half-width
    are shown (two in tables, one in running text).
    """
    scale, unit = unit_mark(proportion) if isinstance(proportion, str) else ((100.0, "%") if proportion else (1.0, ""))
    digits = _decimals((hi - lo) / 2, scale, significant)
    if not math.isfinite(value):
        return "n/a"
    sign = "+" if unit == " pp" else ""
    return f"{value * scale:{sign}.{digits}f}{unit} [{lo * scale:{sign}.{digits}f}, {hi * scale:{sign}.{digits}f}]"


def _text_mark(mark: str) -> str:
    """A unit mark of :func:`unit_mark` as running text in the language in force (``%`` is `` %`` in Danish)."""
    return {"%": percent_sign(), " pp": tr(" pp")}.get(mark, mark)


def phrase(row, name: str, n: float | None = None, unit: str = "") -> str:
    """A value with its interval and sample size for running text, in the language in force.

    ``57.3% (95% CI 57.1–57.5%, n = 1,000,000 hands)``; ``unit`` names what
    ``n`` counts, already in that language.
    """
    scale, mark = unit_mark(name)
    mark = _text_mark(mark)
    value, lo, hi = float(row[name]), float(row[f"{name}_lo"]), float(row[f"{name}_hi"])
    if not math.isfinite(value):
        return tr("not measurable (no sample)")
    sample = tr(", n = {n}{unit}").format(n=num(int(n), ","), unit=" " + unit if unit else "") if n is not None else ""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return tr("{value} (no interval: too small a sample{sample})").format(
            value=num(value * scale, ".3g") + mark, sample=sample
        )
    digits = _text_decimals(lo, hi, scale)
    return tr("{value} (95% CI {low}–{high}{sample})").format(
        value=num(value * scale, f".{digits}f") + mark,
        low=num(lo * scale, f".{digits}f"),
        high=num(hi * scale, f".{digits}f") + mark,
        sample=sample,
    )


def versus(
    lo: float,
    hi: float,
    reference: float,
    above: str = "above",
    below: str = "below",
    same: str = "not distinguishable from",
) -> str:
    """Which side of ``reference`` an interval lies on, in words (``same`` when it covers it)."""
    if lo > reference:
        return above
    if hi < reference:
        return below
    return same


def signed_points(
    value: float, lo: float, hi: float, proportion: bool, unit: str = "", interval: str | None = None
) -> str:
    """A difference with its interval, signed: ``+1.2 percentage points (95% CI +0.9 to +1.5)``.

    A difference of proportions is in percentage points; any other
    difference says its ``unit`` ("points per hand", "hands per match"),
    already in the language in force; ``interval`` names the interval
    (default: the 95% CI's name in that language).
    """
    scale = 100.0 if proportion else 1.0
    digits = _text_decimals(lo, hi, scale)
    words = tr(" percentage points") if proportion else (f" {unit}" if unit else "")
    return tr("{value}{words} ({interval} {low} to {high})").format(
        value=num(value * scale, f"+.{digits}f"),
        words=words,
        interval=tr("95% CI") if interval is None else interval,
        low=num(lo * scale, f"+.{digits}f"),
        high=num(hi * scale, f"+.{digits}f"),
    )


def judged(
    row, name: str, unit: str = "", larger: str = "higher", smaller: str = "lower", same: str = "no clear difference"
) -> tuple[str, str]:
    """(verdict, numbers) for a difference column controlled by :func:`add_family`.

    The verdict is ``larger``/``smaller`` only when the simultaneous interval
    excludes zero; otherwise ``same``, and the numbers say what the data rule
    out (``|difference| < bound``).  Without adjusted columns the plain 95%
    interval is used.
    """
    proportion = is_proportion(name)
    adjusted = f"{name}_adj_lo" in row
    lo = float(row[f"{name}_adj_lo" if adjusted else f"{name}_lo"])
    hi = float(row[f"{name}_adj_hi" if adjusted else f"{name}_hi"])
    label = (
        tr("simultaneous 95% CI over {m} comparisons").format(m=int(row[f"{name}_family"]))
        if adjusted
        else tr("95% CI")
    )
    text = signed_points(float(row[name]), lo, hi, proportion, unit, label)
    verdict = versus(lo, hi, 0.0, larger, smaller, same)
    if verdict == same and math.isfinite(lo):
        scale = 100.0 if proportion else 1.0
        bound = float(equivalence_bound(lo, hi)) * scale
        words = tr("percentage points") if proportion else unit
        text += tr("; the data rule out a difference larger than {bound}{unit}").format(
            bound=num(bound, f".{_decimals(bound / 2, 1.0, significant=1)}f"), unit=" " + words if words else ""
        )
    return verdict, text
