"""Spine step 16 fold-iota: semantics before and after the pass (StableHLO reference interpreter, bit for bit), exact analysis values."""

from __future__ import annotations

import pytest
from pass_semantics_util import assert_same, both, run

from hilo_mlir.testing import evaluate

# --------------------------------------------------------------------------- 16 fold-iota

ROPE = """
func.func @main(%a: tensor<2x64x{t}>) -> tensor<2x64x{t}> {{
  %c = stablehlo.constant dense<10000.0> : tensor<{t}>
  %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<{t}>) -> tensor<2x64x{t}>
  %i = stablehlo.iota dim = 1 : tensor<2x64x{t}>
  %s0 = stablehlo.constant dense<-0.03125> : tensor<{t}>
  %s = stablehlo.broadcast_in_dim %s0, dims = [] : (tensor<{t}>) -> tensor<2x64x{t}>
  %m = stablehlo.multiply %i, %s : tensor<2x64x{t}>
  %p = stablehlo.power %b, %m : tensor<2x64x{t}>
  %r = stablehlo.multiply %p, %a : tensor<2x64x{t}>
  return %r : tensor<2x64x{t}>
}}"""


@pytest.mark.parametrize("dtype", ["f32", "bf16", "f16", "f64"])
@pytest.mark.parametrize("pipeline", both("fold-iota"))
def test_fold_iota_bit_exact(dtype, pipeline):
    src = ROPE.format(t=dtype)
    out, stats = run(src, pipeline, stats=True)
    assert "power" not in out and "iota" not in out
    assert sum(c["folded"] for c in stats.values()) == 1
    assert_same(src, out)


def test_fold_iota_values():
    src = """
func.func @main() -> tensor<3xf32> {
  %c = stablehlo.constant dense<4.0> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<3xf32>
  %i = stablehlo.iota dim = 0 : tensor<3xf32>
  %s = stablehlo.constant dense<0.5> : tensor<3xf32>
  %m = stablehlo.multiply %i, %s : tensor<3xf32>
  %p = stablehlo.power %b, %m : tensor<3xf32>
  return %p : tensor<3xf32>
}"""
    out = run(src, "stablehlo-fold-iota")
    assert "dense<[1.000000e+00, 2.000000e+00, 4.000000e+00]> : tensor<3xf32>" in out
    assert evaluate(out, [])[0].tolist() == [1.0, 2.0, 4.0]


def test_fold_iota_max_elements_option():
    src = ROPE.format(t="f32")
    out = run(src, "stablehlo-fold-iota{max-elements=64}")
    assert "stablehlo.power" in out  # 128 elements > 64: not folded
