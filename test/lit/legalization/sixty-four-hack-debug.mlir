// RUN: hilo-opt %s --split-input-file --stablehlo-sixty-four-hack --debug 2>&1 >/dev/null | FileCheck %s
// RUN: hilo-opt %s --split-input-file --stablehlo-sixty-four-hack | FileCheck %s --check-prefix=IR
// RUN: hilo2penguin %s -o %t --debug 2>&1 | FileCheck %s --check-prefix=DRV

// --debug lists where 64-bit values the range analysis cannot bound to 32
// bits arise (they are narrowed anyway and wrap at run time): entry
// arguments, an op whose operands are bounded but whose result may not be
// (a product of two i32 values), a loop-carried value the fixed point
// widened; then how many ops use such values.
// CHECK: [stablehlo-sixty-four-hack] narrowed without a proof: argument #0 of @main (tensor<4xi64>) may hold [-9223372036854775808, 9223372036854775807]; i32 holds [-2147483648, 2147483647]
// CHECK-NEXT: narrowed without a proof: 'stablehlo.multiply' at {{.*}}sixty-four-hack-debug.mlir:25:8: result #0 (tensor<4xi64>) may lie in [-4611686016279904256, 4611686018427387904]
// CHECK-NEXT: narrowed without a proof: 'stablehlo.while' at {{.*}}sixty-four-hack-debug.mlir:30:10: result #1 (tensor<4xui64>) may lie in [0, 18446744073709551615]; ui32 holds [0, 4294967295]
// CHECK-NEXT: narrowed without a proof: 5 more op(s) take the unbounded 64-bit values above as operands
// CHECK-NOT: without a proof
// IR-LABEL: func.func @main
// IR-SAME: (%arg0: tensor<4xi32>, %arg1: tensor<4xi32>, %arg2: tensor<i32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi1>, tensor<4xui32>, tensor<4xi32>)
// IR-LABEL: func.func @bounded
// DRV: [sixty-four-hack] narrowed without a proof: argument #0 of @main (tensor<4xi64>)
// DRV: [sixty-four-hack] narrowed without a proof: 'mhlo.multiply' at {{.*}}sixty-four-hack-debug.mlir:25:8
// DRV: [sixty-four-hack] narrowed without a proof: 'mhlo.while' at {{.*}}sixty-four-hack-debug.mlir:30:10
// DRV: [sixty-four-hack] narrowed without a proof: 5 more op(s)
// DRV: wrote {{.*}}penguin.py
func.func @main(%a: tensor<4xi64>, %b: tensor<4xi32>, %n: tensor<i32>) -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi1>, tensor<4xui64>, tensor<4xi64>) {
  %w = stablehlo.convert %b : (tensor<4xi32>) -> tensor<4xi64>
  %m = stablehlo.multiply %w, %w : tensor<4xi64>
  %s = stablehlo.add %a, %w : tensor<4xi64>
  %c = stablehlo.compare LT, %s, %m : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  %z = stablehlo.iota dim = 0 : tensor<4xui64>
  %i0 = stablehlo.constant dense<0> : tensor<i32>
  %l:2 = stablehlo.while(%i = %i0, %x = %z) : tensor<i32>, tensor<4xui64>
   cond {
    %cc = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %cc : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    %k = stablehlo.constant dense<3> : tensor<4xui64>
    %x2 = stablehlo.add %x, %k : tensor<4xui64>
    stablehlo.return %i2, %x2 : tensor<i32>, tensor<4xui64>
  }
  %d = stablehlo.convert %b : (tensor<4xi32>) -> tensor<4xi64>
  return %m, %s, %c, %l#1, %d : tensor<4xi64>, tensor<4xi64>, tensor<4xi1>, tensor<4xui64>, tensor<4xi64>
}

// -----

// Everything bounded: nothing listed.
func.func @bounded(%b: tensor<4xi32>) -> tensor<4xi64> {
  %w = stablehlo.convert %b : (tensor<4xi32>) -> tensor<4xi64>
  %m = stablehlo.constant dense<255> : tensor<4xi64>
  %0 = stablehlo.and %w, %m : tensor<4xi64>
  %1 = stablehlo.multiply %0, %0 : tensor<4xi64>
  return %1 : tensor<4xi64>
}
