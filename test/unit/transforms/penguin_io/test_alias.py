"""Spine steps 28-30, tensorizer-legalization then legalize-alias then verify-aliasing: numbers before and after the pass (StableHLO reference interpreter, bit for bit) and API checks."""

from __future__ import annotations

import pytest

from hilo_mlir.support.diagnostics import HiloError
from hilo_mlir.testing import run_passes

# --------------------------------------------------------------------------- steps 28-30


def test_tensorizer_legalization_then_alias_then_verify():
    text = """
    func.func @main(%arg0: tensor<3xf32> {tf.aliasing_output = 0 : i32}, %arg1: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
      %0 = stablehlo.add %arg0, %arg1 : tensor<3xf32>
      return %0, %arg1, %0 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
    }"""
    after, stats = run_passes(text, "stablehlo-tensorizer-legalization,stablehlo-legalize-alias,stablehlo-verify-aliasing")
    assert stats["outputs-copied"] == 2 and stats["aliasing-copies"] == 1 and stats["aliases-checked"] == 1
    assert after.count("@AliasingCopy(") == 3
    assert 'output_names = ["output_0", "output_1", "output_2"]' in after
    # The aliasing copy is the output-0 tensor now.
    assert 'stablehlo.custom_call @AliasingCopy(%0, %arg0) {neuron.symName = "output_0"' in after


def test_verify_aliasing_reports_reader_location():
    text = """func.func @main(%arg0: tensor<3xf32> {tf.aliasing_output = 0 : i32}) -> (tensor<3xf32>, tensor<3xf32>) {
  %0 = mhlo.negate %arg0 : tensor<3xf32>
  %1 = mhlo.abs %arg0 : tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}"""
    with pytest.raises(HiloError) as e:
        run_passes(text, "verify-aliasing")
    assert e.value.line == 3
    assert "'mhlo.abs' op reads argument #0 of @main after output 0" in e.value.message
    # legalize-alias first moves the write to the end: then it verifies.
    _, stats = run_passes(text, "legalize-alias,verify-aliasing")
    assert stats["aliasing-copies"] == 1 and stats["aliases-checked"] == 1
