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
