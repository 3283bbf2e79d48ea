"""The package's layers only point down: a module never imports from a layer above its own.

Bottom to top (docs/architecture.md has the map):

foundation  ``_version``, ``errors``, ``compile_cache``, ``stats``: no project imports at all
engine      the compiled core: layout, rules as compiled functions, match loop, keyed randomness, worlds
model       the Python side of the game: ``Rules``, tiles/moves/events (``domain``), the reference engine
policies    the built-in heuristic policies
search      rollouts, match values, the ``pimc`` policy's evaluation, the position analyzer
runtime     policy names -> compiled kernels (registry, kernel builder, ``Engine``)
services    simulate, compare (tournament), traces, reports, parallel execution, checkpoints
cli         one module per command
package     ``bergen_sim/__init__.py``, the public facade (nothing inside the package imports it)

The walk reads every ``import`` statement with :mod:`ast`, including imports
inside functions (a lazy import that points up is still an upward
dependency); imports under ``if TYPE_CHECKING:`` count too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "bergen_sim"

LAYERS: list[tuple[str, tuple[str, ...]]] = [
    # the bounds of every setting, what users are told, and result cards are read by every layer
    ("foundation", ("bergen_sim._version", "bergen_sim.errors", "bergen_sim.compile_cache", "bergen_sim.stats",
                    "bergen_sim.limits", "bergen_sim.feedback", "bergen_sim.display", "bergen_sim.i18n")),
    ("engine", ("bergen_sim.engine",)),
    ("model", ("bergen_sim.rules", "bergen_sim.domain", "bergen_sim.reference")),
    ("policies", ("bergen_sim.policies",)),
    ("search", ("bergen_sim.search",)),
    ("runtime", ("bergen_sim.runtime",)),
    ("services", ()),  # every other module of the package
    ("cli", ("bergen_sim.cli",)),
    ("package", ("bergen_sim",)),
]
LAYER_NAMES = [name for name, _ in LAYERS]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> int:
    """Index in LAYERS of a module of the package (the most specific prefix wins)."""
    if module == "bergen_sim":
        return LAYER_NAMES.index("package")
    for index, (_, prefixes) in enumerate(LAYERS[:-1]):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return index
    return LAYER_NAMES.index("services")


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
        "bergen_sim.policies.greedy (policies)"]
    assert upward_imports("def f():\n    from bergen_sim.runtime.registry import resolve\n",
                          "bergen_sim.engine.runner") == ["bergen_sim.runtime.registry (runtime)"]
    assert upward_imports("from bergen_sim import __version__", "bergen_sim.simulate") == ["bergen_sim (package)"]
    assert upward_imports("from .. import search", "bergen_sim.policies.base") == ["bergen_sim.search (search)"]
    assert upward_imports("from bergen_sim.engine import layout", "bergen_sim.policies.base") == []


def test_foundation_imports_nothing_of_the_project_but_the_foundation() -> None:
    foundation = set(LAYERS[0][1])
    for prefix in foundation:
        path = PACKAGE / (prefix.split(".", 1)[1] + ".py")
        assert project_imports(path.read_text(), prefix) <= foundation, f"{prefix} must import only the foundation"


def test_every_module_is_placed() -> None:
    """A new top-level module lands in services unless listed; a new subpackage must be listed."""
    listed = {p.split(".")[1] for _, prefixes in LAYERS for p in prefixes if "." in p}
    for folder in (p for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()):
        assert folder.name in listed, f"subpackage bergen_sim.{folder.name} has no layer in tests/test_layers.py"
