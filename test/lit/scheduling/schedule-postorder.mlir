// RUN: hilo-opt %s --split-input-file --stablehlo-schedule-postorder | FileCheck %s
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,schedule-postorder)' | FileCheck %s --check-prefix=MHLO

// DFS from the return's operand: %c (and its operand %a) before %b.
// CHECK-LABEL: func.func @reorder
// CHECK-NEXT: %[[A:.*]] = stablehlo.add %arg0, %arg0
// CHECK-NEXT: %[[C:.*]] = stablehlo.subtract %[[A]], %arg0
// CHECK-NEXT: %[[B:.*]] = stablehlo.multiply %arg1, %arg1
// CHECK-NEXT: %[[D:.*]] = stablehlo.add %[[C]], %[[B]]
// CHECK-NEXT: return %[[D]]
// MHLO-LABEL: func.func @reorder
// MHLO-NEXT: mhlo.add %arg0, %arg0
// MHLO-NEXT: mhlo.subtract
// MHLO-NEXT: mhlo.multiply %arg1, %arg1
// MHLO-NEXT: mhlo.add
// MHLO-NEXT: return
func.func @reorder(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %a = stablehlo.add %x, %x : tensor<4xf32>
  %b = stablehlo.multiply %y, %y : tensor<4xf32>
  %c = stablehlo.subtract %a, %x : tensor<4xf32>
  %d = stablehlo.add %c, %b : tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

// The DFS reaches @second first, but side-effecting ops keep their order.
// CHECK-LABEL: func.func @effects_keep_order
// CHECK-NEXT: stablehlo.custom_call @first
// CHECK-NEXT: stablehlo.custom_call @second
// CHECK-NEXT: stablehlo.add
// MHLO-LABEL: func.func @effects_keep_order
// MHLO-NEXT: mhlo.custom_call @first
// MHLO-NEXT: mhlo.custom_call @second
// MHLO-NEXT: mhlo.add
func.func @effects_keep_order(%x: tensor<4xf32>) -> tensor<4xf32> {
  %1 = stablehlo.custom_call @first(%x) {has_side_effect = true} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = stablehlo.custom_call @second(%x) {has_side_effect = true} : (tensor<4xf32>) -> tensor<4xf32>
  %r = stablehlo.add %2, %1 : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Ops the terminator does not reach (a dead op, a trailing side effect) follow
// the reachable ones, in their original order.
// CHECK-LABEL: func.func @unreachable
// CHECK-NEXT: %[[R:.*]] = stablehlo.add %arg0, %arg0
// CHECK-NEXT: stablehlo.multiply %arg0, %arg0
// CHECK-NEXT: stablehlo.custom_call @print(%[[R]])
// CHECK-NEXT: return %[[R]]
// MHLO-LABEL: func.func @unreachable
// MHLO-NEXT: mhlo.add
// MHLO-NEXT: mhlo.multiply
// MHLO-NEXT: mhlo.custom_call @print
// MHLO-NEXT: return
func.func @unreachable(%x: tensor<4xf32>) -> tensor<4xf32> {
  %dead = stablehlo.multiply %x, %x : tensor<4xf32>
  %r = stablehlo.add %x, %x : tensor<4xf32>
  stablehlo.custom_call @print(%r) {has_side_effect = true} : (tensor<4xf32>) -> ()
  return %r : tensor<4xf32>
}

// -----

// Already in post-order (with a reduce body): nothing moves.
// CHECK-LABEL: func.func @already_postorder
// CHECK-NEXT: stablehlo.multiply
// CHECK-NEXT: stablehlo.constant
// CHECK-NEXT: stablehlo.reduce
// CHECK-NEXT: return
// MHLO-LABEL: func.func @already_postorder
// MHLO-NEXT: mhlo.multiply
// MHLO-NEXT: mhlo.constant
// MHLO-NEXT: mhlo.reduce
func.func @already_postorder(%x: tensor<4xf32>) -> tensor<f32> {
  %m = stablehlo.multiply %x, %x : tensor<4xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%m init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// A value captured by a nested region (the while body reads %k) is a
// dependency of the while: %k is scheduled before it.
// CHECK-LABEL: func.func @capture
// CHECK: %[[K:.*]] = stablehlo.multiply %arg1, %arg1
// CHECK: stablehlo.while
// CHECK: stablehlo.add %{{.*}}, %[[K]]
func.func @capture(%x: tensor<f32>, %y: tensor<f32>) -> tensor<f32> {
  %k = stablehlo.multiply %y, %y : tensor<f32>
  %w = stablehlo.while(%it = %x) : tensor<f32>
   cond {
    %c = stablehlo.compare LT, %it, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %n = stablehlo.add %it, %k : tensor<f32>
    stablehlo.return %n : tensor<f32>
  }
  return %w : tensor<f32>
}

// -----

// An op of a dialect without Python op classes (shape) keeps its region: the
// ops nested in shape.assuming stay inside it, and the multiply after it is
// not taken for one of them.
// CHECK-LABEL: func.func @classless_region
// CHECK: %[[W:.*]] = shape.const_witness true
// CHECK-NEXT: %[[R:.*]] = shape.assuming %[[W]]
// CHECK-NEXT: %[[I:.*]] = stablehlo.add %arg0, %arg0
// CHECK-NEXT: shape.assuming_yield %[[I]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[M:.*]] = stablehlo.multiply %[[R]], %arg0
// CHECK-NEXT: return %[[M]]
func.func @classless_region(%a: tensor<4xf32>) -> tensor<4xf32> {
  %w = shape.const_witness true
  %0 = shape.assuming %w -> (tensor<4xf32>) {
    %i = stablehlo.add %a, %a : tensor<4xf32>
    shape.assuming_yield %i : tensor<4xf32>
  }
  %1 = stablehlo.multiply %0, %a : tensor<4xf32>
  return %1 : tensor<4xf32>
}
