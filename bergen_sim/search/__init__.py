"""Search: rollouts, match-win values, the ``pimc`` policy's evaluation and the position analyzer.

Everything here plays hands out from a full state with the built-in
policies (:mod:`.rollout`), so it sits above :mod:`bergen_sim.policies` and
below the runtime that dispatches policies by name.  World sampling itself
(consistent hidden hands) is an engine primitive: :mod:`bergen_sim.engine.worlds`.
"""
