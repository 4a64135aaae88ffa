"""``schedule-fusion`` (spine step 21, ``ScheduleFusion``; twin ``stablehlo-schedule-fusion``).

Communication/compute overlap: an independent ``reduce_scatter`` and
``all_gather`` are paired into one ``ScheduleFusion`` cluster, so the backend
issues them together. The fused op comes from the shared codegen
(:func:`hilo_mlir.fusion.codegen`): ``mhlo.fusion {FusionKind =
"ScheduleFusion"}`` on MHLO, ``stablehlo.composite "neuron.ScheduleFusion"``
with a private decomposition on StableHLO.

Pairing rule (per block, one sweep): the side-effecting ops of the block are
listed in order; two *consecutive* ones form a pair when one is a
``reduce_scatter`` and the other an ``all_gather`` (either order), neither is
already paired, and the later one does not depend, directly or through other
ops, on the earlier one. Because the two are consecutive side-effecting ops,
fusing them at the later one's position moves no side-effecting op across
another. The independence check walks the users
of the earlier op that sit before the later one, so every op is visited at
most once per block: linear time. A pair the codegen refuses (e.g. a
side-effecting op between them uses the earlier one's result) stays as it is
(one ``--debug`` line).

Blocks inside ``mhlo.fusion`` bodies and the decompositions of our own
composites (``neuron.<Kind>.impl[.N]``) are never seeded.
"""

from __future__ import annotations

import re

from hilo_mlir.fusion import FusionCluster, OrderIndex, SymbolNamer, ancestor_in_block, codegen
from hilo_mlir.fusion import report as fusion_report
from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.dialects import COMPOSITE_NAMESPACE, FusionKind, is_fusion_like
from hilo_mlir.ir.effects import EffectOracle
from hilo_mlir.ir.utils import enclosing_module, func_name, op_key
from hilo_mlir.passmanager.registry import register_twins

KIND = FusionKind.SCHEDULE_FUSION
RULE = "ScheduleFusion"
_DECOMPOSITION = re.compile(r"^" + re.escape(COMPOSITE_NAMESPACE) + r"\..+\.impl(\.\d+)?$")


def _depends_on(later, earlier, block, order: OrderIndex) -> bool:
    """True if ``later`` uses ``earlier``'s results directly or through ops between them."""
    seen = set()
    stack = [earlier]
    while stack:
        o = stack.pop()
        for r in o.results:
            for use in r.uses:
                a = ancestor_in_block(use.owner.operation, block)
                if a is None:
                    continue
                if a == later:
                    return True
                if a not in seen and order.is_before(a, later):
                    seen.add(a)
                    stack.append(a)
    return False


def _blocks_to_seed(func_op) -> list:
    """Every block of ``func_op`` (nested ones included) outside fused ops, in pre-order."""
    blocks = []

    def visit(op):
        if is_fusion_like(op):
            return ir.WalkResult.SKIP
        for r in op.regions:
            for b in r.blocks:
                blocks.append(b)
        return ir.WalkResult.ADVANCE

    func_op.walk(visit, ir.WalkOrder.PRE_ORDER)
    return blocks


_COLLECTIVES = frozenset({"reduce_scatter", "all_gather"})


def _pair_block(block, d, ctx, effects, order, namers: list, rec) -> None:
    """Pair consecutive independent reduce_scatter / all_gather ops of ``block`` (one sweep)."""
    seq = [o.operation for o in block.operations if effects(o)]
    failed: dict = {}  # op_key of a collective -> (reason code, the other op) of its last failed pairing
    paired: set = set()
    i = 0
    while i + 1 < len(seq):
        a, b = seq[i], seq[i + 1]
        kinds = {d.short(a.name), d.short(b.name)}
        if kinds != {"reduce_scatter", "all_gather"}:
            i += 1
            continue
        if _depends_on(b, a, block, order):
            ctx.debug(f"'{b.name}' depends on '{a.name}': not paired")
            ctx.stats["dependent-pairs"] += 1
            failed[op_key(a)], failed[op_key(b)] = ("dependent-pair", b), ("dependent-pair", a)
            i += 1
            continue
        if not namers and d.fusion_is_composite:
            namers.append(SymbolNamer(enclosing_module(block.owner)))
        cluster = FusionCluster([a, b], KIND, order=order)
        captured = rec.capture_cluster(RULE, cluster, anchor=b) if rec is not None else None
        fused = codegen(cluster, d, ctx.rewriter, order=order, namer=namers[0] if namers else None)
        if rec is not None:
            rec.file_cluster(captured, cluster.refusal)
        if fused is None:
            ctx.debug(f"codegen refused the pair '{a.name}' + '{b.name}' ({cluster.refusal.reason})")
            ctx.stats["refused-pairs"] += 1
            failed[op_key(a)] = failed[op_key(b)] = (None, None)  # recorded as the cluster's refusal
            i += 1
            continue
        ctx.stats["fused-pairs"] += 1
        paired.update((op_key(a), op_key(b)))
        i += 2
    if rec is not None:
        _record_unpaired(rec, d, seq, failed, paired)


def _record_unpaired(rec, d, seq, failed: dict, paired: set) -> None:
    """Every reduce_scatter / all_gather of ``seq`` left unpaired, with the reason of its last attempt."""
    for op in seq:
        k = op_key(op)
        if k in paired or d.short(op.name) not in _COLLECTIVES:
            continue
        code, other = failed.get(k, ("no-adjacent-partner", None))
        if code is None:
            continue  # the codegen refused its pair: recorded as that cluster's refusal
        rec.refused(RULE, KIND, op, code, other.name if other is not None else None, other)


def _run(func_op, ctx):
    rec = fusion_report.recorder(ctx, func_op)
    try:
        _run_schedule_fusion(func_op, ctx, rec)
    finally:
        fusion_report.function_done(ctx, func_op)


def _run_schedule_fusion(func_op, ctx, rec):
    d = ctx.d
    if _DECOMPOSITION.match(func_name(func_op)):
        return
    if not (ctx.module_may_contain(d.name("reduce_scatter")) and ctx.module_may_contain(d.name("all_gather"))):
        if rec is not None:  # a lone collective of either kind has no partner anywhere
            for short in sorted(_COLLECTIVES):
                for op in ctx.ops_named(func_op, d.name(short)):
                    rec.refused(RULE, KIND, op, "no-adjacent-partner")
        return  # no reduce_scatter/all_gather pair can exist
    effects = EffectOracle(func_op)
    namers: list = []  # the module's SymbolNamer, made on the first composite
    with OrderIndex(ctx.rewriter) as order:
        for block in _blocks_to_seed(func_op):
            _pair_block(block, d, ctx, effects, order, namers, rec)


class _ScheduleFusionState(fusion_report.ReportRun):
    """Per-run state of schedule-fusion (only the report's)."""


register_twins(
    "schedule-fusion",
    "Pair an independent reduce_scatter and all_gather into one ScheduleFusion cluster (shared codegen)",
    _run,
    class_name="ScheduleFusion",
    options=(fusion_report.REPORT_OPTION,),
    statistics=("fused-pairs", "dependent-pairs", "refused-pairs"),
    state=_ScheduleFusionState,
    source="seed 004 step 21 (gate cfg[0x135]); seed 000 codeGen; DESIGN.md catalogue step 21",
)
