"""Spine step 27, canonicalize-for-tensorizer and its twin canonicalize-for-penguin: numbers before and after the pass (StableHLO reference interpreter, bit for bit) and API checks."""

from __future__ import annotations

import numpy as np
import pytest
from pass_semantics_util import bit_equal

from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.testing import evaluate, random_inputs, run_passes

# --------------------------------------------------------------------------- step 27

CANON_MAIN = """
func.func @main(%x: tensor<1x4x1x3xf32>, %y: tensor<2x6xf32>, %v: tensor<4xf32>) ->
    (tensor<4x1x3x1xf32>, tensor<12xf32>, tensor<1x4x1xf32>, tensor<4xf32>, tensor<2x6xi1>, tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x3xf32>) {
  %t = stablehlo.transpose %x, dims = [1, 0, 3, 2] : (tensor<1x4x1x3xf32>) -> tensor<4x1x3x1xf32>
  %r0 = stablehlo.reshape %y : (tensor<2x6xf32>) -> tensor<3x4xf32>
  %r1 = stablehlo.reshape %r0 : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %r2 = stablehlo.reshape %r1 : (tensor<4x3xf32>) -> tensor<12xf32>
  %b = stablehlo.broadcast_in_dim %v, dims = [1] : (tensor<4xf32>) -> tensor<1x4x1xf32>
  %c = stablehlo.convert %v : tensor<4xf32>
  %yy = stablehlo.slice %y [0:2, 0:3] : (tensor<2x6xf32>) -> tensor<2x3xf32>
  %k = stablehlo.constant dense<0.25> : tensor<2x6xf32>
  %cmp = stablehlo.compare LT, %k, %y, FLOAT : (tensor<2x6xf32>, tensor<2x6xf32>) -> tensor<2x6xi1>
  %p = stablehlo.constant dense<false> : tensor<i1>
  %neg = stablehlo.negate %y : tensor<2x6xf32>
  %s = stablehlo.select %p, %y, %neg : tensor<i1>, tensor<2x6xf32>
  %full = stablehlo.slice %y [0:2, 0:6] : (tensor<2x6xf32>) -> tensor<2x6xf32>
  %nan = stablehlo.constant dense<0x7FC00000> : tensor<2x6xf32>
  %cmp2 = stablehlo.compare GE, %nan, %y : (tensor<2x6xf32>, tensor<2x6xf32>) -> tensor<2x6xi1>
  %sel2 = stablehlo.select %cmp2, %y, %k : tensor<2x6xi1>, tensor<2x6xf32>
  return %t, %r2, %b, %c, %cmp, %s, %full, %sel2, %yy : tensor<4x1x3x1xf32>, tensor<12xf32>, tensor<1x4x1xf32>, tensor<4xf32>, tensor<2x6xi1>, tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x3xf32>
}
"""


@pytest.mark.parametrize("dialect", ["stablehlo", "mhlo"])
def test_canonicalize_for_tensorizer_bit_exact(dialect):
    if dialect == "mhlo":
        src, _ = run_passes(CANON_MAIN, "stablehlo-legalize-to-hlo")
        after, stats = run_passes(src, "canonicalize-for-tensorizer")
    else:
        src = CANON_MAIN
        after, stats = run_passes(src, "stablehlo-canonicalize-for-tensorizer")
    assert stats == {
        "transpose-to-reshape": 1,
        "reshape-fold": 2,
        "broadcast-to-reshape": 1,
        "convert-noop": 1,
        "compare-constant-rhs": 2,
        "select-splat-predicate": 1,
        "slice-full": 1,
    }
    assert f"{dialect}.transpose" not in after and after.count(f"{dialect}.select ") == 1
    ctx = make_context()
    with ctx:
        ins = random_inputs(ir.Module.parse(CANON_MAIN), seed=3)
    bit_equal(evaluate(src, ins), evaluate(after, ins))


DOTS = """
func.func @main(%a: tensor<2x3xf32>, %v: tensor<3xf32>, %w: tensor<3x5xf32>) -> (tensor<2xf32>, tensor<2x5xf32>, tensor<f32>) {
  %0 = stablehlo.dot %a, %v : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  %1 = stablehlo.dot %a, %w, precision = [HIGHEST, HIGHEST] : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  %2 = stablehlo.dot %v, %v : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  return %0, %1, %2 : tensor<2xf32>, tensor<2x5xf32>, tensor<f32>
}
"""


def test_dot_to_dot_general_bit_exact_on_xla():
    # The reference interpreter does not run stablehlo.dot (openxla/stablehlo#1571): XLA CPU on both sides.
    from hilo_mlir.testing import evaluate_xla

    after, stats = run_passes(DOTS, "stablehlo-canonicalize-for-tensorizer")
    assert stats == {"dot-to-dot-general": 3}
    assert "stablehlo.dot " not in after and after.count("stablehlo.dot_general") == 3
    ctx = make_context()
    with ctx:
        ins = random_inputs(ir.Module.parse(DOTS), seed=5)
    bit_equal(evaluate_xla(DOTS, ins), evaluate_xla(after, ins))
    # And the interpreter agrees with numpy on the rewritten form (float32 sums of 3 terms).
    got = evaluate(after, ins)
    np.testing.assert_allclose(got[0], ins[0] @ ins[1], rtol=1e-6)
    np.testing.assert_allclose(got[1], ins[0] @ ins[2], rtol=1e-6)


def test_canonicalize_for_tensorizer_is_idempotent_and_linear_on_long_chain():
    # 400 reshapes in a chain collapse to one in a single sweep.
    lines = [
        "func.func @main(%a: tensor<2x3xf32>) -> tensor<6xf32> {",
        "  %v0 = stablehlo.reshape %a : (tensor<2x3xf32>) -> tensor<3x2xf32>",
    ]
    for i in range(1, 400):
        src_t, dst_t = ("tensor<3x2xf32>", "tensor<6x1xf32>") if i % 2 else ("tensor<6x1xf32>", "tensor<3x2xf32>")
        lines.append(f"  %v{i} = stablehlo.reshape %v{i - 1} : ({src_t}) -> {dst_t}")
    last_t = "tensor<6x1xf32>" if 399 % 2 else "tensor<3x2xf32>"
    lines.append(f"  %out = stablehlo.reshape %v399 : ({last_t}) -> tensor<6xf32>")
    lines += ["  return %out : tensor<6xf32>", "}"]
    text = "\n".join(lines)
    after, stats = run_passes(text, "stablehlo-canonicalize-for-tensorizer")
    assert after.count("stablehlo.reshape") == 1
    assert stats["reshape-fold"] == 400
    again, stats2 = run_passes(after, "stablehlo-canonicalize-for-tensorizer")
    assert again == after and stats2 == {}
    ins = [np.arange(6, dtype=np.float32).reshape(2, 3)]
    bit_equal(evaluate(text, ins), evaluate(after, ins))
