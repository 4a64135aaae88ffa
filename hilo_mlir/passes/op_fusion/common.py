"""Shared helpers of the NeuronOpFusion sub-passes (seed 000).

One :class:`FusionRun` per function run holds what every sub-pass needs: the
dialect table, the pass statistics, the per-block :class:`OrderIndex` (built
once per block, kept current by codegen) and the symbol namer for StableHLO
decompositions. Sub-passes never spell an op name: they ask ``run.d``.
"""

from __future__ import annotations

from ...cluster import FusionCluster, OrderIndex, SymbolNamer, block_key, codegen, op_key
from ...dialects import is_fusion_like
from ...ir import ir

#: Kinds the six sub-passes produce (seed 000 "Downstream emission").
KINDS = ("DotLogistic", "MulRedSqrt", "Elementwise", "Expm1", "Log1p")


def as_op(x):
    """Generic ``ir.Operation`` for an OpView / Operation (None stays None)."""
    if x is None:
        return None
    return x if isinstance(x, ir.Operation) else x.operation


def defining_op(v):
    """The op producing ``v`` (``getDefiningOp``); None for a block argument."""
    owner = v.owner
    if isinstance(owner, ir.Block):
        return None
    return as_op(owner)


def num_uses(v) -> int:
    """Number of uses of ``v`` (``hilo::getNumUsers`` counts use-list entries)."""
    n = 0
    for _ in v.uses:
        n += 1
    return n


def users(v) -> list:
    """The owners of ``v``'s uses (one entry per use), as ``ir.Operation``."""
    return [as_op(u.owner) for u in v.uses]


def has_one_use(op) -> bool:
    """``op`` has one result and that result has exactly one use (``hasOneUse``)."""
    return len(op.results) == 1 and num_uses(op.results[0]) == 1


def same_block(a, b) -> bool:
    """``a`` and ``b`` sit directly in the same block."""
    ba, bb = a.block, b.block
    return ba is not None and bb is not None and block_key(ba) == block_key(bb)


def same_value(a, b) -> bool:
    """SSA value identity."""
    return a == b


def inside_fusion(op) -> bool:
    """True if an ancestor of ``op`` is an ``mhlo.fusion`` / ``stablehlo.composite``."""
    p = op.parent
    while p is not None:
        p = as_op(p)
        if is_fusion_like(p):
            return True
        if p.name in ("func.func", "builtin.module"):
            return False
        p = p.parent
    return False


_FUSION_LIKE = frozenset({"mhlo.fusion", "stablehlo.composite"})


def collect(func_op, pred=None, names=None) -> list:
    """Ops of ``func_op`` (nested regions included, fusion bodies excluded) for which ``pred(op)``.

    Pre-order walk; the regions of ``mhlo.fusion`` are skipped (seed 000: no
    sub-pass seeds inside an existing fusion). ``names`` (full op names)
    restricts the result to those ops with one name lookup per op (then
    ``pred``, if given, also has to hold).
    """
    out = []
    if names is not None:
        names = frozenset(names)

        def visit_named(op):
            op = op.operation
            name = op.name
            if name in _FUSION_LIKE:
                return ir.WalkResult.SKIP
            if name in names and (pred is None or pred(op)):
                out.append(op)
            return ir.WalkResult.ADVANCE

        func_op.walk(visit_named, ir.WalkOrder.PRE_ORDER)
        return out

    def visit(op):
        op = op.operation
        if is_fusion_like(op):
            return ir.WalkResult.SKIP
        if pred(op):
            out.append(op)
        return ir.WalkResult.ADVANCE

    func_op.walk(visit, ir.WalkOrder.PRE_ORDER)
    return out


def splat_float_value(v):
    """If ``v`` is a splat float constant (through broadcast_in_dim/reshape/convert of one), its value; else None."""
    op = defining_op(v)
    for _ in range(8):
        if op is None:
            return None
        short = op.name.split(".", 1)[-1]
        if short == "constant":
            attr = op.attributes["value"]
            try:
                dense = ir.DenseElementsAttr(attr)
            except (ValueError, TypeError):
                return None
            if not dense.is_splat:
                return None
            sv = dense.get_splat_value()
            try:
                return ir.FloatAttr(sv).value
            except (ValueError, TypeError):
                return None
        if short in ("broadcast_in_dim", "reshape", "broadcast"):
            op = defining_op(op.operands[0])
            continue
        return None
    return None


def is_constant_like(v) -> bool:
    """``v`` is a constant or a broadcast_in_dim/reshape/convert chain of one (stays a live-in)."""
    op = defining_op(v)
    for _ in range(8):
        if op is None:
            return False
        short = op.name.split(".", 1)[-1]
        if short in ("constant", "iota"):
            return True
        if short in ("broadcast_in_dim", "reshape", "convert", "broadcast"):
            op = defining_op(op.operands[0])
            continue
        return False
    return False


class FusionRun:
    """State of one NeuronOpFusion run on one function.

    Attributes:
        func: the ``func.func`` being fused.
        d: the dialect table (MHLO or STABLEHLO).
        ctx: the :class:`~hilo_mlir.registry.PassContext` (stats, debug log).
        order: the :class:`OrderIndex` every cluster of this run shares.
    """

    def __init__(self, func_op, ctx, namer: SymbolNamer | None = None):
        self.func = func_op
        self.ctx = ctx
        self.d = ctx.d
        self.order = OrderIndex()
        self._namer = namer

    def namer(self) -> SymbolNamer:
        if self._namer is None:
            m = self.func.parent
            self._namer = SymbolNamer(as_op(m))
        return self._namer

    def emit(self, ops, kind: str):
        """Build ``FusionCluster(ops, kind)`` and run the shared codegen; count it.

        Returns the fused op or None (cluster refused: not convex, or a
        dependent op with side effects would have to move).
        """
        cluster = FusionCluster(ops, kind, self.order)
        namer = self.namer() if self.d.prefix != "mhlo" else None
        fused = codegen(cluster, self.d, self.order, namer)
        st = self.ctx.stats
        if fused is None:
            st[f"refused-{kind}"] += 1
            self.ctx.debug(f"{kind}: cluster of {len(cluster)} ops at {cluster.last.location} refused (not convex, no live-out, or a side-effecting op would have to move)")
            return None
        st[f"clusters-{kind}"] += 1
        st[f"ops-absorbed-{kind}"] += len(cluster)
        return fused

    def note_created_before(self, new_ops, anchor) -> None:
        """Keep the order index current for ops just created before ``anchor`` (in order)."""
        for o in new_ops:
            self.order.note_inserted_before(o, anchor)

    def erase(self, op) -> None:
        """Erase ``op`` (no uses left) and forget it in the index."""
        self.order.note_erased(op)
        op.erase()


__all__ = [
    "KINDS", "FusionRun", "as_op", "defining_op", "num_uses", "users", "has_one_use", "same_block",
    "inside_fusion", "collect", "splat_float_value", "is_constant_like", "op_key",
]
