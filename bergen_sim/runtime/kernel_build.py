"""Build (once) and load the compiled match loop for a set of policies.

Why code generation: a Numba function that receives another jitted function
as an argument misses the disk cache in every new process and recompiles.
Here each combination of policies gets its own small generated module whose
``choose_move`` dispatcher calls the policies as globals, followed by the
source of :mod:`bergen_sim.engine.match_loop`.  A built-in with settings
(``pimc:worlds=64``, see :mod:`bergen_sim.runtime.registry`) gets them as
arguments written into the dispatcher, and any constant arrays it asks for
(``kernel_arrays``) as globals loaded from files named by their contents,
which Numba freezes into the compiled code.  The module's file name is a hash
of everything its machine code depends on (the source of engine/, policies/ and search/, the
plug-in modules' sources, the Numba version, the settings and arrays), so a
warm run loads it from Numba's cache and any edit produces a fresh kernel
instead of a stale one (see also :mod:`bergen_sim.core.compile_cache`).

Generated modules live in ``$BERGEN_SIM_CACHE_DIR`` (default
``~/.cache/bergen-sim/kernels``); deleting that folder is always safe.
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import numba
import numpy as np

from bergen_sim.core.compile_cache import notice, source_digest, subfolder, write_atomically
from bergen_sim.core.errors import PolicyError
from bergen_sim.core.modules import module_from_file
from bergen_sim.engine import layout as L
from bergen_sim.engine.tileset import NARROW_TILES

if TYPE_CHECKING:  # the registry imports every policy, and search policies import the engine
    from bergen_sim.model.rules import Rules
    from bergen_sim.runtime.registry import PolicyRef

_TEMPLATE = Path(__file__).resolve().parent.parent / "engine" / "match_loop.py"
_LOADED: dict[str, ModuleType] = {}


def _constant_arrays(ref: PolicyRef, rules: Rules | None) -> list[Path]:
    """Files of the constant arrays a built-in with settings asks for (``kernel_arrays``), saved once.

    Each file is named by a hash of its contents, so the generated source, and
    with it the kernel's cache key, changes whenever an array does.
    """
    if not ref.params:
        return []
    make = getattr(importlib.import_module(ref.module), "kernel_arrays", None)
    if make is None:
        return []
    if rules is None:
        raise ValueError(f"policy {ref.name!r} needs the rules to build its kernel")
    folder = subfolder("kernels", "arrays")
    paths = []
    for array in make(rules, ref.params):
        data = np.ascontiguousarray(array)
        digest = hashlib.sha256(f"{data.dtype.str}{data.shape}".encode() + data.tobytes()).hexdigest()[:20]
        saved = io.BytesIO()
        np.save(saved, data)
        paths.append(_written(folder / f"array_{digest}.npy", saved.getvalue()))
    return paths


def _written(path: Path, data: bytes) -> Path:
    """``path``, holding exactly ``data``: written if absent, written again (one notice) if it holds anything else.

    A generated file's name is a hash of what it must hold, so a file cut
    short or emptied (a full disk, a killed write) is known by comparing,
    and healed instead of failing this and every later run.
    """
    try:
        same = path.read_bytes() == data
    except FileNotFoundError:
        same = None
    except OSError:
        same = False
    if same is False:
        notice(f"{path} in the cache is damaged (cut short, emptied or overwritten); writing it again")
    if not same:
        write_atomically(path, data)  # concurrent workers never see half a file
    return path


def takes_no_tiles(function) -> bool:
    """Whether a policy function takes the sixth argument ``no_tiles`` (reads tile sets of any width)."""
    return getattr(function, "py_func", function).__code__.co_argcount >= 6


def _plugin_arity(ref: PolicyRef, function: str) -> int:
    """How many arguments a plug-in's function takes (5, or 6 with ``no_tiles``); 0 when the module has none."""
    fn = getattr(importlib.import_module(ref.module), function, None)
    if fn is None:
        return 0
    return 6 if takes_no_tiles(fn) else 5


def check_plugins_fit(policies: Sequence[PolicyRef], rules: Rules | None) -> None:
    """Refuse (one line) a plug-in written for one-word hands in a game whose hands take three words.

    A plug-in that takes five arguments reads ``view[V_HAND]`` as one
    ``int64``; with double-twelve and larger sets that would silently be a
    third of its hand.
    """
    if rules is None or rules.n_tiles <= NARROW_TILES:
        return
    for ref in policies:
        if ref.source_file and _plugin_arity(ref, ref.function) < 6:
            raise PolicyError(
                f"policy {ref.name!r} takes 5 arguments, so it reads one-word hands; {rules.domino_set} hands "
                f"take {L.SET_WORDS} words: add a sixth argument no_tiles and read tile sets with "
                f"bergen_sim.engine.tileset (docs/policies.md), or play double-six or double-nine")


