"""NeuronOpFusion: ``neuron-op-fusion`` / ``stablehlo-neuron-op-fusion`` (seed 000).

The driver (``runOnOperation`` @0x2101680) runs six sub-passes per function,
in this order:

1. ``fuseSubExp`` -- always;
2. if ``fuse-dot-logistic``: ``fuseDotLogisticOp`` then ``fuseMulRedSqrt``;
3. if ``general-elementwise-fusion``: ``fuseExpm1Op``, ``fuseLog1pOp``,
   ``fuseElementwiseOps``.

Every cluster goes through the shared :func:`hilo_mlir.cluster.codegen`: on
MHLO an ``mhlo.fusion {FusionKind = "<kind>"}``, on StableHLO a
``stablehlo.composite "neuron.<kind>"`` with a private decomposition
(DESIGN.md decision 6). No sub-pass seeds inside an existing fusion, and the
decomposition functions of composites are not visited.

Statistics (``--mlir-pass-statistics``, ``PenguinSource.statistics``):
``clusters-<kind>``, ``ops-absorbed-<kind>``, ``expanded-Expm1``/``-Log1p``,
``reassociated-reshape`` (Pass B), ``refused-<kind>`` (non-convex candidates).
"""

from __future__ import annotations

from ...cluster import SymbolNamer, op_key
from ...ir import ir
from ...registry import Option, register_twins
from .common import FusionRun, as_op
from .dot_logistic import fuse_dot_logistic
from .elementwise import fuse_elementwise, grow_upwards
from .mul_red_sqrt import fuse_mul_red_sqrt
from .transcendental import fuse_expm1, fuse_log1p, fuse_sub_exp
from . import test_cluster  # noqa: F401  (registers test-fusion-cluster)

__all__ = [
    "run_op_fusion", "fuse_sub_exp", "fuse_dot_logistic", "fuse_mul_red_sqrt", "fuse_expm1", "fuse_log1p",
    "fuse_elementwise", "grow_upwards",
]


def _decomposition_names(module_op, ctx) -> set:
    """Names of functions that are composite decompositions (cached for this pass run)."""
    cache = ctx.__dict__.setdefault("_op_fusion_decomp", {})
    key = op_key(module_op)
    names = cache.get(key)
    if names is None:
        names = set()
        if ctx.module_may_contain("stablehlo.composite"):
            for top in module_op.regions[0].blocks[0].operations:
                for op in ctx.ops_named(top.operation, "stablehlo.composite"):
                    if "decomposition" in op.attributes:
                        names.add(ir.FlatSymbolRefAttr(op.attributes["decomposition"]).value)
        cache[key] = names
    return names


def _sym_name(func_op) -> str:
    return ir.StringAttr(func_op.attributes["sym_name"]).value


def run_op_fusion(func_op, ctx) -> None:
    """Run the six sub-passes on one ``func.func`` in the seed's order (see module docstring)."""
    parent = func_op.parent
    if parent is not None:
        module_op = as_op(parent)
        if _sym_name(func_op) in _decomposition_names(module_op, ctx):
            ctx.debug(f"skipping @{_sym_name(func_op)}: it is a composite decomposition")
            ctx.mark_all_preserved()
            return
    namer = None
    if ctx.d.prefix != "mhlo" and parent is not None:
        # one namer per module for the whole pass run: names stay unique across functions
        namers = ctx.__dict__.setdefault("_op_fusion_namers", {})
        key = op_key(module_op)
        namer = namers.get(key)
        if namer is None:
            namer = namers[key] = SymbolNamer(module_op)
    run = FusionRun(func_op, ctx, namer)  # sub-passes seed from the census lists (issue 7: no walk)
    fuse_sub_exp(run)
    if ctx.options.fuse_dot_logistic:
        fuse_dot_logistic(run)
        fuse_mul_red_sqrt(run)
    if ctx.options.general_elementwise_fusion:
        fuse_expm1(run)
        fuse_log1p(run)
        fuse_elementwise(run)
    if not run.changed:
        ctx.mark_all_preserved()


register_twins(
    "neuron-op-fusion",
    "Fuse HLO idioms into FusionKind-tagged fusions (SubExp; DotLogistic, MulRedSqrt; Expm1, Log1p, Elementwise)",
    run_op_fusion,
    class_name="NeuronOpFusion",
    options=(
        Option("fuse-dot-logistic", bool, False, "Run fuseDotLogisticOp and fuseMulRedSqrt"),
        Option("general-elementwise-fusion", bool, False,
               "General elementwise-op fusion: fuseExpm1Op, fuseLog1pOp, fuseElementwiseOps"),
    ),
    source="seed 000 (NeuronOpFusion::runOnOperation @0x2101680; option cl::opt bytes @0x9c717b8, @0x9c716f8); "
           "DESIGN.md 'The op-fusion core', decisions 1-6; spine step 15",
)
