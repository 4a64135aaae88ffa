"""Per-op tests of the numpy reference backend (issue 5 item 8).

Each case is a small StableHLO module. It is printed by both printer twins
(stablehlo as is; mhlo after ``stablehlo-legalize-to-hlo``), executed by
``hilo_mlir.penguin_ref`` and compared with ``hilo_mlir.testing.evaluate``
(the StableHLO reference interpreter): bit for bit, or within a stated number
of ulps for transcendental functions (numpy's libm vs the interpreter's).
Where the interpreter cannot run a case (integer division by zero traps it),
the expected values are XLA's, written out.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from penguin_ref_util import check

BF16 = ml_dtypes.bfloat16
rng = np.random.default_rng(1234)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


# ------------------------------------------------------------------------------------- elementwise

BINARY_F32 = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "remainder"]


@pytest.mark.parametrize("op", BINARY_F32)
def test_binary_f32_bit_exact(op):
    text = f"""
func.func @main(%a: tensor<3x5xf32>, %b: tensor<3x5xf32>) -> tensor<3x5xf32> {{
  %0 = stablehlo.{op} %a, %b : tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}}"""
    a, b = f32(3, 5), f32(3, 5)
    a[0, 0], b[0, 1] = np.nan, np.inf
    check(text, [a, b])


@pytest.mark.parametrize("op,ulps", [("power", 2), ("atan2", 2)])
def test_binary_f32_transcendental(op, ulps):
    text = f"""
