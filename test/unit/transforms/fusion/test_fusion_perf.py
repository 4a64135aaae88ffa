"""The speed-ups of NeuronOpFusion / raise-logistic / the fusion core keep every answer (issue 7).

What each fast path relies on is checked here against the slow definition:

* ``value_key`` / ``block_key`` are ``hash()``: the binding hashes values and
  blocks by their C++ address, exactly ``identity_key``;
* :meth:`FusionRun.anchors` (the census lists, no walk) returns what
  ``collect`` (a pre-order walk that skips fusion bodies) returns, also for
  several names, ops nested in regions and ops inside input fusions;
* ``preorder_sorted`` is the walk's pre-order;
* the fusion core orders ops with MLIR's own block order and never builds the
  Python :class:`OrderIndex` mirror of a block nobody asked about, while an
  indexed block stays exact;
* with a census, neuron-op-fusion walks nothing and raise-logistic reads the
  census instead of walking;
* the side-effect oracle's per-name cache gives the per-op answers.

Source: issue 7 (bounded visits per op, no O(n^2)); seed 000 (sub-pass order
and ``collect`` semantics); DESIGN.md "Rules of the IR" (side effects).
"""

import collections
import itertools

import pytest
from test_op_fusion_helpers import fuse

from hilo_mlir.analysis.census import Census
from hilo_mlir.analysis.manager import AnalysisManager
from hilo_mlir.fusion import FusionCluster, OrderIndex, codegen
from hilo_mlir.ir import effects
from hilo_mlir.ir.binding import identity_key, ir, make_context
from hilo_mlir.ir.dialects import MHLO
from hilo_mlir.ir.utils import block_key, op_key, value_key
from hilo_mlir.passes.fusion.op_fusion import common
from hilo_mlir.passes.fusion.op_fusion import run as run_mod
from hilo_mlir.passmanager.pipeline import Pipeline
from hilo_mlir.passmanager.registry import PassContext, get
from hilo_mlir.rewrite.rewriter import Change, Rewriter

NESTED = """func.func @main(%x: tensor<4x8xf32>, %p: tensor<i1>) -> (tensor<4xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %z = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %s0 = mhlo.sqrt %x : tensor<4x8xf32>
  %r0 = mhlo.reduce(%s0 init: %z) applies mhlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %c = "mhlo.if"(%p) ({
    %a = mhlo.rsqrt %x : tensor<4x8xf32>
    %r1 = mhlo.reduce(%a init: %z) applies mhlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
    %cc = "mhlo.concatenate"(%a, %a) {dimension = 0 : i64} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
    "mhlo.return"(%a) : (tensor<4x8xf32>) -> ()
  }, {
    %b = mhlo.sqrt %x : tensor<4x8xf32>
    "mhlo.return"(%b) : (tensor<4x8xf32>) -> ()
  }) : (tensor<i1>) -> tensor<4x8xf32>
  %f = "mhlo.fusion"(%x) ({
  ^bb0(%y: tensor<4x8xf32>):
    %in = mhlo.rsqrt %y : tensor<4x8xf32>
    "mhlo.return"(%in) : (tensor<4x8xf32>) -> ()
  }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s1 = mhlo.rsqrt %c : tensor<4x8xf32>
  %cat = "mhlo.concatenate"(%s1, %f) {dimension = 0 : i64} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %r2 = mhlo.reduce(%s1 init: %z) applies mhlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  return %r0, %c, %f : tensor<4xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}"""


def _run_for(m, census=True):
    """A FusionRun on @main; ``census``: hand the manager a census first (else it takes one when asked)."""
    info = get("neuron-op-fusion")
    rw = Rewriter(m.operation)
    am = AnalysisManager(m.operation, rw)
    if census:
        am.put(Census, m.operation, Census(m.operation))
    ctx = PassContext(
        info, {"fuse_dot_logistic": True, "general_elementwise_fusion": True}, rewriter=rw, analyses=am, module_op=m.operation
    )
    f = m.body.operations[0].operation
    return run_mod.FusionRun(f, ctx), f


def test_value_and_block_keys_are_the_c_addresses():
    with make_context():
        m = ir.Module.parse(NESTED)
        vals, blocks = [], []

        def visit(op):
            vals.extend(op.results)
            for r in op.regions:
                for b in r.blocks:
                    blocks.append(b)
                    vals.extend(b.arguments)
            return ir.WalkResult.ADVANCE

        m.operation.walk(visit)
        assert len(vals) > 20 and len(blocks) >= 6
        assert all(value_key(v) == identity_key(v) for v in vals)
        assert all(block_key(b) == identity_key(b) for b in blocks)
        assert len({value_key(v) for v in vals}) == len(vals)


