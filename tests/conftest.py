"""Markers the whole suite shares (declared in pyproject.toml's pytest settings)."""

from __future__ import annotations

import types

import pytest

#: the top-level modules of the optional extras the tests exercise (pyproject.toml: dask, openspiel, gym)
EXTRA_MODULES = frozenset({"distributed", "dask", "pyspiel", "gymnasium"})


def imports_an_extra(module: types.ModuleType) -> bool:
    """Whether a test module holds one of the extras' modules (``x = pytest.importorskip("x")`` at its top)."""
    return any(isinstance(value, types.ModuleType) and value.__name__.partition(".")[0] in EXTRA_MODULES
               for value in vars(module).values())


@pytest.hookimpl(tryfirst=True)  # before -m deselects: `-m extras` then selects these tests
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``extras`` every test of a module that imports an extra: without the extra such a module skips
    whole, so `-m extras` names exactly what a run without them left out."""
    marked: dict[types.ModuleType, bool] = {}
    for item in items:
        module = getattr(item, "module", None)
        if module is None:
            continue
        if module not in marked:
            marked[module] = imports_an_extra(module)
        if marked[module]:
            item.add_marker(pytest.mark.extras)
