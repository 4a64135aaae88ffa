"""Spine convert-fs-pattern-to-custom-calls (step 12): numbers before and after the pass (StableHLO reference interpreter, seeded inputs): bit-exact where the rewrite keeps the arithmetic, within a stated tolerance where it changes rounding."""

from __future__ import annotations

import numpy as np
import pytest

from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.testing import evaluate, random_inputs, run_passes

# --------------------------------------------------------------------------- convert-fs-pattern-to-custom-calls (step 12)

SOFTMAX_DIM0 = """
func.func @main(%x: tensor<5x3xf32>) -> tensor<5x3xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [0] : (tensor<5x3xf32>, tensor<f32>) -> tensor<3xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [1] : (tensor<3xf32>) -> tensor<5x3xf32>
  %s = stablehlo.subtract %x, %mb : tensor<5x3xf32>
  %e = stablehlo.exponential %s : tensor<5x3xf32>
  %t = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [0] : (tensor<5x3xf32>, tensor<f32>) -> tensor<3xf32>
  %tb = stablehlo.broadcast_in_dim %t, dims = [1] : (tensor<3xf32>) -> tensor<5x3xf32>
  %r = stablehlo.divide %e, %tb : tensor<5x3xf32>
  return %r : tensor<5x3xf32>
}
"""


def _softmax(x, dim):
    e = np.exp(x - x.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


@pytest.mark.parametrize("source", ["dim0", "jax_attention"])
def test_fs_pattern_is_a_softmax_over_the_stamped_dim(source):
    """The custom call is not evaluable; check that the matched subgraph computes
    softmax over exactly the ``dim`` the custom call carries."""
    import json
    import re

    if source == "dim0":
        text = SOFTMAX_DIM0
    else:
        from conftest import corpus_path

        text = corpus_path("jax", "attention.stablehlo.mlir").read_text()
    after, stats = run_passes(text, "stablehlo-convert-fs-pattern-to-custom-calls")
    assert stats["softmax-patterns"] == 1
    assert "stablehlo.exponential" not in after
    cfg = re.search(r'@AwsFSPattern5\((%\w+)\) \{backend_config = "(.*?)"\}', after)
    dim = json.loads(cfg.group(2).replace("\\22", '"'))["dim"]
    if source == "dim0":
        assert dim == 0
        ctx = make_context()
        with ctx:
            ins = random_inputs(ir.Module.parse(text), 5)
        (ref,) = evaluate(text, ins)
        np.testing.assert_allclose(ref, _softmax(ins[0], dim), rtol=1e-6, atol=1e-7)
        assert not np.allclose(ref, _softmax(ins[0], 1 - dim))
    else:
        assert dim == 2  # softmax over the key axis of (batch, query, key)
