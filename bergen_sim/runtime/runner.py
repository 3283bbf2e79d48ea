"""Python face of the compiled kernel: one :class:`Engine` per rules and seat policies.

It owns the conversion between the user's world (rule objects, policy names,
exceptions with sentences) and the kernel's (int64 vectors, policy indices,
error slots), and nothing else: splitting work into chunks, parallelism and
reports live elsewhere.
"""

from __future__ import annotations

import functools
import importlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numba
import numpy as np

from bergen_sim.core import feedback
from bergen_sim.core.compile_cache import in_disk_cache, one_builder
from bergen_sim.core.errors import PolicyError, TraceError, reason_of, returns_no_index
from bergen_sim.core.limits import MAX_MATCH_INDEX, MAX_MATCHES, check_range, check_seed
from bergen_sim.engine import layout as L
from bergen_sim.engine.keyed_random import seed_to_int
from bergen_sim.engine.run_buffers import RunBuffers
from bergen_sim.engine.tileset import from_words, no_tiles_for
from bergen_sim.model.rules import Rules
from bergen_sim.runtime.kernel_build import load_kernel, searches, seat_arguments
from bergen_sim.runtime.registry import PolicyRef, resolve

_NO_ROWS = np.zeros((0, 2), dtype=np.int64)
_NO_DEALS = np.zeros((0, L.MAX_TILES), dtype=np.int64)
_NO_TRACE = np.zeros((0, L.T_WIDTH), dtype=np.int64)
_NO_HANDS = np.zeros((0, L.H_WIDTH), dtype=np.int64)


class Replay(NamedTuple):
    """What one kernel call replays and records: recorded deals and plays (none: keyed deals, the policies'
    choices) and, when ``tracing``, the trace buffer it fills."""

    deals: np.ndarray = _NO_DEALS
    script: np.ndarray = _NO_ROWS
    trace: np.ndarray = _NO_TRACE
    tracing: bool = False


#: keyed deals played by the policies, nothing traced
KEYED = Replay()


def halt_flag() -> np.ndarray:
    """A new stop flag for :meth:`Engine.play` (``flag[0] = 1`` asks every call given it to stop)."""
    return np.zeros(1, dtype=np.int64)


class Halted(Exception):
    """A chunk stopped before its last match because its run set the chunk's halt flag (Ctrl-C)."""

    @classmethod
    def after(cls, first_match: int, n_matches: int, played: int) -> Halted:
        """The chunk of matches ``first_match ..`` (``n_matches``) stopped after ``played`` of them."""
        return cls(f"matches {first_match}..{first_match + n_matches - 1}: stopped after {played}")


@dataclass
class Chunk:
    """What one kernel call produced for a contiguous range of matches."""

    first_match: int
    totals: np.ndarray  # (S_SIZE,) int64
    match_rows: np.ndarray  # (matches, M_WIDTH) int64
    hand_rows: np.ndarray  # (hands, H_WIDTH) int64; empty unless asked for

    @property
    def counts(self) -> L.Named:
        """The totals by name (layout ``TOTALS``): ``chunk.counts["hands"]``."""
        return L.TOTALS.named(self.totals)

    @property
    def matches(self) -> L.Named:
        """The match rows by column name (layout ``MATCH_ROW``): ``chunk.matches["winner"]``."""
        return L.MATCH_ROW.named(self.match_rows)

    @property
    def hands(self) -> L.Named:
        """The hand rows by column name (layout ``HAND_ROW``): ``chunk.hands["plays"]``, ``["seat_points"]``."""
        return L.HAND_ROW.named(self.hand_rows)


def seat_policy_names(policies: Sequence[str], players: int) -> list[str]:
    """One policy name per seat: a single name fills every seat."""
    names = [policies] if isinstance(policies, str) else list(policies)  # a name, not its letters
    if len(names) == 1:
        return names * players
    if len(names) != players:  # none included: an empty list is not silently "random"
        raise PolicyError(f"give one policy for all seats or one per seat ({players}), not {len(names)}")
    return names