func.func @main(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {{
  %0 = stablehlo.{op} %a, %b : tensor<8xf32>
  return %0 : tensor<8xf32>
}}"""
    check(text, [np.abs(f32(8)) + 0.5, f32(8)], ulps=ulps)


UNARY_F32 = [
    ("abs", 0),
    ("negate", 0),
    ("sqrt", 0),
    ("rsqrt", 1),
    ("exponential", 1),
    ("log", 1),
    ("exponential_minus_one", 1),
    ("log_plus_one", 1),
    ("tanh", 1),
    ("logistic", 1),
    ("sine", 1),
    ("cosine", 1),
    ("tan", 2),
    ("cbrt", 1),
    ("floor", 0),
    ("ceil", 0),
    ("round_nearest_even", 0),
    ("round_nearest_afz", 0),
    ("sign", 0),
]


@pytest.mark.parametrize("op,ulps", UNARY_F32)
def test_unary_f32(op, ulps):
    text = f"""
func.func @main(%a: tensor<12xf32>) -> tensor<12xf32> {{
  %0 = stablehlo.{op} %a : tensor<12xf32>
  return %0 : tensor<12xf32>
}}"""
    a = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.0, -0.0, 3.7, 0.25, 7.0, 1e-3, 0.49999997], np.float32)
    if op in ("sqrt", "rsqrt", "log", "cbrt", "log_plus_one"):
        a = np.abs(a) + np.float32(0.125)
    check(text, [a], ulps=ulps)


@pytest.mark.parametrize("op", ["add", "multiply", "divide", "subtract", "maximum"])
def test_binary_bf16_rounds_per_op(op):
    text = f"""
func.func @main(%a: tensor<16xbf16>, %b: tensor<16xbf16>) -> tensor<16xbf16> {{
  %0 = stablehlo.{op} %a, %b : tensor<16xbf16>
  return %0 : tensor<16xbf16>
}}"""
    check(text, [f32(16).astype(BF16), f32(16).astype(BF16)])


@pytest.mark.parametrize("op", ["exponential", "tanh", "logistic", "rsqrt"])
def test_unary_bf16(op):
    text = f"""
func.func @main(%a: tensor<16xbf16>) -> tensor<16xbf16> {{
  %0 = stablehlo.{op} %a : tensor<16xbf16>
  return %0 : tensor<16xbf16>
}}"""
    a = f32(16)
    if op == "rsqrt":
        a = np.abs(a) + 0.25
    a = a.astype(BF16)
    expected = None
    if op == "logistic":
        # the interpreter evaluates bf16 logistic as 1/(1+exp(-x)) rounding each step to bf16 (1 ulp off
        # here); XLA (what JAX runs) computes in f32 and rounds once, as the backend does
        from hilo_mlir.testing import evaluate_xla

        expected = evaluate_xla(text, [a])
    check(text, [a], expected=expected)


def test_integer_wraparound_and_truncating_division():
    text = """
func.func @main(%a: tensor<5xi32>, %b: tensor<5xi32>) -> (tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>) {
  %0 = stablehlo.add %a, %b : tensor<5xi32>
  %1 = stablehlo.multiply %a, %b : tensor<5xi32>
  %2 = stablehlo.divide %a, %b : tensor<5xi32>
  %3 = stablehlo.remainder %a, %b : tensor<5xi32>
  %4 = stablehlo.negate %a : tensor<5xi32>
  return %0, %1, %2, %3, %4 : tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>
}"""
    a = np.array([2147483647, -7, 7, -7, -2147483648], np.int32)
    b = np.array([1, 2, -2, -2, 3], np.int32)
    out = check(text, [a, b])
    assert out[0][0] == -2147483648 and list(out[2]) == [2147483647, -3, -3, 3, -715827882]
    assert list(out[3]) == [0, -1, 1, -1, -2]


def test_integer_division_by_zero_matches_xla():
    # the reference interpreter traps on x/0; these are XLA CPU's results (x/0 = -1, x%0 = x,
    # INT_MIN/-1 = INT_MIN, INT_MIN%-1 = 0; unsigned x/0 = all ones)
    text = """
func.func @main(%a: tensor<4xi32>, %b: tensor<4xi32>, %c: tensor<2xui8>, %d: tensor<2xui8>) -> (tensor<4xi32>, tensor<4xi32>, tensor<2xui8>, tensor<2xui8>) {
  %0 = stablehlo.divide %a, %b : tensor<4xi32>
  %1 = stablehlo.remainder %a, %b : tensor<4xi32>
  %2 = stablehlo.divide %c, %d : tensor<2xui8>
  %3 = stablehlo.remainder %c, %d : tensor<2xui8>
  return %0, %1, %2, %3 : tensor<4xi32>, tensor<4xi32>, tensor<2xui8>, tensor<2xui8>
}"""
    ins = [
        np.array([5, -5, -2147483648, 0], np.int32),
        np.array([0, 0, -1, 0], np.int32),
        np.array([7, 9], np.uint8),
        np.array([0, 2], np.uint8),
    ]
    want = [
        np.array([-1, -1, -2147483648, -1], np.int32),
        np.array([5, -5, 0, 0], np.int32),
        np.array([255, 4], np.uint8),
        np.array([7, 1], np.uint8),
    ]
    check(text, ins, expected=want)


def test_shifts_beyond_bit_width():
    text = """
func.func @main(%a: tensor<6xi8>, %b: tensor<6xi8>) -> (tensor<6xi8>, tensor<6xi8>, tensor<6xi8>) {
  %0 = stablehlo.shift_left %a, %b : tensor<6xi8>
  %1 = stablehlo.shift_right_logical %a, %b : tensor<6xi8>
  %2 = stablehlo.shift_right_arithmetic %a, %b : tensor<6xi8>
  return %0, %1, %2 : tensor<6xi8>, tensor<6xi8>, tensor<6xi8>
}"""
    a = np.array([1, -128, 100, -3, 7, -1], np.int8)
    b = np.array([3, 1, 8, 9, -1, 7], np.int8)
    check(text, [a, b])


def test_bitwise_popcnt_clz_not():
    text = """
func.func @main(%a: tensor<5xi32>, %b: tensor<5xi32>, %p: tensor<5xi1>, %q: tensor<5xi1>) -> (tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi1>, tensor<5xi1>) {
  %0 = stablehlo.and %a, %b : tensor<5xi32>
  %1 = stablehlo.xor %a, %b : tensor<5xi32>
  %2 = stablehlo.not %a : tensor<5xi32>
  %3 = stablehlo.popcnt %a : tensor<5xi32>
  %4 = stablehlo.count_leading_zeros %a : tensor<5xi32>
  %5 = stablehlo.or %p, %q : tensor<5xi1>
  %6 = stablehlo.not %p : tensor<5xi1>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi1>, tensor<5xi1>
}"""
    a = np.array([0, 1, -1, 255, 1 << 20], np.int32)
    b = np.array([3, 3, 12345, -256, 7], np.int32)
    p = np.array([True, False, True, False, True])
    q = np.array([False, False, True, True, False])
    check(text, [a, b, p, q])


@pytest.mark.parametrize("direction", ["EQ", "NE", "LT", "LE", "GT", "GE"])
def test_compare_directions_with_nan(direction):
    text = f"""
func.func @main(%a: tensor<6xf32>, %b: tensor<6xf32>, %i: tensor<6xi32>, %j: tensor<6xi32>) -> (tensor<6xi1>, tensor<6xi1>, tensor<6xi1>) {{
  %0 = stablehlo.compare {direction}, %a, %b, FLOAT : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xi1>
  %1 = stablehlo.compare {direction}, %i, %j, SIGNED : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
  %2 = stablehlo.compare {direction}, %a, %b, TOTALORDER : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xi1>
  return %0, %1, %2 : tensor<6xi1>, tensor<6xi1>, tensor<6xi1>
}}"""
    a = np.array([1.0, np.nan, 2.0, -0.0, 3.0, np.nan], np.float32)
    b = np.array([1.0, 1.0, 1.0, 0.0, 4.0, np.nan], np.float32)
    i = np.array([1, -2, 3, 0, -5, 6], np.int32)
    j = np.array([1, 2, 3, -1, -4, 6], np.int32)
    from hilo_mlir.testing import evaluate, evaluate_xla

    # TOTALORDER (-NaN < -Inf < ... < -0 < +0 < ... < +Inf < +NaN): the interpreter treats it like FLOAT,
    # XLA (what JAX runs) implements the total order, as the backend does
    ins = [a, b, i, j]
    want = evaluate(text, ins)[:2] + [evaluate_xla(text, ins)[2]]
    assert want[2][3] == (direction in ("NE", "LT", "LE"))  # -0.0 < +0.0 in the total order
    check(text, ins, expected=want)


def test_select_and_clamp():
    text = """
func.func @main(%p: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>, %lo: tensor<f32>, %hi: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = stablehlo.select %p, %a, %b : tensor<4xi1>, tensor<4xf32>
  %1 = stablehlo.clamp %lo, %a, %hi : (tensor<f32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}"""
    check(text, [np.array([True, False, True, False]), f32(4), f32(4), np.float32(-0.5), np.abs(f32(4))])


def test_convert_rounding_and_saturation():
    text = """
func.func @main(%a: tensor<8xf32>, %i: tensor<3xi32>) -> (tensor<8xbf16>, tensor<8xi32>, tensor<8xi1>, tensor<8xui8>, tensor<3xf32>, tensor<3xi8>) {
  %0 = stablehlo.convert %a : (tensor<8xf32>) -> tensor<8xbf16>
  %1 = stablehlo.convert %a : (tensor<8xf32>) -> tensor<8xi32>
  %2 = stablehlo.convert %a : (tensor<8xf32>) -> tensor<8xi1>
  %3 = stablehlo.convert %a : (tensor<8xf32>) -> tensor<8xui8>
  %4 = stablehlo.convert %i : (tensor<3xi32>) -> tensor<3xf32>
  %5 = stablehlo.convert %i : (tensor<3xi32>) -> tensor<3xi8>
  return %0, %1, %2, %3, %4, %5 : tensor<8xbf16>, tensor<8xi32>, tensor<8xi1>, tensor<8xui8>, tensor<3xf32>, tensor<3xi8>
}"""
    # ties-to-even in bf16: 1 + 2^-8 rounds down, 1 + 3*2^-8 rounds up; truncation toward zero for ints
    a = np.array([1 + 2**-8, 1 + 3 * 2**-8, -2.7, 2.7, 0.0, -0.0, 200.5, 0.4], np.float32)
    i = np.array([16777217, -129, 300], np.int32)
    check(text, [a, i])


def test_convert_float_to_int_saturates_like_xla():
    text = """
func.func @main(%a: tensor<4xf32>) -> (tensor<4xi32>, tensor<4xui8>) {
  %0 = stablehlo.convert %a : (tensor<4xf32>) -> tensor<4xi32>
  %1 = stablehlo.convert %a : (tensor<4xf32>) -> tensor<4xui8>
  return %0, %1 : tensor<4xi32>, tensor<4xui8>
}"""
    a = np.array([np.nan, 3e9, -300.7, -3e9], np.float32)
    want = [np.array([0, 2147483647, -300, -2147483648], np.int32), np.array([0, 255, 0, 0], np.uint8)]
    check(text, [a], expected=want)


def test_bitcast_convert_and_is_finite():
    text = """
func.func @main(%a: tensor<4xf32>) -> (tensor<4xi32>, tensor<4xi1>, tensor<4x2xbf16>) {
  %0 = stablehlo.bitcast_convert %a : (tensor<4xf32>) -> tensor<4xi32>
  %1 = stablehlo.is_finite %a : (tensor<4xf32>) -> tensor<4xi1>
  %2 = stablehlo.bitcast_convert %a : (tensor<4xf32>) -> tensor<4x2xbf16>
  return %0, %1, %2 : tensor<4xi32>, tensor<4xi1>, tensor<4x2xbf16>
}"""
    check(text, [np.array([1.0, np.inf, -np.nan, -2.5], np.float32)])


# ------------------------------------------------------------------------------------- shape ops


def test_broadcast_reshape_transpose_reverse_iota():
    text = """
func.func @main(%a: tensor<2x3xf32>) -> (tensor<4x2x3xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x3xf32>, tensor<2x3xi32>) {
  %0 = stablehlo.broadcast_in_dim %a, dims = [1, 2] : (tensor<2x3xf32>) -> tensor<4x2x3xf32>
  %1 = stablehlo.reshape %a : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %2 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %3 = stablehlo.reverse %a, dims = [1] : tensor<2x3xf32>
  %4 = stablehlo.iota dim = 1 : tensor<2x3xi32>
  return %0, %1, %2, %3, %4 : tensor<4x2x3xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x3xf32>, tensor<2x3xi32>
}"""
    check(text, [f32(2, 3)])


def test_slice_dynamic_slice_dynamic_update_slice():
    text = """
func.func @main(%a: tensor<6x5xf32>, %i: tensor<i32>, %j: tensor<i32>, %u: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<3x2xf32>, tensor<6x5xf32>) {
  %0 = stablehlo.slice %a [1:5:2, 0:4:3] : (tensor<6x5xf32>) -> tensor<2x2xf32>
  %1 = stablehlo.dynamic_slice %a, %i, %j, sizes = [3, 2] : (tensor<6x5xf32>, tensor<i32>, tensor<i32>) -> tensor<3x2xf32>
  %2 = stablehlo.dynamic_update_slice %a, %u, %i, %j : (tensor<6x5xf32>, tensor<2x2xf32>, tensor<i32>, tensor<i32>) -> tensor<6x5xf32>
  return %0, %1, %2 : tensor<2x2xf32>, tensor<3x2xf32>, tensor<6x5xf32>
}"""
    # start indices out of range are clamped
    check(text, [f32(6, 5), np.int32(5), np.int32(-2), f32(2, 2)])
    check(text, [f32(6, 5), np.int32(2), np.int32(1), f32(2, 2)])


def test_concatenate_and_pad_with_negative_and_interior():
    text = """
func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>, %v: tensor<f32>) -> (tensor<2x4xf32>, tensor<4x6xf32>) {
  %0 = stablehlo.concatenate %a, %b, dim = 1 : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %1 = stablehlo.pad %a, %v, low = [1, -1], high = [0, 2], interior = [1, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<4x6xf32>
  return %0, %1 : tensor<2x4xf32>, tensor<4x6xf32>
}"""
    check(text, [f32(2, 3), f32(2, 1), np.float32(9.0)])


# ------------------------------------------------------------------------------------- reductions


def test_reduce_add_and_max():
    text = """
func.func @main(%a: tensor<3x4x5xf32>) -> (tensor<4xf32>, tensor<3x5xf32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %m = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0, 2] : (tensor<3x4x5xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = stablehlo.reduce(%a init: %m) applies stablehlo.maximum across dimensions = [1] : (tensor<3x4x5xf32>, tensor<f32>) -> tensor<3x5xf32>
  return %0, %1 : tensor<4xf32>, tensor<3x5xf32>
}"""
    check(text, [f32(3, 4, 5)], close=(1e-6, 1e-6))


def test_reduce_variadic_argmax_body():
    text = """
func.func @main(%a: tensor<3x6xf32>) -> (tensor<3xf32>, tensor<3xi32>) {
  %i = stablehlo.iota dim = 1 : tensor<3x6xi32>
  %m = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.reduce(%a init: %m), (%i init: %z) across dimensions = [1] : (tensor<3x6xf32>, tensor<3x6xi32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>)
    reducer(%x: tensor<f32>, %y: tensor<f32>) (%xi: tensor<i32>, %yi: tensor<i32>) {
      %gt = stablehlo.compare GT, %x, %y, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %eq = stablehlo.compare EQ, %x, %y, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %lt = stablehlo.compare LT, %xi, %yi, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %tie = stablehlo.and %eq, %lt : tensor<i1>
      %take = stablehlo.or %gt, %tie : tensor<i1>
      %v = stablehlo.select %take, %x, %y : tensor<i1>, tensor<f32>
      %k = stablehlo.select %take, %xi, %yi : tensor<i1>, tensor<i32>
      stablehlo.return %v, %k : tensor<f32>, tensor<i32>
    }
  return %0#0, %0#1 : tensor<3xf32>, tensor<3xi32>
}"""
    a = f32(3, 6)
    a[1, 2] = a[1, 4] = 10.0  # a tie: the lower index wins
    out = check(text, [a])
    assert out[1][1] == 2


def test_reduce_integer_multiply_wraps():
    text = """
func.func @main(%a: tensor<2x8xi32>) -> tensor<2xi32> {
  %one = stablehlo.constant dense<1> : tensor<i32>
  %0 = stablehlo.reduce(%a init: %one) applies stablehlo.multiply across dimensions = [1] : (tensor<2x8xi32>, tensor<i32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}"""
    check(text, [np.array([[1000] * 8, [-3, 5, 7, 11, 13, 17, 19, 23]], np.int32)])


def test_reduce_window_max_pool_and_dilated_sum():
    text = """
func.func @main(%a: tensor<1x5x6x2xf32>) -> (tensor<1x3x3x2xf32>, tensor<1x8x5x2xf32>) {
  %m = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%a, %m) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %r = stablehlo.maximum %x, %y : tensor<f32>
      stablehlo.return %r : tensor<f32>
  }) {window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>,
      padding = dense<[[0, 0], [1, 1], [1, 0], [0, 0]]> : tensor<4x2xi64>} : (tensor<1x5x6x2xf32>, tensor<f32>) -> tensor<1x3x3x2xf32>
  %1 = "stablehlo.reduce_window"(%a, %z) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %r = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %r : tensor<f32>
  }) {window_dimensions = array<i64: 1, 2, 2, 1>, base_dilations = array<i64: 1, 2, 1, 1>,
      window_dilations = array<i64: 1, 1, 2, 1>} : (tensor<1x5x6x2xf32>, tensor<f32>) -> tensor<1x8x4x2xf32>
  return %0, %1 : tensor<1x3x3x2xf32>, tensor<1x8x4x2xf32>
}""".replace("tensor<1x8x5x2xf32>) {", "tensor<1x8x4x2xf32>) {")
    check(text, [f32(1, 5, 6, 2)], close=(1e-6, 1e-6))


# ------------------------------------------------------------------------------------- dot / conv


def test_dot_general_batch_contracting_and_preferred_type():
    text = """
