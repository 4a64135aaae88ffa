"""Spine step 4: ``verify-supported-ops`` (twin ``stablehlo-verify-supported-ops``).

Source: seed 004 step 4 (``createVerifySupportedOps``, gate cfg[0x136], "op
legality"); behaviour: DESIGN.md catalogue row 4 (our definition).

The pass walks every op of the module (nested regions included: fusion and
composite bodies, reducer bodies, private decompositions) except
``builtin.module`` and ``func.func`` themselves, and asks the printers' own
table, :func:`hilo_mlir.printers.supported.unsupported_reason`, whether the
Penguin printer can emit it (op name, custom-call target, FusionKind /
CompositeKind, static shapes and known element types). The printer and this
pass therefore never disagree.

Errors: one MLIR error diagnostic per unsupported op, at the op's location,
with the reason (``'<op>' op cannot be emitted by the Penguin printer: ...``);
then the pass fails with a :class:`~hilo_mlir.diagnostics.HiloError` naming
the first one and counting the rest. The IR is never changed.
"""

from __future__ import annotations

from ..diagnostics import HiloError
from ..ir import ir
from ..registry import register_twins


def _run(module_op, ctx):
    from ..printers.supported import unsupported_reason

    bad = []
    cache: dict = {}

    def visit(op):
        name = op.name
        if name not in ("builtin.module", "func.func"):
            r = unsupported_reason(op, cache)
            if r:
                bad.append((op.location, name, r))
        return ir.WalkResult.ADVANCE

    module_op.walk(visit, ir.WalkOrder.PRE_ORDER)
    ctx.mark_all_preserved()
    ctx.stats["ops-rejected"] += len(bad)
    if not bad:
        return
    for loc, name, reason in bad:
        loc.emit_error(f"'{name}' op cannot be emitted by the Penguin printer: {reason}")
    loc0, name0, reason0 = bad[0]
    more = f" (and {len(bad) - 1} more op{'s' if len(bad) > 2 else ''}, each reported as a diagnostic)" if len(bad) > 1 else ""
    raise HiloError(f"'{name0}' op cannot be emitted by the Penguin printer: {reason0}{more}", loc=loc0)


register_twins(
    "verify-supported-ops",
    "Error, with location, for each op the Penguin printer cannot emit",
    _run,
    anchor="builtin.module",
    class_name="VerifySupportedOps",
    source="seed 004 step 4 (gate cfg[0x136]); DESIGN.md catalogue row 4 (our definition)",
)
