"""``analyze`` as the package offers it: rank the legal moves of a position, with the keywords every command uses.

The work is :func:`bergen_sim.search.position.analyze`'s; this face names the search player whose
evaluation ranks the moves ``policy`` (the search players are policies: ``bergen-sim analyze --policy``),
as ``simulate``, ``compare`` and ``review`` do.  ``base``, the policy that plays the rollouts, keeps its
name: it is a setting of the search, the one ``pimc:base=...`` takes.
"""

from __future__ import annotations

from typing import Any

from bergen_sim.core.errors import renamed_keyword, shown
from bergen_sim.model.rules import Rules
from bergen_sim.search.position import (
    DEFAULT_BASE,
    DEFAULT_BATCH,
    DEFAULT_PLAYER,
    DEFAULT_WORLDS,
    PLAYERS,
    Analysis,
    Position,
    PositionError,
)
from bergen_sim.search.position import analyze as _analyze


def checked_policy(policy: Any, player: Any = None) -> str:
    """The search player named by ``policy`` (default :data:`DEFAULT_PLAYER`), or by ``player``, its old keyword.

    A name that is not one of :data:`PLAYERS` is refused with a PositionError.  Called by the public
    functions themselves: the DeprecationWarning points at their caller.
    """
    policy = renamed_keyword("policy", policy, "player", player, PositionError, stacklevel=4)
    if policy is None:
        return DEFAULT_PLAYER
    if policy not in PLAYERS:
        raise PositionError(f"policy must be one of {', '.join(PLAYERS)} (the search players), not {shown(policy)}")
    return policy


def analyze(
    position: Position | Any,
    rules: Rules,
    base: str = DEFAULT_BASE,
    worlds: int = DEFAULT_WORLDS,
    batch: int = DEFAULT_BATCH,
    seed: int = 0,
    policy: str | None = None,
    *,
    player: str | None = None,
) -> Analysis:
    """Rank every legal move of ``position`` under ``rules``; reproducible from ``seed``.

    ``policy`` is the search player whose evaluation ranks the moves (one of :data:`PLAYERS`,
    default :data:`DEFAULT_PLAYER`; ``player=``, its old name, still works for this release);
    ``base`` the policy of every seat in its rollouts; ``worlds`` the most worlds sampled, checked
    every ``batch`` for a separated best move.  ``position`` is a :class:`Position` or a seat's
    view of a game (``Game.view(seat)``); see :func:`bergen_sim.search.position.analyze`.
    """
    return _analyze(
        position,
        rules,
        base=base,
        worlds=worlds,
        batch=batch,
        seed=seed,
        player=checked_policy(policy, player),
    )