func.func @main(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %c: tensor<4x8xbf16>, %d: tensor<8x3xbf16>, %e: tensor<3x4xi8>, %f: tensor<4xi8>) -> (tensor<2x3x5xf32>, tensor<4x3xf32>, tensor<3xi32>) {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %1 = stablehlo.dot_general %c, %d, contracting_dims = [1] x [0] : (tensor<4x8xbf16>, tensor<8x3xbf16>) -> tensor<4x3xf32>
  %2 = stablehlo.dot_general %e, %f, contracting_dims = [1] x [0] : (tensor<3x4xi8>, tensor<4xi8>) -> tensor<3xi32>
  return %0, %1, %2 : tensor<2x3x5xf32>, tensor<4x3xf32>, tensor<3xi32>
}"""
    e = np.array([[127, 127, 127, 127], [-128, 1, 2, 3], [5, 6, 7, 8]], np.int8)
    f = np.array([127, 127, -128, 1], np.int8)
    ins = [f32(2, 3, 4), f32(2, 4, 5), f32(4, 8).astype(BF16), f32(8, 3).astype(BF16), e, f]
    check(text, ins, close=(1e-6, 1e-6))
    from penguin_ref_util import programs

    from hilo_mlir import penguin_ref

    got = penguin_ref.run(programs(text)["stablehlo"][0], ins)
    assert got[2].tolist() == [127 * 127 * 2 - 128 * 127 + 127, -128 * 127 + 127 - 256 + 3, 5 * 127 + 6 * 127 - 7 * 128 + 8]


def test_convolution_nhwc_stride_padding_dilation_groups():
    text = """
