"""NeuronOpFusion: ``neuron-op-fusion`` / ``stablehlo-neuron-op-fusion``.

The driver runs six sub-passes per function, in this order:

1. ``fuseSubExp`` -- always;
2. if ``fuse-dot-logistic``: ``fuseDotLogisticOp`` then ``fuseMulRedSqrt``;
3. if ``general-elementwise-fusion``: ``fuseExpm1Op``, ``fuseLog1pOp``,
   ``fuseElementwiseOps``.

Every cluster goes through the shared :func:`hilo_mlir.fusion.codegen`: on
MHLO an ``mhlo.fusion {FusionKind = "<kind>"}``, on StableHLO a
``stablehlo.composite "neuron.<kind>"`` with a private decomposition. No
sub-pass seeds inside an existing fusion, and the decomposition functions of
composites are not visited.

Statistics (``--mlir-pass-statistics``, ``PenguinSource.statistics``):
``clusters-<kind>``, ``ops-absorbed-<kind>``, ``expanded-Expm1``/``-Log1p``,
``reassociated-reshape`` (Pass B), ``refused-<kind>`` (candidates the codegen
refused), ``extended-elementwise-absorbed`` (ops the grower absorbed that are
beyond the binary's elementwise set: ``EXTENDED_ELEMENTWISE_OPS``; each also a
``--debug`` line).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from hilo_mlir.fusion import report as fusion_report
from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.dialects import DECOMPOSITION_ATTR, STABLEHLO
from hilo_mlir.ir.utils import as_op, func_name
from hilo_mlir.passes.fusion.op_fusion import dot_logistic, elementwise, mul_red_sqrt, transcendental
from hilo_mlir.passes.fusion.op_fusion.dot_logistic import fuse_dot_logistic
from hilo_mlir.passes.fusion.op_fusion.elementwise import fuse_elementwise, grow_upwards
from hilo_mlir.passes.fusion.op_fusion.mul_red_sqrt import fuse_mul_red_sqrt
from hilo_mlir.passes.fusion.op_fusion.run import FusionRun, OpFusionState
from hilo_mlir.passes.fusion.op_fusion.transcendental import fuse_expm1, fuse_log1p, fuse_sub_exp
from hilo_mlir.passmanager.options import option
from hilo_mlir.passmanager.registry import Statistic, register_twins

if TYPE_CHECKING:
    from hilo_mlir.passmanager.pass_context import PassContext

__all__ = [
    "SUB_PASSES",
    "fuse_dot_logistic",
    "fuse_elementwise",
    "fuse_expm1",
    "fuse_log1p",
    "fuse_mul_red_sqrt",
    "fuse_sub_exp",
    "grow_upwards",
    "run_op_fusion",
]

#: ``(gate option or None, sub-pass, the op kinds it seeds from)``, in the driver's order.
SUB_PASSES = (
    (None, fuse_sub_exp, transcendental.SUB_EXP_ANCHORS),
    ("fuse_dot_logistic", fuse_dot_logistic, dot_logistic.ANCHORS),
    ("fuse_dot_logistic", fuse_mul_red_sqrt, mul_red_sqrt.ANCHORS),
    ("general_elementwise_fusion", fuse_expm1, transcendental.EXPM1_ANCHORS),
    ("general_elementwise_fusion", fuse_log1p, transcendental.LOG1P_ANCHORS),
    ("general_elementwise_fusion", fuse_elementwise, elementwise.ANCHORS),
)


def _decomposition_names(module_op, ctx) -> set:
    """Names of the functions that are composite decompositions (taken once per pass run)."""
    state: OpFusionState = ctx.state
    if state.decompositions is None:
        names = set()
        composite = STABLEHLO.fusion  # composites exist only in StableHLO (also in a module the MHLO twin runs on)
        if ctx.module_may_contain(composite):
            for top in module_op.regions[0].blocks[0].operations:
                for op in ctx.ops_named(top.operation, composite):
                    if DECOMPOSITION_ATTR in op.attributes:
                        names.add(ir.FlatSymbolRefAttr(op.attributes[DECOMPOSITION_ATTR]).value)
        state.decompositions = names
    return state.decompositions


def run_op_fusion(func_op, ctx: PassContext[NeuronOpFusionOptions]) -> None:
    """Run the enabled sub-passes on one ``func.func`` in the driver's order (see module docstring)."""
    rec = fusion_report.recorder(ctx, func_op)
    try:
        _run_op_fusion(func_op, ctx, rec)
    finally:
        fusion_report.function_done(ctx, func_op)


def _run_op_fusion(func_op, ctx, rec) -> None:
    parent = func_op.parent
    module_op = as_op(parent) if parent is not None else None
    if module_op is not None and func_name(func_op) in _decomposition_names(module_op, ctx):
        ctx.debug(f"skipping @{func_name(func_op)}: it is a composite decomposition")
        return
    namer = None
    if ctx.d.fusion_is_composite and module_op is not None:
        # one namer per module for the whole pass run: names stay unique across functions
        state: OpFusionState = ctx.state
        if state.namer is None:
            from hilo_mlir.fusion import SymbolNamer

            state.namer = SymbolNamer(module_op)
        namer = state.namer
    options = ctx.options
    enabled = [(fn, names) for gate, fn, names in SUB_PASSES if gate is None or getattr(options, gate)]
    run = FusionRun(func_op, ctx, namer, anchors=[n for _, names in enabled for n in names], rec=rec)
    try:
        for fn, _ in enabled:
            fn(run)
    finally:
        run.close()


_KINDS_HELP = "(per FusionKind)"


@dataclass(frozen=True)
class NeuronOpFusionOptions:
    """The options of ``neuron-op-fusion`` and its StableHLO twin (the gates of the sub-passes, :data:`SUB_PASSES`)."""

    fuse_dot_logistic: bool = option(False, "Also fuse dot+logistic (DotLogistic) and the RMSNorm core (MulRedSqrt)")
    general_elementwise_fusion: bool = option(
        False, "Also expand and fuse expm1/log1p (Expm1, Log1p) and grow Elementwise clusters from reduce/concatenate"
    )
    report: str = option("", fusion_report.REPORT_HELP)


register_twins(
    "neuron-op-fusion",
    "Fuse HLO idioms into FusionKind-tagged fusions (SubExp; DotLogistic, MulRedSqrt; Expm1, Log1p, Elementwise)",
    run_op_fusion,
    class_name="NeuronOpFusion",
    options_type=NeuronOpFusionOptions,
    statistics=(
        Statistic("clusters-{kind}", f"fused ops made {_KINDS_HELP}"),
        Statistic("ops-absorbed-{kind}", f"ops moved into fused ops {_KINDS_HELP}"),
        Statistic("refused-{kind}", f"candidate clusters the codegen refused {_KINDS_HELP}"),
        Statistic("expanded-{kind}", "expm1/log1p ops expanded (Expm1, Log1p)"),
        Statistic("reassociated-reshape", "dot->reshape->logistic->multiply chains with the reshape sunk"),
        Statistic("extended-elementwise-absorbed", "ops the Elementwise grower absorbed that are beyond the binary's elementwise set"),
    ),
    state=OpFusionState,
    source="seed 000 (NeuronOpFusion::runOnOperation @0x2101680; gates cl::opt @0x9c717b8, @0x9c716f8); "
    "DESIGN.md 'The op-fusion core', decisions 1-6; spine step 15",
)
