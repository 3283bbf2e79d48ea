"""bergen-sim: a Monte Carlo strategy analyzer for Bergen, a scoring domino game.

The public API (imported on first use, so ``import bergen_sim`` and
``bergen-sim --help`` stay light):

- :func:`simulate` plays many matches and returns a summary (and per-match rows);
- :func:`compare` plays a duplicate-deal round-robin of policies;
- :func:`analyze` ranks the legal moves of a position (:class:`Position`): an :class:`Analysis` whose
  ``moves`` are :class:`RankedMove` s (a :class:`Move` with :class:`Estimate` figures), ``to_frame()`` a table;
- :func:`run_analysis` runs one analysis of ``analyses/`` and returns its tables,
  :func:`report` runs analyses and writes their Markdown reports
  (:mod:`bergen_sim.services.analysis.reporting` is the whole analysis API);
- :class:`Rules` is one rule set (``Rules.make(players=3, preset="classic")``), the ``rules=`` every
  function takes; :class:`RunOptions` says how a run is carried out (workers, a Dask scheduler, a
  checkpoint folder, a progress bar, the chunk size), the ``options=`` of ``simulate``, ``compare``
  and ``run_analysis``, and never what it finds; :class:`ReportOptions` adds what only ``report``
  has (progress lines, where failures are told, ``allow_dirty``);
- :class:`Game` is one match you step through (``Game(seed=1)``, ``game.legal_moves()``,
  ``game.play(move)``), :class:`Move` and :class:`Tile` its moves and tiles with a text
  round trip, and :func:`play_out` plays the rest of it with built-in policies;
- :func:`review` weighs every decision of played games against the best move;
- :class:`Engine` is the compiled engine for one rule set and seat policies.
"""

from __future__ import annotations

import importlib
from typing import Any

from bergen_sim._version import __version__

#: public name -> (module, attribute), or (module, None) for the module itself; imported on first use
_EXPORTS: dict[str, tuple[str, str | None]] = {
    "simulate": ("bergen_sim.services.simulation", "simulate"),
    "SimulationResult": ("bergen_sim.services.simulation", "SimulationResult"),
    "compare": ("bergen_sim.services.comparison", "compare"),
    "TournamentResult": ("bergen_sim.services.comparison", "TournamentResult"),
    "analyze": ("bergen_sim.services.position", "analyze"),
    "Position": ("bergen_sim.search.position", "Position"),
    "Analysis": ("bergen_sim.search.position", "Analysis"),
    "RankedMove": ("bergen_sim.search.position", "RankedMove"),
    "run_analysis": ("bergen_sim.services.analysis.reporting", "run"),
    "report": ("bergen_sim.services.analysis.reporting", "report"),
    "analysis": ("bergen_sim.services.analysis.reporting", None),
    "Rules": ("bergen_sim.model.rules", "Rules"),
    "RunOptions": ("bergen_sim.services.execution.jobs", "RunOptions"),
    "ReportOptions": ("bergen_sim.services.analysis.reporting", "ReportOptions"),
    "Estimate": ("bergen_sim.core.estimate", "Estimate"),
    "Lead": ("bergen_sim.model.rules", "Lead"),
    "Settlement": ("bergen_sim.model.rules", "Settlement"),
    "Game": ("bergen_sim.services.game", "Game"),
    "play_out": ("bergen_sim.services.game", "play_out"),
    "Move": ("bergen_sim.model.domain", "Move"),
    "Tile": ("bergen_sim.model.domain", "Tile"),
    "review": ("bergen_sim.services.game_review", "review"),
    "Engine": ("bergen_sim.runtime.runner", "Engine"),
}

__all__ = [*_EXPORTS, "__version__"]


def __getattr__(name: str) -> Any:
    """Import a public name on first use (PEP 562)."""
    try:
        module_name, attribute = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'bergen_sim' has no attribute {name!r}") from None
    module = importlib.import_module(module_name)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