func.func @main(%x: tensor<2x7x6x4xf32>, %w: tensor<3x2x2x6xf32>) -> tensor<2x4x3x6xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
         window = {stride = [2, 2], pad = [[1, 1], [0, 1]], rhs_dilate = [1, 2]}
         {batch_group_count = 1 : i64, feature_group_count = 2 : i64}
       : (tensor<2x7x6x4xf32>, tensor<3x2x2x6xf32>) -> tensor<2x4x3x6xf32>
  return %0 : tensor<2x4x3x6xf32>
}"""
    check(text, [f32(2, 7, 6, 4), f32(3, 2, 2, 6)], close=(1e-5, 1e-6))


def test_convolution_lhs_dilation_nchw():
    text = """
func.func @main(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x7x7xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1],
         window = {pad = [[1, 1], [1, 1]], lhs_dilate = [2, 2]}
         {batch_group_count = 1 : i64, feature_group_count = 1 : i64}
       : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x7x7xf32>
  return %0 : tensor<1x3x7x7xf32>
}"""
    check(text, [f32(1, 2, 4, 4), f32(3, 2, 3, 3)], close=(1e-5, 1e-6))


# ------------------------------------------------------------------------------------- gather / scatter / sort


def test_gather_rows_take():
    text = """
func.func @main(%a: tensor<5x3xf32>, %i: tensor<4x1xi32>) -> tensor<4x3xf32> {
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>, indices_are_sorted = false} : (tensor<5x3xf32>, tensor<4x1xi32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}"""
    check(text, [f32(5, 3), np.array([[4], [0], [2], [9]], np.int32)])  # 9 is clamped to 4


def test_gather_2d_windows():
    text = """
