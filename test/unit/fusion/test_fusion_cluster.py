"""FusionCluster, OrderIndex and the shared codegen (hilo_mlir/fusion).

Source: seed 000 "The FusionCluster Data Structure and Shared codeGen";
DESIGN.md "The op-fusion core", "StableHLO fusions are composites".
"""

import itertools

import pytest
from test_op_fusion_helpers import bits

from hilo_mlir import testing
from hilo_mlir.fusion import FusionCluster, OpSet, OrderIndex, SymbolNamer, codegen
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.ir.dialects import MHLO, STABLEHLO
from hilo_mlir.ir.utils import op_key
from hilo_mlir.rewrite.rewriter import Change, Rewriter

SRC = """func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>, %c: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %a = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %b = stablehlo.add %a, %c : tensor<4x4xf32>
  %b2 = stablehlo.multiply %b, %b : tensor<4x4xf32>
  %l = stablehlo.logistic %a : tensor<4x4xf32>
  %m = stablehlo.multiply %l, %a : tensor<4x4xf32>
  return %b2, %m : tensor<4x4xf32>, tensor<4x4xf32>
}"""


def _ops(m, fn=0):
    f = list(m.body.operations)[fn]
    return [o.operation for o in f.regions[0].blocks[0].operations]


def _check_order(order, block):
    """The index agrees with the real block order after every rewrite."""
    real = [o.operation for o in block.operations]
    pos = [order.pos(o) for o in real]
    assert pos == sorted(pos) and len(set(pos)) == len(pos)
    for a, b in itertools.pairwise(real):
        assert op_key(order.next_op(a)) == op_key(b)
        assert op_key(order.prev_op(b)) == op_key(a)


def test_live_ins_outs_and_dependents():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(SRC)
        ops = _ops(m)
        c = FusionCluster([ops[4], ops[0], ops[3]], "DotLogistic")  # any order in
        assert [o.name for o in c.members] == ["stablehlo.dot_general", "stablehlo.logistic", "stablehlo.multiply"]
        assert c.live_ins == [ops[0].operands[0], ops[0].operands[1]]
        assert c.live_outs == [ops[0].results[0], ops[4].results[0]]  # dot feeds %b outside; %m is returned
        dep, convex = c.dependent_ops()
        assert convex and [o.name for o in dep] == ["stablehlo.add", "stablehlo.multiply"]
        assert c.is_convex()


@pytest.mark.parametrize("d", [MHLO, STABLEHLO], ids=["mhlo", "stablehlo"])
def test_codegen_moves_dependents_and_keeps_numbers(d):
    src = SRC
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(SRC)
        if d is MHLO:
            from test_op_fusion_helpers import to_mhlo

            src = to_mhlo(SRC)
            m = ir.Module.parse(src)
        ops = _ops(m)
        block = ops[0].block
        order = OrderIndex()
        c = FusionCluster([ops[0], ops[3], ops[4]], "DotLogistic", order)
        rw = Rewriter(m.operation)
        fused = codegen(c, d, rw, order)
        assert fused is not None
        assert rw.changes & (Change.CREATE | Change.MOVE | Change.OPERAND) == Change.CREATE | Change.MOVE | Change.OPERAND
        m.operation.verify()
        names = [o.operation.name for o in block.operations]
        assert names == [d.fusion, d.name("add"), d.name("multiply"), "func.return"]
        _check_order(order, block)
        if d is STABLEHLO:
            assert ir.StringAttr(fused.attributes["CompositeKind"]).value == "DotLogistic"
            assert str(fused.attributes["decomposition"]) == "@neuron.DotLogistic.impl"
            assert ir.StringAttr(fused.attributes["name"]).value == "neuron.DotLogistic"
        else:
            assert ir.StringAttr(fused.attributes["FusionKind"]).value == "DotLogistic"
        assert "fused[" in str(fused.location)
        out = str(m)
    ctx = make_context()
    with ctx:
        ins = testing.random_inputs(ir.Module.parse(src))
    a, b = testing.evaluate(src, ins), testing.evaluate(out, ins)
    assert [bits(x) for x in a] == [bits(y) for y in b]


