"""Build (once) and load the compiled match loop for a set of policies.

Why code generation: a Numba function that receives another jitted function
as an argument misses the disk cache in every new process and recompiles.
So a generated module's ``choose_move`` dispatcher calls the policies as
globals, followed by the source of :mod:`bergen_sim.engine.match_loop`.

Every mix of built-in policies runs on one such module, compiled once per
machine and tile-set width: its dispatcher lists every built-in that does
not search (and the mix's search players, whatever their settings) and
picks a seat's by its code, the seat's index into ``ENTRIES`` of the module.  Nothing of
a run is written into the module: the table size and rules are the loop's
arguments, and so are the settings of a built-in that takes them
(``pimc:worlds=64``, see :mod:`bergen_sim.runtime.registry`), one row of
``seat_params`` per seat, and its match-value table (``kernel_arrays``), one
row of ``seat_tables`` per seat.  A plug-in's mix gets a module of its own,
listing only the mix's policies.

The module's file name is a hash of everything its machine code depends on
(the source of engine/, policies/ and search/, the plug-in modules' sources,
the Numba version), so a warm run loads it from Numba's cache and any edit
produces a fresh kernel instead of a stale one (see also
:mod:`bergen_sim.core.compile_cache`).

Generated modules live in ``$BERGEN_SIM_CACHE_DIR`` (default
``~/.cache/bergen-sim/kernels``); deleting that folder is always safe.
"""

from __future__ import annotations

import hashlib
import importlib.util
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
                f"bergen_sim.engine.tileset (docs/policies.md), or play double-six or double-nine"
            )


#: the package whose built-ins search: a kernel lists them only when a seat plays one (each compiles for a minute)
SEARCH_PACKAGE = "bergen_sim.search."


def searches(ref: PolicyRef) -> bool:
    """Whether ``ref`` is a built-in that searches (pimc, reader, ismcts): thousands of times slower per decision,
    and much longer to compile."""
    return not ref.source_file and ref.module.startswith(SEARCH_PACKAGE)


def kernel_policies(policies: Sequence[PolicyRef]) -> list[PolicyRef]:
    """The policies the kernel for ``policies`` lists, a seat's code being its policy's index here.

    Built-ins only: every built-in that does not search, and the search
    players among ``policies`` (whatever their settings), so that one compiled
    kernel (per width) serves every mix of heuristics, and one per search
    player every mix with it.  (A search player's functions are cached on their
    own, so a kernel with two of them compiles only the loop anew.)  With a
    plug-in: each distinct policy function, in the order given (a built-in's
    settings are arguments, so they do not count).
    """
    from bergen_sim.runtime.registry import BUILTINS
    from bergen_sim.runtime.registry import PolicyRef as Ref

    if all(not ref.source_file for ref in policies):
        wanted = {ref.module for ref in policies if searches(ref)}
        every = [Ref(name, module, function) for name, (module, function, _) in BUILTINS.items()]
        return [ref for ref in every if not searches(ref) or ref.module in wanted]
    listed: dict[tuple[str, str], PolicyRef] = {}
    for ref in policies:
        listed.setdefault(policy_key(ref), ref)
    return list(listed.values())


def policy_key(ref: PolicyRef) -> tuple[str, str]:
    """What identifies a policy in a kernel's :data:`ENTRIES`: its module and function."""
    return ref.module, ref.function