func.func @main(%a: tensor<4x5x2xf32>, %i: tensor<3x2xi32>) -> tensor<3x2x3x2xf32> {
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1, 2, 3], start_index_map = [0, 1], index_vector_dim = 1>, slice_sizes = array<i64: 2, 3, 2>, indices_are_sorted = false} : (tensor<4x5x2xf32>, tensor<3x2xi32>) -> tensor<3x2x3x2xf32>
  return %0 : tensor<3x2x3x2xf32>
}"""
    check(text, [f32(4, 5, 2), np.array([[0, 0], [2, 2], [3, 4]], np.int32)])


def test_scatter_add_with_repeated_indices_and_replace():
    text = """
func.func @main(%a: tensor<5x2xf32>, %i: tensor<4x1xi32>, %u: tensor<4x2xf32>) -> (tensor<5x2xf32>, tensor<5x2xf32>) {
  %0 = "stablehlo.scatter"(%a, %i, %u) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false} : (tensor<5x2xf32>, tensor<4x1xi32>, tensor<4x2xf32>) -> tensor<5x2xf32>
  %1 = "stablehlo.scatter"(%a, %i, %u) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      stablehlo.return %y : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false} : (tensor<5x2xf32>, tensor<4x1xi32>, tensor<4x2xf32>) -> tensor<5x2xf32>
  return %0, %1 : tensor<5x2xf32>, tensor<5x2xf32>
}"""
    # index 1 twice (added twice), index 7 out of bounds (skipped). The reference interpreter keeps only
    # the last update for the repeated index of the add-scatter; XLA adds both, as the spec says: XLA is
    # the oracle here.
    from hilo_mlir.testing import evaluate_xla

    ins = [f32(5, 2), np.array([[1], [3], [1], [7]], np.int32), f32(4, 2)]
    want = evaluate_xla(text, ins)
    np.testing.assert_allclose(want[0][1], ins[0][1] + ins[2][0] + ins[2][2], rtol=1e-6)
    check(text, ins, expected=want, close=(1e-6, 1e-7))
    got = check(text, ins[:2] + [np.ones((4, 2), np.float32)], expected=evaluate_xla(text, ins[:2] + [np.ones((4, 2), np.float32)]))
    # the two updates of index 1 are added one after the other, each rounded to f32 (as XLA does)
    assert got[1][1].tolist() == [1.0, 1.0] and got[0][1].tolist() == ((ins[0][1] + np.float32(1)) + np.float32(1)).tolist()


def test_sort_ascending_descending_and_two_keys():
    text = """
