"""Policy names: built-ins, entry-point plug-ins and ``package.module:function``.

A policy is an ``@njit`` function ``f(view, move_tiles, move_ends, n_moves,
rng) -> int`` returning the index of its chosen move (see
:mod:`bergen_sim.policies.base`).  This module turns the names users type
into :class:`PolicyRef` records that the kernel builder can import.

Built-ins with settings
-----------------------
A built-in module may declare ``PARAMS = {key: Setting(default, allowed, meaning)}``
(:class:`bergen_sim.policies.base.Setting`) with ``allowed`` either a ``range``
of whole numbers or a tuple of names.  Its
``choose`` then takes the settings as extra arguments after ``no_tiles``, in
``PARAMS`` order (a name is passed as its index in ``allowed``), and the
user picks them as ``NAME:KEY=VALUE[:KEY=VALUE...]`` (``pimc:worlds=64:base=expert``;
keys not given keep their defaults).  The ``=`` after the first colon is what
tells settings from ``package.module:function`` (a function name has none);
colons rather than commas separate them so that policy lists such as
``compare --policies pimc:worlds=64,expert`` stay comma-separated.  A
module may also define ``kernel_arrays(rules, params)``, returning the rules
vector and the match-value table its ``choose`` takes after the settings.
The match loop passes a seat's settings and table as arguments (rows of
``seat_params`` and ``seat_tables``, :mod:`bergen_sim.runtime.kernel_build`),
so every setting plays on the same compiled kernel.
"""

from __future__ import annotations

import ast
import importlib
import importlib.abc
import importlib.machinery
import importlib.metadata
import importlib.util
import multiprocessing
import os
import pkgutil
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bergen_sim.core.errors import PolicyError, shown
from bergen_sim.core.limits import whole_number

if TYPE_CHECKING:  # policies/ imports Numba, which listing the policies must not
    from bergen_sim.policies.base import Setting

ENTRY_POINT_GROUP = "bergen_sim.policies"


#: packages whose modules with a ``NAME`` and a ``choose`` are built-in policies: the heuristics and search
BUILTIN_PACKAGES = ("bergen_sim.policies", "bergen_sim.search")


_ASSIGNS_NAME = re.compile(r"^NAME\s*(:[^=\n]*)?=", re.MULTILINE)


def _declared_policy(path: str, only: str | None = None) -> tuple[str, str] | None:
    """(NAME, first docstring line) of a module that declares a built-in policy, read from its source.

    A built-in declares ``NAME = "literal"`` and ``choose`` at its top level.
    Reading the source (``ast``) rather than importing lets ``bergen-sim
    policies`` and name checks run without Numba and the compiled policies;
    ``tests/policies/test_plugins.py`` checks that importing the modules finds exactly
    the same policies.  ``only``: parse the module only if its text assigns
    that name as a plain literal (the cheap way to find one policy).
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, ValueError):
        return None
    # parsing is most of the start-up of a command that resolves a policy: parse only a module that may declare
    # the policy sought (the search modules that declare none are the largest)
    wanted = (
        _ASSIGNS_NAME
        if only is None
        else re.compile(rf"""^NAME\s*(:[^=\n]*)?=\s*(["']){re.escape(only)}\2\s*$""", re.MULTILINE)
    )
    if not wanted.search(text):
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    name, has_choose = None, False
    for node in tree.body:
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        for target in targets:
            if isinstance(target, ast.Name) and target.id == "NAME" and isinstance(value, ast.Constant):
                name = value.value
            has_choose |= isinstance(target, ast.Name) and target.id == "choose"
        has_choose |= isinstance(node, ast.FunctionDef) and node.name == "choose"
        has_choose |= isinstance(node, ast.ImportFrom) and any((a.asname or a.name) == "choose" for a in node.names)
    if not (isinstance(name, str) and name and has_choose):
        return None
    doc = (ast.get_docstring(tree) or "").strip().splitlines()
    return name, doc[0].split(":", 1)[-1].strip() if doc else ""


def _builtins(only: str | None = None) -> dict[str, tuple[str, str, str]]:
    """Built-in policies: every module of :data:`BUILTIN_PACKAGES` that declares a ``NAME`` and a ``choose``.

    Returns name -> (module, function, one-line description from the module
    docstring), found without importing the modules (see :func:`_declared_policy`);
    with ``only``, just that policy when a module declares it as a plain literal.
    """
    found: dict[str, tuple[str, str, str]] = {}
    for package_name in BUILTIN_PACKAGES:
        spec = importlib.util.find_spec(package_name)
        if spec is None:
            continue
        for info in pkgutil.iter_modules(spec.submodule_search_locations):
            origin = Path(getattr(info.module_finder, "path", "")) / f"{info.name}.py"
            declared = None if info.ispkg else _declared_policy(str(origin), only)
            if declared and only in (None, declared[0]):
                found[declared[0]] = (f"{package_name}.{info.name}", "choose", declared[1])
    return dict(sorted(found.items(), key=lambda item: (item[0] not in ("random", "first"), item[0])))


