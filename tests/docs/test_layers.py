"""The package's layers only point down: a module never imports from a layer above its own.

A layer is a folder of ``bergen_sim/``; bottom to top (docs/architecture.md has the map):

core       errors, bounds of every setting, statistics, compile cache, notices, result cards, provenance
engine     the compiled core: layout, rules as compiled functions, match loop, keyed randomness, worlds
model      the Python side of the game: ``Rules``, tiles/moves/events, the match state (the Python game)
policies   the built-in heuristic policies
search     rollouts, match values, the search players' evaluations, the position analyzer
runtime    policy names -> compiled kernels (registry, kernel builder, ``Engine``)
services   simulation, comparison, the step-by-step game and its review, analyses, files, execution
adapters   OpenSpiel and Gymnasium
cli        one module per command
package    ``bergen_sim/__init__.py``, the public facade (nothing inside the package imports it)

Only ``__init__`` and ``_version`` (read by every layer, so counted with core) stay at the root.
The walk reads every ``import`` statement with :mod:`ast`, including imports
inside functions (a lazy import that points up is still an upward
dependency); imports under ``if TYPE_CHECKING:`` count too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "bergen_sim"

LAYER_FOLDERS = ["core", "engine", "model", "policies", "search", "runtime", "services", "adapters", "cli"]
LAYER_NAMES = [*LAYER_FOLDERS, "package"]
ROOT_MODULES = {"__init__.py": "package", "_version.py": "core"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> int:
    """Index in LAYER_NAMES of a module of the package: the folder it sits in."""
    parts = module.split(".")
    if len(parts) == 1:
        return LAYER_NAMES.index("package")
    if f"{parts[1]}.py" in ROOT_MODULES:
        return LAYER_NAMES.index(ROOT_MODULES[f"{parts[1]}.py"])
    return LAYER_NAMES.index(parts[1])


def project_imports(source: str, here: str, is_package: bool = False) -> set[str]:
    """Every ``bergen_sim`` module that module ``here`` imports (``from bergen_sim import x``: module x if it is one)."""
    found: set[str] = set()
    package = here if is_package else here.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.split(".")[0] == "bergen_sim")
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative import
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            if base.split(".")[0] != "bergen_sim":
                continue
            for alias in node.names:
                candidate = PACKAGE.parent / Path(*f"{base}.{alias.name}".split("."))
                is_module = candidate.with_suffix(".py").exists() or (candidate / "__init__.py").exists()
                found.add(f"{base}.{alias.name}" if is_module else base)
    return found


def upward_imports(source: str, here: str, is_package: bool = False) -> list[str]:
    """The imports of module ``here`` that point to a higher layer, as ``module (layer)``."""
    mine = layer_of(here)
    return sorted(
        f"{target} ({LAYER_NAMES[layer_of(target)]})"
        for target in project_imports(source, here, is_package)
        if layer_of(target) > mine
    )


MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE.parent)))
def test_module_imports_only_its_own_layer_or_below(path: Path) -> None:
    here = module_name(path)
    upward = upward_imports(path.read_text(), here, path.name == "__init__.py")
    assert not upward, f"{here} ({LAYER_NAMES[layer_of(here)]}) imports upward: {', '.join(upward)}"


def test_the_walk_sees_upward_imports() -> None:
    """The checker itself can fail: the upward imports this issue removed are each reported."""
    assert upward_imports("from bergen_sim.policies import greedy", "bergen_sim.engine.rollout") == [
        "bergen_sim.policies.greedy (policies)"
    ]
    assert upward_imports(
        "def f():\n    from bergen_sim.runtime.registry import resolve\n", "bergen_sim.engine.runner"
    ) == ["bergen_sim.runtime.registry (runtime)"]
    assert upward_imports("from bergen_sim import __version__", "bergen_sim.services.simulation") == [
        "bergen_sim (package)"
    ]
    assert upward_imports("from .. import search", "bergen_sim.policies.base") == ["bergen_sim.search (search)"]
    assert upward_imports("from bergen_sim.engine import layout", "bergen_sim.policies.base") == []


def test_core_imports_nothing_of_the_project_but_core() -> None:
    for path in sorted((PACKAGE / "core").glob("*.py")):
        here = module_name(path)
        imported = project_imports(path.read_text(), here, path.name == "__init__.py")
        assert all(layer_of(m) == 0 for m in imported), f"{here} must import only core"


def test_the_tree_is_the_map() -> None:
    """Every folder of the package is a layer, and only the facade and the version sit at the root."""
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders == set(LAYER_FOLDERS), (
        f"folders without a layer or layers without a folder: {folders ^ set(LAYER_FOLDERS)}"
    )
    assert {p.name for p in PACKAGE.glob("*.py")} == set(ROOT_MODULES)