func.func @main(%a: tensor<2x6xf32>, %b: tensor<2x6xi32>) -> (tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x6xi32>) {
  %0 = "stablehlo.sort"(%a) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %c = stablehlo.compare LT, %x, %y, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
  }) {dimension = 1 : i64, is_stable = true} : (tensor<2x6xf32>) -> tensor<2x6xf32>
  %1:2 = "stablehlo.sort"(%a, %b) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>, %i: tensor<i32>, %j: tensor<i32>):
      %c = stablehlo.compare GT, %x, %y, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
  }) {dimension = 1 : i64, is_stable = true} : (tensor<2x6xf32>, tensor<2x6xi32>) -> (tensor<2x6xf32>, tensor<2x6xi32>)
  return %0, %1#0, %1#1 : tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x6xi32>
}"""
    a = np.array([[3, 1, 2, 1, -0.0, 0.0], [5, -1, 5, 2, np.inf, -np.inf]], np.float32)
    b = np.arange(12, dtype=np.int32).reshape(2, 6)
    out = check(text, [a, b])
    assert list(out[2][1]) == [10, 6, 8, 9, 7, 11]  # stable: equal keys keep their order


def test_sort_lexicographic_comparator():
    text = """
func.func @main(%a: tensor<7xi32>, %b: tensor<7xf32>) -> (tensor<7xi32>, tensor<7xf32>) {
  %0:2 = "stablehlo.sort"(%a, %b) ({
    ^bb0(%x: tensor<i32>, %y: tensor<i32>, %u: tensor<f32>, %v: tensor<f32>):
      %lt = stablehlo.compare LT, %x, %y, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %eq = stablehlo.compare EQ, %x, %y, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %gt2 = stablehlo.compare GT, %u, %v, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %t = stablehlo.and %eq, %gt2 : tensor<i1>
      %r = stablehlo.or %lt, %t : tensor<i1>
      stablehlo.return %r : tensor<i1>
  }) {dimension = 0 : i64, is_stable = false} : (tensor<7xi32>, tensor<7xf32>) -> (tensor<7xi32>, tensor<7xf32>)
  return %0#0, %0#1 : tensor<7xi32>, tensor<7xf32>
}"""
    check(text, [np.array([3, 1, 3, 2, 1, 3, 0], np.int32), np.array([1, 2, 3, 4, 5, 0, 7], np.float32)])


# ------------------------------------------------------------------------------------- control flow


def test_while_loop_accumulates():
    text = """
