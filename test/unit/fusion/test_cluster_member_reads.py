"""FusionCluster keeps what it read of its members for the codegen's EntryBlock hand-over:
each member's own operands (``operand_keys``, their ``hash``) and results (``member_results``,
``member_result_keys``), in member order, on the general path and on the sealed one."""

import pytest

from hilo_mlir.fusion import FusionCluster
from hilo_mlir.ir.binding import ir, make_context

# rsqrt(mean(x*x) + eps): multiply, reduce (a body inside), multiply, add, rsqrt
CHAIN = """func.func @main(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %n = stablehlo.constant dense<0.125> : tensor<4xf32>
  %e = stablehlo.constant dense<1.0e-6> : tensor<4xf32>
  %sq = stablehlo.multiply %x, %x : tensor<4x8xf32>
  %s = stablehlo.reduce(%sq init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %m = stablehlo.multiply %s, %n : tensor<4xf32>
  %a = stablehlo.add %m, %e : tensor<4xf32>
  %r = stablehlo.rsqrt %a : tensor<4xf32>
  %u = stablehlo.negate %r : tensor<4xf32>
  return %u, %m : tensor<4xf32>, tensor<4xf32>
}"""


def _chain(m):
    f = list(m.body.operations)[0]
    ops = [o.operation for o in f.regions[0].blocks[0].operations]
    return ops, ops[3:8]


@pytest.mark.parametrize("sealed", [False, True])
def test_member_reads_are_exact(sealed):
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(CHAIN)
        _, members = _chain(m)
        shuffled = members if sealed else list(reversed(members))  # the general path sorts them
        c = FusionCluster(shuffled, "MulRedSqrt", one_block=True, sealed=sealed, check=False)
        assert [o.name for o in c.members] == [o.name for o in members]
        assert c.operand_keys == [[hash(v) for v in o.operands] for o in members]
        assert [[hash(r) for r in rs] for rs in c.member_results] == [[hash(r) for r in o.results] for o in members]
        assert c.member_result_keys == [[hash(r) for r in o.results] for o in members]
        # the reduce's own operands only: its body's ops are not among them
        assert len(c.operand_keys[1]) == 2
