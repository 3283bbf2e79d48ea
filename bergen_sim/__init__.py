"""bergen-sim: a Monte Carlo strategy analyzer for Bergen, a scoring domino game.

The public API:

- :func:`simulate` plays many matches and returns a summary (and per-match rows);
- :class:`Rules` is one rule set (``Rules.make(players=3, preset="classic")``);
- :class:`Engine` is the compiled engine for one rule set and seat policies.
"""

from bergen_sim._version import __version__
from bergen_sim.rules import Rules
from bergen_sim.runtime.runner import Engine
from bergen_sim.simulate import SimulationResult, simulate

__all__ = ["Engine", "Rules", "SimulationResult", "simulate", "__version__"]
