"""``schedule-fusion`` (spine step 21, ``ScheduleFusion``; twin ``stablehlo-schedule-fusion``).

Communication/compute overlap: an independent ``reduce_scatter`` and
``all_gather`` are paired into one ``ScheduleFusion`` cluster, so the backend
issues them together. The fused op comes from the shared codegen
(:func:`hilo_mlir.fusion.codegen`): ``mhlo.fusion {FusionKind =
"ScheduleFusion"}`` on MHLO, ``stablehlo.composite "neuron.ScheduleFusion"``
with a private decomposition on StableHLO.

Pairing rule (per block, one sweep): the side-effecting ops of the block are
listed in order; a ``reduce_scatter`` or ``all_gather`` not yet paired is
paired with the first later one of the other kind that is not paired and does
not depend on it (directly or through other ops), searching the next 8
side-effecting ops as long as they are collectives (``all_gather``,
``reduce_scatter``, ``all_reduce``: the kinds coalesce-collective-ops also
reorders) -- any other side-effecting op ends the search. A partner that is
not the next side-effecting op is first brought next to it: the pure ops
between the two that compute the partner's operands (at most 256) move above
the first collective, then the partner moves right after it (statistic
``partners-moved``; if one of those ops has side effects the candidate is
skipped). The fused op then sits at the partner's position and no
side-effecting op crosses another except those collectives. This is what
makes real FSDP steps pair: XLA's output orders a rematerialized layer's
parameter all_gather before the previous layer's gradient reduce_scatter with
the rematerialized layer's own reduce_scatter (which depends on the
all_gather) in between. A pair the codegen refuses stays as it is (one
``--debug`` line).

Blocks inside ``mhlo.fusion`` bodies and the decompositions of our own
composites (``neuron.<Kind>.impl[.N]``) are never seeded.
"""

from __future__ import annotations

import re

from hilo_mlir.fusion import FusionCluster, OrderIndex, SymbolNamer, ancestor_in_block, codegen
from hilo_mlir.fusion import report as fusion_report
from hilo_mlir.fusion.fuel import fuel_of
from hilo_mlir.fusion.order import operand_def_ops
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
#: Side-effecting ops a partner may be brought across: the collectives coalesce-collective-ops reorders.
_PASSABLE = frozenset({"reduce_scatter", "all_gather", "all_reduce"})
#: How many side-effecting ops after a collective are searched for its partner.
_LOOKAHEAD = 8
#: Most pure ops hoisted to bring one partner next to its collective.
_MAX_HOISTED = 256


def _hoistable_slice(b, a, block, order: OrderIndex, effects) -> list | None:
    """The ops between ``a`` and ``b`` computing ``b``'s operands (block order), if all are pure; else None.

    ``b`` does not depend on ``a`` (checked before), so none of them does: moved
    above ``a`` they keep dominance, and ``b`` can then sit right after ``a``.
    """
    found: dict = {}
    stack = [b]
    while stack:
        for x in operand_def_ops(stack.pop(), block):
            k = op_key(x)
            if k in found or not order.is_before(a, x):
                continue
            if effects(x) or len(found) >= _MAX_HOISTED:
                return None
            found[k] = x
            stack.append(x)
    return sorted(found.values(), key=order.pos)


def _partner(seq: list, i: int, d, ctx, effects, order, block, paired: set, failed: dict):
    """The index in ``seq`` of the partner of collective ``seq[i]``, brought right after it; or None.

    The candidates are the next side-effecting ops while they are collectives
    of :data:`_PASSABLE` kinds (at most :data:`_LOOKAHEAD`): the first one of
    the other kind, unpaired and independent of ``seq[i]``. One that is not
    adjacent is brought next to ``seq[i]``: the pure ops computing its
    operands move above ``seq[i]``, then it moves right after ``seq[i]``
    (crossing only collectives, which coalesce-collective-ops reorders too).
    """
    a = seq[i]
    want = "all_gather" if d.short(a.name) == "reduce_scatter" else "reduce_scatter"
    for j in range(i + 1, min(len(seq), i + 1 + _LOOKAHEAD)):
        b = seq[j]
        kind = d.short(b.name)
        if kind not in _PASSABLE:
            return None  # never cross another side effect
        if kind != want or op_key(b) in paired:
            continue
        if _depends_on(b, a, block, order):
            ctx.debug(f"'{b.name}' depends on '{a.name}': not paired")
            ctx.stats["dependent-pairs"] += 1
            failed[op_key(a)], failed[op_key(b)] = ("dependent-pair", b), ("dependent-pair", a)
            continue
        if j == i + 1:
            return j
        hoist = _hoistable_slice(b, a, block, order, effects)
        if hoist is None:
            ctx.debug(f"'{b.name}' at {b.location} cannot be brought next to '{a.name}' (its operands need a side-effecting op)")
            continue
        if hoist:
            ctx.rewriter.move_all_before(hoist, a)
        ctx.rewriter.move_after(b, a)
        ctx.stats["partners-moved"] += 1
        ctx.debug(f"moved '{b.name}' at {b.location} next to '{a.name}' ({len(hoist)} pure op(s) hoisted above it)")
        seq.insert(i + 1, seq.pop(j))
        return i + 1
    return None


def _pair_block(block, d, ctx, effects, order, namers: list, rec) -> None:
    """Pair each reduce_scatter / all_gather of ``block`` with its partner (:func:`_partner`), in order."""
    seq = [o.operation for o in block.operations if effects(o)]
    failed: dict = {}  # op_key of a collective -> (reason code, the other op) of its last failed pairing
    paired: set = set()
    i = 0
    while i + 1 < len(seq):
        a = seq[i]
        if d.short(a.name) not in _COLLECTIVES or op_key(a) in paired:
            i += 1
            continue
        j = _partner(seq, i, d, ctx, effects, order, block, paired, failed)
        if j is None:
            i += 1
            continue
        b = seq[j]
        if not namers and d.fusion_is_composite:
            namers.append(SymbolNamer(enclosing_module(block.owner)))
        cluster = FusionCluster([a, b], KIND, order=order)
        captured = rec.capture_cluster(RULE, cluster, anchor=b) if rec is not None else None
        fused = codegen(cluster, d, ctx.rewriter, order=order, namer=namers[0] if namers else None, fuel=(fuel_of(ctx), ctx.info.argument))
        if rec is not None:
            rec.file_cluster(captured, cluster.refusal)
        if fused is None:
            ctx.debug(f"codegen refused the pair '{a.name}' + '{b.name}' ({getattr(cluster.refusal, 'reason', None)})")
            ctx.stats["refused-pairs"] += 1
            failed[op_key(a)] = failed[op_key(b)] = (None, None)  # recorded as the cluster's refusal
            i += 1
            continue
        ctx.stats["fused-pairs"] += 1
        paired.update((op_key(a), op_key(b)))
        failed.pop(op_key(a), None)
        failed.pop(op_key(b), None)
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
    options_type=fusion_report.ReportOptions,
    statistics=("fused-pairs", "dependent-pairs", "refused-pairs", "partners-moved"),
    state=_ScheduleFusionState,
    source=(
        "seed 004 step 21 (gate cfg[0x135]); seed 000 codeGen; DESIGN.md catalogue step 21; the partner search across "
        "collectives and bringing a partner next to its collective are ours (issue 22: XLA's FSDP output)"
    ),
)
