"""``memcast-motion`` (spine step 23, ``MemcastMotion``; twin ``stablehlo-memcast-motion``).

Sinks a widening ``convert`` below the pure data movement that reads it
(``reshape``, ``transpose``, ``broadcast_in_dim``, ``slice``), so the movement
runs on the narrow type::

    %c = convert %x : bf16 -> f32          %m' = reshape %x : bf16
    %m = reshape %c : f32            =>    %c' = convert %m' : bf16 -> f32

The mover is rebuilt on the narrow element type with its attributes and
location; the old convert is erased when nothing else uses it. Walk order is
def-before-use inside a block, so a chain convert -> reshape -> transpose
sinks through both in one sweep. Returns at once on a module without a
convert (op census).
"""

from __future__ import annotations

from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.utils import defining_op, element_bits
from hilo_mlir.passmanager.registry import register_twins

#: Pure data movement a widening convert is sunk below.
MOVEMENT_OPS = ("reshape", "transpose", "broadcast_in_dim", "slice")


def is_widening_convert(op, d) -> bool:
    """``convert`` whose element bit width grows (f16->f32, bf16->f32, i8->i32, i8->f32, ...).

    Complex and tuple types, dynamic shapes and encodings are not handled.
    """
    if not d.is_op(op, "convert"):
        return False
    src, dst = op.operands[0].type, op.results[0].type
    if not (isinstance(src, ir.RankedTensorType) and isinstance(dst, ir.RankedTensorType)):
        return False
    if src.encoding is not None or dst.encoding is not None:
        return False
    se, de = src.element_type, dst.element_type
    if isinstance(se, ir.ComplexType) or isinstance(de, ir.ComplexType):
        return False
    sb, db = element_bits(se), element_bits(de)
    return 0 < sb < db


def _sink(mv, cv, rw) -> None:
    """Rebuild mover ``mv`` on the operand of the widening convert ``cv``, then convert its result."""
    narrow = cv.operands[0]
    rt = mv.results[0].type
    narrow_t = ir.RankedTensorType.get(list(rt.shape), narrow.type.element_type, loc=mv.location)
    attrs = {k: mv.attributes[k] for k in mv.attributes}
    new_mv = rw.create(mv.name, results=[narrow_t], operands=[narrow] + list(mv.operands)[1:], attributes=attrs, loc=mv.location, before=mv)
    new_cv = rw.create(
        cv.name,
        results=[rt],
        operands=[new_mv.results[0]],
        attributes={k: cv.attributes[k] for k in cv.attributes},
        loc=cv.location,
        before=mv,
    )
    rw.replace_op(mv, [new_cv.results[0]])
    if not list(cv.results[0].uses):
        rw.erase_op(cv)


def _run_memcast_motion(func_op, ctx):
    d = ctx.d
    if not ctx.module_may_contain(d.name("convert")):  # no convert to sink anywhere
        return
    movers = []
    mover_names = frozenset(d.name(n) for n in MOVEMENT_OPS)
    advance = ir.WalkResult.ADVANCE

    def visit(op):
        if op.name in mover_names:
            movers.append(op)
        return advance

    func_op.walk(visit)
    with func_op.context:
        for mv in movers:
            cv = defining_op(mv.operands[0])
            if cv is None or not is_widening_convert(cv, d):
                continue
            rt = mv.results[0].type
            if not isinstance(rt, ir.RankedTensorType) or rt.encoding is not None:
                continue
            _sink(mv, cv, ctx.rewriter)
            ctx.stats["converts-sunk"] += 1


register_twins(
    "memcast-motion",
    "Sink widening converts below reshape/transpose/broadcast_in_dim/slice (movement on the narrow type)",
    _run_memcast_motion,
    class_name="MemcastMotion",
    statistics=("converts-sunk",),
    source="seed 004 step 23 (gate cfg[0xE5]); DESIGN.md catalogue step 23 (our interpretation)",
)
