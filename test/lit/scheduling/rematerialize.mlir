// RUN: hilo-opt %s --split-input-file --rematerialize=distance=2 | FileCheck %s
// RUN: hilo-opt %s --split-input-file --hlo-legalize-to-stablehlo --stablehlo-rematerialize=distance=2 | FileCheck %s --check-prefix=SHLO
// RUN: hilo-opt %s --split-input-file --rematerialize | FileCheck %s --check-prefix=DEFAULT

// The broadcast of a constant and the iota are far from their last users:
// clones (stamped with the producer's number) are placed right before them;
// the near user keeps the original broadcast; the iota, with no user left, is erased.
// CHECK-LABEL: func.func @far
// CHECK: %[[C:.*]] = mhlo.constant dense<2.000000e+00> : tensor<f32>
// CHECK: %[[B:.*]] = "mhlo.broadcast_in_dim"(%[[C]])
// CHECK-NOT: mhlo.iota
// CHECK: %[[M0:.*]] = mhlo.multiply %arg0, %[[B]]
// CHECK: mhlo.exponential
// CHECK: mhlo.exponential
// CHECK: %[[I2:.*]] = "mhlo.iota"() <{iota_dimension = 0 : i64}> {neuron.remat.value = 3 : i64}
// CHECK-NEXT: %[[A:.*]] = mhlo.add %{{.*}}, %[[I2]]
// CHECK-NEXT: %[[C2:.*]] = mhlo.constant {neuron.remat.value = 2 : i64} dense<2.000000e+00>
// CHECK-NEXT: %[[B2:.*]] = "mhlo.broadcast_in_dim"(%[[C2]]) <{broadcast_dimensions = dense<> : tensor<0xi64>}> {neuron.remat.value = 2 : i64}
// CHECK-NEXT: mhlo.multiply %[[A]], %[[B2]]
// SHLO-LABEL: func.func @far
// SHLO: stablehlo.iota dim = 0 {neuron.remat.value = 3 : i64}
// SHLO: stablehlo.broadcast_in_dim %{{.*}}, dims = [] {neuron.remat.value = 2 : i64}
// DEFAULT-LABEL: func.func @far
// DEFAULT-NOT: neuron.remat.value
func.func @far(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c = mhlo.constant dense<2.0> : tensor<f32>
  %b = "mhlo.broadcast_in_dim"(%c) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>) -> tensor<4xf32>
  %i = "mhlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<4xf32>
  %0 = mhlo.multiply %a, %b : tensor<4xf32>
  %1 = mhlo.exponential %0 : tensor<4xf32>
  %2 = mhlo.exponential %1 : tensor<4xf32>
  %3 = mhlo.add %2, %i : tensor<4xf32>
  %4 = mhlo.multiply %3, %b : tensor<4xf32>
  return %4 : tensor<4xf32>
}

// -----

// A far region-holding user (the reduce's init): the clone goes right before
// it; the original constant has no user left and is erased.
// CHECK-LABEL: func.func @nested
// CHECK-NOT: mhlo.constant
// CHECK: mhlo.exponential
// CHECK: mhlo.exponential
// CHECK: mhlo.exponential
// CHECK: %[[K:.*]] = mhlo.constant {neuron.remat.value = 1 : i64} dense<1.000000e+00>
// CHECK-NEXT: mhlo.reduce(%{{.*}} init: %[[K]])
func.func @nested(%a: tensor<4xf32>) -> tensor<f32> {
  %k = mhlo.constant dense<1.0> : tensor<f32>
  %0 = mhlo.exponential %a : tensor<4xf32>
  %1 = mhlo.exponential %0 : tensor<4xf32>
  %2 = mhlo.exponential %1 : tensor<4xf32>
  %3 = mhlo.reduce(%2 init: %k) applies mhlo.multiply across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %3 : tensor<f32>
}

// -----

// Left alone: users are near, and non-cheap producers are never cloned.
// CHECK-LABEL: func.func @near
// CHECK-NOT: neuron.remat.value
// SHLO-LABEL: func.func @near
// SHLO-NOT: neuron.remat.value
func.func @near(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c = mhlo.constant dense<2.0> : tensor<4xf32>
  %e = mhlo.exponential %a : tensor<4xf32>
  %0 = mhlo.multiply %e, %c : tensor<4xf32>
  %1 = mhlo.exponential %0 : tensor<4xf32>
  %2 = mhlo.exponential %1 : tensor<4xf32>
  %3 = mhlo.add %2, %e : tensor<4xf32>
  return %3 : tensor<4xf32>
}
