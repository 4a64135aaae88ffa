// RUN: hilo-opt %s --split-input-file --stablehlo-memcast-motion | FileCheck %s
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,memcast-motion)' | FileCheck %s --check-prefix=MHLO

// bf16 -> f32 sinks below the reshape and the transpose: both move bf16 data.
// CHECK-LABEL: func.func @chain
// CHECK-NEXT: %[[R:.*]] = stablehlo.reshape %arg0 : (tensor<2x6xbf16>) -> tensor<3x4xbf16>
// CHECK-NEXT: %[[T:.*]] = stablehlo.transpose %[[R]], dims = [1, 0] : (tensor<3x4xbf16>) -> tensor<4x3xbf16>
// CHECK-NEXT: %[[C:.*]] = stablehlo.convert %[[T]] : (tensor<4x3xbf16>) -> tensor<4x3xf32>
// CHECK-NEXT: return %[[C]]
// MHLO-LABEL: func.func @chain
// MHLO-NEXT: mhlo.reshape %arg0 : (tensor<2x6xbf16>) -> tensor<3x4xbf16>
// MHLO-NEXT: mhlo.transpose{{.*}}(tensor<3x4xbf16>) -> tensor<4x3xbf16>
// MHLO-NEXT: mhlo.convert {{.*}} : (tensor<4x3xbf16>) -> tensor<4x3xf32>
// MHLO-NEXT: return
func.func @chain(%x: tensor<2x6xbf16>) -> tensor<4x3xf32> {
  %c = stablehlo.convert %x : (tensor<2x6xbf16>) -> tensor<2x6xf32>
  %r = stablehlo.reshape %c : (tensor<2x6xf32>) -> tensor<3x4xf32>
  %t = stablehlo.transpose %r, dims = [1, 0] : (tensor<3x4xf32>) -> tensor<4x3xf32>
  return %t : tensor<4x3xf32>
}

// -----

// broadcast_in_dim and slice; the convert's other user keeps the original convert.
// CHECK-LABEL: func.func @fanout
// CHECK-DAG: %[[C:.*]] = stablehlo.convert %arg0 : (tensor<4xi8>) -> tensor<4xi32>
// CHECK-DAG: %[[B:.*]] = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<4xi8>) -> tensor<2x4xi8>
// CHECK-DAG: %[[S:.*]] = stablehlo.slice %arg0 [1:3] : (tensor<4xi8>) -> tensor<2xi8>
// CHECK-DAG: stablehlo.convert %[[B]] : (tensor<2x4xi8>) -> tensor<2x4xi32>
// CHECK-DAG: stablehlo.convert %[[S]] : (tensor<2xi8>) -> tensor<2xi32>
// CHECK-DAG: stablehlo.add %[[C]], %[[C]]
// MHLO-LABEL: func.func @fanout
// MHLO-DAG: mhlo.broadcast_in_dim{{.*}}(tensor<4xi8>) -> tensor<2x4xi8>
// MHLO-DAG: mhlo.slice{{.*}}(tensor<4xi8>) -> tensor<2xi8>
func.func @fanout(%x: tensor<4xi8>) -> (tensor<2x4xi32>, tensor<2xi32>, tensor<4xi32>) {
  %c = stablehlo.convert %x : (tensor<4xi8>) -> tensor<4xi32>
  %b = stablehlo.broadcast_in_dim %c, dims = [1] : (tensor<4xi32>) -> tensor<2x4xi32>
  %s = stablehlo.slice %c [1:3] : (tensor<4xi32>) -> tensor<2xi32>
  %a = stablehlo.add %c, %c : tensor<4xi32>
  return %b, %s, %a : tensor<2x4xi32>, tensor<2xi32>, tensor<4xi32>
}

// -----

// A narrowing convert, and a widening convert feeding compute: unchanged.
// CHECK-LABEL: func.func @stay
// CHECK-NEXT: stablehlo.convert %arg0 : (tensor<2x6xf32>) -> tensor<2x6xbf16>
// CHECK-NEXT: stablehlo.reshape
// CHECK-NEXT: stablehlo.convert %arg1 : (tensor<4xf16>) -> tensor<4xf32>
// CHECK-NEXT: stablehlo.exponential
// CHECK-NEXT: return
// MHLO-LABEL: func.func @stay
// MHLO-NEXT: mhlo.convert %arg0 : (tensor<2x6xf32>) -> tensor<2x6xbf16>
// MHLO-NEXT: mhlo.reshape
// MHLO-NEXT: mhlo.convert %arg1
// MHLO-NEXT: mhlo.exponential
func.func @stay(%x: tensor<2x6xf32>, %y: tensor<4xf16>) -> (tensor<12xbf16>, tensor<4xf32>) {
  %c = stablehlo.convert %x : (tensor<2x6xf32>) -> tensor<2x6xbf16>
  %r = stablehlo.reshape %c : (tensor<2x6xbf16>) -> tensor<12xbf16>
  %w = stablehlo.convert %y : (tensor<4xf16>) -> tensor<4xf32>
  %e = stablehlo.exponential %w : tensor<4xf32>
  return %r, %e : tensor<12xbf16>, tensor<4xf32>
}
