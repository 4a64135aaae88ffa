// RUN: hilo-opt %s --split-input-file --stablehlo-sixty-four-hack --verify-diagnostics
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,sixty-four-hack)' --verify-diagnostics
// RUN: not hilo-opt %s --split-input-file --stablehlo-sixty-four-hack 2>&1 | FileCheck %s

// An i64 constant that does not fit in i32 is an error at the constant.
// CHECK: sixty-four-hack-errors.mlir:9:{{[0-9]+}}: error: '{{.*}}constant' op i64 constant value 4294967296 does not fit in i32
func.func @too_big(%x: tensor<2xi64>) -> tensor<2xi64> {
  // expected-error@+1 {{i64 constant value 4294967296 does not fit in i32}}
  %c = stablehlo.constant dense<[1, 4294967296]> : tensor<2xi64>
  %0 = stablehlo.add %x, %c : tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

func.func @too_small(%x: tensor<2xi64>) -> tensor<2xi64> {
  // expected-error@+1 {{i64 constant value -2147483649 does not fit in i32}}
  %c = stablehlo.constant dense<-2147483649> : tensor<2xi64>
  %0 = stablehlo.add %x, %c : tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

func.func @ui64_too_big(%x: tensor<ui64>) -> tensor<ui64> {
  // expected-error@+1 {{ui64 constant value 18446744073709551615 does not fit in ui32}}
  %c = stablehlo.constant dense<18446744073709551615> : tensor<ui64>
  %0 = stablehlo.add %x, %c : tensor<ui64>
  return %0 : tensor<ui64>
}

// -----

func.func @bitcast(%x: tensor<2xf64>) -> tensor<2xi64> {
  // expected-error@+1 {{bitcast_convert tensor<2xf64> -> tensor<2xi64> cannot be narrowed to 32 bits}}
  %0 = stablehlo.bitcast_convert %x : (tensor<2xf64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// Bit-level ops on 64-bit integers change their result once narrowed
// (popcnt(-1): 64 vs 32; clz(1): 63 vs 31): an error, never a silent change.
func.func @popcnt64(%x: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error@+1 {{bit-level op on tensor<4xi64> gives different results once narrowed to 32 bits}}
  %0 = stablehlo.popcnt %x : tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @clz64(%x: tensor<4xui64>) -> tensor<4xui64> {
  // expected-error@+1 {{bit-level op on tensor<4xui64> gives different results once narrowed to 32 bits}}
  %0 = stablehlo.count_leading_zeros %x : tensor<4xui64>
  return %0 : tensor<4xui64>
}

// -----

func.func @srl64(%x: tensor<4xi64>, %s: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error@+1 {{bit-level op on tensor<4xi64> gives different results once narrowed to 32 bits}}
  %0 = stablehlo.shift_right_logical %x, %s : tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// The same ops on 32-bit integers are fine (nothing to narrow).
func.func @popcnt32(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = stablehlo.popcnt %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// Width-dependent ops that the value ranges do not prove equal at 32 bits: the
// message names the condition and the range proven.
func.func @srl_maybe_negative(%x: tensor<4xi32>) -> tensor<4xi64> {
  %xw = stablehlo.convert %x : (tensor<4xi32>) -> tensor<4xi64>
  %s = stablehlo.constant dense<40> : tensor<4xi64>
  // expected-error@+1 {{bit-level op on tensor<4xi64> gives different results once narrowed to 32 bits (operand #0 may be negative (it lies in [-2147483648, 2147483647]) and the shift amount in [40, 40] may be 1..63)}}
  %0 = stablehlo.shift_right_logical %xw, %s : tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @sra_unsigned_top_bit(%u: tensor<4xui32>) -> tensor<4xui64> {
  %uw = stablehlo.convert %u : (tensor<4xui32>) -> tensor<4xui64>
  %s = stablehlo.constant dense<1> : tensor<4xui64>
  // expected-error@+1 {{(operand #0 may reach 2^31 (it lies in [0, 4294967295]): its top bit would become the sign bit)}}
  %0 = stablehlo.shift_right_arithmetic %uw, %s : tensor<4xui64>
  return %0 : tensor<4xui64>
}

// -----

// (hi << 32) | lo builds a value above 32 bits: refused at the shift.
func.func @shl_builds_64_bits(%hi: tensor<4xui32>, %lo: tensor<4xui32>) -> tensor<4xui64> {
  %h = stablehlo.convert %hi : (tensor<4xui32>) -> tensor<4xui64>
  %l = stablehlo.convert %lo : (tensor<4xui32>) -> tensor<4xui64>
  %c32 = stablehlo.constant dense<32> : tensor<4xui64>
  // expected-error@+1 {{(result #0 is only known to lie in [0, 18446744069414584320]; ui32 holds [0, 4294967295])}}
  %s = stablehlo.shift_left %h, %c32 : tensor<4xui64>
  %0 = stablehlo.or %s, %l : tensor<4xui64>
  return %0 : tensor<4xui64>
}

// -----

func.func @popcnt_maybe_negative(%x: tensor<4xi32>) -> tensor<4xi64> {
  %xw = stablehlo.convert %x : (tensor<4xi32>) -> tensor<4xi64>
  // expected-error@+1 {{(operand #0 may be negative (it lies in [-2147483648, 2147483647]): 32 more one bits at 64 bits)}}
  %0 = stablehlo.popcnt %xw : tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @clz_non_negative() -> tensor<4xui64> {
  %i = stablehlo.iota dim = 0 : tensor<4xui64>
  // expected-error@+1 {{(operand #0 lies in [0, 3]: a non-negative value has 32 more leading zeros at 64 bits)}}
  %0 = stablehlo.count_leading_zeros %i : tensor<4xui64>
  return %0 : tensor<4xui64>
}

// -----

func.func @not_unsigned() -> tensor<4xui64> {
  %i = stablehlo.iota dim = 0 : tensor<4xui64>
  // expected-error@+1 {{(result #0 is only known to lie in [18446744073709551612, 18446744073709551615]; ui32 holds [0, 4294967295])}}
  %0 = stablehlo.not %i : tensor<4xui64>
  return %0 : tensor<4xui64>
}

// -----

// A loop counter without a bound in its body is widened to the full range.
func.func @srl_after_unbounded_loop(%n: tensor<i32>) -> tensor<4xui64> {
  %z = stablehlo.iota dim = 0 : tensor<4xui64>
  %i0 = stablehlo.constant dense<0> : tensor<i32>
  %w:2 = stablehlo.while(%i = %i0, %x = %z) : tensor<i32>, tensor<4xui64>
   cond {
    %c = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    %k = stablehlo.constant dense<7> : tensor<4xui64>
    %x2 = stablehlo.add %x, %k : tensor<4xui64>
    stablehlo.return %i2, %x2 : tensor<i32>, tensor<4xui64>
  }
  %c4 = stablehlo.constant dense<4> : tensor<4xui64>
  // expected-error@+1 {{(operand #0 is only known to lie in [0, 18446744073709551615]; ui32 holds [0, 4294967295])}}
  %r = stablehlo.shift_right_logical %w#1, %c4 : tensor<4xui64>
  return %r : tensor<4xui64>
}

// -----

// Out-of-range constants whose uses need the 64-bit value.
func.func @constant_returned() -> tensor<2xi64> {
  // expected-error@+1 {{i64 constant value 4294967296 does not fit in i32 (sixty-four-hack narrows 64-bit integers to 32 bits; its use by 'func.return' needs the 64-bit value: that op is not known to give the same low 32 bits from a narrowed operand)}}
  %c = stablehlo.constant dense<[1, 4294967296]> : tensor<2xi64>
  return %c : tensor<2xi64>
}

// -----

func.func @constant_min_unbounded(%x: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error@+1 {{minimum' needs the 64-bit value: operand #0 is only known to lie in [-9223372036854775808, 9223372036854775807]}}
  %c = stablehlo.constant dense<9223372036854775807> : tensor<4xi64>
  %0 = stablehlo.minimum %x, %c : tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// x < 2^40 is always true, but x < 2^31-1 is false for x = 2^31-1.
func.func @constant_compare_at_bound(%x: tensor<4xi32>) -> tensor<4xi1> {
  %xw = stablehlo.convert %x : (tensor<4xi32>) -> tensor<4xi64>
  // expected-error@+1 {{compare' needs the 64-bit value: the other operand lies in [-2147483648, 2147483647], up to the 32-bit bounds}}
  %c = stablehlo.constant dense<1099511627776> : tensor<4xi64>
  %0 = stablehlo.compare LT, %xw, %c : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @constant_two_readings(%x: tensor<4xi32>) -> (tensor<4xi64>, tensor<4xi64>) {
  %xw = stablehlo.convert %x : (tensor<4xi32>) -> tensor<4xi64>
  %m = stablehlo.constant dense<255> : tensor<4xi64>
  %small = stablehlo.and %xw, %m : tensor<4xi64>
  // expected-error@+1 {{its uses need both its value modulo 2^32 and its value saturated to 32 bits}}
  %c = stablehlo.constant dense<1099511627775> : tensor<4xi64>
  %0 = stablehlo.and %small, %c : tensor<4xi64>
  %1 = stablehlo.minimum %small, %c : tensor<4xi64>
  return %0, %1 : tensor<4xi64>, tensor<4xi64>
}

// -----

func.func @bitcast_range(%x: tensor<2xi32>) -> tensor<2xf64> {
  %xw = stablehlo.convert %x : (tensor<2xi32>) -> tensor<2xi64>
  // expected-error@+1 {{bitcast_convert tensor<2xi64> -> tensor<2xf64> cannot be narrowed to 32 bits by sixty-four-hack (operand values in [-2147483648, 2147483647])}}
  %0 = stablehlo.bitcast_convert %xw : (tensor<2xi64>) -> tensor<2xf64>
  return %0 : tensor<2xf64>
}

// -----

// A composite op reads the constant (its op view has a "name" attribute: the use is still named by its op)
func.func @constant_into_a_composite(%a: tensor<2xi64>) -> tensor<2xi64> {
  // expected-error@+1 {{composite' needs the 64-bit value: that op is not known to give the same low 32 bits from a narrowed operand}}
  %c = stablehlo.constant dense<9223372036854775807> : tensor<2xi64>
  %0 = stablehlo.composite "neuron.my_kind" %a, %c {decomposition = @dec} : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}
func.func private @dec(%x: tensor<2xi64>, %y: tensor<2xi64>) -> tensor<2xi64> {
  %0 = stablehlo.minimum %x, %y : tensor<2xi64>
  return %0 : tensor<2xi64>
}
