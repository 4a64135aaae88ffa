"""call-inliner keeps semantics (StableHLO reference interpreter, bit-exact) and unlocks fusion."""

import numpy as np
from conftest import corpus_path

from hilo_mlir import testing
from hilo_mlir.driver.config import CompileConfig
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.passmanager.pipeline import Pipeline, module_to_text, step_for

NESTED = """
func.func @main(%x: tensor<4xf32>, %y: tensor<f32>) -> (tensor<f32>, tensor<4xf32>) {
  %0 = func.call @outer(%x, %y) : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  %b = stablehlo.broadcast_in_dim %y, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %1 = func.call @sq(%b) : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<f32>, tensor<4xf32>
}
func.func private @outer(%a: tensor<4xf32>, %i: tensor<f32>) -> tensor<f32> {
  %0 = func.call @sq(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = stablehlo.reduce(%0 init: %i) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %1 : tensor<f32>
}
func.func private @sq(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.multiply %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def _inline(text):
    ctx = make_context()
    with ctx:
        m = ir.Module.parse(text)
        p = Pipeline([step_for("call-inliner")])
        p.run(m)
        out = module_to_text(m)
    return out, dict(p.stats["CallInliner"])


def test_nested_calls_inline_bit_exact():
    out, stats = _inline(NESTED)
    assert "call" not in out
    # main: 2 calls; outer: 1; the copy of outer inlined into main brings 1 more.
    assert stats == {"calls-inlined": 4, "functions-erased": 2}
    ins = [np.array([1.5, -2.0, 3.25, 0.5], np.float32), np.array(0.75, np.float32)]
    before = testing.evaluate(NESTED, ins)
    after = testing.evaluate(out, ins)
    assert [a.tobytes() for a in before] == [a.tobytes() for a in after]
    np.testing.assert_array_equal(after[0], np.float32(0.75 + 1.5**2 + 4 + 3.25**2 + 0.25))


def test_silu_call_is_inlined_and_fused_in_the_compiler():
    path = corpus_path("jax", "swiglu_mlp_nn_silu.stablehlo.mlir")
    import hilo_mlir

    src = hilo_mlir.compile_file(path, CompileConfig.preset("all"))
    assert src.statistics["CallInliner"] == {"calls-inlined": 1, "functions-erased": 1}
    assert src.statistics["NeuronOpFusion"]["clusters-DotLogistic"] == 1
    assert src.count("op='DotFusion'") == 1
