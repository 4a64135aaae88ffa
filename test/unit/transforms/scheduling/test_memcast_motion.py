"""Spine step 23 memcast-motion: semantics before and after the pass (StableHLO reference interpreter, bit for bit), exact analysis values."""

from __future__ import annotations

import pytest
from conftest import corpus_path
from pass_semantics_util import assert_same, both, run

# --------------------------------------------------------------------------- 23 memcast-motion

MEMCAST = """
func.func @main(%x: tensor<2x6xbf16>, %k: tensor<4xi8>) -> (tensor<4x3xf32>, tensor<2x4x3xf32>, tensor<2x4xi32>, tensor<2xi32>) {
  %c = stablehlo.convert %x : (tensor<2x6xbf16>) -> tensor<2x6xf32>
  %r = stablehlo.reshape %c : (tensor<2x6xf32>) -> tensor<3x4xf32>
  %t = stablehlo.transpose %r, dims = [1, 0] : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %b = stablehlo.broadcast_in_dim %t, dims = [1, 2] : (tensor<4x3xf32>) -> tensor<2x4x3xf32>
  %ki = stablehlo.convert %k : (tensor<4xi8>) -> tensor<4xi32>
  %kb = stablehlo.broadcast_in_dim %ki, dims = [1] : (tensor<4xi32>) -> tensor<2x4xi32>
  %ks = stablehlo.slice %ki [1:3] : (tensor<4xi32>) -> tensor<2xi32>
  return %t, %b, %kb, %ks : tensor<4x3xf32>, tensor<2x4x3xf32>, tensor<2x4xi32>, tensor<2xi32>
}"""


@pytest.mark.parametrize("pipeline", both("memcast-motion"))
def test_memcast_motion_semantics(pipeline):
    out, stats = run(MEMCAST, pipeline, stats=True)
    assert sum(c["converts-sunk"] for c in stats.values()) == 5
    assert "(tensor<2x4xi8>) -> tensor<2x4xi32>" in out and "tensor<2x4x3xbf16>" in out
    assert_same(MEMCAST, out)


def test_memcast_motion_corpus_semantics():
    src = corpus_path("jax", "swiglu_mlp_bf16.stablehlo.mlir").read_text()
    out = run(src, "stablehlo-memcast-motion")
    assert_same(src, out)
