"""The compiled engine core: data layout, rules as compiled functions, the match loop, keyed randomness.

This package imports nothing of ``bergen_sim`` outside itself except the
foundation modules (``errors``, ``compile_cache``); policies, search, the
runtime and the services all build on it (``tests/docs/test_layers.py``).
"""

from bergen_sim.core.compile_cache import check_cache_dir, install_cache_locator

check_cache_dir()  # a cache folder that cannot be written is named now, in one line, not deep in a compile
install_cache_locator()  # before the first compiled function is defined: see compile_cache
