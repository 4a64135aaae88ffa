"""Spine step 22 hoist-compute: semantics before and after the pass (StableHLO reference interpreter, bit for bit), exact analysis values."""

from __future__ import annotations

import pytest
from conftest import corpus_path
from pass_semantics_util import assert_same, both, run

# --------------------------------------------------------------------------- 22 hoist-compute


@pytest.mark.parametrize("pipeline", both("hoist-compute"))
def test_hoist_compute_semantics_with_parameters(pipeline):
    src = corpus_path("jax", "decoder_layer.stablehlo.mlir").read_text()
    # Mark the weights (all arguments but the activations %arg0) as parameters.
    src = src.replace("func.func public @main(", "func.func public @main(", 1)
    head, rest = src.split("func.func public @main(", 1)
    sig, body = rest.split("{\n", 1)
    marked = (
        head
        + "func.func public @main("
        + sig.rstrip()
        + " attributes {slowChangingIns = dense<[1, 2, 3, 4, 5, 6, 7]> : tensor<7xi32>} {\n"
        + body
    )
    out, stats = run(marked, pipeline, stats=True)
    hoisted = sum(c["ops-hoisted"] for c in stats.values())
    assert hoisted > 0
    assert_same(marked, out)
