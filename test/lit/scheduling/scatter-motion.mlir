// RUN: hilo-opt %s --split-input-file --stablehlo-scatter-motion | FileCheck %s
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,scatter-motion)' | FileCheck %s --check-prefix=MHLO

// The scatter sinks past the unrelated ops to just before its first user.
// CHECK-LABEL: func.func @sink
// CHECK-NEXT: stablehlo.exponential %arg3
// CHECK-NEXT: stablehlo.custom_call @side
// CHECK-NEXT: %[[S:.*]] = "stablehlo.scatter"
// CHECK: %[[U:.*]] = stablehlo.add %[[S]], %arg0
// MHLO-LABEL: func.func @sink
// MHLO-NEXT: mhlo.exponential
// MHLO-NEXT: mhlo.custom_call @side
// MHLO-NEXT: "mhlo.scatter"
// MHLO: mhlo.add %{{[0-9]+}}, %arg0
func.func @sink(%op: tensor<8xf32>, %idx: tensor<2x1xi32>, %upd: tensor<2xf32>, %y: tensor<4xf32>) -> (tensor<8xf32>, tensor<4xf32>) {
  %s = "stablehlo.scatter"(%op, %idx, %upd) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %r = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false} : (tensor<8xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<8xf32>
  %e = stablehlo.exponential %y : tensor<4xf32>
  stablehlo.custom_call @side(%e) {has_side_effect = true} : (tensor<4xf32>) -> ()
  %u = stablehlo.add %s, %op : tensor<8xf32>
  return %u, %e : tensor<8xf32>, tensor<4xf32>
}

// -----

// A chain: the first scatter feeds the second; both end up right before the
// second one's user, in order.
// CHECK-LABEL: func.func @chain
// CHECK-NEXT: stablehlo.exponential
// CHECK-NEXT: %[[S1:.*]] = "stablehlo.scatter"(%arg0
// CHECK: %[[S2:.*]] = "stablehlo.scatter"(%[[S1]]
// CHECK: stablehlo.negate %[[S2]]
// MHLO-LABEL: func.func @chain
// MHLO-NEXT: mhlo.exponential
// MHLO-NEXT: "mhlo.scatter"(%arg0
// MHLO: "mhlo.scatter"
// MHLO: mhlo.negate
func.func @chain(%op: tensor<8xf32>, %idx: tensor<2x1xi32>, %upd: tensor<2xf32>, %y: tensor<4xf32>) -> (tensor<8xf32>, tensor<4xf32>) {
  %s1 = "stablehlo.scatter"(%op, %idx, %upd) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %r = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false} : (tensor<8xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<8xf32>
  %s2 = "stablehlo.scatter"(%s1, %idx, %upd) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %r = stablehlo.multiply %a, %b : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false} : (tensor<8xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<8xf32>
  %e = stablehlo.exponential %y : tensor<4xf32>
  %n = stablehlo.negate %s2 : tensor<8xf32>
  return %n, %e : tensor<8xf32>, tensor<4xf32>
}

// -----

// Already right before its user, or without users: nothing moves.
// CHECK-LABEL: func.func @stay
// CHECK-NEXT: stablehlo.exponential
// CHECK-NEXT: "stablehlo.scatter"
// CHECK: stablehlo.add %{{[0-9]+}}, %arg0
// CHECK-NEXT: "stablehlo.scatter"
// CHECK: return
// MHLO-LABEL: func.func @stay
// MHLO-NEXT: mhlo.exponential
// MHLO-NEXT: "mhlo.scatter"
// MHLO: mhlo.add %{{[0-9]+}}, %arg0
// MHLO-NEXT: "mhlo.scatter"
func.func @stay(%op: tensor<8xf32>, %idx: tensor<2x1xi32>, %upd: tensor<2xf32>, %y: tensor<4xf32>) -> (tensor<8xf32>, tensor<4xf32>) {
  %e = stablehlo.exponential %y : tensor<4xf32>
  %s = "stablehlo.scatter"(%op, %idx, %upd) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %r = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false} : (tensor<8xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<8xf32>
  %u = stablehlo.add %s, %op : tensor<8xf32>
  %dead = "stablehlo.scatter"(%op, %idx, %upd) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %r = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false} : (tensor<8xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<8xf32>
  return %u, %e : tensor<8xf32>, tensor<4xf32>
}
