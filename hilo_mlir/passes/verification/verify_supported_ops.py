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
then the pass fails with a :class:`~hilo_mlir.support.diagnostics.HiloError` naming
the first one and counting the rest. The IR is never changed.

Cost: the op census usually answers without a walk
(:func:`_census_says_supported`: names, the few attribute-dependent ops,
and the set of value types, read once per census and asked with a
predicate); the walk runs only when that check finds something to report.
"""

from __future__ import annotations

from hilo_mlir.ir.binding import ir
from hilo_mlir.passmanager.registry import register_twins
from hilo_mlir.support.diagnostics import HiloError

_SKIPPED = ("builtin.module", "func.func")


def _census_says_supported(module_op, ctx) -> bool:
    """True if the pipeline's op census proves every op supported (then no walk is needed).

    The verdict of :func:`~hilo_mlir.printers.supported.unsupported_reason`
    depends on the op name, on three attributes of the attribute-dependent
    kinds (custom-call target, FusionKind, CompositeKind) and on operand and
    result types. The census has every op name, the ops of each name, and
    every result and block-argument type, which include every operand type.
    So: every name accepted, every attribute-dependent op accepted and every
    type accepted means no op is rejected. False (walk and report) when any
    of them fails.
    """
    from hilo_mlir.printers.supported import attribute_dependent, name_reason, op_reason, type_reason

    counts = ctx.op_counts()
    dependent = []
    for name in counts:
        if name in _SKIPPED:
            continue
        if name_reason(name):
            return False
        if attribute_dependent(name):
            dependent.append(name)
    if dependent:
        for top in module_op.regions[0].blocks[0].operations:
            for op in ctx.ops_named(top.operation, *dependent):
                if op_reason(op, ctx.d.prefix):
                    return False
    cache: dict = {}
    return not ctx.any_value_type(lambda t: type_reason(t, cache))


def _run(module_op, ctx):
    from hilo_mlir.printers.supported import unsupported_reason

    if _census_says_supported(module_op, ctx):
        ctx.stats["ops-rejected"] += 0
        return
    bad = []
    cache: dict = {}

    def visit(op):
        name = op.name
        if name not in _SKIPPED:
            r = unsupported_reason(op, cache, ctx.d.prefix)
            if r:
                bad.append((op.location, name, r))
        return ir.WalkResult.ADVANCE

    module_op.walk(visit, ir.WalkOrder.PRE_ORDER)
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
    statistics=("ops-rejected",),
    any_dialect=True,
    source="seed 004 step 4 (gate cfg[0x136]); DESIGN.md catalogue row 4 (our definition)",
)
