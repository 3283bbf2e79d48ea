"""Policies: the built-in heuristic policies that choose moves (shared move features in base.py).

Names resolve to these functions in :mod:`bergen_sim.runtime.registry`; the
search policy ``pimc`` lives in :mod:`bergen_sim.search.pimc`.
"""
