"""What the whole suite shares: the ``extras`` and ``fast`` markers (declared in pyproject.toml)."""

from __future__ import annotations

import multiprocessing.process
import os
import subprocess
import types

import pytest

from bergen_sim.core.i18n import DEFAULT, language_from_environment

# the suite reads the English text; on a machine whose locale is Danish every command would speak Danish
if language_from_environment() != DEFAULT:
    os.environ["LC_ALL"] = "C.UTF-8"

#: the top-level modules of the optional extras the tests exercise (pyproject.toml: dask, openspiel, gym)
EXTRA_MODULES = frozenset({"distributed", "dask", "pyspiel", "gymnasium"})

#: the fast tier (`-m fast`): test modules whose tests compile no Numba kernel and start no process (the rules, the
#: Python game and its oracle, traces, statistics, the docs' numbers, packaging), so they run in seconds on any cache
FAST_MODULES = frozenset(
    {
        "test_docs_numbers.py",
        "test_estimate.py",
        "test_fill_numbers.py",
        "test_layers.py",
        "test_luck_replication.py",
        "test_packaging.py",
        "test_readme_numbers.py",
        "test_reference_golden.py",
        "test_reference_rules.py",
        "test_rules_settings.py",
        "test_safety_doc.py",
        "test_signatures.py",
        "test_state.py",
        "test_stats.py",
        "test_trace_versions.py",
    }
)


def imports_an_extra(module: types.ModuleType) -> bool:
    """Whether a test module holds one of the extras' modules (``x = pytest.importorskip("x")`` at its top)."""
    return any(
        isinstance(value, types.ModuleType) and value.__name__.partition(".")[0] in EXTRA_MODULES
        for value in vars(module).values()
    )


@pytest.hookimpl(tryfirst=True)  # before -m deselects, so that -m selects by these marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``extras`` every test of a module that imports an extra (without the extra the module skips whole, so
    `-m extras` names exactly what a run without them left out), and ``fast`` the tests of FAST_MODULES."""
    imports: dict[types.ModuleType, bool] = {}
    for item in items:
        module = getattr(item, "module", None)  # None for the package's doctests
        if module is None:
            continue
        if module not in imports:
            imports[module] = imports_an_extra(module)
        if imports[module]:
            item.add_marker(pytest.mark.extras)
        if item.path.name in FAST_MODULES:
            item.add_marker(pytest.mark.fast)


def _not_fast(what: str) -> None:
    pytest.fail(
        f"a test of the fast tier (FAST_MODULES in tests/conftest.py) {what}: make it compile nothing, or "
        "move it to another test module",
        pytrace=False,
    )


@pytest.fixture(autouse=True)
def fast_tier_compiles_nothing(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fast test fails where it would load or compile a kernel or start a process (what would make it slow on a
    cold cache); pytest.fail is not an Exception, so the code under test cannot catch it."""
    if request.node.get_closest_marker("fast") is None:
        return
    from numba.core.dispatcher import Dispatcher

    monkeypatch.setattr(
        Dispatcher, "compile", lambda self, sig: _not_fast(f"needs the kernel {self.py_func.__qualname__}")
    )
    monkeypatch.setattr(subprocess.Popen, "__init__", lambda self, *args, **kwargs: _not_fast("starts a process"))
    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", lambda self: _not_fast("starts a process"))
