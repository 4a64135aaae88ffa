"""``sixty-four-hack`` (spine step 25, ``SixtyFourHack``; twin ``stablehlo-sixty-four-hack``).

i64 emulation by narrowing: every 64-bit integer tensor becomes 32-bit —
``i64`` -> ``i32``, ``ui64`` -> ``ui32`` (``si64`` -> ``si32``) — in function
signatures, op results, block arguments of every region (reduce/sort/while
bodies included), tuple element types, and the ``value`` of ``constant``
ops (``mhlo``/``stablehlo``/``arith``; the one attribute whose type must
equal a result type). Ops are not
rebuilt: iota, convert, compare, reduce, ... simply see the narrowed types.

Attributes that are index lists, not tensors, stay 64-bit: dimension
numbers, ``DenseI64ArrayAttr``, MHLO's ``dense<...> : tensor<Nxi64>`` dims /
permutations / padding / slice bounds, ``iota_dimension``.

What is proven. The integer range analysis
(:class:`~hilo_mlir.analysis.int_ranges.IntRanges`) bounds every integer
value of the 64-bit program. An op is narrowed *with a proof* when its 64-bit
integer operands and results are proven to lie in the 32-bit type's range
(``i32``: ``[-2^31, 2^31-1]``; ``ui32``: ``[0, 2^32-1]``) and, for the
width-dependent ops below, the op's own condition holds: then the 32-bit op
computes the same numbers as the 64-bit one. Values the analysis cannot bound
— 64-bit entry arguments and what is computed from them, products that may
overflow, loop counters widened by the fixed point — are narrowed anyway and
wrap at run time if they exceed 32 bits; ``--debug`` lists where they arise.

Errors (one, at the op, before anything is changed):

* a *width-dependent* op — one whose definition involves the bit width:
  ``shift_left``, ``shift_right_logical``, ``shift_right_arithmetic``,
  ``popcnt``, ``count_leading_zeros``, ``not`` — on 64-bit integers that the
  ranges do not prove equal once narrowed (the message gives the ranges
  proven). Their conditions beyond fitting in 32 bits:
  ``shift_right_logical`` of a possibly negative ``i64``: only shift amounts
  of 0 or at least 64; ``shift_right_arithmetic`` of ``ui64``: values below
  2^31 (or amount 0); ``popcnt`` of ``i64``: no negative value;
  ``count_leading_zeros``: only negative ``i64`` values (otherwise it counts
  32 more zeros at 64 bits); ``not`` of ``ui64`` never fits ``ui32``.
* a constant whose value does not fit the 32-bit type ("i64 constant value V
  does not fit in i32"; ``ui64``: 0..2^32-1), unless every use provably gets
  the same result from the narrowed value: modular uses (``add``,
  ``subtract``, ``multiply``, ``negate``, ``and``, ``or``, ``xor``, ``not``,
  ``convert``/``bitcast_convert`` to an integer type) with the value modulo
  2^32 when their result fits, ``minimum``/``maximum``/``clamp``/``compare``
  with the value saturated to the 32-bit range when the other operand is
  bounded (``x & 0xFFFFFFFFFFFF``, ``min(x, INT64_MAX)``); the constant may
  reach those uses through data movement (broadcast, reshape, select, ...).
* an op whose verifier demands 64-bit integers (``xla.rng_get_and_update_state``);
* a ``bitcast_convert`` between a 64-bit integer and another 64-bit type,
  which narrowing would make ill-formed.

Source: seed 004 step 25 (inserted right before PenguinizeIO when its global
is zero, the default); DESIGN.md catalogue step 25.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np

from hilo_mlir.analysis.int_lattice import IntRange
from hilo_mlir.analysis.int_ranges import IntRanges
from hilo_mlir.analysis.narrowing import (
    WIDTH_DEPENDENT,
    NotNarrowable,
    bounded_or_constant,
    constant_use_mode,
    holds32,
    is64,
    width_dependent_reason,
)
from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.dialects import hlo_short_name
from hilo_mlir.passmanager.registry import register_twins
from hilo_mlir.rewrite.retype import ElementTypeMapper, may_need_retype, retype_op
from hilo_mlir.support.diagnostics import location_to_str, op_error

if TYPE_CHECKING:
    # cast("Buffer", array): numpy's stubs give ndarray the buffer protocol only for Python >= 3.12
    from typing_extensions import Buffer

_LIMITS = {
    "i64": (np.int64, np.int32, -(1 << 31), (1 << 31) - 1),
    "si64": (np.int64, np.int32, -(1 << 31), (1 << 31) - 1),
    "ui64": (np.uint64, np.uint32, 0, (1 << 32) - 1),
}


#: Ops whose verifier demands 64-bit integers (checked before anything changes).
_REQUIRES_64 = frozenset({"xla.rng_get_and_update_state"})


class _Narrower(ElementTypeMapper):
    """Maps a type to its narrowed form (memoised per uniqued type)."""

    def elem(self, e):
        if isinstance(e, ir.IntegerType) and e.width == 64:
            if e.is_unsigned:
                return ir.IntegerType.get_unsigned(32)
            if e.is_signed:
                return ir.IntegerType.get_signed(32)
            return ir.IntegerType.get_signless(32)
        return None


# ------------------------------------------------------------------------------- constants


def _constant_values(op, ranges_fn, d):
    """Narrowed values (array, or ("splat", v)) of a 64-bit integer constant; None for other constants.

    ``ranges_fn()`` gives the module's :class:`IntRanges` (built on first need); ``d`` the dialect table.
    Raises the out-of-range error unless every use of the constant accepts a narrowed value.
    """
    rt = op.results[0].type
    if not isinstance(rt, ir.ShapedType) or str(rt.element_type) not in _LIMITS:
        return None  # only then read the value (complex values do not downcast)
    attr = op.attributes["value"]
    if not isinstance(attr, ir.DenseElementsAttr):
        raise op_error(op, f"{rt.element_type} constant has a non-dense value ({type(attr).__name__}) that sixty-four-hack cannot narrow")
    t = attr.type
    key = str(ir.ShapedType(t).element_type)
    src, dst, lo, hi = _LIMITS[key]
    shape = tuple(ir.ShapedType(t).shape)
    if attr.is_splat:  # never materialise a large splat
        v = int(ir.IntegerAttr(attr.get_splat_value()).value)
        if key == "ui64" and v < 0:
            v += 1 << 64
        a = np.array([v], dtype=src)
    else:
        a = np.array(attr)
    if a.size:
        mn, mx = int(a.min()), int(a.max())
        bad = mn if mn < lo else (mx if mx > hi else None)
        if bad is not None:
            try:
                mode = constant_use_mode(op, ranges_fn(), d)
            except NotNarrowable as e:
                width = "ui32" if key == "ui64" else "i32"
                raise op_error(
                    op, f"{key} constant value {bad} does not fit in {width} (sixty-four-hack narrows 64-bit integers to 32 bits; {e})"
                ) from None
            a = np.clip(a, lo, hi) if mode == "saturate" else a  # "wrap": astype below keeps the low 32 bits
    a = a.astype(dst)
    if attr.is_splat:
        return ("splat", int(a[0]))
    return a.reshape(shape)


# ------------------------------------------------------------------------------- debug report


def _report(ctx, ops, ranges: IntRanges, narrow) -> None:
    """``ctx.debug`` lines: where values the analysis cannot bound to 32 bits arise, and how many ops use them."""
    fname = ctx.env.filename
    later = 0
    for op in ops:
        if op.name == "func.func" and op.regions[0].blocks:
            sym = op.attributes["sym_name"].value
            if sym in ranges.entry_functions:
                for i, a in enumerate(op.regions[0].blocks[0].arguments):
                    r = ranges.range_of(a)
                    if narrow(a.type) is not None and is64(r) and not r.fits(32, r.signed):
                        ctx.debug(f"narrowed without a proof: argument #{i} of @{sym} ({a.type}) may hold {r}; {holds32(r)}")
            continue
        if not all(bounded_or_constant(v, ranges, ctx.d) for v in op.operands):
            later += 1
            continue
        for i, v in enumerate(op.results):
            r = ranges.range_of(v)
            if is64(r) and not bounded_or_constant(v, ranges, ctx.d):
                where = location_to_str(op.location, fname) or "unknown location"
                ctx.debug(f"narrowed without a proof: '{op.name}' at {where}: result #{i} ({v.type}) may lie in {r}; {holds32(r)}")
                break
    if later:
        ctx.debug(f"narrowed without a proof: {later} more op(s) take the unbounded 64-bit values above as operands")


# ------------------------------------------------------------------------------- mutation helpers


def _set_constant_value(rewriter, op, narrowed_type, vals) -> None:
    """Give the constant ``op`` its narrowed ``value`` (array, or ("splat", v)) through ``rewriter``."""
    if isinstance(vals, tuple):
        elem = ir.RankedTensorType(narrowed_type).element_type
        value = ir.DenseElementsAttr.get_splat(narrowed_type, ir.IntegerAttr.get(elem, vals[1]))
    else:
        value = ir.DenseElementsAttr.get(cast("Buffer", np.ascontiguousarray(vals)), type=narrowed_type)
    rewriter.set_attr(op, "value", value)


def _check_op(op, narrow, ranges, ctx):
    """Refuse ``op`` if narrowing cannot keep its numbers; the narrowed value of a 64-bit constant, else None.

    ``ranges()`` gives the module's :class:`IntRanges` (built on first need).

    Raises:
        HiloError: an op that needs 64-bit integers, a width-dependent op without a range proof, a
            bitcast_convert between a narrowed and a kept width, an out-of-range constant.
    """
    short = hlo_short_name(op.name)
    if short in _REQUIRES_64:
        raise op_error(op, "requires 64-bit integer types and cannot be narrowed by sixty-four-hack")
    if short in WIDTH_DEPENDENT and op.operands and narrow(op.operands[0].type) is not None:
        why = width_dependent_reason(short, op, ranges())
        if why is not None:
            raise op_error(
                op,
                f"bit-level op on {op.operands[0].type} gives different results once narrowed to 32 bits "
                f"({why}); sixty-four-hack cannot keep its semantics (disable the gate to keep 64-bit integers)",
            )
        ctx.stats["width-dependent-ops-proven"] += 1
    if (short == "constant" or op.name == "arith.constant") and len(op.results) == 1:
        return _constant_values(op, ranges, ctx.d)
    if short == "bitcast_convert":
        src, dst = op.operands[0].type, op.results[0].type
        if (narrow(src) is None) != (narrow(dst) is None):
            r = ranges().range_of(op.operands[0])
            known = f" (operand values in {r})" if isinstance(r, IntRange) else ""
            raise op_error(op, f"bitcast_convert {src} -> {dst} cannot be narrowed to 32 bits by sixty-four-hack{known}")
    return None


def _run(module_op, ctx):
    with module_op.context, module_op.location:
        narrow = _Narrower()
        # No 64-bit integer type anywhere (census, no walk): nothing to narrow or reject.
        full = [f"{prefix}.{short}" for prefix in ("mhlo", "stablehlo") for short in _REQUIRES_64]
        if not may_need_retype(ctx, module_op, narrow, _LIMITS.keys(), full):
            return
    ops = []

    def visit(op):
        ops.append(op)
        return ir.WalkResult.ADVANCE

    module_op.walk(visit, ir.WalkOrder.PRE_ORDER)
    cache: list = []

    def ranges() -> IntRanges:  # the analysis of the 64-bit module, built once, before any change
        if not cache:
            cache.append(IntRanges(module_op, ctx.d))
        return cache[0]

    with module_op.context, module_op.location:
        # 1. Checks and new constant values first: an error leaves the module untouched.
        new_values = {}  # index in `ops` -> values (ops are not dict keys: their hash follows their types)
        for i, op in enumerate(ops):
            vals = _check_op(op, narrow, ranges, ctx)
            if vals is not None:
                new_values[i] = vals
        if ctx.env.debug:  # --debug: the analysis runs even when no check needed it
            _report(ctx, ops, ranges(), narrow)
        # 2. Retype, through the rewriter (it records attribute and type changes).
        for i, op in enumerate(ops):
            if i in new_values:
                _set_constant_value(ctx.rewriter, op, narrow(op.results[0].type), new_values[i])
                ctx.stats["constants-narrowed"] += 1
            retype_op(op, narrow, ctx.stats, "values-narrowed", "signatures-narrowed", rewriter=ctx.rewriter)


register_twins(
    "sixty-four-hack",
    "Narrow i64/ui64 tensors to i32/ui32 everywhere; width-dependent ops and out-of-range constants need a range proof",
    _run,
    anchor="builtin.module",
    class_name="SixtyFourHack",
    statistics=("constants-narrowed", "values-narrowed", "signatures-narrowed", "width-dependent-ops-proven"),
    source="seed 004 step 25 (prepended before PenguinizeIO); DESIGN.md catalogue step 25; issue 14 (range proofs)",
)
