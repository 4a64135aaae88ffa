// RUN: hilo-opt %s --split-input-file --call-inliner | FileCheck %s

// One call site: the body replaces the call, the private callee is erased.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[N:.*]] = stablehlo.negate %arg0
// CHECK-NEXT: %[[E:.*]] = stablehlo.exponential %[[N]]
// CHECK-NEXT: stablehlo.multiply %arg0, %[[E]]
// CHECK-NOT: call
// CHECK-NOT: @g
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @g(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @g(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.negate %a : tensor<4xf32>
  %1 = stablehlo.exponential %0 : tensor<4xf32>
  %2 = stablehlo.multiply %a, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// Two call sites, a nested call, and a reduce body that uses the callee's argument
// through its operand list: every copy reads the right values.
// CHECK-LABEL: func.func @main
// CHECK: %[[A:.*]] = stablehlo.add %arg0, %arg0
// CHECK: %[[R1:.*]] = stablehlo.reduce(%[[A]] init: %arg1)
// CHECK: %[[BC:.*]] = stablehlo.broadcast_in_dim %arg1
// CHECK: %[[B:.*]] = stablehlo.add %[[BC]], %[[BC]]
// CHECK: %[[R2:.*]] = stablehlo.reduce(%[[B]] init: %arg1)
// CHECK: return %[[R1]], %[[R2]]
// CHECK-NOT: func.func private
func.func @main(%x: tensor<4xf32>, %y: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %0 = func.call @outer(%x, %y) : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  %b = stablehlo.broadcast_in_dim %y, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %1 = func.call @outer(%b, %y) : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %0, %1 : tensor<f32>, tensor<f32>
}
func.func private @outer(%a: tensor<4xf32>, %i: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  %1 = func.call @sum(%0, %i) : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %1 : tensor<f32>
}
func.func private @sum(%a: tensor<4xf32>, %i: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.reduce(%a init: %i) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// No calls: nothing changes; a public function nobody calls stays.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: stablehlo.abs
// CHECK-LABEL: func.func @other
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.abs %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @other(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
