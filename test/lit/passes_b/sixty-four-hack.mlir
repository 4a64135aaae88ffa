// RUN: hilo-opt %s --split-input-file --stablehlo-sixty-four-hack | FileCheck %s
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,sixty-four-hack)' | FileCheck %s --check-prefix=MHLO

// Arguments, results, constants (splat and not), iota, convert, compare,
// reduce bodies, tuples and calls: every 64-bit integer tensor becomes 32-bit.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%arg0: tensor<4xi32>, %arg1: tensor<2xui32>, %arg2: tensor<4xf32>) -> (tensor<i32>, tuple<tensor<2xui32>, tensor<i1>>, tensor<4xi32>)
// CHECK-DAG: stablehlo.constant dense<[1, -2, 3, 2147483647]> : tensor<4xi32>
// CHECK-DAG: stablehlo.constant dense<4294967295> : tensor<2xui32>
// CHECK-DAG: stablehlo.iota dim = 0 : tensor<4xi32>
// CHECK-DAG: stablehlo.convert %arg2 : (tensor<4xf32>) -> tensor<4xi32>
// CHECK-DAG: applies stablehlo.add across dimensions = [0] : (tensor<4xi32>, tensor<i32>) -> tensor<i32>
// CHECK-DAG: stablehlo.compare GT, {{.*}} : (tensor<i32>, tensor<i32>) -> tensor<i1>
// CHECK-DAG: call @twice({{.*}}) : (tensor<4xi32>) -> tensor<4xi32>
// CHECK-LABEL: func.func private @twice
// CHECK-SAME: (%arg0: tensor<4xi32>) -> tensor<4xi32>
// MHLO-LABEL: func.func @main
// MHLO-SAME: (%arg0: tensor<4xi32>, %arg1: tensor<2xui32>, %arg2: tensor<4xf32>) -> (tensor<i32>, tuple<tensor<2xui32>, tensor<i1>>, tensor<4xi32>)
// MHLO-NOT: xi64>
// MHLO-NOT: tensor<i64>
// MHLO-NOT: xui64>
// MHLO: func.func private @twice
func.func @main(%a: tensor<4xi64>, %u: tensor<2xui64>, %f: tensor<4xf32>) -> (tensor<i64>, tuple<tensor<2xui64>, tensor<i1>>, tensor<4xi64>) {
  %c = stablehlo.constant dense<[1, -2, 3, 2147483647]> : tensor<4xi64>
  %us = stablehlo.constant dense<4294967295> : tensor<2xui64>
  %i = stablehlo.iota dim = 0 : tensor<4xi64>
  %fc = stablehlo.convert %f : (tensor<4xf32>) -> tensor<4xi64>
  %0 = stablehlo.add %a, %c : tensor<4xi64>
  %1 = stablehlo.add %0, %i : tensor<4xi64>
  %2 = stablehlo.add %1, %fc : tensor<4xi64>
  %z = stablehlo.constant dense<0> : tensor<i64>
  %r = stablehlo.reduce(%2 init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
  %cmp = stablehlo.compare GT, %r, %z : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %u2 = stablehlo.and %u, %us : tensor<2xui64>
  %t = stablehlo.tuple %u2, %cmp : tuple<tensor<2xui64>, tensor<i1>>
  %tw = func.call @twice(%2) : (tensor<4xi64>) -> tensor<4xi64>
  return %r, %t, %tw : tensor<i64>, tuple<tensor<2xui64>, tensor<i1>>, tensor<4xi64>
}
func.func private @twice(%x: tensor<4xi64>) -> tensor<4xi64> {
  %0 = stablehlo.add %x, %x : tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// Index attributes are not tensors and stay 64-bit (MHLO keeps its
// dense<...> : tensor<2xi64> permutation); no i64 value: unchanged.
// CHECK-LABEL: func.func @indices_stay
// CHECK-NEXT: stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-NEXT: stablehlo.slice
// MHLO-LABEL: func.func @indices_stay
// MHLO-NEXT: permutation = dense<[1, 0]> : tensor<2xi64>
// MHLO-NEXT: start_indices = dense<0> : tensor<2xi64>
func.func @indices_stay(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %s = stablehlo.slice %t [0:2, 0:2] : (tensor<3x2xf32>) -> tensor<2x2xf32>
  return %s : tensor<2x2xf32>
}
