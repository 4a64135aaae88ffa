"""Spine convert-custom-call-to-all-reduce (1b): numbers before and after the pass (StableHLO reference interpreter, seeded inputs): bit-exact where the rewrite keeps the arithmetic, within a stated tolerance where it changes rounding."""

from __future__ import annotations

from hilo_mlir.testing import run_passes

# --------------------------------------------------------------------------- convert-custom-call-to-all-reduce (1b)


def test_custom_call_to_all_reduce_on_the_mlir_hlo_case():
    from conftest import corpus_path

    text = corpus_path("third_party", "mhlo_tests", "stablehlo-legalize-to-hlo__39.mlir").read_text()
    after, stats = run_passes(text, "convert-custom-call-to-all-reduce")
    assert stats["all-reduces-converted"] == 1
    assert "@mhlo.all_reduce" not in after and '"stablehlo.all_reduce"(%arg0, %arg1)' in after
    # and it legalizes to the mhlo.all_reduce the original test expects
    back, _ = run_passes(after, "stablehlo-legalize-to-hlo")
    assert '"mhlo.all_reduce"(%arg0, %arg1)' in back