class _BuiltinTable(Mapping):
    """:func:`_builtins`, read on first use: looking up one name parses only the modules that may declare it (a
    command that plays ``random`` reads one small file), listing them all parses every declaring module."""

    def __init__(self) -> None:
        self._every: dict[str, tuple[str, str, str]] | None = None
        self._one: dict[str, tuple[str, str, str] | None] = {}

    def _all(self) -> dict[str, tuple[str, str, str]]:
        if self._every is None:
            self._every = _builtins()
        return self._every

    def __getitem__(self, name: str) -> tuple[str, str, str]:
        if self._every is None and isinstance(name, str):
            if name not in self._one:
                self._one[name] = _builtins(only=name).get(name)
            found = self._one[name]
            if found is not None:
                return found
        return self._all()[name]  # declared in a form the quick look misses, or not a built-in (KeyError)

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


BUILTINS: Mapping[str, tuple[str, str, str]] = _BuiltinTable()


def builtin_params(builtin: str) -> dict[str, Setting]:
    """A built-in's ``PARAMS`` (``{}`` when it takes no settings); imports its module."""
    return getattr(importlib.import_module(BUILTINS[builtin][0]), "PARAMS", {})


@dataclass(frozen=True)
class PolicyRef:
    """Where a policy lives: ``name`` as the user gave it, importable ``module:function``."""

    name: str
    module: str
    function: str
    description: str = ""
    source_file: str = ""
    #: settings of a built-in with PARAMS, as the ints its ``choose`` takes after ``no_tiles``
    params: tuple[int, ...] = ()


def _entry_points() -> dict[str, str]:
    return {ep.name: ep.value for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}


def shadowed() -> dict[str, str]:
    """Installed entry points named like a built-in (name -> module:function): the built-in wins the name."""
    return {name: target for name, target in _entry_points().items() if name in BUILTINS}


_CHECKED: set[str] = set()


def _announce_shadowed(name: str) -> None:
    """Say once (in the main process) that ``name`` selects the built-in although a plug-in has that name too."""
    if name in _CHECKED or multiprocessing.parent_process() is not None:
        return
    _CHECKED.add(name)  # the entry points are read once per name: resolving is frequent
    target = shadowed().get(name)
    if target is None:
        return
    print(
        f"bergen-sim: note: {name!r} is the built-in policy; the installed plug-in of that name is hidden "
        f"(select it as --policy {target})",
        file=sys.stderr,
    )


def available() -> list[PolicyRef]:
    """Every policy a short name can select: built-ins, then entry points."""
    refs = [PolicyRef(name, mod, fn, desc) for name, (mod, fn, desc) in BUILTINS.items()]
    for name, value in sorted(_entry_points().items()):
        if name not in BUILTINS:
            try:
                refs.append(_from_target(name, value, check=False))
            except PolicyError:  # one broken plug-in must not hide the others; resolving it names the problem
                module, _, function = value.partition(":")
                refs.append(PolicyRef(name, module, function))
    return refs


class _NamedFolderFinder(importlib.abc.MetaPathFinder):
    """Finds only the top-level packages a user named on the command line, in the folder they named them from.

    ``--policy examples.mine:f`` run from a project's root should find
    ``./examples`` without the current folder going on ``sys.path``, where it
    would answer every later import (a ``dask.py`` lying there would be run in
    place of Dask). Searched after ``sys.path``, for those names only.
    """

    def __init__(self) -> None:
        self.folders: dict[str, str] = {}

    def find_spec(self, fullname, path=None, target=None):
        folder = self.folders.get(fullname)
        if folder is None or path is not None:
            return None
        return importlib.machinery.PathFinder.find_spec(fullname, [folder])


_NAMED_FOLDERS = _NamedFolderFinder()


def allow_folder(module: str, folder: str) -> None:
    """Let ``module``'s top-level package be imported from ``folder`` (a plug-in the user named there)."""
    if _NAMED_FOLDERS not in sys.meta_path:
        sys.meta_path.append(_NAMED_FOLDERS)
    _NAMED_FOLDERS.folders[module.partition(".")[0]] = folder


def _find(module: str) -> importlib.machinery.ModuleSpec | None:
    """The spec of a plug-in module: on ``sys.path``, else in the current folder (see :class:`_NamedFolderFinder`)."""
    # the import system caches folder listings: a plug-in file written after they were read (a notebook
    # that writes one, a package installed while the process runs) would not be found without this
    importlib.invalidate_caches()
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        spec = None
    if spec is not None:
        return spec
    try:
        folder = os.getcwd()
    except OSError:  # the current folder was deleted: nothing can be found in it
        return None
    if importlib.machinery.PathFinder.find_spec(module.partition(".")[0], [folder]) is None:
        return None
    allow_folder(module, folder)
    try:
        return importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None