def test_non_convex_is_refused_and_ir_untouched():
    src = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = stablehlo.exponential %x : tensor<4xf32>
      %1 = stablehlo.negate %0 : tensor<4xf32>
      %2 = stablehlo.add %0, %1 : tensor<4xf32>
      return %2 : tensor<4xf32>
    }"""
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(src)
        before = str(m)
        ops = _ops(m)
        c = FusionCluster([ops[0], ops[2]], "Elementwise")
        assert not c.is_convex()
        rw = Rewriter(m.operation)
        assert codegen(c, MHLO, rw) is None
        assert str(m) == before and rw.changes == Change.NONE
        assert c.refusal.reason == "not-convex"
        assert c.refusal.op.name == "stablehlo.negate" and c.refusal.member.name == "stablehlo.add"


def test_cluster_needs_one_block():
    src = """func.func @main(%x: tensor<4xf32>, %i: tensor<i32>) -> tensor<4xf32> {
      %0 = stablehlo.exponential %x : tensor<4xf32>
      %1 = "stablehlo.case"(%i) ({
        %n = stablehlo.negate %0 : tensor<4xf32>
        stablehlo.return %n : tensor<4xf32>
      }) : (tensor<i32>) -> tensor<4xf32>
      return %1 : tensor<4xf32>
    }"""
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(src)
        ops = _ops(m)
        inner = list(ops[1].regions[0].blocks[0].operations)[0].operation
        with pytest.raises(ValueError, match="not in one block"):
            FusionCluster([ops[0], inner], "Elementwise")
        with pytest.raises(ValueError, match="at least one op"):
            FusionCluster([], "Elementwise")


def test_op_key_survives_operand_rewrites_but_hash_does_not():
    """Why the cluster keys ops by address: hash(ir.Operation) follows its operands."""
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(SRC)
        ops = _ops(m)
        b = ops[1]
        k, h = op_key(b), hash(b)
        b.operands[1] = ops[0].results[0]
        assert op_key(b) == k
        s = OpSet([b])
        assert b in s and len(s) == 1 and not s.add(b)
        assert hash(b) != h  # the binding's hash changed: a dict keyed by the op would lose it


def test_symbol_namer_is_unique_and_deterministic():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse("func.func private @neuron.X.impl() { return }\nfunc.func private @neuron.X.impl.1() { return }")
        n = SymbolNamer(m.operation)
        assert [n.fresh("neuron.X.impl") for _ in range(3)] == ["neuron.X.impl.2", "neuron.X.impl.3", "neuron.X.impl.4"]
        assert n.fresh("neuron.Y.impl") == "neuron.Y.impl"


def test_order_index_stays_exact_over_many_codegens():
    """Many clusters in one block: the incremental index never disagrees with the block."""
    lines = ["func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {", "  %v0 = stablehlo.abs %x : tensor<4xf32>"]
    n = 60
    for i in range(1, n):
        lines.append(f"  %u{i} = stablehlo.exponential %v{i - 1} : tensor<4xf32>")
        lines.append(f"  %s{i} = stablehlo.sine %u{i} : tensor<4xf32>")
        lines.append(f"  %v{i} = stablehlo.negate %u{i} : tensor<4xf32>")
    lines.append(f"  %r = stablehlo.add %v{n - 1}, %s1 : tensor<4xf32>")
    lines.append("  return %r : tensor<4xf32>\n}")
    src = "\n".join(lines)
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(src)
        block = _ops(m)[0].block
        rw = Rewriter(m.operation)
        order = OrderIndex(rw)
        namer = SymbolNamer(m.operation)
        made = 0
        for _i in range(1, n):
            # cluster {exp_i, neg_i}: sine_i sits between and depends on exp_i -> moved after
            ops = [o.operation for o in block.operations]
            exp = [o for o in ops if o.name == "stablehlo.exponential"][0]
            neg = [o for o in ops if o.name == "stablehlo.negate"][0]
            if codegen(FusionCluster([exp, neg], "Elementwise", order), STABLEHLO, rw, order, namer) is not None:
                made += 1
            _check_order(order, block)
        m.operation.verify()
        out = str(m)
    assert made == n - 1
    ctx = make_context()
    with ctx:
        ins = testing.random_inputs(ir.Module.parse(src))
    assert bits(testing.evaluate(src, ins)[0]) == bits(testing.evaluate(out, ins)[0])
