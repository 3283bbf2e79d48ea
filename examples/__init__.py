"""Examples that ship with bergen-sim: a plug-in policy, a notebook-style script, an experiment file.

This folder is the repository's top-level ``examples/``; the build maps it
into the package as ``bergen_sim.examples`` (setup.py), so an installed
package runs the example plug-in as ``--policy bergen_sim.examples.cautious:choose``
from any folder (``examples.cautious:choose`` also works from the repository's root).
"""