func.func @main(%x: tensor<3xf32>) -> (tensor<i32>, tensor<3xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.while(%i = %c0, %acc = %x) : tensor<i32>, tensor<3xf32>
    cond {
      %n = stablehlo.constant dense<5> : tensor<i32>
      %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %j = stablehlo.add %i, %one : tensor<i32>
      %y = stablehlo.multiply %acc, %x : tensor<3xf32>
      stablehlo.return %j, %y : tensor<i32>, tensor<3xf32>
    }
  return %0#0, %0#1 : tensor<i32>, tensor<3xf32>
}"""
    out = check(text, [np.array([1.5, -2.0, 0.5], np.float32)])
    assert out[0] == 5


def test_case_and_if():
    text = """
func.func @main(%k: tensor<i32>, %p: tensor<i1>, %x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = "stablehlo.case"(%k) ({
      %a = stablehlo.negate %x : tensor<2xf32>
      stablehlo.return %a : tensor<2xf32>
    }, {
      %b = stablehlo.exponential %x : tensor<2xf32>
      stablehlo.return %b : tensor<2xf32>
    }, {
      stablehlo.return %x : tensor<2xf32>
    }) : (tensor<i32>) -> tensor<2xf32>
  %1 = "stablehlo.if"(%p) ({
      %a = stablehlo.abs %x : tensor<2xf32>
      stablehlo.return %a : tensor<2xf32>
    }, {
      %b = stablehlo.add %x, %x : tensor<2xf32>
      stablehlo.return %b : tensor<2xf32>
    }) : (tensor<i1>) -> tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}"""
    x = np.array([0.5, -1.25], np.float32)
    for k, p in ((0, True), (1, False), (7, True), (-1, False)):  # out of range -> last branch
        check(text, [np.int32(k), np.bool_(p), x], ulps=1)


def test_large_constant_goes_through_npy_file():
    vals = ", ".join(str(float(i) * 0.5) for i in range(300))
    text = f"""
