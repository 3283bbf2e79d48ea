"""Readies a worker pool's forkserver: Numba's target and compiler tables, and the built-in policies.

Every pool worker is forked from the forkserver (:mod:`bergen_sim.parallel`
lists this module in its preload), so what is done here is done once per
pool instead of once per worker, and off the critical path: the calling
process plays chunks itself while the pool starts.  A worker then only loads
its kernel from Numba's disk cache (about 0.05 s) instead of first setting
up Numba's CPU target (LLVM, the runtime, the registries: about 0.4 s).
"""

from __future__ import annotations

import importlib

from numba.core.registry import cpu_target

from bergen_sim.runtime.registry import BUILTINS

cpu_target.target_context.refresh()  # what loading a first kernel would otherwise do in every worker
for _module, _, _ in BUILTINS.values():
    importlib.import_module(_module)
