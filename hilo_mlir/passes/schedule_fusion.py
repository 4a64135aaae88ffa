"""``schedule-fusion`` (spine step 21, ``ScheduleFusion``; twin ``stablehlo-schedule-fusion``).

Communication/compute overlap: an independent ``reduce_scatter`` and
``all_gather`` are paired into one ``ScheduleFusion`` cluster, so the backend
issues them together. The fused op comes from the shared codegen
(:func:`hilo_mlir.cluster.codegen`): ``mhlo.fusion {FusionKind =
"ScheduleFusion"}`` on MHLO, ``stablehlo.composite "neuron.ScheduleFusion"``
with a private decomposition on StableHLO.

Pairing rule (per block, one sweep): the side-effecting ops of the block are
listed in order; two *consecutive* ones form a pair when one is a
``reduce_scatter`` and the other an ``all_gather`` (either order), neither is
already paired, and the later one does not depend, directly or through other
ops, on the earlier one. Because the two are consecutive side-effecting ops,
fusing them at the later one's position moves no side-effecting op across
another (DESIGN.md "Rules of the IR"). The independence check walks the users
of the earlier op that sit before the later one, so every op is visited at
most once per block: linear time. A pair the codegen refuses (e.g. a
side-effecting op between them uses the earlier one's result) stays as it is
(one ``--debug`` line).

Blocks inside ``mhlo.fusion`` bodies and the decompositions of our own
composites (``neuron.<Kind>.impl[.N]``) are never seeded.

Source: seed 004 step 21 (gate cfg[0x135], "comm/compute overlap"); seed
000 (the shared codegen, ScheduleFusion as a FusionKind); DESIGN.md catalogue
step 21.
"""

from __future__ import annotations

import re

from ..cluster import FusionCluster, OrderIndex, SymbolNamer, ancestor_in_block, codegen
from ..dialects import is_fusion_like
from ..ir import ir
from ..registry import register_twins
from ..effects import EffectOracle

KIND = "ScheduleFusion"
_DECOMPOSITION = re.compile(r"^neuron\..+\.impl(\.\d+)?$")


def _depends_on(later, earlier, block, order: OrderIndex) -> bool:
    """True if ``later`` uses ``earlier``'s results directly or through ops between them."""
    limit = order.pos(later)
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
                if a not in seen and order.pos(a) < limit:
                    seen.add(a)
                    stack.append(a)
    return False


def _module_of(op):
    while op is not None and op.name != "builtin.module":
        p = op.parent
        op = p.operation if p is not None else None
    return op


def _run(func_op, ctx):
    d = ctx.d
    name = func_op.attributes["sym_name"].value
    if _DECOMPOSITION.match(name):
        ctx.mark_all_preserved()
        return
    if not (ctx.module_may_contain(d.name("reduce_scatter")) and ctx.module_may_contain(d.name("all_gather"))):
        ctx.mark_all_preserved()  # no reduce_scatter/all_gather pair can exist
        return
    blocks = []

    def visit(op):
        if is_fusion_like(op):
            return ir.WalkResult.SKIP
        for r in op.regions:
            for b in r.blocks:
                blocks.append(b)
        return ir.WalkResult.ADVANCE

    func_op.walk(visit, ir.WalkOrder.PRE_ORDER)
    effects = EffectOracle(func_op)
    order = OrderIndex()
    namer = None
    fused_any = False
    for block in blocks:
        seq = [o.operation for o in block.operations if effects(o)]
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
                i += 1
                continue
            if namer is None and d.prefix == "stablehlo":
                namer = SymbolNamer(_module_of(func_op))
            fused = codegen(FusionCluster([a, b], KIND, order=order), d, order=order, namer=namer)
            if fused is None:
                ctx.debug(f"codegen refused the pair '{a.name}' + '{b.name}'")
                ctx.stats["refused-pairs"] += 1
                i += 1
                continue
            ctx.stats["fused-pairs"] += 1
            fused_any = True
            i += 2
    if not fused_any:
        ctx.mark_all_preserved()


register_twins(
    "schedule-fusion",
    "Pair an independent reduce_scatter and all_gather into one ScheduleFusion cluster (shared codegen)",
    _run,
    class_name="ScheduleFusion",
    statistics=("fused-pairs", "dependent-pairs", "refused-pairs"),
    source="seed 004 step 21 (gate cfg[0x135]); seed 000 codeGen; DESIGN.md catalogue step 21",
)