func.func @main(%a: tensor<300xf32>) -> tensor<300xf32> {{
  %c = stablehlo.constant dense<[{vals}]> : tensor<300xf32>
  %0 = stablehlo.add %a, %c : tensor<300xf32>
  return %0 : tensor<300xf32>
}}"""
    from penguin_ref_util import programs

    src, files = programs(text)["stablehlo"]
    assert "NpyFile(" in src and files, "the printer should have moved the constant to a .npy file"
    check(text, [f32(300)])


def test_bf16_large_constant_bit_patterns():
    vals = ", ".join(str(float(i) * 0.3) for i in range(300))
    text = f"""
func.func @main(%a: tensor<300xbf16>) -> tensor<300xbf16> {{
  %c = stablehlo.constant dense<[{vals}]> : tensor<300xbf16>
  %0 = stablehlo.multiply %a, %c : tensor<300xbf16>
  return %0 : tensor<300xbf16>
}}"""
    check(text, [f32(300).astype(BF16)])


@pytest.mark.parametrize(
    "strides,src_shape,pad",
    [
        ([1, 2, 2, 1], "1x2x3x1", "[[0, 0], [0, 0], [0, 1], [0, 0]]"),
        ([1, 1, 1, 1], "1x3x4x1", "[[0, 0], [0, 0], [0, 0], [0, 0]]"),  # overlapping windows: collisions add
    ],
)
def test_select_and_scatter_max_pool_gradient(strides, src_shape, pad):
    text = f"""
func.func @main(%op: tensor<1x4x5x1xf32>, %src: tensor<{src_shape}xf32>, %init: tensor<f32>) -> tensor<1x4x5x1xf32> {{
  %0 = "stablehlo.select_and_scatter"(%op, %src, %init) ({{
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %c = stablehlo.compare GE, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
  }}, {{
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }}) {{window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: {", ".join(map(str, strides))}>,
       padding = dense<{pad}> : tensor<4x2xi64>}} : (tensor<1x4x5x1xf32>, tensor<{src_shape}xf32>, tensor<f32>) -> tensor<1x4x5x1xf32>
  return %0 : tensor<1x4x5x1xf32>
}}"""
    op = np.round(f32(1, 4, 5, 1) * 4) / 4  # ties between window elements: the first (GE) wins
    src = np.round(f32(*[int(d) for d in src_shape.split("x")]) * 8) / 8
    # oracle: XLA. The reference interpreter's select_and_scatter disagrees with XLA where windows
    # overlap (it adds more than the selected sources), so it cannot be the oracle here.
    from hilo_mlir.testing import evaluate_xla

    ins = [op, src, np.float32(0.5)]
    want = evaluate_xla(text, ins)
    assert np.isclose(want[0].sum(), src.sum() + 0.5 * want[0].size)  # every source lands exactly once
    check(text, ins, expected=want)
