"""Spine canonicalize-conv (step 5): numbers before and after the pass (StableHLO reference interpreter, seeded inputs): bit-exact where the rewrite keeps the arithmetic, within a stated tolerance where it changes rounding."""

from __future__ import annotations

import pytest
from pass_semantics_util import check_same

from hilo_mlir.testing import run_passes

# --------------------------------------------------------------------------- canonicalize-conv (step 5)

CONV_PAD = """
func.func @main(%x: tensor<2x7x9x3xf32>, %w: tensor<3x2x3x4xf32>) -> tensor<2x9x20x4xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %p = stablehlo.pad %x, %z, low = [0, 1, 2, 0], high = [0, 2, 1, 0], interior = [0, 0, 0, 0] : (tensor<2x7x9x3xf32>, tensor<f32>) -> tensor<2x10x12x3xf32>
  %0 = stablehlo.convolution(%p, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 0], [0, 0]], lhs_dilate = [1, 2], rhs_dilate = [1, 3]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x10x12x3xf32>, tensor<3x2x3x4xf32>) -> tensor<2x9x20x4xf32>
  return %0 : tensor<2x9x20x4xf32>
}
"""


@pytest.mark.parametrize("spine", ["mhlo", "stablehlo"])
def test_canonicalize_conv_bit_exact(spine):
    before = CONV_PAD if spine == "stablehlo" else run_passes(CONV_PAD, "stablehlo-legalize-to-hlo")[0]
    arg = "canonicalize-conv" if spine == "mhlo" else "stablehlo-canonicalize-conv"
    after, stats = run_passes(before, arg)
    assert stats["pads-folded"] == 1 and stats["attributes-made-explicit"] == 1  # window_strides
    assert f"{spine}.pad" not in after and '"mhlo.pad"' not in after
    assert "pad = [[2, 2], [4, 2]]" in after  # (1+1, 0+2) and (2*2, 1*2)
    for seed in (0, 1):
        check_same(before, after, seed=seed)


def test_canonicalize_conv_grouped_and_strided_bit_exact():
    text = """
func.func @main(%x: tensor<1x4x11xf32>, %w: tensor<6x2x3xf32>) -> tensor<1x6x6xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %p = stablehlo.pad %x, %z, low = [0, 0, 1], high = [0, 0, 1], interior = [0, 0, 0] : (tensor<1x4x11xf32>, tensor<f32>) -> tensor<1x4x13xf32>
  %0 = stablehlo.convolution(%p, %w) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [2]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x4x13xf32>, tensor<6x2x3xf32>) -> tensor<1x6x6xf32>
  return %0 : tensor<1x6x6xf32>
}
"""
    after, stats = run_passes(text, "stablehlo-canonicalize-conv")
    assert stats["pads-folded"] == 1 and "pad = [[1, 1]]" in after
    check_same(text, after)
