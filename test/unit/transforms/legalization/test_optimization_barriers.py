"""Spine remove-optimization-barriers (step 8): numbers before and after the pass (StableHLO reference interpreter, seeded inputs): bit-exact where the rewrite keeps the arithmetic, within a stated tolerance where it changes rounding."""

from __future__ import annotations

import numpy as np
import pytest
from pass_semantics_util import check_same

from hilo_mlir.testing import run_passes

# --------------------------------------------------------------------------- remove-optimization-barriers (step 8)

BARRIER = """
func.func @main(%a: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = stablehlo.multiply %a, %b : tensor<8xf32>
  %1:2 = stablehlo.optimization_barrier %a, %b : tensor<8xf32>, tensor<8xf32>
  %2 = stablehlo.multiply %1#0, %1#1 : tensor<8xf32>
  %3 = stablehlo.exponential %2 : tensor<8xf32>
  %4 = stablehlo.exponential %0 : tensor<8xf32>
  %5 = stablehlo.subtract %3, %4 : tensor<8xf32>
  return %5, %1#1 : tensor<8xf32>, tensor<8xf32>
}
"""


@pytest.mark.parametrize("spine", ["mhlo", "stablehlo"])
def test_remove_optimization_barriers_bit_exact(spine):
    before = BARRIER if spine == "stablehlo" else run_passes(BARRIER, "stablehlo-legalize-to-hlo")[0]
    after, stats = run_passes(before, "remove-optimization-barriers")
    assert stats["barriers-removed"] == 1
    # multiply and (transitively) exponential are CSE'd: x - x = 0 everywhere.
    assert stats["ops-cse"] == 2
    assert after.count(f"{spine}.multiply") == 1 and after.count(f"{spine}.exponential") == 1
    assert "optimization_barrier" not in after
    a, b = check_same(before, after)
    np.testing.assert_array_equal(b[0], np.zeros(8, np.float32))
