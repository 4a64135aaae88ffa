"""Spine step 21 schedule-fusion: semantics before and after the pass (StableHLO reference interpreter, bit for bit), exact analysis values."""

from __future__ import annotations

import pytest
from pass_semantics_util import both, run

from hilo_mlir.ir.binding import make_context
from hilo_mlir.passmanager.pipeline import module_to_text

# --------------------------------------------------------------------------- 21 schedule-fusion

COLLECTIVES = """
func.func @main(%x: tensor<4xf32>, %y: tensor<2xf32>) -> (tensor<2xf32>, tensor<4xf32>, tensor<2xf32>, tensor<4xf32>) {
  %rs = "stablehlo.reduce_scatter"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<2xf32>
  %ag = "stablehlo.all_gather"(%y) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<4xf32>
  %rs2 = "stablehlo.reduce_scatter"(%ag) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<2xf32>
  %n = stablehlo.negate %rs2 : tensor<2xf32>
  %ag2 = "stablehlo.all_gather"(%n) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<4xf32>
  return %rs, %ag, %rs2, %ag2 : tensor<2xf32>, tensor<4xf32>, tensor<2xf32>, tensor<4xf32>
}"""


@pytest.mark.parametrize("pipeline", both("schedule-fusion"))
def test_schedule_fusion_pairs_only_independent(pipeline):
    # (rs, ag) are independent and fused; rs2 reads ag (already fused) and ag2 reads rs2: no more pairs.
    out, stats = run(COLLECTIVES, pipeline, stats=True)
    assert sum(c["fused-pairs"] for c in stats.values()) == 1
    assert sum(c["dependent-pairs"] for c in stats.values()) == 1
    marker = 'FusionKind = "ScheduleFusion"' if pipeline.endswith(",schedule-fusion") else 'stablehlo.composite "neuron.ScheduleFusion"'
    assert out.count(marker) == 1
    # Inlining the fusion/composite gives back the original computation (structure).
    from hilo_mlir.testing import to_evaluable

    with make_context():
        back = module_to_text(to_evaluable(out))
        orig = module_to_text(to_evaluable(COLLECTIVES))
    strip = lambda s: sorted(ln.split("=", 1)[-1].strip() for ln in s.splitlines() if "reduce_scatter" in ln or "all_gather" in ln)
    assert len(strip(back)) == len(strip(orig)) == 4
