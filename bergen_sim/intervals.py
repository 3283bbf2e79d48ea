"""95% intervals as DataFrame columns, and the words the reports use for them.

Analyses keep counts and sums per configuration; these helpers turn them into
``x``, ``x_lo``, ``x_hi`` columns (the convention the Markdown writer and the
figures rely on) using the formulas of :mod:`bergen_sim.stats`, plus two
derived intervals stats.py does not cover:

- a *ratio of sums* (a share of points, headers per play) with the
  delta-method interval over independent units (matches);
- a *difference* of two estimates by Newcombe's MOVER method, which combines
  the two intervals (exact for normal intervals, and the standard choice for
  Wilson intervals).  It treats the two estimates as independent; where both
  were played on the same deals they are positively correlated and the
  interval is conservative (wider than necessary).

The phrase helpers write numbers the same way everywhere in the reports.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from bergen_sim.stats import Z95, mean_interval, wilson_interval

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


def ratio_interval(sx: float, sy: float, sxx: float, syy: float, sxy: float, n: float,
                   z: float = Z95) -> tuple[float, float, float]:
    """(ratio, low, high) of sum(x) / sum(y) over n independent units, delta-method interval.

    >>> r, lo, hi = ratio_interval(50, 100, 30, 110, 55, 100)
    >>> round(r, 2)
    0.5
    """
    if n < 2 or sy == 0:
        return (math.nan, math.nan, math.nan)
    ratio = sx / sy
    mx, my = sx / n, sy / n
    var_x = (sxx - n * mx * mx) / (n - 1)
    var_y = (syy - n * my * my) / (n - 1)
    cov = (sxy - n * mx * my) / (n - 1)
    var = max(var_x - 2 * ratio * cov + ratio * ratio * var_y, 0.0) / (n * my * my)
    half = z * math.sqrt(var)
    return (ratio, ratio - half, ratio + half)


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
        difference(*values)
        for values in zip(df[a], df[f"{a}_lo"], df[f"{a}_hi"], df[b], df[f"{b}_lo"], df[f"{b}_hi"])
    ]
    return _set(df, name, *zip(*triples)) if triples else _set(df, name, [], [], [])


# --- words -------------------------------------------------------------------------------------

def _decimals(half_width: float, scale: float) -> int:
    """Enough decimals to show the interval's width: two significant digits of the half-width."""
    half = abs(half_width) * scale
    if not math.isfinite(half) or half == 0:
        return 2
    return int(min(max(1 - math.floor(math.log10(half)), 0), 6))


def number(value: float, lo: float, hi: float, proportion: bool) -> str:
    """``57.3% [57.1, 57.5]`` or ``4.23 [4.21, 4.25]``: a value and its interval, rounded alike."""
    scale = 100.0 if proportion else 1.0
    digits = _decimals((hi - lo) / 2, scale)
    unit = "%" if proportion else ""
    if not math.isfinite(value):
        return "n/a"
    return f"{value * scale:.{digits}f}{unit} [{lo * scale:.{digits}f}, {hi * scale:.{digits}f}]"


def phrase(row, name: str, n: float | None = None, unit: str = "") -> str:
    """A value with its interval and sample size for running text.

    ``57.3% (95% CI 57.1–57.5%, n = 1,000,000 hands)``.
    """
    proportion = is_proportion(name)
    scale = 100.0 if proportion else 1.0
    value, lo, hi = float(row[name]), float(row[f"{name}_lo"]), float(row[f"{name}_hi"])
    if not math.isfinite(value):
        return "not measurable (no sample)"
    digits = _decimals((hi - lo) / 2, scale)
    mark = "%" if proportion else ""
    sample = f", n = {int(n):,}{' ' + unit if unit else ''}" if n is not None else ""
    return f"{value * scale:.{digits}f}{mark} (95% CI {lo * scale:.{digits}f}–{hi * scale:.{digits}f}{mark}{sample})"


def versus(lo: float, hi: float, reference: float, above: str = "above", below: str = "below",
           same: str = "not distinguishable from") -> str:
    """Which side of ``reference`` an interval lies on, in words (``same`` when it covers it)."""
    if lo > reference:
        return above
    if hi < reference:
        return below
    return same


def signed_points(value: float, lo: float, hi: float, proportion: bool) -> str:
    """A difference with its interval, signed: ``+1.2 points (95% CI +0.9 to +1.5)``."""
    scale = 100.0 if proportion else 1.0
    digits = _decimals((hi - lo) / 2, scale)
    unit = " percentage points" if proportion else ""
    return f"{value * scale:+.{digits}f}{unit} (95% CI {lo * scale:+.{digits}f} to {hi * scale:+.{digits}f})"
