"""Spine step 31, mlir-instruction-histogram: exact counts, in order, to a file."""

from __future__ import annotations

from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.testing import run_passes

# --------------------------------------------------------------------------- step 31


def test_histogram_counts_and_order(tmp_path):
    from hilo_mlir.passes.verification.histogram import format_histogram, instruction_histogram

    text = """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.abs %a : tensor<2xf32>
  %1 = stablehlo.abs %0 : tensor<2xf32>
  %2 = stablehlo.add %1, %0 : tensor<2xf32>
  return %2 : tensor<2xf32>
}"""
    ctx = make_context()
    with ctx:
        m = ir.Module.parse(text)
        rows = instruction_histogram(m.operation)
    assert rows == [("stablehlo.abs", 2), ("func.func", 1), ("func.return", 1), ("stablehlo.add", 1)]
    assert format_histogram(rows).splitlines()[1] == "5 total ops, 4 distinct"
    out = tmp_path / "hist.txt"
    after, stats = run_passes(text, f"mlir-instruction-histogram{{output={out}}}")
    assert stats == {"stablehlo.abs": 2, "func.func": 1, "func.return": 1, "stablehlo.add": 1}
    assert out.read_text() == format_histogram(rows)
    assert after == str(ir.Module.parse(text, make_context()))
