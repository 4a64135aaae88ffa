"""StableHLO spine step 26a: ``legalize-sra`` (class ``LegalizeSRA``; StableHLO only, no twin).

Seed 004 ("The five StableHLO-only insertions": ``createLegalizeSRAPass``,
"shift_right_arithmetic signedness"; "QUIRK -- LegalizeSRA ... walk
mlir::stablehlo:: ops directly and appear only on the StableHLO path").
"""

from __future__ import annotations

from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.dialects import STABLEHLO
from hilo_mlir.passmanager.registry import PassInfo, register


def _unsigned_elem(t):
    if not isinstance(t, ir.RankedTensorType):
        return None
    e = t.element_type
    if isinstance(e, ir.IntegerType) and e.is_unsigned:
        return e
    return None


def run_legalize_sra(func_op, ctx) -> None:
    """Make ``stablehlo.shift_right_arithmetic`` on unsigned integers signed-correct.

    An arithmetic right shift replicates the top bit, i.e. it treats the bit
    pattern as signed; the StableHLO interpreter and XLA both compute
    ``ui32`` SRA that way (``0x80000000 >> 1 = 0xC0000000``; a shift by the
    bit width or more gives all sign bits). A backend whose arithmetic shift
    follows the operand's signedness would compute a logical shift for an
    unsigned operand instead. The rewrite spells the intended semantics out on
    signed types, for every unsigned width (ui8/ui16/ui32/ui64)::

        %n  = minimum(%rhs, splat(bits-1))         // in-range shift amount, same result
        %ls = bitcast_convert %lhs : uiN -> iN
        %rs = bitcast_convert %n   : uiN -> iN
        %s  = shift_right_arithmetic %ls, %rs : iN
        %r  = bitcast_convert %s   : iN -> uiN

    Clamping the shift amount to ``bits-1`` keeps the result (a shift by
    ``>= bits`` is all sign bits, as is a shift by ``bits-1`` of the sign) and
    keeps the signed shift amount non-negative. Bit-exact with the original
    (tested with the reference interpreter). Signed (signless) shifts are not
    touched; shapes must be static (else the op is left alone). Statistic
    ``sra-legalized``.
    """
    d = STABLEHLO
    name = d.name("shift_right_arithmetic")
    ops = ctx.ops_named(func_op, name) if ctx.module_may_contain(name) else []
    rw = ctx.rewriter
    with func_op.context, func_op.location:
        for op in ops:  # from the census (walk order, no walk); one walk without a pipeline
            t = op.results[0].type
            e = _unsigned_elem(t)
            if e is None:
                continue
            if not t.has_static_shape:
                ctx.debug(f"{op.name} at {op.location}: dynamic shape, left alone")
                continue
            bits = e.width
            ts = ir.RankedTensorType.get(list(t.shape), ir.IntegerType.get_signless(bits))
            loc = op.location

            def make(short, rtype, operands=(), attributes=None):
                return rw.create(d.name(short), results=[rtype], operands=operands, attributes=attributes, loc=loc, before=op).results[0]

            lhs, rhs = op.operands[0], op.operands[1]
            limit = ir.DenseElementsAttr.get_splat(t, ir.IntegerAttr.get(e, bits - 1))
            k = make("constant", t, attributes={"value": limit})
            n = make("minimum", t, [rhs, k])
            ls = make("bitcast_convert", ts, [lhs])
            rs = make("bitcast_convert", ts, [n])
            s = make("shift_right_arithmetic", ts, [ls, rs])
            rw.replace_op(op, [make("bitcast_convert", t, [s])])
            ctx.stats["sra-legalized"] += 1


register(
    PassInfo(
        "legalize-sra",
        "shift_right_arithmetic on unsigned integers -> signed shift between bitcasts (shift amount clamped)",
        run_legalize_sra,
        dialect="stablehlo",
        class_name="LegalizeSRA",
        statistics=("sra-legalized",),
        source="seed 004 StableHLO insertion 26a (createLegalizeSRAPass); the rewrite is our interpretation",
    )
)
