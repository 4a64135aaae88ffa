"""Spine step 26, penguinize-io: numbers before and after the pass (StableHLO reference interpreter, bit for bit) and API checks."""

from __future__ import annotations

import numpy as np
import pytest

from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.support.diagnostics import HiloError
from hilo_mlir.testing import evaluate, run_passes

# --------------------------------------------------------------------------- step 26


PENGUIN_IN = """
func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tuple<tensor<4xf32>, tuple<tensor<f32>, tensor<4xf32>>> {
  %m = stablehlo.custom_call @AwsNeuronTransferWithStaticRing(%arg1) {api_version = 0 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%arg0 init: %c) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  %rm = stablehlo.custom_call @AwsNeuronTransferWithStaticRing(%r) {api_version = 0 : i32} : (tensor<f32>) -> tensor<f32>
  %p = stablehlo.multiply %arg0, %m : tensor<4xf32>
  %inner = stablehlo.tuple %rm, %p : tuple<tensor<f32>, tensor<4xf32>>
  %t = stablehlo.tuple %arg0, %inner : tuple<tensor<4xf32>, tuple<tensor<f32>, tensor<4xf32>>>
  return %t : tuple<tensor<4xf32>, tuple<tensor<f32>, tensor<4xf32>>>
}
"""


def _main_attr_ints(text, key):
    ctx = make_context()
    with ctx:
        m = ir.Module.parse(text)
        f = [o.operation for o in m.body.operations][0]
        return [int(x) for x in np.array(ir.DenseElementsAttr(f.attributes[key]))]


def test_penguinize_io_values_and_indices():
    after, stats = run_passes(PENGUIN_IN, "stablehlo-penguinize-io")
    assert stats == {"markers-stripped": 2, "tuples-erased": 2, "results-flattened": 1}
    assert _main_attr_ints(after, "slowChangingIns") == [1]
    # The reduce marker's value feeds the nested tuple: flattened position 1.
    assert _main_attr_ints(after, "slowChangingOuts") == [1]
    a = np.array([1.0, -2.0, 3.5, 0.25], np.float32)
    w = np.array([2.0, 0.5, -1.0, 4.0], np.float32)
    out = evaluate(after, [a, w])
    np.testing.assert_array_equal(out[0], a)
    np.testing.assert_array_equal(out[1], np.float32(a.sum(dtype=np.float32)))
    np.testing.assert_array_equal(out[2], a * w)
    # Idempotent: a second run keeps the recorded indices.
    again, _ = run_passes(after, "stablehlo-penguinize-io")
    assert again == after


def test_penguinize_io_errors_are_one_clear_line():
    with pytest.raises(HiloError, match=r"module has no 'func.func @main'"):
        run_passes("func.func @f() { return }", "penguinize-io")
    text = """
    func.func @main(%a: tensor<2xf32>) -> tuple<tensor<2xf32>> {
      %t = mhlo.tuple %a : tuple<tensor<2xf32>>
      return %t : tuple<tensor<2xf32>>
    }
    func.func @g(%a: tensor<2xf32>) -> tuple<tensor<2xf32>> {
      %0 = func.call @main(%a) : (tensor<2xf32>) -> tuple<tensor<2xf32>>
      return %0 : tuple<tensor<2xf32>>
    }"""
    with pytest.raises(HiloError, match="calls @main"):
        run_passes(text, "penguinize-io")
