"""A measuring tool's result file (bergen_sim/services/files/output.py, write_result): whole or not at all, with
the record of the code that made it."""

from __future__ import annotations

import json
import os

import pytest

from bergen_sim.core import provenance
from bergen_sim.services.files import output


def test_a_result_file_carries_its_provenance_and_standard_json(tmp_path):
    path = tmp_path / "result.json"
    written = output.write_result(path, {"rows": [{"rate": 0.5, "ci95": [float("nan"), 1.0]}]})
    saved = json.loads(path.read_text())
    assert saved["provenance"] == written["provenance"] and saved["rows"] == [{"rate": 0.5, "ci95": [None, 1.0]}]
    record = saved["provenance"]
    assert record["git"] == provenance.git_state() and record["version"] == provenance.record()["version"]
    assert record["command"] and record["created_utc"] and record["cpus"] and record["versions"]["python"]
    assert [p.name for p in tmp_path.iterdir()] == ["result.json"]  # no temporary file left beside it


def test_an_interrupted_write_leaves_the_earlier_result_whole(tmp_path, monkeypatch):
    path = tmp_path / "result.json"
    output.write_result(path, {"rows": [1, 2, 3]})
    before = path.read_bytes()

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(output.OutputError, match=r"result\.json: write failed \(No space left on device\)"):
        output.write_result(path, {"rows": [4]})
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["result.json"]


def test_a_result_that_json_cannot_hold_is_refused_before_the_file_is_touched(tmp_path):
    path = tmp_path / "result.json"
    output.write_result(path, {"rows": []})
    before = path.read_bytes()
    with pytest.raises(TypeError):
        output.write_result(path, {"rows": [object()]})
    assert path.read_bytes() == before
    output.write_result(path, {"rows": [object()]}, default=lambda _: "x")  # as json.dumps's default
    assert json.loads(path.read_text())["rows"] == ["x"]
