"""``only_block_ops``: the ops of an op's one block from a walk that does not enter their regions.

It must equal :func:`block_ops` of that block (``ir.Operation`` s, in order, nested ops not
listed) and say None for an op with another number of regions or blocks.
"""

from __future__ import annotations

from hilo_mlir.ir.binding import identity_key, ir, make_context
from hilo_mlir.ir.utils import block_ops, only_block_ops, top_funcs

TEXT = """
func.func @one(%a: tensor<4xf32>) -> tensor<f32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%a init: %z) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
   reducer(%p: tensor<f32>, %q: tensor<f32>) {
    %u = stablehlo.add %p, %q : tensor<f32>
    stablehlo.return %u : tensor<f32>
  }
  %n = stablehlo.negate %r : tensor<f32>
  return %n : tensor<f32>
}
func.func @two(%a: tensor<f32>) -> tensor<f32> {
  cf.br ^bb1
^bb1:
  return %a : tensor<f32>
}
func.func private @decl(%a: tensor<f32>) -> tensor<f32>
"""


def test_the_ops_of_the_one_block_in_order_without_nested_ones():
    with make_context(allow_unregistered_dialects=True), ir.Location.unknown():
        m = ir.Module.parse(TEXT)
        one, two, decl = top_funcs(m.operation)
        ops = only_block_ops(one)
        assert ops is not None
        assert [o.name for o in ops] == ["stablehlo.constant", "stablehlo.reduce", "stablehlo.negate", "func.return"]
        assert all(type(o) is ir.Operation for o in ops)
        want = block_ops(one.regions[0].blocks[0])
        assert [identity_key(o) for o in ops] == [identity_key(o) for o in want]
        assert only_block_ops(two) is None  # two blocks
        assert only_block_ops(decl) is None  # no block
