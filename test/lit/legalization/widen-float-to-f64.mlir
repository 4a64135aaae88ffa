// RUN: hilo-opt %s --split-input-file --stablehlo-widen-float-to-f64 | FileCheck %s
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,widen-float-to-f64)' | FileCheck %s --check-prefix=MHLO

// Signature, arithmetic, a bf16 -> f32 convert, a reduce body: every f32/bf16 type becomes f64;
// the f32 constant keeps its value and type and an exact convert to f64 takes over its uses.
// CHECK-LABEL: func.func @arith
// CHECK-SAME: (%arg0: tensor<4xf64>, %arg1: tensor<4xf64>, %arg2: tensor<4xi32>) -> (tensor<4xf64>, tensor<f64>, tensor<4xi32>)
// CHECK-NEXT: %[[C:.*]] = stablehlo.constant dense<[1.500000e+00, 2.000000e+00, 3.000000e+00, 1.000000e-01]> : tensor<4xf32>
// CHECK-NEXT: %[[CW:.*]] = stablehlo.convert %[[C]] : (tensor<4xf32>) -> tensor<4xf64>
// CHECK-NEXT: %[[ADD:.*]] = stablehlo.add %arg0, %[[CW]] : tensor<4xf64>
// CHECK-NEXT: %[[B:.*]] = stablehlo.convert %arg1 : tensor<4xf64>
// CHECK-NEXT: %[[MUL:.*]] = stablehlo.multiply %[[ADD]], %[[B]] : tensor<4xf64>
// CHECK-NEXT: %[[Z:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[ZW:.*]] = stablehlo.convert %[[Z]] : (tensor<f32>) -> tensor<f64>
// CHECK-NEXT: %[[R:.*]] = stablehlo.reduce(%[[MUL]] init: %[[ZW]]) applies stablehlo.add across dimensions = [0] : (tensor<4xf64>, tensor<f64>) -> tensor<f64>
// CHECK-NEXT: return %[[MUL]], %[[R]], %arg2 : tensor<4xf64>, tensor<f64>, tensor<4xi32>
// MHLO-LABEL: func.func @arith
// MHLO-SAME: -> (tensor<4xf64>, tensor<f64>, tensor<4xi32>)
// MHLO: mhlo.constant dense<{{.*}}> : tensor<4xf32>
// MHLO-NEXT: mhlo.convert %{{.*}} : (tensor<4xf32>) -> tensor<4xf64>
// MHLO-NOT: xf32>
func.func @arith(%a: tensor<4xf32>, %b: tensor<4xbf16>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<f32>, tensor<4xi32>) {
  %c = stablehlo.constant dense<[1.5, 2.0, 3.0, 0.1]> : tensor<4xf32>
  %0 = stablehlo.add %a, %c : tensor<4xf32>
  %1 = stablehlo.convert %b : (tensor<4xbf16>) -> tensor<4xf32>
  %2 = stablehlo.multiply %0, %1 : tensor<4xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%2 init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %2, %r, %i : tensor<4xf32>, tensor<f32>, tensor<4xi32>
}

// -----

// bitcast_convert keeps its f32 -> i32 meaning: its widened operand is converted back to f32 first.
// CHECK-LABEL: func.func @bitcast
// CHECK-SAME: (%arg0: tensor<2xf64>) -> (tensor<2xi32>, tensor<2xf64>)
// CHECK-NEXT: %[[N:.*]] = stablehlo.negate %arg0 : tensor<2xf64>
// CHECK-NEXT: %[[BACK:.*]] = stablehlo.convert %[[N]] : (tensor<2xf64>) -> tensor<2xf32>
// CHECK-NEXT: %[[BC:.*]] = stablehlo.bitcast_convert %[[BACK]] : (tensor<2xf32>) -> tensor<2xi32>
// CHECK-NEXT: %[[BF:.*]] = stablehlo.bitcast_convert %[[BC]] : (tensor<2xi32>) -> tensor<2xf32>
// CHECK-NEXT: %[[BFW:.*]] = stablehlo.convert %[[BF]] : (tensor<2xf32>) -> tensor<2xf64>
// CHECK-NEXT: return %[[BC]], %[[BFW]]
// MHLO-LABEL: func.func @bitcast
// MHLO: mhlo.convert %{{.*}} : (tensor<2xf64>) -> tensor<2xf32>
// MHLO-NEXT: mhlo.bitcast_convert
func.func @bitcast(%a: tensor<2xf32>) -> (tensor<2xi32>, tensor<2xf32>) {
  %0 = stablehlo.negate %a : tensor<2xf32>
  %1 = stablehlo.bitcast_convert %0 : (tensor<2xf32>) -> tensor<2xi32>
  %2 = stablehlo.bitcast_convert %1 : (tensor<2xi32>) -> tensor<2xf32>
  return %1, %2 : tensor<2xi32>, tensor<2xf32>
}

// -----

// Negative: integer and f64 programs are left exactly as they are.
// CHECK-LABEL: func.func @untouched
// CHECK-SAME: (%arg0: tensor<3xi32>, %arg1: tensor<3xf64>) -> (tensor<3xi32>, tensor<3xf64>)
// CHECK-NEXT: %[[C:.*]] = stablehlo.constant dense<2> : tensor<3xi32>
// CHECK-NEXT: %[[M:.*]] = stablehlo.multiply %arg0, %[[C]] : tensor<3xi32>
// CHECK-NEXT: %[[A:.*]] = stablehlo.add %arg1, %arg1 : tensor<3xf64>
// CHECK-NEXT: return %[[M]], %[[A]]
// CHECK-NOT: convert
// MHLO-LABEL: func.func @untouched
// MHLO-NOT: convert
func.func @untouched(%a: tensor<3xi32>, %b: tensor<3xf64>) -> (tensor<3xi32>, tensor<3xf64>) {
  %c = stablehlo.constant dense<2> : tensor<3xi32>
  %0 = stablehlo.multiply %a, %c : tensor<3xi32>
  %1 = stablehlo.add %b, %b : tensor<3xf64>
  return %0, %1 : tensor<3xi32>, tensor<3xf64>
}
