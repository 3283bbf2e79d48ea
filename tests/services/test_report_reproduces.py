"""A quick report at a fixed seed reproduces, number for number, the slice committed beside this test.

The slice (``tests/data/quick_report_slice.json``) was written by this
module's ``write_slice`` from a run of the code that made the committed
reports; a change to the engine, the policies or an analysis that moves any
number shows here, and is then either a bug or a change to re-run the
reports for (``bergen-sim report all``) and re-write the slice for::

    python -c "from tests.services.test_report_reproduces import write_slice; write_slice()"
"""

from __future__ import annotations

import json
from pathlib import Path

from bergen_sim.services.analysis import reporting
from bergen_sim.services.execution.jobs import RunOptions

SLICE = Path(__file__).resolve().parents[1] / "data" / "quick_report_slice.json"
#: the analysis, its size and seed, and the tables kept in the slice
ANALYSIS, MATCHES, SEED, POLICIES = "going_first", 300, 7, ["random", "expert"]


def _slice() -> dict:
    result = reporting.run(
        ANALYSIS, matches=MATCHES, seed=SEED, quick=True, policies=POLICIES, options=RunOptions(workers=1)
    )
    return {
        name: json.loads(frame.to_json(orient="split", double_precision=15))
        for name, frame in sorted(result.tables.items())
    }


def write_slice() -> None:
    SLICE.parent.mkdir(exist_ok=True)
    SLICE.write_text(
        json.dumps(
            {"analysis": ANALYSIS, "matches": MATCHES, "seed": SEED, "policies": POLICIES, "tables": _slice()},
            indent=1,
        )
        + "\n"
    )


def test_a_quick_report_reproduces_the_committed_slice_exactly():
    committed = json.loads(SLICE.read_text())
    assert (committed["analysis"], committed["matches"], committed["seed"], committed["policies"]) == (
        ANALYSIS,
        MATCHES,
        SEED,
        POLICIES,
    )
    assert _slice() == committed["tables"]
