// RUN: hilo-opt %s --split-input-file --identify-cross-pass-tensors | FileCheck %s
// RUN: hilo-opt %s --split-input-file --stablehlo-identify-cross-pass-tensors | FileCheck %s --check-prefix=SHLO

// Live-ins and live-outs of a fusion and the arguments/results of a call.
// CHECK-LABEL: func.func @main(%arg0: tensor<4xf32> {neuron.CrossPassTensor}, %arg1: tensor<4xf32>)
// CHECK: %[[A:.*]] = mhlo.add %arg1, %arg1 {neuron.CrossPassTensor = array<i64: 0>}
// CHECK: %[[F:.*]] = "mhlo.fusion"(%arg0, %[[A]])
// CHECK: mhlo.multiply %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK: }) {FusionKind = "Elementwise", neuron.CrossPassTensor = array<i64: 0>}
// CHECK: %[[C:.*]]:2 = call @callee(%[[F]]) {neuron.CrossPassTensor = array<i64: 1>}
// CHECK: mhlo.negate %[[C]]#1 : tensor<4xf32>
// CHECK-NOT: neuron.CrossPassTensor
// CHECK-LABEL: func.func private @callee
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mhlo.add %b, %b : tensor<4xf32>
  %1 = "mhlo.fusion"(%a, %0) ({
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    %m = mhlo.multiply %x, %y : tensor<4xf32>
    mhlo.return %m : tensor<4xf32>
  }) {FusionKind = "Elementwise"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2:2 = func.call @callee(%1) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  %3 = mhlo.negate %2#1 : tensor<4xf32>
  return %3 : tensor<4xf32>
}
func.func private @callee(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  return %x, %x : tensor<4xf32>, tensor<4xf32>
}

// -----

// StableHLO: a composite's operand and used result.
// SHLO-LABEL: func.func @comp(%arg0: tensor<4xf32>)
// SHLO: %[[N:.*]] = stablehlo.negate %arg0 {neuron.CrossPassTensor = array<i64: 0>}
// SHLO: %[[C:.*]] = stablehlo.composite "neuron.Elementwise" %[[N]] {{{.*}}neuron.CrossPassTensor = array<i64: 0>{{.*}}}
// SHLO: stablehlo.abs %[[C]] : tensor<4xf32>
// SHLO-LABEL: func.func private @neuron.Elementwise.impl
// SHLO-NOT: neuron.CrossPassTensor
func.func @comp(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.negate %a : tensor<4xf32>
  %1 = stablehlo.composite "neuron.Elementwise" %0 {decomposition = @neuron.Elementwise.impl, version = 1 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = stablehlo.abs %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}
func.func private @neuron.Elementwise.impl(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.exponential %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Left alone: nothing crosses a boundary (and a stale stamp is dropped).
// CHECK-LABEL: func.func @plain(%arg0: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: mhlo.add %arg0, %arg0 : tensor<4xf32>
// CHECK-NEXT: return
// SHLO-LABEL: func.func @plain(%arg0: tensor<4xf32>) -> tensor<4xf32>
// SHLO-NEXT: mhlo.add %arg0, %arg0 : tensor<4xf32>
func.func @plain(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mhlo.add %a, %a {neuron.CrossPassTensor = array<i64: 0>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}
