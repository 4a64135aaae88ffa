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

Errors (one, at the op, before anything is changed):
* a constant whose value does not fit the 32-bit type: "i64 constant value V
  does not fit in i32" (``ui64``: 0..2^32-1);
* an op whose verifier demands 64-bit integers (``xla.rng_get_and_update_state``);
* a ``bitcast_convert`` between a 64-bit integer and another 64-bit type,
  which narrowing would make ill-formed.

Source: seed 004 step 25 (inserted right before PenguinizeIO when its global
is zero, the default); DESIGN.md catalogue step 25.
"""

from __future__ import annotations

import numpy as np

from ..diagnostics import op_error
from ..dialects import hlo_short_name
from ..ir import ir
from ..registry import register_twins
from ..retype import may_need_retype, retype_op

_LIMITS = {
    "i64": (np.int64, np.int32, -(1 << 31), (1 << 31) - 1),
    "si64": (np.int64, np.int32, -(1 << 31), (1 << 31) - 1),
    "ui64": (np.uint64, np.uint32, 0, (1 << 32) - 1),
}


#: Ops whose verifier demands 64-bit integers (checked before anything changes).
_REQUIRES_64 = frozenset({"xla.rng_get_and_update_state"})

#: Bit-level ops whose result on a 64-bit integer differs from the result on
#: its 32-bit narrowing even when every value fits in 32 bits
#: (clz(1) is 63 vs 31; popcnt(-1) is 64 vs 32; srl(-1, 1) differs): narrowing
#: them would silently change numbers, so they are an error.
_BIT_LEVEL = frozenset({"popcnt", "count_leading_zeros", "shift_right_logical"})


class _Narrower:
    """Maps a type to its narrowed form (memoised per uniqued type)."""

    def __init__(self):
        self.memo: dict = {}

    def elem(self, e):
        if isinstance(e, ir.IntegerType) and e.width == 64:
            if e.is_unsigned:
                return ir.IntegerType.get_unsigned(32)
            if e.is_signed:
                return ir.IntegerType.get_signed(32)
            return ir.IntegerType.get_signless(32)
        return None

    def __call__(self, t):
        """Narrowed ``t``, or None when ``t`` holds no 64-bit integer tensor."""
        key = t  # types are uniqued: they hash and compare by their C++ pointer
        if key in self.memo:
            return self.memo[key]
        res = None
        if isinstance(t, ir.RankedTensorType):
            e = self.elem(t.element_type)
            if e is not None:
                res = ir.RankedTensorType.get(list(t.shape), e, t.encoding)
        elif isinstance(t, ir.UnrankedTensorType):
            e = self.elem(t.element_type)
            if e is not None:
                res = ir.UnrankedTensorType.get(e)
        elif isinstance(t, ir.TupleType):
            elems, changed = [], False
            for i in range(t.num_types):
                x = t.get_type(i)
                n = self(x)
                changed |= n is not None
                elems.append(n if n is not None else x)
            if changed:
                res = ir.TupleType.get_tuple(elems)
        self.memo[key] = res
        return res


def _constant_values(op):
    """Narrowed values (array, or ("splat", v)) of a 64-bit integer constant, raising on an out-of-range value; None otherwise."""
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
            width = "ui32" if key == "ui64" else "i32"
            raise op_error(op, f"{key} constant value {bad} does not fit in {width} (sixty-four-hack narrows 64-bit integers to 32 bits)")
    if attr.is_splat:
        return ("splat", int(a[0]))
    return a.astype(dst).reshape(shape)


def _run(module_op, ctx):
    with module_op.context, module_op.location:
        narrow = _Narrower()
        # No 64-bit integer type anywhere (census, no walk): nothing to narrow or reject.
        full = [f"{prefix}.{short}" for prefix in ("mhlo", "stablehlo") for short in _REQUIRES_64]
        if not may_need_retype(ctx, module_op, narrow, _LIMITS.keys(), full):
            ctx.mark_all_preserved()
            return
    ops = []

    def visit(op):
        ops.append(op)
        return ir.WalkResult.ADVANCE

    module_op.walk(visit, ir.WalkOrder.PRE_ORDER)
    with module_op.context, module_op.location:
        # 1. Checks and new constant values first: an error leaves the module untouched.
        new_values = {}  # index in `ops` -> values (ops are not dict keys: their hash follows their types)
        for i, op in enumerate(ops):
            short = hlo_short_name(op.name)
            if short in _REQUIRES_64:
                raise op_error(op, "requires 64-bit integer types and cannot be narrowed by sixty-four-hack")
            if short in _BIT_LEVEL and op.operands and narrow(op.operands[0].type) is not None:
                raise op_error(
                    op,
                    f"bit-level op on {op.operands[0].type} gives different results once narrowed to 32 bits; "
                    "sixty-four-hack cannot keep its semantics (disable the gate to keep 64-bit integers)",
                )
            if (short == "constant" or op.name == "arith.constant") and len(op.results) == 1:
                vals = _constant_values(op)
                if vals is not None:
                    new_values[i] = vals
            elif short == "bitcast_convert":
                src, dst = op.operands[0].type, op.results[0].type
                if (narrow(src) is None) != (narrow(dst) is None):
                    raise op_error(op, f"bitcast_convert {src} -> {dst} cannot be narrowed to 32 bits by sixty-four-hack")
        # 2. Retype.
        changed = False
        for i, op in enumerate(ops):
            if i in new_values:
                t = narrow(op.results[0].type)
                vals = new_values[i]
                if isinstance(vals, tuple):
                    elem = ir.RankedTensorType(t).element_type
                    op.attributes["value"] = ir.DenseElementsAttr.get_splat(t, ir.IntegerAttr.get(elem, vals[1]))
                else:
                    op.attributes["value"] = ir.DenseElementsAttr.get(np.ascontiguousarray(vals), type=t)
                ctx.stats["constants-narrowed"] += 1
                changed = True
            if retype_op(op, narrow, ctx.stats, "values-narrowed", "signatures-narrowed"):
                changed = True

    if not changed:
        ctx.mark_all_preserved()

register_twins(
    "sixty-four-hack",
    "Narrow i64/ui64 tensors to i32/ui32 everywhere; out-of-range constants are an error",
    _run,
    anchor="builtin.module",
    class_name="SixtyFourHack",
    statistics=("constants-narrowed", "values-narrowed", "signatures-narrowed"),
    source="seed 004 step 25 (prepended before PenguinizeIO); DESIGN.md catalogue step 25",
)
