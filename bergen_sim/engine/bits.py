"""Low-level helpers for the hot loop: single-instruction bit tricks and borrowed arrays.

``trailing_zeros`` and ``popcount`` map to LLVM's cttz/ctpop, which the hot
loop uses to walk a hand's tiles without scanning all 28 bits.

:func:`slot` exists because Numba compiles a negative-index wraparound (a
compare and a select, and often a spilled array length reloaded) for every
signed index it cannot prove non-negative, such as ``view[V_END + end]``;
the hot loop's stores and loads of tile sets, ends and move lists index
with it instead (measured: 4-7% of the match loop's time).

:func:`borrow` exists because of a measurement: Numba reference-counts every
array passed to a compiled function with atomic increments, and in the match
loop those atomics took over half of the run time.  A borrowed view has no
reference count (its meminfo is NULL), so passing it around is free.  The
caller must keep the owning array alive (use it after the borrowed view's
last use) for as long as the view is in use.  A compiled function that is
called with arrays (search's play-outs, ismcts's tree) borrows them on entry
(``engine.hand.borrowed`` for hand buffers): the caller owns them for the
whole call, and Numba, which cannot know that they are borrowed already,
would otherwise count references on every use.
"""

from __future__ import annotations

from llvmlite import ir
from numba import carray, njit, types
from numba.core import cgutils
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic


@intrinsic
def _ctpop(typingctx, x):
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        [val] = args
        fnty = ir.FunctionType(val.type, [val.type])
        fn = cgutils.get_or_insert_function(builder.module, fnty, f"llvm.ctpop.i{val.type.width}")
        return builder.call(fn, [val])

    return x(x), codegen


@intrinsic
def _as_pointer(typingctx, address, dtype):
    pointer = types.CPointer(dtype.dtype)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(pointer))

    return pointer(address, dtype), codegen


@njit(cache=True, inline="always")
def popcount(x):
    """Number of tiles in a set (set bits of an int64)."""
    return _ctpop(x)


@njit(cache=True, inline="always")
def lowest_tile(x):
    """Index of the lowest tile in a non-empty set."""
    return trailing_zeros(x)


@njit(cache=True, inline="always")
def borrow(a):
    """An unreference-counted view of a C-contiguous array (see the module note)."""
    return carray(_as_pointer(a.ctypes.data, a.dtype), a.shape)


@intrinsic
def slot(typingctx, i):
    """``i``, a non-negative index, as an unsigned one: Numba compiles no wraparound for unsigned indices (see the
    module note).  Only for indexing: do arithmetic on the signed value (uint64 mixed with int64 is float64).

    An intrinsic (a cast written straight into LLVM IR) rather than an inlined
    njit function: each inlined call is typed and inlined again at every use,
    and the hot loop indexes with it in dozens of places (cold compile time).
    """
    if not isinstance(i, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return context.cast(builder, args[0], signature.args[0], types.uint64)

    return types.uint64(i), codegen


@intrinsic
def _load_atomic(typingctx, address):
    """The int64 at ``address``, read with one atomic (monotonic) load that the optimiser may not hoist."""
    if not isinstance(address, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        pointer = builder.inttoptr(args[0], ir.IntType(64).as_pointer())
        return builder.load_atomic(pointer, "monotonic", 8)

    return types.int64(address), codegen


@njit(cache=True, inline="always")
def read_shared(flag):
    """``flag[0]`` (an int64 array) as another thread last wrote it.

    Why not ``flag[0]``: in a loop that never writes ``flag`` the optimiser
    may read it once before the loop and never again, so a stop asked for
    by another thread (:class:`bergen_sim.engine.run_buffers.RunBuffers`'s
    ``halt``) would go unseen.  An atomic load is read every time.
    """
    return _load_atomic(flag.ctypes.data)
