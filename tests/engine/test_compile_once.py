"""Every compiled function of the engine compiles once per kernel, not once per literal its callers pass.

Numba compiles a function once per combination of argument types, and a
literal (``0``, ``-1``, ``1 << 40``) is a type of its own; so is a counter
that starts at ``0`` while type inference is still working its way round a
loop.  Ten copies of the trace writer and five of the keyed-stream seed made
a cold compile of the default kernel 25% slower (docs/architecture.md,
"Compiled code and its cache").  This test compiles the default kernel and
a ``pimc`` kernel (worlds, play-outs, match-win table) in a fresh process
with an empty cache and lists the package's functions with more than one
compiled signature.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

PROBE = r"""
import json, sys
from bergen_sim import RunOptions, simulate
simulate(matches=3, seed=1, options=RunOptions(workers=1))
simulate(policies=["pimc:worlds=4", "expert"], matches=1, seed=1, options=RunOptions(workers=1))
twice = {}
for name, module in list(sys.modules.items()):
    if name.startswith("bergen_sim"):
        for attr, value in vars(module).items():
            signatures = getattr(value, "signatures", None)
            if signatures is not None and len(signatures) > 1 and getattr(value, "__module__", "") == name:
                twice[f"{name}.{attr}"] = [str(s) for s in signatures]
print(json.dumps(twice))
"""


@pytest.mark.slow  # a cold compile of two kernels (about a minute and a half)
def test_no_engine_function_compiles_twice_in_the_default_and_pimc_kernels(tmp_path):
    env = {**os.environ, "BERGEN_SIM_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    twice = json.loads(done.stdout.strip().splitlines()[-1])
    assert twice == {}, "compiled more than once (pass int64s, not literals):\n" + json.dumps(twice, indent=1)
