"""One JSON shape for an estimate: :class:`Estimate`, its JSON object, and the schemas that hold every output to it."""

from __future__ import annotations

import json
import math

import jsonschema
import pytest

from bergen_sim.core.estimate import N_UNITS, Estimate, nest, schema
from bergen_sim.services.files.output import strict_json
from tests.helpers import schema_validator

OUTPUTS = ("simulate", "compare", "analyze", "review", "run")


def test_an_estimate_is_one_object_with_its_interval_sample_and_units():
    e = Estimate(0.6, 0.39, 0.78, 20, "share of matches won", "matches")
    assert e.to_json() == {
        "value": 0.6,
        "low": 0.39,
        "high": 0.78,
        "n": 20,
        "unit": "share of matches won",
        "n_unit": "matches",
        "level": 0.95,
    }
    assert Estimate.from_json(e.to_json()) == e
    schema_validator("estimate").validate(e.to_json())


def test_a_bound_not_computed_is_null_in_json_and_nan_read_back():
    one = Estimate(4.0, math.nan, math.nan, 1, "hands per match", "matches")
    written = json.loads(strict_json(one.to_json()))
    assert written["low"] is None and written["high"] is None
    schema_validator("estimate").validate(written)
    back = Estimate.from_json(written)
    assert math.isnan(back.low) and back.value == 4.0


def test_an_estimate_counts_only_the_units_the_schema_names():
    with pytest.raises(ValueError, match="n_unit"):
        Estimate(0.5, 0.4, 0.6, 10, "share of matches won", "hands")
    assert set(schema("estimate")["properties"]["n_unit"]["enum"]) == set(N_UNITS)


def test_nest_turns_flat_interval_columns_into_estimates_and_keeps_the_rest():
    row = {"policy": "greedy", "win_rate": 0.7, "win_rate_lo": 0.5, "win_rate_hi": 0.9, "win_p_value": 0.03}
    nested = nest(row, {"win_rate": "share of matches won"}, 10, "deal sets")
    assert list(nested) == ["policy", "win_rate", "win_p_value"]
    assert nested["win_rate"] == Estimate(0.7, 0.5, 0.9, 10, "share of matches won", "deal sets").to_json()


@pytest.mark.parametrize("name", ("estimate", "provenance", *OUTPUTS))
def test_every_schema_is_a_valid_draft_2020_12_schema(name):
    assert schema(name)["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    schema_validator(name)  # checks the schema itself


OLD_SHAPES = [
    {"rate": 0.6, "ci95": [0.39, 0.78], "n": 20},
    {"mean": 4.1, "ci95": [3.8, 4.4], "n": 20},
    {"mean": 4.1, "ci95": [3.8, 4.4], "n": 82, "matches": 20},
    {"value": 0.6, "low": 0.39, "high": 0.78, "n": 20},  # no units
    {"value": 0.6, "low": 0.39, "high": 0.78, "n": 20, "unit": "share", "n_unit": "matches", "level": 0.95, "x": 1},
]


@pytest.mark.parametrize("old", OLD_SHAPES)
def test_an_old_or_incomplete_shape_is_not_an_estimate(old):
    with pytest.raises(jsonschema.ValidationError):
        schema_validator("estimate").validate(old)


def _compare_output(row: dict) -> dict:
    return {
        "design": "duplicate",
        "deal_sets": 10,
        "matches": 20,
        "policies": ["greedy", "random"],
        "rules": {},
        "seed": 0,
        "pairs": [row],
        "standings": [],
        "provenance": {"version": "0", "command": "bergen-sim compare", "created_utc": "2026-01-01T00:00:00+00:00"},
    }


def test_a_compare_row_with_flat_or_ci95_intervals_fails_its_schema():
    """The schemas refuse the shapes the outputs used to write: ``x_low``/``x_high`` columns beside a number, and
    ``{mean, ci95}`` records; the same row written with estimates passes."""
    estimate = {"n": 10, "unit": "points per hand", "n_unit": "deal sets", "level": 0.95}
    row = {
        "policy": "greedy",
        "opponent": "random",
        "deal_sets": 10,
        "matches": 20,
        **{
            name: {"value": 0.7, "low": 0.5, "high": 0.9, **estimate}
            for name in ("win_rate", "points_per_hand", "opponent_points_per_hand", "points_margin")
        },
        "win_p_value": 0.03,
        "win_significant": True,
    }
    validator = schema_validator("compare")
    validator.validate(_compare_output(row))
    flat = {**row, "win_rate": 0.7, "win_rate_low": 0.5, "win_rate_high": 0.9}
    ci95 = {**row, "win_rate": {"mean": 0.7, "ci95": [0.5, 0.9], "n": 10}}
    beside = {**row, "win_rate_lo": 0.5}  # an estimate and a flat bound beside it
    for old in (flat, ci95, beside):
        with pytest.raises(jsonschema.ValidationError):
            validator.validate(_compare_output(old))
