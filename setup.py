"""Map the repository's top-level ``analyses/`` and ``examples/`` folders into the package, and compile the
message catalogs.

They stay where readers of the repository expect them, and a wheel or a
regular install ships them as ``bergen_sim.analyses`` and
``bergen_sim.examples``, found at run time with :mod:`importlib.resources`.
Each language's ``.po`` (checked in) is compiled to the ``.mo`` gettext reads
and the wheel ships the ``.mo``; an editable install reads the ``.po`` of the
source tree (bergen_sim.core.i18n).  Everything else about the build is in
pyproject.toml.
"""

from pathlib import Path

from setuptools import find_namespace_packages, find_packages, setup
from setuptools.command.build_py import build_py

MAPPED = {"bergen_sim.analyses": "analyses", "bergen_sim.examples": "examples"}


class BuildWithCatalogs(build_py):
    """build_py, then every copied ``locale/LANG/LC_MESSAGES/*.po`` compiled to its ``.mo`` (Babel) in its place."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):  # nothing was copied: the source tree's .po is read
            return
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        for po in Path(self.build_lib, "bergen_sim", "locale").glob("*/LC_MESSAGES/*.po"):
            with po.open("rb") as handle:
                catalog = read_po(handle, locale=po.parent.parent.name, domain=po.stem)
            with po.with_suffix(".mo").open("wb") as handle:
                write_mo(handle, catalog)  # fuzzy entries left out: they read as English
            po.unlink()


# the data folders (catalogs, JSON Schemas) are listed as packages only so that setuptools does not warn that they
# look like ones; their files are the package data of bergen_sim (pyproject.toml)
DATA_FOLDERS = find_namespace_packages(include=["bergen_sim.locale", "bergen_sim.locale.*", "bergen_sim.schemas"])

setup(
    packages=find_packages(include=["bergen_sim", "bergen_sim.*"]) + DATA_FOLDERS + list(MAPPED),
    package_dir=MAPPED,
    cmdclass={"build_py": BuildWithCatalogs},
)