@pytest.mark.parametrize("census", [True, False], ids=["given-census", "census-on-demand"])
@pytest.mark.parametrize("shorts", [("sqrt", "rsqrt"), ("reduce", "concatenate"), ("rsqrt",), ("add",), ("logistic",)])
def test_anchors_are_what_collect_finds(census, shorts):
    with make_context():
        m = ir.Module.parse(NESTED)
        run, f = _run_for(m, census)
        expect = [op_key(o) for o in common.collect(f, names=[MHLO.name(s) for s in shorts])]
        exact = len(shorts) > 1 or shorts[0] not in common.REGION_FREE
        for changed in (False, True):
            if changed:  # a recorded mutation that moves nothing: the run counts as changed
                run.rw.set_attr(f, "test.touched", ir.UnitAttr.get())
            assert run.changed == changed
            got = run.anchors(*shorts)
            if not exact:  # one region-free kind: ops inside fusions may come along (every sub-pass skips them)
                got = [o for o in got if common.in_function_body(o, f)]
            assert [op_key(o) for o in got] == expect
        run.reordered = True  # a codegen moved ops: anchors() walks
        assert [op_key(o) for o in run.anchors(*shorts)] == expect
    assert expect or shorts == ("logistic",)


def test_preorder_sorted_is_the_walk_pre_order():
    with make_context():
        m = ir.Module.parse(NESTED)
        f = m.body.operations[0].operation
        pre = []

        def visit(op):
            if op.name != "func.func":
                pre.append(op)
            return ir.WalkResult.ADVANCE

        f.walk(visit, ir.WalkOrder.PRE_ORDER)
        shuffled = pre[::-1][::2] + pre[::-1][1::2]
        got = common.preorder_sorted(shuffled, f)
        assert [op_key(o) for o in got] == [op_key(o) for o in pre]


CHAIN = """func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %d = "mhlo.dot"(%x, %w) : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %u = mhlo.add %d, %d : tensor<4x4xf32>
  %l = mhlo.logistic %d : tensor<4x4xf32>
  %m = mhlo.multiply %d, %l : tensor<4x4xf32>
  return %u, %m : tensor<4x4xf32>, tensor<4x4xf32>
}"""


def test_codegen_uses_mlir_order_and_keeps_an_indexed_block_exact():
    with make_context():
        m = ir.Module.parse(CHAIN)
        ops = [o.operation for o in m.body.operations[0].regions[0].blocks[0].operations]
        order = OrderIndex()
        c = FusionCluster([ops[3], ops[0], ops[2]], "DotLogistic", order)  # any order in
        assert [o.name for o in c.members] == ["mhlo.dot", "mhlo.logistic", "mhlo.multiply"]
        assert order._blocks == {}  # nobody asked for a position: no Python mirror of the block
        fused = codegen(c, MHLO, Rewriter(m.operation), order)
        assert fused is not None and order._blocks == {}
        assert [o.name for o in c.moved] == ["mhlo.add"]  # the dependent op moved after the fusion
        block = ops[1].block
        names = [o.operation.name for o in block.operations]
        assert names == ["mhlo.fusion", "mhlo.add", "func.return"]
        real = [o.operation for o in block.operations]
        assert [order.pos(o) for o in real] == sorted(order.pos(o) for o in real)  # built now, from the block
        m.operation.verify()

    with make_context():  # the same cluster with the block indexed first: the mirror follows every move
        m = ir.Module.parse(CHAIN)
        ops = [o.operation for o in m.body.operations[0].regions[0].blocks[0].operations]
        block = ops[0].block
        order = OrderIndex()
        order.pos(ops[0])
        c = FusionCluster([ops[3], ops[0], ops[2]], "DotLogistic", order)
        codegen(c, MHLO, Rewriter(m.operation), order)
        real = [o.operation for o in block.operations]
        pos = [order.pos(o) for o in real]
        assert pos == sorted(pos) and len(set(pos)) == len(pos)
        for a, b in itertools.pairwise(real):
            assert op_key(order.next_op(a)) == op_key(b) and op_key(order.prev_op(b)) == op_key(a)


def test_cluster_dedupes_and_checks_the_block():
    with make_context():
        m = ir.Module.parse(CHAIN)
        ops = [o.operation for o in m.body.operations[0].regions[0].blocks[0].operations]
        c = FusionCluster([ops[2], ops[0], ops[2], ops[0]], "DotLogistic")
        assert [o.name for o in c.members] == ["mhlo.dot", "mhlo.logistic"] and len(c) == 2
        assert ops[0] in c.members and ops[1] not in c.members
        assert [v.owner.operation.name for v in c.live_outs] == ["mhlo.dot", "mhlo.logistic"]


SILU = """func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %z = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %d = "mhlo.dot"(%x, %w) : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %l = mhlo.logistic %d : tensor<4x4xf32>
  %m = mhlo.multiply %d, %l : tensor<4x4xf32>
  %q = mhlo.multiply %m, %m : tensor<4x4xf32>
  %r = mhlo.reduce(%q init: %z) applies mhlo.add across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
  %s = mhlo.rsqrt %r : tensor<4xf32>
  %o = "mhlo.broadcast_in_dim"(%s) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<4xf32>) -> tensor<4x4xf32>
  %y = mhlo.multiply %m, %o : tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}"""


