"""Readies a worker pool's forkserver: Numba's compiler tables and the built-in policies, set up once.

Every pool worker is forked from the forkserver (:mod:`bergen_sim.parallel`
lists this module in its preload), so what is done here is done once per
pool instead of once per worker.  Why it matters: the first kernel a process
loads from Numba's disk cache spends about 0.4 s building Numba's CPU target
(its registries; SciPy's BLAS is imported there), and only about 0.05 s
loading the kernel itself.  Workers forked after this load theirs at once.
"""

from __future__ import annotations

import importlib

from numba.core.registry import cpu_target

from bergen_sim.runtime.registry import BUILTINS

cpu_target.target_context.refresh()  # what loading the first cached kernel would do in every worker
for _module, _, _ in BUILTINS.values():
    importlib.import_module(_module)