def _where(err: np.ndarray) -> str:
    """The position the kernel noted in its error slots: match, the seat's hand, the open ends."""
    hand = from_words(err[L.E_HAND : L.E_HAND + L.SET_WORDS])
    ends = [f"{L.END_NAMES[e]} {int(n)}" for e, n in enumerate(err[L.E_END : L.E_END + L.N_ENDS]) if n >= 0]
    return f"match {int(err[L.E_MATCH])}, hand {' '.join(L.mask_tiles(hand))}, ends {', '.join(ends)}"


#: the argument types a plug-in is called with: copies of the view and moves, their count, its random stream
_PLUGIN_SIGNATURE = (
    numba.types.int64[::1],
    numba.types.int64[::1],
    numba.types.int64[::1],
    numba.types.int64,
    numba.types.uint64[::1],
)


def _check_returns(refs: Sequence[PolicyRef]) -> None:
    """Raise a PolicyError for a policy whose compiled return type is not an integer (its move's index).

    Numba's own message for that case is about indexing an array with a
    float, deep inside the generated kernel, and never says what is required.
    """
    for ref in refs:
        module = importlib.import_module(ref.module)
        # its choice of move, and (under lead = any-double) of the double to lead, the same contract
        for attribute, part in ((ref.function, ""), ("choose_lead", "choose_lead")):
            function = getattr(module, attribute, None)
            compile_alone = getattr(function, "compile", None)
            if ref.source_file and compile_alone and not getattr(function, "nopython_signatures", ()):
                try:  # the kernel failed before typing it: type it alone, as the dispatcher calls a plug-in
                    compile_alone(_PLUGIN_SIGNATURE)
                except Exception:  # it does not compile by itself either: the kernel's message says why
                    continue
            for signature in getattr(function, "nopython_signatures", ()):
                returned = signature.return_type
                if not isinstance(returned, (numba.types.Integer, numba.types.Boolean)):  # a bool is 0 or 1
                    raise returns_no_index(ref.name, str(returned), part)
                if isinstance(returned, numba.types.Integer) and not returned.signed:
                    # Numba unifies uint64 with the other policies' int64 as a float, which cannot index the moves
                    raise returns_no_index(ref.name, f"an unsigned {returned}", part)


def _load_cached(load: Callable[[], object]) -> None:
    """Call ``load``, a first call that loads a kernel from Numba's disk cache, without Numba's compiler tables.

    Why: before loading any cached function Numba refreshes its CPU target:
    it imports and registers every implementation it knows how to compile
    (NumPy, SciPy's BLAS, random, typed containers...), about 0.3 s of a
    warm start of 0.8 s, none of which loading finished machine code uses.
    That code needs only Numba's runtime (NRT, its memory allocator), set up
    here.  Only the kernel's own load is spared: any later compile (another
    function) refreshes as usual.  A compile *inside* the light load cannot
    be mended afterwards (Numba's typing, having failed without its tables,
    fails again in the same process), so the caller takes this path only
    when Numba's own cache lookup finds the entry for this very call
    (:func:`bergen_sim.core.compile_cache.in_disk_cache` with the call's
    arguments).  A load that still fails (Numba's internals differ) is
    repeated with the full refresh.
    """
    try:
        from numba.core.registry import cpu_target
        from numba.core.runtime import rtsys

        context = cpu_target.target_context
        context.refresh = lambda: rtsys.initialize(context)  # shadows the method for this load only
    except Exception:  # noqa: BLE001 - a Numba without these internals: load the usual way
        load()
        return
    try:
        load()
        return
    except Exception:  # noqa: BLE001 - retried below with Numba's full refresh, which says what is wrong
        pass
    finally:
        context.__dict__.pop("refresh", None)
    load()


def compile_kind(refs: Sequence[PolicyRef]) -> str:
    """The kind of compile (:data:`bergen_sim.core.feedback.COMPILE_KINDS`) a kernel for these policies is timed as."""
    return "search match loop" if any(searches(ref) for ref in refs) else "match loop"


