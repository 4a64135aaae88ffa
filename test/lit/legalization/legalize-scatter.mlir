// StableHLO step 26b: narrow-float scatter computed in f32 with a regenerated reducer body.
// RUN: hilo-opt %s --split-input-file --legalize-scatter | FileCheck %s

// bf16 add-scatter: up-cast input and updates, scatter in f32 (dimension numbers
// unchanged), canonical body, down-cast.
// CHECK-LABEL: func.func @scatter_add_bf16
// CHECK-NEXT: %[[I:.*]] = stablehlo.convert %arg0 : (tensor<5xbf16>) -> tensor<5xf32>
// CHECK-NEXT: %[[U:.*]] = stablehlo.convert %arg2 : (tensor<2xbf16>) -> tensor<2xf32>
// CHECK-NEXT: %[[S:.*]] = "stablehlo.scatter"(%[[I]], %arg1, %[[U]])
// CHECK-SAME: indices_are_sorted = true
// CHECK-SAME: scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>
// CHECK-NEXT: ^bb0(%[[C:.*]]: tensor<f32>, %[[V:.*]]: tensor<f32>):
// CHECK-NEXT: %[[A:.*]] = stablehlo.add %[[C]], %[[V]] : tensor<f32>
// CHECK-NEXT: stablehlo.return %[[A]] : tensor<f32>
// CHECK-NEXT: }) : (tensor<5xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<5xf32>
// CHECK-NEXT: %[[R:.*]] = stablehlo.convert %[[S]] : (tensor<5xf32>) -> tensor<5xbf16>
// CHECK-NEXT: return %[[R]]
func.func @scatter_add_bf16(%arg0: tensor<5xbf16>, %arg1: tensor<2x1xi32>, %arg2: tensor<2xbf16>) -> tensor<5xbf16> {
  %0 = "stablehlo.scatter"(%arg0, %arg1, %arg2) ({
  ^bb0(%a: tensor<bf16>, %b: tensor<bf16>):
    %1 = stablehlo.add %a, %b : tensor<bf16>
    stablehlo.return %1 : tensor<bf16>
  }) {indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false} : (tensor<5xbf16>, tensor<2x1xi32>, tensor<2xbf16>) -> tensor<5xbf16>
  return %0 : tensor<5xbf16>
}

// -----

// f16 replace-scatter and a max written as max(update, current).
// CHECK-LABEL: func.func @scatter_f16
// CHECK: ^bb0(%[[C:.*]]: tensor<f32>, %[[V:.*]]: tensor<f32>):
// CHECK-NEXT: stablehlo.return %[[V]] : tensor<f32>
// CHECK: ^bb0(%[[C2:.*]]: tensor<f32>, %[[V2:.*]]: tensor<f32>):
// CHECK-NEXT: %[[M:.*]] = stablehlo.maximum %[[V2]], %[[C2]] : tensor<f32>
// CHECK-NEXT: stablehlo.return %[[M]]
func.func @scatter_f16(%arg0: tensor<5xf16>, %arg1: tensor<2x1xi32>, %arg2: tensor<2xf16>) -> (tensor<5xf16>, tensor<5xf16>) {
  %0 = "stablehlo.scatter"(%arg0, %arg1, %arg2) ({
  ^bb0(%a: tensor<f16>, %b: tensor<f16>):
    stablehlo.return %b : tensor<f16>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<5xf16>, tensor<2x1xi32>, tensor<2xf16>) -> tensor<5xf16>
  %1 = "stablehlo.scatter"(%arg0, %arg1, %arg2) ({
  ^bb0(%a: tensor<f16>, %b: tensor<f16>):
    %2 = stablehlo.maximum %b, %a : tensor<f16>
    stablehlo.return %2 : tensor<f16>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<5xf16>, tensor<2x1xi32>, tensor<2xf16>) -> tensor<5xf16>
  return %0, %1 : tensor<5xf16>, tensor<5xf16>
}

// -----

// Must not touch: f32, i32 and f64 scatters, and a bf16 body that is not one reducer op.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT: stablehlo.convert
// CHECK: return
func.func @untouched(%f: tensor<5xf32>, %i: tensor<5xi32>, %d: tensor<5xf64>, %h: tensor<5xbf16>, %idx: tensor<2x1xi32>, %uf: tensor<2xf32>, %ui: tensor<2xi32>, %ud: tensor<2xf64>, %uh: tensor<2xbf16>)
    -> (tensor<5xf32>, tensor<5xi32>, tensor<5xf64>, tensor<5xbf16>) {
  %0 = "stablehlo.scatter"(%f, %idx, %uf) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<5xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<5xf32>
  %2 = "stablehlo.scatter"(%i, %idx, %ui) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %3 = stablehlo.add %a, %b : tensor<i32>
    stablehlo.return %3 : tensor<i32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<5xi32>, tensor<2x1xi32>, tensor<2xi32>) -> tensor<5xi32>
  %4 = "stablehlo.scatter"(%d, %idx, %ud) ({
  ^bb0(%a: tensor<f64>, %b: tensor<f64>):
    %5 = stablehlo.add %a, %b : tensor<f64>
    stablehlo.return %5 : tensor<f64>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<5xf64>, tensor<2x1xi32>, tensor<2xf64>) -> tensor<5xf64>
  %6 = "stablehlo.scatter"(%h, %idx, %uh) ({
  ^bb0(%a: tensor<bf16>, %b: tensor<bf16>):
    %7 = stablehlo.add %a, %b : tensor<bf16>
    %8 = stablehlo.multiply %7, %b : tensor<bf16>
    stablehlo.return %8 : tensor<bf16>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<5xbf16>, tensor<2x1xi32>, tensor<2xbf16>) -> tensor<5xbf16>
  return %0, %2, %4, %6 : tensor<5xf32>, tensor<5xi32>, tensor<5xf64>, tensor<5xbf16>
}
