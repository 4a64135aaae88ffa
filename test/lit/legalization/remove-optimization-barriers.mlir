// The seed's argument (seed 004: --remove-opt-barriers) and the alias run the same pass.
// RUN: hilo-opt %s --split-input-file --remove-opt-barriers | FileCheck %s
// RUN: hilo-opt %s --split-input-file --remove-optimization-barriers | FileCheck %s

// MHLO: the barrier is dropped, its results forwarded; the two adds are now
// identical and the touched one is CSE'd into the first.
// CHECK-LABEL: func.func @mhlo_barrier
// CHECK-NOT: optimization_barrier
// CHECK: %[[A:.*]] = mhlo.add %arg0, %arg1
// CHECK-NOT: mhlo.add
// CHECK: %[[M:.*]] = mhlo.multiply %[[A]], %[[A]]
// CHECK: return %[[M]], %arg1
func.func @mhlo_barrier(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = mhlo.add %a, %b : tensor<4xf32>
  %1:2 = mhlo.optimization_barrier %a, %b : tensor<4xf32>, tensor<4xf32>
  %2 = mhlo.add %1#0, %1#1 : tensor<4xf32>
  %3 = mhlo.multiply %0, %2 : tensor<4xf32>
  return %3, %1#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// StableHLO, a barrier with no operands, and one inside a while body.
// CHECK-LABEL: func.func @stablehlo_barrier
// CHECK-NOT: optimization_barrier
// CHECK: stablehlo.while
// CHECK: stablehlo.negate %iterArg
// CHECK: return
func.func @stablehlo_barrier(%a: tensor<f32>, %n: tensor<i32>) -> tensor<f32> {
  "stablehlo.optimization_barrier"() : () -> ()
  %0:2 = stablehlo.while(%x = %a, %i = %n) : tensor<f32>, tensor<i32>
   cond {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %p = stablehlo.compare GT, %i, %c : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %y = stablehlo.optimization_barrier %x : tensor<f32>
    %z = stablehlo.negate %y : tensor<f32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.subtract %i, %one : tensor<i32>
    stablehlo.return %z, %j : tensor<f32>, tensor<i32>
  }
  return %0#0 : tensor<f32>
}

// -----

// Left alone: no barrier, so no CSE either (the duplicate adds stay), and
// side-effecting ops are never merged even after a barrier is removed.
// CHECK-LABEL: func.func @untouched
// CHECK: mhlo.add %arg0, %arg0
// CHECK: mhlo.add %arg0, %arg0
// CHECK-LABEL: func.func @side_effects
// CHECK: mhlo.custom_call @Foo(%arg0)
// CHECK: mhlo.custom_call @Foo(%arg0)
func.func @untouched(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = mhlo.add %a, %a : tensor<4xf32>
  %1 = mhlo.add %a, %a : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
func.func @side_effects(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = mhlo.custom_call @Foo(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %b = mhlo.optimization_barrier %a : tensor<4xf32>
  %1 = mhlo.custom_call @Foo(%b) : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