class Engine:
    """The compiled engine for one rule set and one policy per seat.

    >>> from bergen_sim.model.rules import Rules
    >>> engine = Engine(Rules.make(players=2), ["first"])
    >>> chunk = engine.play(seed=1, first_match=0, n_matches=10)
    >>> int(chunk.totals[L.S_MATCHES])
    10
    """

    def __init__(self, rules: Rules, policies: Sequence[str], kernel_policies: Sequence[str] = ()):
        """``kernel_policies``: a superset of the seat policies to compile into the kernel, so that
        runs with other seatings of the same policies (a tournament's pairs) share one compiled kernel."""
        self.rules = rules
        self.policy_names = seat_policy_names(policies, rules.players)
        distinct = sorted(set(self.policy_names) | set(kernel_policies))
        self.refs: list[PolicyRef] = [resolve(name) for name in distinct]
        self._rules_vec = rules.to_array()
        self._no_tiles = no_tiles_for(rules.n_tiles)
        self._kernel = load_kernel(self.refs, rules)
        seats = [self.refs[distinct.index(name)] for name in self.policy_names]
        self.seat_policy, self._seat_params, self._seat_tables = seat_arguments(self._kernel.ENTRIES, seats, rules)
        names = ", ".join(dict.fromkeys([*self.policy_names, *distinct]))  # seat order first
        first_call = self._call_args(0, 0, 0, KEYED, _NO_HANDS)[0]
        cached = in_disk_cache(self._kernel.run_matches, first_call)
        kind = compile_kind(self.refs)
        if cached is False:
            feedback.compiling(f"the match loop for {names}", kind)
        feedback.detail(f"kernel {self._kernel.__file__} for policies {names}")
        # a zero-match call compiles the kernel, or loads it from Numba's disk cache, now
        load = functools.partial(self._call, 0, 0, 0, KEYED, _NO_HANDS)
        try:
            if cached:
                _load_cached(load)
            else:
                width = len(self._no_tiles) if isinstance(self._no_tiles, tuple) else 1
                with one_builder(f"{self._kernel.__file__} words={width}"):  # compiled once per machine at a time
                    if in_disk_cache(self._kernel.run_matches, first_call):  # compiled while this process waited
                        _load_cached(load)
                    else:
                        started = time.perf_counter()
                        load()
                        feedback.compiled(kind, time.perf_counter() - started)
        except PolicyError as exc:  # a plug-in Numba cannot compile: say which, on one line
            _check_returns(self.refs)
            names = ", ".join(ref.name for ref in self.refs)
            raise PolicyError(
                f"the kernel for policies {names} does not compile (Numba): {reason_of(exc.__context__ or exc)}"
            ) from None

    def _call_args(self, seed, first_match, n_matches, replay: Replay, hand_rows, match_rows=True, halt=None):
        """The kernel's arguments for one call, and the totals, match rows and error slots it fills."""
        totals = np.zeros(L.S_SIZE, dtype=np.int64)
        rows = np.zeros((n_matches if match_rows else 1, L.M_WIDTH), dtype=np.int64)
        err = np.zeros(L.E_SIZE, dtype=np.int64)
        # converted before the call: only what the kernel raises is a policy's doing
        key, first, count = np.uint64(seed_to_int(seed)), np.int64(first_match), np.int64(n_matches)
        args = (
            self._rules_vec,
            self.seat_policy,
            self._seat_params,
            self._seat_tables,
            key,
            first,
            count,
            replay.tracing,
            RunBuffers(
                replay.deals,
                replay.script,
                replay.trace,
                totals,
                rows,
                hand_rows,
                err,
                halt_flag() if halt is None else halt,
            ),
            self._no_tiles,
        )
        return args, totals, rows, err

    def _call(self, seed, first_match, n_matches, replay: Replay, hand_rows, match_rows=True, halt=None):
        """One kernel call; returns (matches played, totals, match rows, hand rows used, trace rows used)."""
        args, totals, match_rows, err = self._call_args(
            seed, first_match, n_matches, replay, hand_rows, match_rows, halt
        )
        try:
            played, n_hands, n_trace = self._kernel.run_matches(*args)
        except Exception as exc:  # raised inside a policy: name it, the seat and the position
            seat = int(err[L.E_SEAT])
            raise PolicyError(
                f"policy {self.policy_names[seat]!r} at seat {seat} raised {type(exc).__name__}: {exc} ({_where(err)})"
            ) from None
        if played < 0:
            self._raise(err)
        return played, totals, match_rows[:played], n_hands, n_trace

    def _raise(self, err: np.ndarray) -> None:
        code = int(err[L.E_CODE])
        where = _where(err)
        if code == L.ERR_ILLEGAL_CHOICE:
            seat = int(err[L.E_SEAT])
            raise PolicyError(
                f"policy {self.policy_names[seat]!r} at seat {seat} returned move {int(err[L.E_CHOICE])}, "
                f"but only moves 0..{int(err[L.E_N_MOVES]) - 1} are legal ({where})"
            )
        if code == L.ERR_SCRIPT:
            raise TraceError(f"recorded play #{int(err[L.E_CHOICE]) + 1} is not legal ({where})")
        if code == L.ERR_SCRIPT_SHORT:
            raise TraceError(f"the recorded plays ran out before the match ended ({where})")
        if code == L.ERR_DEALS_SHORT:
            raise TraceError(f"the recorded deals ran out before match {int(err[L.E_MATCH])} ended")
        raise RuntimeError(f"kernel stopped with unknown error code {code}")

    def play(
        self,
        seed: int,
        first_match: int,
        n_matches: int,
        hand_rows: bool = False,
        match_rows: bool = True,
        halt: np.ndarray | None = None,
    ) -> Chunk:
        """Play matches ``first_match ..`` with keyed deals; totals and per-match rows.

        Without ``match_rows`` the chunk's match rows are empty (summary runs);
        with ``hand_rows`` it also holds one row per hand (layout ``H_*``);
        the kernel stops early when its hand buffer could overflow and is called
        again for the rest.  ``halt`` (:func:`halt_flag`): once another thread
        sets it, the call raises :class:`Halted` after the match it is playing.
        """
        check_seed(seed)
        check_range("first_match", first_match, 0, MAX_MATCH_INDEX)
        check_range("n_matches", n_matches, 0, MAX_MATCHES)
        totals = np.zeros(L.S_SIZE, dtype=np.int64)
        match_parts, hand_parts = [], [np.zeros((0, L.H_WIDTH), dtype=np.int64)]
        per_match = self.rules.most_hands
        done = 0
        while done < n_matches:
            todo = n_matches - done
            size = min(todo * per_match, max(per_match, 1 << 16)) if hand_rows else 0
            hands_buf = np.zeros((size, L.H_WIDTH), dtype=np.int64)
            played, part, rows, n_hands, _ = self._call(
                seed, first_match + done, todo, KEYED, hands_buf, match_rows, halt
            )
            if halt is not None and halt[0] != 0 and done + played < n_matches:
                raise Halted.after(first_match, n_matches, done + played)
            totals += part
            match_parts.append(rows if match_rows else rows[:0])
            hand_parts.append(hands_buf[:n_hands])
            done += played
        if not match_parts:  # no matches asked for
            match_parts.append(np.zeros((0, L.M_WIDTH), dtype=np.int64))
        return Chunk(first_match, totals, np.concatenate(match_parts), np.concatenate(hand_parts))

    def trace_rows(
        self, seed: int, first_match: int, n_matches: int, deals=None, script=None, halt: np.ndarray | None = None
    ) -> np.ndarray:
        """Trace rows (layout ``T_*``) of matches, keyed or replayed from deals and a script.

        ``halt`` as for :meth:`play`: once it is set the call raises :class:`Halted` after the match it is
        tracing.
        """
        deals = _NO_DEALS if deals is None else np.ascontiguousarray(deals, dtype=np.int64)
        script = _NO_ROWS if script is None else np.ascontiguousarray(script, dtype=np.int64).reshape(-1, 2)
        capacity = 512 * max(n_matches, 1)
        while True:
            trace = np.zeros((capacity, L.T_WIDTH), dtype=np.int64)
            played, *_, used = self._call(
                seed, first_match, n_matches, Replay(deals, script, trace, tracing=True), _NO_HANDS, halt=halt
            )
            if halt is not None and halt[0] != 0 and played < n_matches:
                raise Halted.after(first_match, n_matches, played)
            if used <= capacity:
                return trace[:used]
            capacity = used  # the kernel counted what it needed: one more run fits exactly
