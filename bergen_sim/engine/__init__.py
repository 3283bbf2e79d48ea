"""The compiled engine: data layout, rules as compiled functions, the match loop.

Every module that defines a compiled (``@njit(cache=True)``) function imports
this package first, the built-in policies and plug-ins included (they read
``bergen_sim.engine.layout``), so pointing Numba's disk cache at the
source-keyed folder here happens before any of them is defined (see
:mod:`bergen_sim.compile_cache`), and only when compiled code is needed.
"""

from bergen_sim.compile_cache import use_source_keyed_numba_cache

use_source_keyed_numba_cache()
