"""Spine step 26b legalize-scatter: numbers before and after the pass (StableHLO reference interpreter, bit for bit) and API checks."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from pass_semantics_util import bit_equal

from hilo_mlir.testing import evaluate, run_passes

# --------------------------------------------------------------------------- 26b legalize-scatter

SCATTER = """func.func @main(%x: tensor<6x{t}>, %i: tensor<{n}x1xi32>, %u: tensor<{n}x{t}>) -> tensor<6x{t}> {{
  %0 = "stablehlo.scatter"(%x, %i, %u) ({{
  ^bb0(%a: tensor<{t}>, %b: tensor<{t}>):
    {body}
  }}) {{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}} : (tensor<6x{t}>, tensor<{n}x1xi32>, tensor<{n}x{t}>) -> tensor<6x{t}>
  return %0 : tensor<6x{t}>
}}"""

BODIES = {
    "add": "%r = stablehlo.add %a, %b : tensor<{t}>\n    stablehlo.return %r : tensor<{t}>",
    "sub_swapped": "%r = stablehlo.subtract %b, %a : tensor<{t}>\n    stablehlo.return %r : tensor<{t}>",
    "mul": "%r = stablehlo.multiply %a, %b : tensor<{t}>\n    stablehlo.return %r : tensor<{t}>",
    "max": "%r = stablehlo.maximum %b, %a : tensor<{t}>\n    stablehlo.return %r : tensor<{t}>",
    "replace": "stablehlo.return %b : tensor<{t}>",
}


@pytest.mark.parametrize("t,dt", [("bf16", ml_dtypes.bfloat16), ("f16", np.float16)])
@pytest.mark.parametrize("body", sorted(BODIES))
def test_legalize_scatter_unique_indices_bit_exact(t, dt, body):
    text = SCATTER.format(t=t, n=4, body=BODIES[body].format(t=t))
    after, stats = run_passes(text, "legalize-scatter")
    assert stats == {"scatters-legalized": 1}
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(6) * 3).astype(np.float32).astype(dt)
    u = (rng.standard_normal(4) * 3).astype(np.float32).astype(dt)
    idx = np.array([[4], [0], [2], [5]], np.int32)
    bit_equal(evaluate(text, [x, idx, u]), evaluate(after, [x, idx, u]))


def test_legalize_scatter_colliding_updates_accumulate_in_f32():
    text = SCATTER.format(t="bf16", n=6, body=BODIES["add"].format(t="bf16"))
    after, _ = run_passes(text, "legalize-scatter")
    x = np.array([256, 1, 2, 3, 4, 5], np.float32).astype(ml_dtypes.bfloat16)
    u = np.ones(6, np.float32).astype(ml_dtypes.bfloat16)
    idx = np.zeros((6, 1), np.int32)  # six +1 updates into element 0
    got = evaluate(after, [x, idx, u])[0]
    want = x.astype(np.float32)
    want[0] += np.float32(6)  # f32 accumulation, rounded once
    np.testing.assert_array_equal(got, want.astype(ml_dtypes.bfloat16))
    # In bf16 each 256 + 1 rounds back to 256: the narrow scatter loses all six.
    assert float(evaluate(text, [x, idx, u])[0][0]) == 256.0
    assert float(got[0]) == 262.0
