"""Test-only passes (as MLIR's ``mlir/test/lib``): registered by the test tools, never shipped.

Importing this module registers them (once per process):

* ``test-fusion-cluster`` / ``stablehlo-test-fusion-cluster``: drive the
  shared codegen (:func:`hilo_mlir.fusion.codegen`) from attributes. Ops
  carrying the discardable attribute ``test.fuse = "<group>"`` are grouped
  per block (first-appearance order of the group names); each group becomes
  ``FusionCluster(ops, kind)`` with ``kind`` from ``test.kind`` on any member
  (default ``"Elementwise"``) -- ``mhlo.fusion`` on MHLO, a ``neuron.<kind>``
  composite on StableHLO. The ``test.*`` attributes are removed from fused
  members. A refused cluster (no live-out, not convex, or a side-effecting op
  would have to move) is left untouched, keeps its attributes and is counted
  as ``refused``.

  This lets lit test the codegen contract (live-ins/outs, dominance repair,
  convexity, nested-region uses) on hand-written clusters that the
  NeuronOpFusion sub-passes, whose clusters are convex by construction,
  never produce.

Used by ``hilo-test-opt`` (``test/lib/hilo_test_opt.py``, the lit
substitution) and by pytest (``test/unit/conftest.py``).
"""

from __future__ import annotations

from hilo_mlir.fusion import FusionCluster, OrderIndex, SymbolNamer, check_legal, codegen
from hilo_mlir.fusion import report as fusion_report
from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.dialects import FusionKind
from hilo_mlir.ir.utils import block_key, enclosing_module
from hilo_mlir.passmanager import registry

_TEST_ATTRS = ("test.fuse", "test.kind")


def _groups(func_op) -> list:
    """``[(group name, [ops])]``: the ``test.fuse`` groups of ``func_op``, per block, first appearance first."""
    groups: dict = {}

    def visit(op):
        op = op.operation
        if "test.fuse" in op.attributes:
            g = ir.StringAttr(op.attributes["test.fuse"]).value
            groups.setdefault((block_key(op.block), g), []).append(op)
        return ir.WalkResult.ADVANCE

    func_op.walk(visit, ir.WalkOrder.PRE_ORDER)
    return [(key[1], ops) for key, ops in groups.items()]


def _run_test_fusion_cluster(func_op, ctx) -> None:
    rw = ctx.rewriter
    rec = fusion_report.recorder(ctx, func_op)  # the decisions go to a fusion report when one is asked for
    namer = None
    with OrderIndex(rw) as order:
        for name, ops in _groups(func_op):
            kind = FusionKind.ELEMENTWISE
            for o in ops:
                if "test.kind" in o.attributes:
                    kind = ir.StringAttr(o.attributes["test.kind"]).value
            cluster = FusionCluster(ops, kind, order)
            if ctx.d.fusion_is_composite and namer is None:
                namer = SymbolNamer(enclosing_module(func_op))
            _, refusal = check_legal(cluster)
            captured = rec.capture_cluster("TestFusionCluster", cluster) if rec is not None else None
            if rec is not None:
                rec.file_cluster(captured, refusal)
            if refusal is not None:  # left untouched, attributes and all
                ctx.stats["refused"] += 1
                ctx.debug(f"group '{name}' refused ({refusal.reason})")
                continue
            for o in ops:  # the test attributes do not move into the fused op
                for a in _TEST_ATTRS:
                    rw.remove_attr(o, a)
            if codegen(cluster, ctx.d, rw, order, namer) is None:  # pragma: no cover - legal above
                raise AssertionError(f"group '{name}': codegen refused a legal cluster")
            ctx.stats["clusters"] += 1


try:
    registry.register_twins(
        "test-fusion-cluster",
        'Test pass: fuse ops tagged test.fuse="<group>" through the shared FusionCluster codegen',
        _run_test_fusion_cluster,
        class_name="TestFusionCluster",
        statistics=("clusters", "refused"),
        source="tests of seed 000 FusionCluster::codeGen / DESIGN.md 'The op-fusion core'",
        origin="test/lib/test_passes.py",
    )
except ValueError:  # already registered (this file imported under a second module name)
    pass
