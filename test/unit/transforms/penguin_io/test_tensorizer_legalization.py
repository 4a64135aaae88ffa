"""Spine step 28, stablehlo-tensorizer-legalization (StableHLO twin's splat stage): numbers before and after the pass (StableHLO reference interpreter, bit for bit) and API checks."""

from __future__ import annotations

from pass_semantics_util import bit_equal

from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.testing import evaluate, random_inputs, run_passes

# --------------------------------------------------------------------------- tensorizer-legalization (StableHLO twin's splat stage)


def test_stablehlo_tensorizer_legalization_splat_stage_bit_exact():
    text = """func.func @main(%a: tensor<8x8xf32>, %b: tensor<8x8xi32>) -> (tensor<8x8xf32>, tensor<8x8xi32>, tensor<8x8xf32>) {
  %k = stablehlo.constant dense<0.375> : tensor<8x8xf32>
  %m = stablehlo.constant dense<-3> : tensor<8x8xi32>
  %0 = stablehlo.multiply %a, %k : tensor<8x8xf32>
  %1 = stablehlo.add %b, %m : tensor<8x8xi32>
  return %0, %1, %a : tensor<8x8xf32>, tensor<8x8xi32>, tensor<8x8xf32>
}"""
    after, stats = run_passes(text, "stablehlo-tensorizer-legalization{splat-threshold=64}")
    assert stats["large-splats-broadcast"] == 2 and stats["outputs-copied"] == 1
    assert after.count("stablehlo.broadcast_in_dim") == 2 and "tensor<8x8xf32> = " not in after
    off, stats_off = run_passes(text, "stablehlo-tensorizer-legalization{splat-threshold=65}")
    assert "large-splats-broadcast" not in stats_off and "broadcast_in_dim" not in off
    # The interpreter cannot run the output copy (a custom_call): compare with it bypassed.
    plain = after.replace(
        'stablehlo.custom_call @AliasingCopy(%arg0) {neuron.symName = "output_2"} : (tensor<8x8xf32>) -> tensor<8x8xf32>',
        "stablehlo.reshape %arg0 : (tensor<8x8xf32>) -> tensor<8x8xf32>",
    )
    assert plain != after
    ctx = make_context()
    with ctx:
        ins = random_inputs(ir.Module.parse(text), seed=11)
    bit_equal(evaluate(text, ins), evaluate(plain, ins))
