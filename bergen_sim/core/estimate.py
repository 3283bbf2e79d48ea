"""One shape for every estimate the package reports: a value, its interval, its sample size and their units.

Every JSON output (the ``--json`` of ``simulate``, ``compare``, ``analyze``,
``review`` and ``run``, and ``compare --out FILE.json``) writes an estimate as
one object::

    {"value": 0.5312, "low": 0.5203, "high": 0.5421, "n": 8000,
     "unit": "share of matches won", "n_unit": "matches", "level": 0.95}

``unit`` says what the value counts; ``n`` is the number of independent units
the interval was computed from and ``n_unit`` names them (``matches``, ``deal
sets``, ``worlds``, ``decisions``).  A rate per hand is a ratio over hands, but
hands of one match are not independent, so its interval and its ``n`` count
matches.  ``level`` is the interval's nominal coverage.  A bound that cannot be
computed (one observation has no spread) is ``null`` in JSON.

Tables (CSV, Parquet, DataFrames) keep flat columns instead: ``x``, ``x_lo``,
``x_hi`` (:mod:`bergen_sim.core.stats`); :func:`nest` turns such a row into
estimates.  The shape's JSON Schema is ``bergen_sim/schemas/estimate.schema.json``
(:func:`schema`), which the schema of each output refers to.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from importlib import resources
from typing import Any

#: the sampling units an estimate's ``n`` may count (the schema lists the same)
N_UNITS = ("matches", "deal sets", "worlds", "decisions")


@dataclass(frozen=True)
class Estimate:
    """A value with its interval (``low`` .. ``high`` at ``level``), over ``n`` independent ``n_unit``.

    >>> e = Estimate(0.5, 0.4, 0.6, 100, "share of matches won", "matches")
    >>> e.to_json()["low"], e.to_json()["n_unit"], e.level
    (0.4, 'matches', 0.95)
    """

    value: float
    low: float
    high: float
    n: int
    unit: str
    n_unit: str
    level: float = 0.95

    def __post_init__(self) -> None:
        for name in ("value", "low", "high"):  # JSON's null (and pandas' missing value) is a bound not computed
            object.__setattr__(self, name, _number(getattr(self, name)))
        object.__setattr__(self, "n", int(self.n))
        if self.n_unit not in N_UNITS:  # a programming error: the schema would refuse the output
            raise ValueError(f"n_unit {self.n_unit!r} is not one of {', '.join(N_UNITS)}")

    def to_json(self) -> dict[str, Any]:
        """The JSON object (NaN bounds stay NaN here; the writers turn them into ``null``)."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Estimate:
        """An estimate read back from its JSON object (``null`` bounds as NaN)."""
        return cls(data["value"], data["low"], data["high"], data["n"], data["unit"], data["n_unit"], data["level"])


def _number(value: Any) -> float:
    return math.nan if value is None else float(value)


def nest(row: Mapping[str, Any], units: Mapping[str, str], n: int, n_unit: str) -> dict[str, Any]:
    """A flat row's ``x``, ``x_lo``, ``x_hi`` triples, for each ``x`` in ``units``, as one estimate object under ``x``.

    Other columns are kept as they are, in their order.

    >>> nest({"policy": "a", "win_rate": 0.6, "win_rate_lo": 0.5, "win_rate_hi": 0.7}, {"win_rate": "share"}, 9,
    ...      "deal sets")["win_rate"]["high"]
    0.7
    """
    bounds = {f"{name}_{end}" for name in units if name in row for end in ("lo", "hi")}
    out: dict[str, Any] = {}
    for key, value in row.items():
        if key in units:
            out[key] = Estimate(value, row[f"{key}_lo"], row[f"{key}_hi"], n, units[key], n_unit).to_json()
        elif key not in bounds:
            out[key] = value
    return out


def schema(name: str) -> dict[str, Any]:
    """The JSON Schema ``name`` (``estimate``, ``simulate``, ``compare``, ...) shipped in ``bergen_sim/schemas``."""
    return json.loads(resources.files("bergen_sim").joinpath("schemas", f"{name}.schema.json").read_text())
