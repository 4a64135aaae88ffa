"""The codegen's cheap paths: live-outs of the last member rewired at once, the composite attribute memo,
and fs-pattern's erasure without use-list reads (checked in the checking mode).

Source: seed 000 "The FusionCluster Data Structure and Shared codeGen"; issue 24 ("fusion codegen in batch").
"""

import pytest

from hilo_mlir.fusion import FusionCluster, SymbolNamer, codegen, composite_attributes
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.ir.dialects import MHLO, STABLEHLO
from hilo_mlir.ir.utils import op_key
from hilo_mlir.rewrite.rewriter import Rewriter

SRC = """func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>, %c: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %a = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %b = stablehlo.add %a, %c : tensor<4x4xf32>
  %l = stablehlo.logistic %a : tensor<4x4xf32>
  %m = stablehlo.multiply %l, %a : tensor<4x4xf32>
  %n = stablehlo.negate %m : tensor<4x4xf32>
  return %b, %m, %n : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}"""


def _ops(m):
    f = list(m.body.operations)[0]
    return [o.operation for o in f.regions[0].blocks[0].operations]


def test_last_member_live_out_lists_its_users_without_rewiring_them_one_by_one():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(SRC)
        ops = _ops(m)
        c = FusionCluster([ops[0], ops[2], ops[3]], "DotLogistic")
        assert c.live_outs == [ops[0].results[0], ops[3].results[0]]
        assert c._rewired_whole == [1]  # %m: the last member's result, no member uses it
        assert [owner.name for owner, _n, _k in c._outside_uses] == ["stablehlo.add"]  # only %a's use is listed
        users = c.live_out_users()
        assert [[u.name for u in us] for us in users] == [["stablehlo.add"], ["func.return", "stablehlo.negate"]]  # use-list order


@pytest.mark.parametrize("d", [MHLO, STABLEHLO], ids=["mhlo", "stablehlo"])
def test_codegen_rewires_every_outside_use_of_the_last_member_but_not_the_terminator(d):
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(SRC)
        ops = _ops(m)
        dot, neg, ret = ops[0], ops[4], ops[5]
        fused = codegen(FusionCluster([ops[0], ops[2], ops[3]], "DotLogistic"), d, Rewriter(m.operation))
        assert fused is not None
        assert m.operation.verify()
        r = list(fused.results)
        assert neg.operands[0] == r[1]
        assert ret.operands[1] == r[1] and ret.operands[0] != r[0]  # %b (outside) is returned, not the fused op
        body = fused.regions[0].blocks[0] if not d.fusion_is_composite else None
        if body is not None:
            term = list(body.operations)[-1].operation
            inner = [o.operation for o in body.operations]
            assert [o.name for o in inner] == ["stablehlo.dot_general", "stablehlo.logistic", "stablehlo.multiply", "mhlo.return"]
            assert term.operands[1] == inner[2].results[0]  # the body returns its own multiply
        assert op_key(dot) != op_key(fused)


def test_composite_attribute_memo_gives_the_same_attributes():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(SRC)
        namer = SymbolNamer(m.operation)
        plain = composite_attributes("DotLogistic", "neuron.DotLogistic.impl")
        first = composite_attributes("DotLogistic", "neuron.DotLogistic.impl", namer.attributes)
        again = composite_attributes("DotLogistic", "neuron.DotLogistic.impl.1", namer.attributes)
        assert {k: str(v) for k, v in first.items()} == {k: str(v) for k, v in plain.items()}
        assert list(first) == list(plain)
        assert str(again["decomposition"]) == "@neuron.DotLogistic.impl.1"
        assert again["name"] is first["name"] and again["version"] is first["version"]  # made once per kind
        other = composite_attributes("Elementwise", "neuron.Elementwise.impl", namer.attributes)
        assert str(other["name"]) == '"neuron.Elementwise"' and str(other["CompositeKind"]) == '"Elementwise"'
