"""The interval helpers' first home, kept so analyses written against it still import.

Everything now lives in :mod:`bergen_sim.stats` (the one statistics module);
import from there.
"""

from bergen_sim.stats import *  # noqa: F401,F403
