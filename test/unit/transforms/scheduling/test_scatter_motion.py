"""Spine step 20 scatter-motion: semantics before and after the pass (StableHLO reference interpreter, bit for bit), exact analysis values."""

from __future__ import annotations

import pytest
from pass_semantics_util import assert_same, both, run

# --------------------------------------------------------------------------- 20 scatter-motion

SCATTER = """
func.func @main(%op: tensor<8xf32>, %upd: tensor<2xf32>, %y: tensor<4xf32>) -> (tensor<8xf32>, tensor<4xf32>) {
  %idx = stablehlo.constant dense<[[1], [5]]> : tensor<2x1xi32>
  %s = "stablehlo.scatter"(%op, %idx, %upd) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %r = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false} : (tensor<8xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<8xf32>
  %e = stablehlo.exponential %y : tensor<4xf32>
  %f = stablehlo.sine %e : tensor<4xf32>
  %u = stablehlo.multiply %s, %op : tensor<8xf32>
  return %u, %f : tensor<8xf32>, tensor<4xf32>
}"""


@pytest.mark.parametrize("pipeline", both("scatter-motion"))
def test_scatter_motion_semantics(pipeline):
    out, stats = run(SCATTER, pipeline, stats=True)
    assert sum(c["scatters-sunk"] for c in stats.values()) == 1
    lines = [ln.strip() for ln in out.splitlines()]
    i = next(k for k, ln in enumerate(lines) if "scatter" in ln and "=" in ln)
    assert "sine" in lines[i - 1]
    assert_same(SCATTER, out)
