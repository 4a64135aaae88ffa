"""Spine step 24 prune-functions: semantics before and after the pass (StableHLO reference interpreter, bit for bit), exact analysis values."""

from __future__ import annotations

import pytest
from pass_semantics_util import assert_same, run

# --------------------------------------------------------------------------- 24 prune-functions

PRUNE = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @a(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = stablehlo.composite "my.neg" %0 {decomposition = @neg} : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @a(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @b(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @b(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.exponential %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @neg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.negate %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @dead(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @dead(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func public @dead_public() -> () {
  return
}"""


@pytest.mark.parametrize("pipeline", ["stablehlo-prune-functions", "prune-functions"])
def test_prune_functions(pipeline):
    out, stats = run(PRUNE, pipeline, stats=True)
    names = sorted(ln.split("@", 1)[1].split("(", 1)[0] for ln in out.splitlines() if "func.func" in ln)
    assert names == ["a", "b", "main", "neg"]
    assert sum(c["functions-erased"] for c in stats.values()) == 2
    assert_same(PRUNE, out)
