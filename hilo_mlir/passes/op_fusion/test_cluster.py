"""``test-fusion-cluster``: drive the shared codegen from attributes (a test pass, as MLIR's ``-test-*``).

Ops carrying the discardable attribute ``test.fuse = "<group>"`` are grouped per
block (first-appearance order of the group names); each group becomes
``FusionCluster(ops, kind)`` with ``kind`` from ``test.kind`` on any member
(default ``"Elementwise"``) and goes through :func:`hilo_mlir.cluster.codegen`
-- ``mhlo.fusion`` on MHLO, a ``neuron.<kind>`` composite on StableHLO. The
``test.*`` attributes are removed from fused members. A refused cluster (not
convex, or a side-effecting op would have to move) is left untouched, keeps
its attributes and is counted as ``refused``.

This lets lit test the codegen contract (live-ins/outs, dominance repair,
convexity, nested-region uses) on hand-written clusters that the six
sub-passes, whose clusters are convex by construction, never produce.
"""

from __future__ import annotations

from ...cluster import FusionCluster, OrderIndex, SymbolNamer, block_key, codegen
from ...ir import ir
from ...registry import register_twins
from .common import as_op


def _run(func_op, ctx) -> None:
    groups: dict = {}
    order_keys: list = []

    def visit(op):
        op = op.operation
        if "test.fuse" in op.attributes:
            g = ir.StringAttr(op.attributes["test.fuse"]).value
            key = (block_key(op.block), g)
            if key not in groups:
                groups[key] = []
                order_keys.append(key)
            groups[key].append(op)
        return ir.WalkResult.ADVANCE

    func_op.walk(visit, ir.WalkOrder.PRE_ORDER)
    order = OrderIndex()
    namer = None
    for key in order_keys:
        ops = groups[key]
        kind = "Elementwise"
        for o in ops:
            if "test.kind" in o.attributes:
                kind = ir.StringAttr(o.attributes["test.kind"]).value
        cluster = FusionCluster(ops, kind, order)
        if ctx.d.prefix != "mhlo" and namer is None:
            namer = SymbolNamer(as_op(func_op.parent))
        # drop the test attributes first; put them back if the cluster is refused
        saved = []
        for o in ops:
            for name in ("test.fuse", "test.kind"):
                if name in o.attributes:
                    saved.append((o, name, o.attributes[name]))
                    del o.attributes[name]
        fused = codegen(cluster, ctx.d, order, namer)
        if fused is None:
            for o, name, attr in saved:
                o.attributes[name] = attr
            ctx.stats["refused"] += 1
            ctx.debug(f"group '{key[1]}' refused")
        else:
            ctx.stats["clusters"] += 1


register_twins(
    "test-fusion-cluster",
    "Test pass: fuse ops tagged test.fuse=\"<group>\" through the shared FusionCluster codegen",
    _run,
    class_name="TestFusionCluster",
    source="tests of seed 000 FusionCluster::codeGen / DESIGN.md 'The op-fusion core'",
)
