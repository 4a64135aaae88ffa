"""Spine steps 26-31 and the StableHLO insertions 26a/26b: numeric before/after checks and API checks.

Each rewrite that keeps semantics is run through the real pipeline executor
(verifier after the pass) and ``main`` is evaluated before and after with the
StableHLO reference interpreter (:func:`hilo_mlir.testing.evaluate`); the
numbers must agree bit for bit (legalize-scatter with colliding updates is
compared against an f32 numpy accumulation instead: the pass changes the
accumulation precision on purpose).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.support.diagnostics import HiloError
from hilo_mlir.testing import evaluate, random_inputs, run_passes


def bit_equal(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.dtype == y.dtype and x.shape == y.shape
        np.testing.assert_array_equal(np.ascontiguousarray(x).view(np.uint8), np.ascontiguousarray(y).view(np.uint8))


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


# --------------------------------------------------------------------------- step 26


PENGUIN_IN = """
func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tuple<tensor<4xf32>, tuple<tensor<f32>, tensor<4xf32>>> {
  %m = stablehlo.custom_call @AwsNeuronTransferWithStaticRing(%arg1) {api_version = 0 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%arg0 init: %c) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  %rm = stablehlo.custom_call @AwsNeuronTransferWithStaticRing(%r) {api_version = 0 : i32} : (tensor<f32>) -> tensor<f32>
  %p = stablehlo.multiply %arg0, %m : tensor<4xf32>
  %inner = stablehlo.tuple %rm, %p : tuple<tensor<f32>, tensor<4xf32>>
  %t = stablehlo.tuple %arg0, %inner : tuple<tensor<4xf32>, tuple<tensor<f32>, tensor<4xf32>>>
  return %t : tuple<tensor<4xf32>, tuple<tensor<f32>, tensor<4xf32>>>
}
"""


def _main_attr_ints(text, key):
    ctx = make_context()
    with ctx:
        m = ir.Module.parse(text)
        f = [o.operation for o in m.body.operations][0]
        return [int(x) for x in np.array(ir.DenseElementsAttr(f.attributes[key]))]


def test_penguinize_io_values_and_indices():
    after, stats = run_passes(PENGUIN_IN, "stablehlo-penguinize-io")
    assert stats == {"markers-stripped": 2, "tuples-erased": 2, "results-flattened": 1}
    assert _main_attr_ints(after, "slowChangingIns") == [1]
    # The reduce marker's value feeds the nested tuple: flattened position 1.
    assert _main_attr_ints(after, "slowChangingOuts") == [1]
    a = np.array([1.0, -2.0, 3.5, 0.25], np.float32)
    w = np.array([2.0, 0.5, -1.0, 4.0], np.float32)
    out = evaluate(after, [a, w])
    np.testing.assert_array_equal(out[0], a)
    np.testing.assert_array_equal(out[1], np.float32(a.sum(dtype=np.float32)))
    np.testing.assert_array_equal(out[2], a * w)
    # Idempotent: a second run keeps the recorded indices.
    again, _ = run_passes(after, "stablehlo-penguinize-io")
    assert again == after


def test_penguinize_io_errors_are_one_clear_line():
    with pytest.raises(HiloError, match=r"module has no 'func.func @main'"):
        run_passes("func.func @f() { return }", "penguinize-io")
    text = """
    func.func @main(%a: tensor<2xf32>) -> tuple<tensor<2xf32>> {
      %t = mhlo.tuple %a : tuple<tensor<2xf32>>
      return %t : tuple<tensor<2xf32>>
    }
    func.func @g(%a: tensor<2xf32>) -> tuple<tensor<2xf32>> {
      %0 = func.call @main(%a) : (tensor<2xf32>) -> tuple<tensor<2xf32>>
      return %0 : tuple<tensor<2xf32>>
    }"""
    with pytest.raises(HiloError, match="calls @main"):
        run_passes(text, "penguinize-io")


# --------------------------------------------------------------------------- steps 28-30


def test_tensorizer_legalization_then_alias_then_verify():
    text = """
    func.func @main(%arg0: tensor<3xf32> {tf.aliasing_output = 0 : i32}, %arg1: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
      %0 = stablehlo.add %arg0, %arg1 : tensor<3xf32>
      return %0, %arg1, %0 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
    }"""
    after, stats = run_passes(text, "stablehlo-tensorizer-legalization,stablehlo-legalize-alias,stablehlo-verify-aliasing")
    assert stats["outputs-copied"] == 2 and stats["aliasing-copies"] == 1 and stats["aliases-checked"] == 1
    assert after.count("@AliasingCopy(") == 3
    assert 'output_names = ["output_0", "output_1", "output_2"]' in after
    # The aliasing copy is the output-0 tensor now.
    assert 'stablehlo.custom_call @AliasingCopy(%0, %arg0) {neuron.symName = "output_0"' in after


def test_verify_aliasing_reports_reader_location():
    text = """func.func @main(%arg0: tensor<3xf32> {tf.aliasing_output = 0 : i32}) -> (tensor<3xf32>, tensor<3xf32>) {
  %0 = mhlo.negate %arg0 : tensor<3xf32>
  %1 = mhlo.abs %arg0 : tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}"""
    with pytest.raises(HiloError) as e:
        run_passes(text, "verify-aliasing")
    assert e.value.line == 3
    assert "'mhlo.abs' op reads argument #0 of @main after output 0" in e.value.message
    # legalize-alias first moves the write to the end: then it verifies.
    _, stats = run_passes(text, "legalize-alias,verify-aliasing")
    assert stats["aliasing-copies"] == 1 and stats["aliases-checked"] == 1


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


# --------------------------------------------------------------------------- 26a legalize-sra

SRA = """func.func @main(%a: tensor<8x{t}>, %b: tensor<8x{t}>) -> tensor<8x{t}> {{
  %0 = stablehlo.shift_right_arithmetic %a, %b : tensor<8x{t}>
  return %0 : tensor<8x{t}>
}}"""


@pytest.mark.parametrize("t,dt", [("ui8", np.uint8), ("ui16", np.uint16), ("ui32", np.uint32), ("ui64", np.uint64)])
def test_legalize_sra_bit_exact(t, dt):
    text = SRA.format(t=t)
    after, stats = run_passes(text, "legalize-sra")
    assert stats == {"sra-legalized": 1}
    assert "stablehlo.shift_right_arithmetic" in after and f"tensor<8x{t}>" in after
    bits = np.dtype(dt).itemsize * 8
    top = dt(1) << dt(bits - 1)
    a = np.array([top, top | dt(1), dt(16), ~dt(0) - dt(15), dt(7), top >> dt(1), dt(0), top], dtype=dt)
    b = np.array([1, 4, 2, bits - 1, bits, bits + 1, 3, ~dt(0)], dtype=dt)
    before_v, after_v = evaluate(text, [a, b]), evaluate(after, [a, b])
    bit_equal(before_v, after_v)
    # And the expected values: the bit pattern shifted as a signed integer.
    sdt = np.dtype(f"i{bits // 8}")
    want = (a.view(sdt) >> np.minimum(b, bits - 1).astype(sdt)).view(dt)
    np.testing.assert_array_equal(after_v[0], want)


# --------------------------------------------------------------------------- 26b legalize-scatter

SCATTER = """func.func @main(%x: tensor<6x{t}>, %i: tensor<{n}x1xi32>, %u: tensor<{n}x{t}>) -> tensor<6x{t}> {{
  %0 = "stablehlo.scatter"(%x, %i, %u) ({{
  ^bb0(%a: tensor<{t}>, %b: tensor<{t}>):
    {body}
  }}) {{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}} : (tensor<6x{t}>, tensor<{n}x1xi32>, tensor<{n}x{t}>) -> tensor<6x{t}>
  return %0 : tensor<6x{t}>
}}"""

BODIES = {
    "add": "%r = stablehlo.add %a, %b : tensor<{t}>\n    stablehlo.return %r : tensor<{t}>",
    "sub_swapped": "%r = stablehlo.subtract %b, %a : tensor<{t}>\n    stablehlo.return %r : tensor<{t}>",
    "mul": "%r = stablehlo.multiply %a, %b : tensor<{t}>\n    stablehlo.return %r : tensor<{t}>",
    "max": "%r = stablehlo.maximum %b, %a : tensor<{t}>\n    stablehlo.return %r : tensor<{t}>",
    "replace": "stablehlo.return %b : tensor<{t}>",
}


@pytest.mark.parametrize("t,dt", [("bf16", ml_dtypes.bfloat16), ("f16", np.float16)])
@pytest.mark.parametrize("body", sorted(BODIES))
def test_legalize_scatter_unique_indices_bit_exact(t, dt, body):
    text = SCATTER.format(t=t, n=4, body=BODIES[body].format(t=t))
    after, stats = run_passes(text, "legalize-scatter")
    assert stats == {"scatters-legalized": 1}
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(6) * 3).astype(np.float32).astype(dt)
    u = (rng.standard_normal(4) * 3).astype(np.float32).astype(dt)
    idx = np.array([[4], [0], [2], [5]], np.int32)
    bit_equal(evaluate(text, [x, idx, u]), evaluate(after, [x, idx, u]))


def test_legalize_scatter_colliding_updates_accumulate_in_f32():
    text = SCATTER.format(t="bf16", n=6, body=BODIES["add"].format(t="bf16"))
    after, _ = run_passes(text, "legalize-scatter")
    x = np.array([256, 1, 2, 3, 4, 5], np.float32).astype(ml_dtypes.bfloat16)
    u = np.ones(6, np.float32).astype(ml_dtypes.bfloat16)
    idx = np.zeros((6, 1), np.int32)  # six +1 updates into element 0
    got = evaluate(after, [x, idx, u])[0]
    want = x.astype(np.float32)
    want[0] += np.float32(6)  # f32 accumulation, rounded once
    np.testing.assert_array_equal(got, want.astype(ml_dtypes.bfloat16))
    # In bf16 each 256 + 1 rounds back to 256: the narrow scatter loses all six.
    assert float(evaluate(text, [x, idx, u])[0][0]) == 256.0
    assert float(got[0]) == 262.0


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
