"""``widen-float-to-f64`` (twin ``stablehlo-widen-float-to-f64``): the f64 truth of a module.

Not a spine step: ``hilo-check`` runs it on the *input* module to get the
reference its numbers are judged against (the same program computed in f64).
Every floating-point element type narrower than f64 -- ``f32``, ``bf16``,
``f16``, ``tf32`` and every ``f8*``/``f6*``/``f4*`` type -- becomes ``f64``
(``complex<f32>`` becomes ``complex<f64>``) in function signatures, op
results, and block arguments of every region (reduce, sort, while, case
bodies); tuples are retyped element by element.

Constants are converted exactly: a float ``constant`` keeps its value and
type and gets a ``convert`` to f64 after it that takes over its uses (every
value of a narrower float type is exactly an f64 value, so the convert is
exact; no value is re-read or re-rounded). Ops whose meaning is tied to the
bit width (``bitcast_convert``) and ``custom_call`` (an opaque target) keep
their original types: each widened operand is converted back to its original
type before the op (exact for values the original program could hold) and
each float result is converted to f64 after it.

A ``convert`` between two float types becomes an f64 -> f64 convert (the
rounding it did disappears: the truth computes everything in f64), and
``reduce_precision`` keeps rounding the mantissa and exponent its attributes
name. Integer, boolean and f64 values are untouched.

Source: issue 25 (hilo-check's f64 truth; XLA's ``run_hlo_module
--reference_platform`` compares against a reference run the same way).
"""

from __future__ import annotations

from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.dialects import hlo_short_name
from hilo_mlir.passmanager.registry import Statistic, register_twins
from hilo_mlir.rewrite.retype import ElementTypeMapper, may_need_retype, retype_op

#: Element types widened (as printed).
NARROW_FLOATS = frozenset(
    {
        "f32",
        "bf16",
        "f16",
        "tf32",
        "f8E4M3FN",
        "f8E5M2",
        "f8E4M3FNUZ",
        "f8E5M2FNUZ",
        "f8E4M3B11FNUZ",
        "f8E4M3",
        "f8E3M4",
        "f8E8M0FNU",
        "f6E2M3FN",
        "f6E3M2FN",
        "f4E2M1FN",
    }
)

#: The element type strings :class:`_Widener` changes: the narrow floats and complex numbers of them (the
#: census's element strings stop at a complex type: ``tensor<2xcomplex<f32>>`` has ``"complex<f32>"``).
WIDENED_ELEMENTS = NARROW_FLOATS | frozenset(f"complex<{s}>" for s in NARROW_FLOATS)

#: Ops that keep their original operand and result types (converts around them).
_OPAQUE = frozenset({"bitcast_convert", "custom_call"})


class _Widener(ElementTypeMapper):
    """Maps a type to its widened form (memoised per uniqued type); None when nothing to widen."""

    def elem(self, e):
        s = str(e)
        if s in NARROW_FLOATS:
            return ir.F64Type.get()
        if isinstance(e, ir.ComplexType) and str(e.element_type) in NARROW_FLOATS:
            return ir.ComplexType.get(ir.F64Type.get())
        return None


def _tensor(t) -> bool:
    return isinstance(t, (ir.RankedTensorType, ir.UnrankedTensorType))


def _run(module_op, ctx):
    d, rw = ctx.d, ctx.rewriter
    with module_op.context, module_op.location:
        widen = _Widener()
        if not may_need_retype(ctx, module_op, widen, WIDENED_ELEMENTS):
            return
        ops = []

        def visit(op):
            ops.append(op)
            return ir.WalkResult.ADVANCE

        module_op.walk(visit, ir.WalkOrder.PRE_ORDER)
        convert = d.name("convert")
        # 1. What the opaque ops saw, before any value changes its type.
        original = {}  # index in `ops` -> [operand types]
        for i, op in enumerate(ops):
            if hlo_short_name(op.name) in _OPAQUE:
                original[i] = [v.type for v in op.operands]
        # 2. Retype (pre-order: a value is retyped before the ops that use it are visited).
        for i, op in enumerate(ops):
            short = hlo_short_name(op.name)
            is_const = (short == "constant" or op.name == "arith.constant") and len(op.results) == 1
            if is_const or i in original:
                if i in original:
                    for k, (v, t) in enumerate(zip(list(op.operands), original[i])):
                        if widen(t) is not None and _tensor(t) and v.type != t:
                            back = rw.create(convert, results=[t], operands=[v], loc=op.location, before=op)
                            rw.set_operand(op, k, back.results[0])
                            ctx.stats["converts-inserted"] += 1
                for r in op.results:
                    wide = widen(r.type)
                    if wide is None or not _tensor(r.type) or not list(r.uses):
                        continue
                    cv = rw.create(convert, results=[wide], operands=[r], loc=op.location, after=op)
                    rw.replace_all_uses_except(r, cv.results[0], cv)
                    ctx.stats["converts-inserted"] += 1
                    if is_const:
                        ctx.stats["constants-converted"] += 1
                continue
            retype_op(op, widen, ctx.stats, "values-widened", "signatures-widened", rewriter=rw)


register_twins(
    "widen-float-to-f64",
    "Widen every f32/bf16/f16/f8 type to f64 (the f64 truth hilo-check compares against); constants converted exactly",
    _run,
    anchor="builtin.module",
    class_name="WidenFloatToF64",
    statistics=(
        Statistic("values-widened", "values whose float type became f64"),
        Statistic("signatures-widened", "function signatures widened"),
        Statistic("constants-converted", "float constants given an exact convert to f64"),
        Statistic("converts-inserted", "converts inserted (constants, opaque ops' operands and results)"),
    ),
    source="issue 25 (hilo-check: the f64 truth)",
)
