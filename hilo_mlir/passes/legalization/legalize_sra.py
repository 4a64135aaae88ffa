"""StableHLO spine step 26a: ``legalize-sra`` (class ``LegalizeSRA``; StableHLO only, no twin).

Seed 004 ("The five StableHLO-only insertions": ``createLegalizeSRAPass``,
"shift_right_arithmetic signedness"; "QUIRK -- LegalizeSRA ... walk
mlir::stablehlo:: ops directly and appear only on the StableHLO path").
"""

from __future__ import annotations

from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.dialects import STABLEHLO
from hilo_mlir.passmanager.registry import PassInfo, register
from hilo_mlir.rewrite.pattern import RewritePattern, apply_patterns_once


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
    apply_patterns_once(func_op, _PATTERNS, ctx)


class UnsignedSRA(RewritePattern):
    """``shift_right_arithmetic`` on unsigned integers -> the signed shift between bitcasts (see :func:`run_legalize_sra`)."""

    name, roots = "sra-legalized", (STABLEHLO.name("shift_right_arithmetic"),)

    def match(self, op, rw):
        t = op.results[0].type
        if _unsigned_elem(t) is None:
            return False  # signed shifts are what the backend computes: nothing to say
        if not t.has_static_shape:
            return rw.notify_match_failure(op, "dynamic shape, left alone")
        return True

    def rewrite(self, op, rw):
        d = STABLEHLO
        t = op.results[0].type
        e = _unsigned_elem(t)
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


#: one sequence for every call (the drivers resolve its roots once per pass run)
_PATTERNS = (UnsignedSRA(),)


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
