"""The analyses that ship with bergen-sim, one module per analysis (see README.md here).

This folder is the repository's top-level ``analyses/``; the build maps it
into the package as ``bergen_sim.analyses`` (setup.py), so an installed
``bergen-sim report`` finds them (:mod:`bergen_sim.services.analysis.reporting` loads them by file).
"""
