"""Spine step 4, verify-supported-ops: the JAX corpus passes; every op the printer cannot emit is one located error."""

from __future__ import annotations

import pytest

from hilo_mlir.testing import run_passes

# --------------------------------------------------------------------------- verify-supported-ops (step 4)


@pytest.mark.parametrize("name", ["attention", "decoder_layer", "rmsnorm", "swiglu_mlp_bf16", "transcendental"])
def test_verify_supported_ops_accepts_the_jax_corpus(name):
    from conftest import corpus_path

    text = corpus_path("jax", f"{name}.stablehlo.mlir").read_text()
    after, stats = run_passes(text, "stablehlo-verify-supported-ops")
    assert stats.get("ops-rejected", 0) == 0


def test_verify_supported_ops_names_every_bad_op():
    from hilo_mlir.support.diagnostics import HiloError

    text = """
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @Mine(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = stablehlo.custom_call @Yours(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
"""
    with pytest.raises(HiloError) as ei:
        run_passes(text, "verify-supported-ops")
    assert ei.value.message == (
        "'stablehlo.custom_call' op cannot be emitted by the Penguin printer: "
        "unsupported custom_call target 'Mine' (and 1 more op, each reported as a diagnostic)"
    )
    assert ei.value.line == 3