def _dispatcher_source(policies: Sequence[PolicyRef]) -> str:
    """The generated module's head for a kernel listing ``policies`` (:func:`kernel_policies`), in this order."""
    names = ", ".join(p.name for p in policies)
    lines = [
        f"# Generated by bergen_sim.runtime.kernel_build for policies: {names}. Do not edit.",
        f"ENTRIES = {tuple(policy_key(p) for p in policies)!r}",
    ]
    moves, leads, readers = [], [], []
    for i, ref in enumerate(policies):
        lines.append(f"from {ref.module} import {ref.function} as _policy_{i}")
        if not ref.source_file:  # a built-in (this package's own code, which only reads them) gets the engine's arrays
            module = importlib.import_module(ref.module)
            if getattr(module, "READS_VIEW", True):
                readers.append(i)
            if hasattr(module, "kernel_arrays"):
                # a search player: its settings as the seat's row (PARAMS order), the rules and the seat's table
                args = ", seat_params[seat], rules, seat_tables[seat]"
            else:  # a heuristic with settings (expert) takes them one by one, in PARAMS order, as rollouts call it
                args = "".join(f", seat_params[seat, {j}]" for j in range(len(getattr(module, "PARAMS", {}))))
            lines.append(f"from {ref.module} import choose_lead as _lead_{i}")
            moves.append(f"_policy_{i}(view, move_tiles, move_ends, n_moves, rng, no_tiles{args})")
            leads.append(f"_lead_{i}(view, move_tiles, move_ends, n_moves, rng, no_tiles{args})")
            continue
        readers.append(i)
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
            # inlined into the match loop: one call boundary less per decision (base.py says why that matters); a
            # dispatcher compiled as a function of its own played random 16% and expert 10% slower (CPU time)
            "@_njit(cache=True, inline='always')",
            f"def {function}(policy_id, seat, view, move_tiles, move_ends, n_moves, rng, no_tiles, seat_params, rules,",
            "                seat_tables):",
            f'    """The {what} the policy with this id (its index in ENTRIES) chooses for ``seat``."""',
        ]
        for i, call in enumerate(calls):
            lines += [f"    if policy_id == {i}:", f"        return {call}"]
        lines += ["    return -1", "", ""]
    lines += [
        "@_njit(cache=True, inline='always')",
        "def reads_view(policy_id):",
        '    """Whether the policy with this id reads the view (those that declare READS_VIEW = False do not)."""',
        "    return " + (" or ".join(f"policy_id == {i}" for i in readers) or "False"),
        "",
        "",
    ]
    return "\n".join(lines)


def seat_arguments(
    entries: Sequence[tuple[str, str]], seats: Sequence[PolicyRef], rules: Rules
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The kernel's ``seat_policy``, ``seat_params`` and ``seat_tables`` for one policy per seat.

    ``entries``: the kernel's :data:`ENTRIES`.  A seat's row of
    ``seat_params`` holds its built-in's settings (zeros past them); its row
    of ``seat_tables`` the match-value table its ``kernel_arrays`` names (the
    tables of one rule set all have one length), zeros for a seat without one.
    """
    codes = np.array([entries.index(policy_key(ref)) for ref in seats], dtype=np.int64)
    params = np.zeros((len(seats), max([1, *(len(ref.params) for ref in seats)])), dtype=np.int64)
    tables: list[np.ndarray | None] = []
    for seat, ref in enumerate(seats):
        params[seat, : len(ref.params)] = ref.params
        make = getattr(importlib.import_module(ref.module), "kernel_arrays", None) if ref.params else None
        tables.append(None if make is None else np.asarray(make(rules, ref.params)[1], dtype=np.float64))
    width = max([1, *(len(t) for t in tables if t is not None)])
    seat_tables = np.zeros((len(seats), width), dtype=np.float64)
    for seat, table in enumerate(tables):
        if table is not None:
            seat_tables[seat, : len(table)] = table
    return codes, params, seat_tables


def _dependency_digest(policies: Sequence[PolicyRef]) -> str:
    """Hash of every source file the compiled kernel depends on: the package and the plug-ins."""
    digest = hashlib.sha256(f"{numba.__version__} {source_digest()}".encode())
    for path in sorted(Path(p.source_file) for p in policies if p.source_file):
        digest.update(str(path).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def load_kernel(policies: Sequence[PolicyRef], rules: Rules | None = None) -> ModuleType:
    """The generated kernel module for a run of these policies, built if needed.

    Its ``run_matches`` takes seat policies as indices into its ``ENTRIES``
    (:func:`kernel_policies`; :func:`seat_arguments` makes them).  ``rules``
    only checks that plug-ins read hands of the game's width.
    """
    check_plugins_fit(policies, rules)
    source = _dispatcher_source(kernel_policies(policies)) + _TEMPLATE.read_text()
    key = hashlib.sha256((source + _dependency_digest(policies)).encode()).hexdigest()[:20]
    if key in _LOADED:
        return _LOADED[key]
    path = _written(subfolder("kernels") / f"kernel_{key}.py", source.encode())
    name = f"bergen_sim_kernel_{key}"
    module = module_from_file(name, path)
    _LOADED[key] = module
    return module
