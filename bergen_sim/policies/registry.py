"""Policy names: built-ins, entry-point plug-ins and ``package.module:function``.

A policy is an ``@njit`` function ``f(view, move_tiles, move_ends, n_moves,
rng) -> int`` returning the index of its chosen move (see
:mod:`bergen_sim.policies.base`).  This module turns the names users type
into :class:`PolicyRef` records that the kernel builder can import.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import os
import pkgutil
import sys
from dataclasses import dataclass

from bergen_sim.errors import PolicyError

ENTRY_POINT_GROUP = "bergen_sim.policies"



def _builtins() -> dict[str, tuple[str, str, str]]:
    """Built-in policies: every module of this package with a ``NAME`` and a ``choose``.

    Returns name -> (module, function, one-line description from the module docstring).
    """
    import bergen_sim.policies as package

    found: dict[str, tuple[str, str, str]] = {}
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        name = getattr(module, "NAME", None)
        if name and hasattr(module, "choose"):
            doc = (module.__doc__ or "").strip().splitlines()
            found[name] = (module.__name__, "choose", doc[0].split(":", 1)[-1].strip() if doc else "")
    return dict(sorted(found.items(), key=lambda item: (item[0] not in ("random", "first"), item[0])))


BUILTINS = _builtins()


@dataclass(frozen=True)
class PolicyRef:
    """Where a policy lives: ``name`` as the user gave it, importable ``module:function``."""

    name: str
    module: str
    function: str
    description: str = ""
    source_file: str = ""


def _entry_points() -> dict[str, str]:
    return {ep.name: ep.value for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}


def available() -> list[PolicyRef]:
    """Every policy a short name can select: built-ins, then entry points."""
    refs = [PolicyRef(name, mod, fn, desc) for name, (mod, fn, desc) in BUILTINS.items()]
    for name, value in sorted(_entry_points().items()):
        if name not in BUILTINS:
            refs.append(_from_target(name, value, check=False))
    return refs


def _from_target(name: str, target: str, check: bool = True) -> PolicyRef:
    module, _, function = target.partition(":")
    if not module or not function:
        raise PolicyError(f"policy {name!r}: expected package.module:function, got {target!r}")
    if os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())  # `--policy examples.mine:f` works from the project root
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        spec = None
    if spec is None or spec.origin is None:
        raise PolicyError(f"policy {name!r}: cannot find module {module!r}")
    description = ""
    if check:
        try:
            mod = importlib.import_module(module)
        except Exception as exc:  # a plug-in's import error is the user's to see, on one line
            raise PolicyError(f"policy {name!r}: importing {module!r} failed: {exc}") from None
        fn = getattr(mod, function, None)
        if fn is None:
            raise PolicyError(f"policy {name!r}: module {module!r} has no function {function!r}")
        if not hasattr(fn, "py_func"):
            raise PolicyError(f"policy {name!r}: {target} must be a numba @njit function")
        description = (fn.py_func.__doc__ or "").strip().splitlines()[0] if fn.py_func.__doc__ else ""
    return PolicyRef(name, module, function, description, source_file=spec.origin)


def resolve(name: str) -> PolicyRef:
    """The policy a user means by ``name`` (built-in, entry point or module:function)."""
    if name in BUILTINS:
        module, function, description = BUILTINS[name]
        return PolicyRef(name, module, function, description)
    if ":" in name:
        return _from_target(name, name)
    points = _entry_points()
    if name in points:
        return _from_target(name, points[name])
    known = ", ".join(ref.name for ref in available())
    raise PolicyError(f"unknown policy {name!r}; available: {known}, or package.module:function")
