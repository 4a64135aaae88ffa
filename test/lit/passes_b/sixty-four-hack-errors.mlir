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