def test_op_fusion_with_a_census_walks_nothing(monkeypatch):
    calls = []
    real = run_mod.collect
    monkeypatch.setattr(run_mod, "collect", lambda *a, **k: calls.append(1) or real(*a, **k))
    real_reindex = Census._reindex
    monkeypatch.setattr(Census, "_reindex", lambda *a: calls.append(2) or real_reindex(*a))
    with make_context():
        m = ir.Module.parse(SILU)
        pipe = Pipeline.from_text("builtin.module(neuron-op-fusion{fuse-dot-logistic=true general-elementwise-fusion=true})")
        pipe.run(m, census=Census(m.operation))
        st = collections.Counter()
        for c in pipe.stats.values():
            st.update(c)
        assert st == {"clusters-DotLogistic": 1, "ops-absorbed-DotLogistic": 3, "clusters-MulRedSqrt": 1, "ops-absorbed-MulRedSqrt": 3}
    assert calls == []  # every sub-pass read the census lists (taken before any rewrite: no re-walk)


def test_nothing_to_fuse_records_no_change_and_is_not_verified():
    text = SILU.replace("mhlo.logistic", "mhlo.tanh").replace("mhlo.rsqrt", "mhlo.negate")
    text = text.replace("mhlo.reduce(%q init: %z) applies mhlo.add", "mhlo.reduce(%q init: %z) applies mhlo.maximum")
    with make_context():
        m = ir.Module.parse(text)
        before = str(m)
        pipe = Pipeline.from_text("builtin.module(neuron-op-fusion{fuse-dot-logistic=true})", check_analyses=True)
        pipe.run(m)
        assert str(m) == before
        assert [c for _, c in pipe.changes] == [Change.NONE]
    with make_context():  # outside the checking mode: nothing recorded -> no verifier run
        m = ir.Module.parse(text)
        pipe = Pipeline.from_text("builtin.module(neuron-op-fusion{fuse-dot-logistic=true})", check_analyses=False)
        pipe.run(m)
        assert pipe.verify_timings == []
    out, st = fuse(SILU.replace("mhlo.logistic", "mhlo.tanh"), "mhlo", gates="{fuse-dot-logistic=true}")
    assert st == {"clusters-MulRedSqrt": 1, "ops-absorbed-MulRedSqrt": 3}


SIGMOIDS = """func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>, %t: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %one = mhlo.constant dense<1.000000e+00> : tensor<f32>
  %n0 = mhlo.negate %x : tensor<4xf32>
  %e0 = mhlo.exponential %n0 : tensor<4xf32>
  %b0 = "mhlo.broadcast_in_dim"(%one) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>) -> tensor<4xf32>
  %a0 = mhlo.add %b0, %e0 : tensor<4xf32>
  %d0 = mhlo.divide %b0, %a0 : tensor<4xf32>
  %n1 = mhlo.negate %y : tensor<4xf32>
  %e1 = mhlo.exponential %n1 : tensor<4xf32>
  %b1 = "mhlo.broadcast_in_dim"(%one) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>) -> tensor<4xf32>
  %a1 = mhlo.add %e1, %b1 : tensor<4xf32>
  %d1 = mhlo.divide %b1, %a1 : tensor<4xf32>
  %d2 = mhlo.divide %t, %y : tensor<4xf32>
  return %d0, %d1, %d2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}"""


@pytest.mark.parametrize("census", [True, False], ids=["census", "walk"])
def test_raise_logistic_shares_the_one_and_erases_it_last(census):
    with make_context():
        m = ir.Module.parse(SIGMOIDS)
        pipe = Pipeline.from_text("builtin.module(raise-logistic)")
        pipe.run(m, census=Census(m.operation) if census else None)
        body = [o.operation.name for o in m.body.operations[0].regions[0].blocks[0].operations]
        assert body == ["mhlo.logistic", "mhlo.logistic", "mhlo.divide", "func.return"]
        assert dict(pipe.stats["RaiseLogistic"]) == {"raised-logistic": 2}


COMPOSITE = """func.func private @pure(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @printing(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @print(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @main(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = stablehlo.composite "x.pure" %a {decomposition = @pure} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = stablehlo.composite "x.print" %a {decomposition = @printing} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = stablehlo.add %0, %1 : tensor<4xf32>
  %3 = stablehlo.custom_call @foo(%2) : (tensor<4xf32>) -> tensor<4xf32>
  %4 = stablehlo.composite "x.pure" %3 {decomposition = @pure} : (tensor<4xf32>) -> tensor<4xf32>
  return %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}"""


def test_effect_oracle_per_name_cache_matches_per_op_answers():
    with make_context():
        m = ir.Module.parse(COMPOSITE)
        main = list(m.body.operations)[2].operation
        ops = [o.operation for o in main.regions[0].blocks[0].operations]
        oracle = effects.EffectOracle(main)
        got = [oracle(o) for o in ops] + [oracle(o) for o in ops]  # second round from the caches
        fresh = [effects.has_side_effects(o) for o in ops]
        assert got[:6] == got[6:] == fresh == [False, True, False, True, False, False]
        assert effects.has_side_effects(ops[1]) is True