def _dispatcher_source(policies: Sequence[PolicyRef], rules: Rules | None) -> str:
    names = ", ".join(p.name for p in policies)
    lines = [f"# Generated by bergen_sim.runtime.kernel_build for policies: {names}. Do not edit."]
    extra = []
    moves, leads = [], []
    for i, ref in enumerate(policies):
        lines.append(f"from {ref.module} import {ref.function} as _policy_{i}")
        # np.int64(...) rather than a bare literal: Numba would compile the policy once per literal value
        args = [f"_np.int64({int(p)})" for p in ref.params]
        for j, path in enumerate(_constant_arrays(ref, rules)):
            lines.append(f"_const_{i}_{j} = _np.load({str(path)!r})  # frozen into the machine code by Numba")
            args.append(f"_const_{i}_{j}")
        if args and "import numpy as _np" not in lines:
            lines.insert(1, "import numpy as _np")
        extra.append("".join(f", {a}" for a in args))
        if not ref.source_file:  # a built-in (this package's own code, which only reads them) gets the engine's arrays
            lines.append(f"from {ref.module} import choose_lead as _lead_{i}")
            moves.append(f"_policy_{i}(view, move_tiles, move_ends, n_moves, rng, no_tiles{extra[i]})")
            leads.append(f"_lead_{i}(view, move_tiles, move_ends, n_moves, rng, no_tiles{extra[i]})")
            continue
        # a plug-in gets copies: writing into them cannot change the game or hang the engine
        copies = "view.copy(), move_tiles.copy(), move_ends.copy(), n_moves, rng"
        wide = ", no_tiles" if _plugin_arity(ref, ref.function) >= 6 else ""
        moves.append(f"_policy_{i}({copies}{wide})")
        lead_arity = _plugin_arity(ref, "choose_lead")
        if lead_arity:
            lines.append(f"from {ref.module} import choose_lead as _lead_{i}")
            leads.append(f"_lead_{i}({copies}{', no_tiles' if lead_arity >= 6 else ''})")
        else:
            leads.append("0  # no choose_lead: the documented default, the lowest of its doubles (the first listed)")
    lines += ["from numba import njit as _njit", "", ""]
    for function, calls, what in (("choose_move", moves, "move"), ("choose_lead", leads, "double to lead")):
        lines += [
            # inlined into the match loop: one call boundary less per decision (base.py says why that matters)
            "@_njit(cache=True, inline='always')",
            f"def {function}(policy_id, view, move_tiles, move_ends, n_moves, rng, no_tiles):",
            f'    """The {what} the policy with this id (its index in the kernel\'s policy list) chooses."""',
        ]
        for i, call in enumerate(calls):
            lines += [f"    if policy_id == {i}:", f"        return {call}"]
        lines += ["    return -1", "", ""]
    return "\n".join(lines)


def _dependency_digest(policies: Sequence[PolicyRef]) -> str:
    """Hash of every source file the compiled kernel depends on: the package and the plug-ins."""
    digest = hashlib.sha256(f"{numba.__version__} {source_digest()}".encode())
    for path in sorted(Path(p.source_file) for p in policies if p.source_file):
        digest.update(str(path).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def load_kernel(policies: Sequence[PolicyRef], rules: Rules | None = None) -> ModuleType:
    """The generated kernel module for these policies (in this order), built if needed.

    Its ``run_matches`` takes seat policies as indices into ``policies``.
    ``rules`` is needed only by policies whose constant arrays depend on them
    (``kernel_arrays``); the kernel then also depends on the rules.
    """
    check_plugins_fit(policies, rules)
    source = _dispatcher_source(policies, rules) + _TEMPLATE.read_text()
    key = hashlib.sha256((source + _dependency_digest(policies)).encode()).hexdigest()[:20]
    if key in _LOADED:
        return _LOADED[key]
    path = _written(subfolder("kernels") / f"kernel_{key}.py", source.encode())
    name = f"bergen_sim_kernel_{key}"
    module = module_from_file(name, path)
    _LOADED[key] = module
    return module
