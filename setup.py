"""Map the repository's top-level ``analyses/`` and ``examples/`` folders into the package.

They stay where readers of the repository expect them, and a wheel or a
regular install ships them as ``bergen_sim.analyses`` and
``bergen_sim.examples``, found at run time with :mod:`importlib.resources`.
Everything else about the build is in pyproject.toml.
"""

from setuptools import find_packages, setup

MAPPED = {"bergen_sim.analyses": "analyses", "bergen_sim.examples": "examples"}

setup(packages=find_packages(include=["bergen_sim", "bergen_sim.*"]) + list(MAPPED), package_dir=MAPPED)
