"""Spine neuron-inst-combine (step 14): numbers before and after the pass (StableHLO reference interpreter, seeded inputs): bit-exact where the rewrite keeps the arithmetic, within a stated tolerance where it changes rounding."""

from __future__ import annotations

import numpy as np
import pytest
from pass_semantics_util import check_same

from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.testing import evaluate, random_inputs, run_passes

# --------------------------------------------------------------------------- neuron-inst-combine (step 14)

INST_COMBINE = """
func.func @main(%x: tensor<6x5x7x{t}>) -> (tensor<2x4x{t}>, tensor<3x{t}>) {{
  %z = stablehlo.constant dense<{zero}> : tensor<{t}>
  %m = stablehlo.constant dense<{low}> : tensor<{t}>
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<6x5x7x{t}>, tensor<{t}>) -> tensor<6x7x{t}>
  %1 = stablehlo.slice %0 [1:6:2, 2:6] : (tensor<6x7x{t}>) -> tensor<3x4x{t}>
  %2 = stablehlo.reduce(%1 init: %z) applies stablehlo.add across dimensions = [0] : (tensor<3x4x{t}>, tensor<{t}>) -> tensor<4x{t}>
  %3 = stablehlo.reshape %2 : (tensor<4x{t}>) -> tensor<1x4x{t}>
  %4 = stablehlo.concatenate %3, %3, dim = 0 : (tensor<1x4x{t}>, tensor<1x4x{t}>) -> tensor<2x4x{t}>
  %5 = stablehlo.reduce(%x init: %m) applies stablehlo.maximum across dimensions = [2] : (tensor<6x5x7x{t}>, tensor<{t}>) -> tensor<6x5x{t}>
  %6 = stablehlo.slice %5 [0:3, 0:5] : (tensor<6x5x{t}>) -> tensor<3x5x{t}>
  %7 = stablehlo.reduce(%6 init: %m) applies stablehlo.maximum across dimensions = [1] : (tensor<3x5x{t}>, tensor<{t}>) -> tensor<3x{t}>
  return %4, %7 : tensor<2x4x{t}>, tensor<3x{t}>
}}
"""


@pytest.mark.parametrize("spine", ["mhlo", "stablehlo"])
def test_inst_combine_integers_bit_exact(spine):
    text = INST_COMBINE.format(t="i32", zero="0", low="-2147483648")
    before = text if spine == "stablehlo" else run_passes(text, "stablehlo-legalize-to-hlo")[0]
    after, stats = run_passes(before, "neuron-inst-combine")
    assert stats["reduces-combined"] == 2
    assert after.count(f"{spine}.reduce") == 2 or after.count(f'"{spine}.reduce"') == 2
    check_same(before, after)


def test_inst_combine_float_max_bit_exact_add_close():
    text = INST_COMBINE.format(t="f32", zero="0.0", low="0xFF800000")
    after, stats = run_passes(text, "neuron-inst-combine")
    assert stats["reduces-combined"] == 2
    ctx = make_context()
    with ctx:
        ins = random_inputs(ir.Module.parse(text), 3)
    a, b = evaluate(text, ins), evaluate(after, ins)
    np.testing.assert_allclose(a[0], b[0], rtol=1e-6)  # add: reassociated
    np.testing.assert_array_equal(a[1], b[1])  # max: exact
    # and the expected values themselves
    x = ins[0]
    np.testing.assert_allclose(b[0][0], x.sum(axis=1)[1:6:2, 2:6].sum(axis=0), rtol=1e-5)
    np.testing.assert_array_equal(b[1], x.max(axis=2)[0:3].max(axis=1))
