"""Spine rematerialize (step 10): numbers before and after the pass (StableHLO reference interpreter, seeded inputs): bit-exact where the rewrite keeps the arithmetic, within a stated tolerance where it changes rounding."""

from __future__ import annotations

import pytest
from pass_semantics_util import check_same

from hilo_mlir.testing import run_passes

# --------------------------------------------------------------------------- rematerialize (step 10)

REMAT = """
func.func @main(%a: tensor<8xf32>, %b: tensor<8xi32>) -> (tensor<8xf32>, tensor<8xi32>) {
  %c = stablehlo.constant dense<0.5> : tensor<f32>
  %bc = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<8xf32>
  %io = stablehlo.iota dim = 0 : tensor<8xi32>
  %k = stablehlo.constant dense<[1, 2, 3, 4, 5, 6, 7, 8]> : tensor<8xi32>
  %0 = stablehlo.multiply %a, %bc : tensor<8xf32>
  %1 = stablehlo.exponential %0 : tensor<8xf32>
  %2 = stablehlo.sine %1 : tensor<8xf32>
  %3 = stablehlo.add %2, %bc : tensor<8xf32>
  %4 = stablehlo.multiply %b, %io : tensor<8xi32>
  %5 = stablehlo.add %4, %k : tensor<8xi32>
  %6 = stablehlo.subtract %5, %io : tensor<8xi32>
  %7 = stablehlo.multiply %3, %bc : tensor<8xf32>
  return %7, %6 : tensor<8xf32>, tensor<8xi32>
}
"""


@pytest.mark.parametrize("spine", ["mhlo", "stablehlo"])
def test_rematerialize_bit_exact(spine):
    before = REMAT if spine == "stablehlo" else run_passes(REMAT, "stablehlo-legalize-to-hlo")[0]
    arg = "rematerialize" if spine == "mhlo" else "stablehlo-rematerialize"
    after, stats = run_passes(before, arg + "{distance=3}")
    # positions: bc at 1 (users 4: near; 7: far -> clone; 11: 11 - 7 > 3 -> second clone),
    # iota at 2 (users 8: far -> clone, 10: shares it), k at 3 (user 9: far -> clone).
    assert stats["clones"] == 4
    assert after.count("neuron.remat.value") == 6  # 2 x (constant + broadcast), iota, k
    assert sum("iota" in line for line in after.splitlines()) == 1  # the original lost all its users
    check_same(before, after)
    after0, stats0 = run_passes(before, arg + "{distance=100}")
    assert stats0.get("clones", 0) == 0 and "neuron.remat.value" not in after0
