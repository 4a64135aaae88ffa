"""Spine steps 5-14 (both dialects) over the third-party corpus modules with the ops they match: a located error or verifier-clean IR, never a crash."""

from __future__ import annotations

import pytest

from hilo_mlir.testing import run_passes

# --------------------------------------------------------------------------- corpus robustness


def _corpus_files(*patterns):
    from conftest import corpus_path

    base = corpus_path("third_party")
    out = []
    for p in patterns:
        out.extend(sorted(base.glob(p)))
    return out


# Every pass of this family, on both spines' dialects, over corpus modules with
# the ops it matches (complex numbers, convolutions, collectives, barriers, reduces).
_PASSES_MHLO = (
    "neuron-control-dep-tuple-simplifier,collective-broadcast-to-all-gather,canonicalize-conv,"
    "lower-complex,lower-complex-extra,remove-optimization-barriers,identify-cross-pass-tensors,"
    "rematerialize{distance=4},coalesce-collective-ops,convert-fs-pattern-to-custom-calls,neuron-inst-combine"
)
_PASSES_SHLO = (
    "convert-custom-call-to-all-reduce,stablehlo-neuron-control-dep-tuple-simplifier,"
    "collective-broadcast-to-all-gather,stablehlo-canonicalize-conv,stablehlo-lower-complex,"
    "stablehlo-lower-complex-extra,remove-optimization-barriers,stablehlo-identify-cross-pass-tensors,"
    "stablehlo-rematerialize{distance=4},stablehlo-coalesce-collective-ops,"
    "stablehlo-convert-fs-pattern-to-custom-calls,neuron-inst-combine"
)


@pytest.mark.slow
def test_corpus_steps_5_14_no_crash_or_verifier_failure():
    import re

    files = _corpus_files("mhlo_tests/*.mlir", "stablehlo_testdata/*.mlir")
    key = re.compile(
        r"complex<|convolution|collective_broadcast|all_gather|all_reduce|reduce_scatter|"
        r"optimization_barrier|custom_call|reduce\(|\.reduce\"|exponential"
    )
    ran = 0
    for f in files:
        text = f.read_text()
        if "?" in text.split("func.func", 1)[-1][:400] or not key.search(text):
            continue
        for passes in (_PASSES_SHLO, _PASSES_MHLO):
            try:
                run_passes(text, passes)
            except Exception as e:  # HiloError with a located message is acceptable; nothing else
                from hilo_mlir.support.diagnostics import HiloError

                assert isinstance(e, (HiloError,)) or "Unable to parse" in str(e), f"{f.name}: {type(e).__name__}: {e}"
        ran += 1
    assert ran > 50
