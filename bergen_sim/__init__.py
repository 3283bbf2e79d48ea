"""bergen-sim: a Monte Carlo strategy analyzer for Bergen, a scoring domino game.

The public API:

- :func:`simulate` plays many matches and returns a summary (and per-match rows);
- :class:`Rules` is one rule set (``Rules.make(players=3, preset="classic")``);
- :class:`Engine` is the compiled engine for one rule set and seat policies.
"""

__version__ = "0.1.0"

from bergen_sim.compile_cache import use_source_keyed_numba_cache  # noqa: E402

use_source_keyed_numba_cache()  # before any compiled function is defined: see compile_cache

from bergen_sim.rules import Rules  # noqa: E402
from bergen_sim.engine.runner import Engine  # noqa: E402
from bergen_sim.simulate import SimulationResult, simulate  # noqa: E402

__all__ = ["Engine", "Rules", "SimulationResult", "simulate", "__version__"]