def _from_target(name: str, target: str, check: bool = True) -> PolicyRef:
    module, _, function = target.partition(":")
    if not module or not function:
        raise PolicyError(f"policy {shown(name)}: expected package.module:function, got {shown(target)}")
    spec = _find(module)
    if spec is None or spec.origin is None:
        raise PolicyError(f"policy {shown(name)}: cannot find module {shown(module)}")
    description = ""
    if check:
        try:
            mod = importlib.import_module(module)
        except SystemExit as exc:  # sys.exit() at import: the run would end with no result and no word
            raise PolicyError(
                f"policy {name!r}: importing {module!r} called sys.exit({exc.code!r}); a policy module must not exit"
            ) from None
        except Exception as exc:  # a plug-in's import error is the user's to see, on one line
            raise PolicyError(f"policy {name!r}: importing {module!r} failed: {exc}") from None
        fn = getattr(mod, function, None)
        if fn is None:
            raise PolicyError(f"policy {name!r}: module {module!r} has no function {function!r}")
        if not hasattr(fn, "py_func"):
            raise PolicyError(f"policy {name!r}: {target} must be a numba @njit function")
        description = (fn.py_func.__doc__ or "").strip().splitlines()[0] if fn.py_func.__doc__ else ""
    return PolicyRef(name, module, function, description, source_file=spec.origin)


def _is_module(name: str) -> bool:
    """Whether ``name`` is an importable top-level module (so ``name:x`` may mean module:function)."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def setting_values(setting: Setting) -> str:
    """A setting's allowed values as the command line takes them: ``1..100000`` or ``points|expert|history``."""
    allowed = setting.allowed
    return f"{allowed.start}..{allowed.stop - 1}" if isinstance(allowed, range) else "|".join(allowed)


def settings_help(builtin: str) -> str:
    """One line listing a built-in's settings, allowed values and defaults."""
    return ", ".join(f"{key}={setting_values(s)} (default {s.default})" for key, s in builtin_params(builtin).items())


def settings_lines(builtin: str) -> list[str]:
    """One line per setting of a built-in: its values, default and meaning, from its ``PARAMS``."""
    return [
        f"{key}={setting_values(s)} (default {s.default}): {s.meaning}" for key, s in builtin_params(builtin).items()
    ]


def _parse_settings(name: str, builtin: str, text: str) -> tuple[int, ...]:
    """The literal arguments for ``builtin`` given the ``KEY=VALUE:...`` text after its colon."""
    spec = builtin_params(builtin)
    if not spec:
        raise PolicyError(f"policy {name!r}: {builtin} takes no settings")
    chosen: dict[str, str] = {}
    for item in text.split(":") if text.strip() else []:
        key, sep, value = (part.strip() for part in item.partition("="))
        if not sep or not key or not value:
            raise PolicyError(
                f"policy {name!r}: settings are KEY=VALUE separated by ':'; {builtin} takes {settings_help(builtin)}"
            )
        if key not in spec:
            raise PolicyError(f"policy {name!r}: unknown setting {key!r}; {builtin} takes {settings_help(builtin)}")
        if key in chosen:
            raise PolicyError(f"policy {name!r}: setting {key!r} given twice")
        chosen[key] = value
    params = []
    for key, (default, allowed, _) in spec.items():
        value = chosen.get(key, str(default))
        if isinstance(allowed, range):
            number = whole_number(value)
            if number is None or number not in allowed:
                raise PolicyError(
                    f"policy {shown(name)}: {key} must be a whole number in "
                    f"{allowed.start}..{allowed.stop - 1}, not {shown(value)}"
                )
            params.append(number)
        else:
            if value not in allowed:
                raise PolicyError(f"policy {name!r}: {key} must be one of {', '.join(allowed)}, not {value!r}")
            params.append(allowed.index(value))
    return tuple(params)


class ModuleNotAllowed(PolicyError):
    """A ``package.module:function`` policy named in a file whose plug-ins the user has not allowed."""


def resolve(name: str, allowed_by: str | None = None) -> PolicyRef:
    """The policy a user means by ``name`` (built-in with optional settings, entry point or module:function).

    ``allowed_by`` is set for a name read from a file: it is then taken only
    from the built-ins and the installed entry points, and a
    ``package.module:function``, whose import would run the module's code, is
    refused (nothing is looked up or imported) naming ``allowed_by``, the
    option by which the user allows it (``--allow-plugins``).
    """
    builtin, colon, settings = name.partition(":")
    if builtin in BUILTINS and (not colon or "=" in settings or not _is_module(builtin)):
        module, function, description = BUILTINS[builtin]
        _announce_shadowed(builtin)
        params = _parse_settings(name, builtin, settings) if colon or builtin_params(builtin) else ()
        return PolicyRef(name, module, function, description, params=params)
    if ":" in name:
        if allowed_by is not None:
            raise ModuleNotAllowed(
                f"policy {shown(name)} names a Python module, whose code would run; a policy "
                f"named in a file is taken only from the built-ins and installed plug-ins "
                f"(add {allowed_by} to run its module)"
            )
        return _from_target(name, name)
    points = _entry_points()
    if name in points:
        return _from_target(name, points[name])
    known = ", ".join(ref.name for ref in available())
    raise PolicyError(f"unknown policy {name!r}; available: {known}, or package.module:function")
