// Ops with regions print one Python function per region, passed as regions=[...], defined after the
// op's result names are allocated (docs/penguin_format.md section 7): while [cond, body], case
// [branches], sort [comparator], scatter [update] (reducer='replace' hint: returns the update).
// func.call inlines the callee at every call site behind a CallOp header (section 6); implicit
// captures (%x, %i inside the regions) are Python closures.
// RUN: hilo-opt %s --stablehlo-to-py-penguin=output=- -o /dev/null | FileCheck %s
// RUN: hilo-opt %s --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,mhlo-to-py-penguin{output=-})' -o /dev/null | FileCheck %s --check-prefix=MHLO

// CHECK-LABEL: attrs=('module=regions',)
// CHECK-NEXT: input_0 = m1.Tensor(
// CHECK-NEXT: input_1 = m1.Tensor(
// CHECK-NEXT: input_2 = m1.Tensor(
// CHECK-NEXT: input_3 = m1.Tensor(
// CHECK-NEXT: v0 = m1.ConstantOp(srcs=[], dsts=[m1.TensorSpec(shape=(), dtype='int32')], value=0, xla_op='stablehlo.constant', dl={{.*}})
// CHECK-NEXT: v1 = m1.ConstantOp(srcs=[], dsts=[m1.TensorSpec(shape=(), dtype='int32')], value=1, xla_op='stablehlo.constant', dl={{.*}})
// CHECK-NEXT: def v4(v5, v6):
// CHECK-NEXT:     v7 = m1.CompareOp(srcs=[v5, input_1], dsts=[m1.TensorSpec(shape=(), dtype='bool')], comparison_direction='LT', xla_op='stablehlo.compare', dl={{.*}})
// CHECK-NEXT:     return [v7]
// CHECK-NEXT: def v8(v9, v10):
// CHECK-NEXT:     v11 = m1.AddOp(srcs=[v9, v1], dsts=[m1.TensorSpec(shape=(), dtype='int32')], xla_op='stablehlo.add', dl={{.*}})
// CHECK-NEXT:     v12 = m1.AddOp(srcs=[v10, input_0], dsts=[m1.TensorSpec(shape=(4,), dtype='float32')], xla_op='stablehlo.add', dl={{.*}})
// CHECK-NEXT:     return [v11, v12]
// CHECK-NEXT: v2, v3 = m1.WhileOp(srcs=[v0, input_0], dsts=[m1.TensorSpec(shape=(), dtype='int32'), m1.TensorSpec(shape=(4,), dtype='float32')], regions=[v4, v8], xla_op='stablehlo.while', dl={{.*}})
// CHECK-NEXT: def v14():
// CHECK-NEXT:     v15 = m1.ExponentialOp(srcs=[input_0], dsts=[m1.TensorSpec(shape=(4,), dtype='float32')], xla_op='stablehlo.exponential', dl={{.*}})
// CHECK-NEXT:     return [v15]
// CHECK-NEXT: def v16():
// CHECK-NEXT:     return [input_0]
// CHECK-NEXT: v13 = m1.CaseOp(srcs=[input_1], dsts=[m1.TensorSpec(shape=(4,), dtype='float32')], regions=[v14, v16], xla_op='stablehlo.case', dl={{.*}})
// CHECK-NEXT: def v18(v19, v20):
// CHECK-NEXT:     v21 = m1.CompareOp(srcs=[v19, v20], dsts=[m1.TensorSpec(shape=(), dtype='bool')], compare_type='FLOAT', comparison_direction='GT', xla_op='stablehlo.compare', dl={{.*}})
// CHECK-NEXT:     return [v21]
// CHECK-NEXT: v17 = m1.SortOp(srcs=[input_0], dsts=[m1.TensorSpec(shape=(4,), dtype='float32')], dimension=0, is_stable=True, regions=[v18], xla_op='stablehlo.sort', dl={{.*}})
// CHECK-NEXT: def v23(v24, v25):
// CHECK-NEXT:     return [v25]
// CHECK-NEXT: v22 = m1.ScatterOp(srcs=[input_0, input_2, input_3], dsts=[m1.TensorSpec(shape=(4,), dtype='float32')], indices_are_sorted=False, scatter_dimension_numbers=dict(update_window_dims=[], inserted_window_dims=[0], input_batching_dims=[], scatter_indices_batching_dims=[], scatter_dims_to_operand_dims=[0], index_vector_dim=1), unique_indices=False, regions=[v23], reducer='replace', xla_op='stablehlo.scatter', dl={{.*}})
// CHECK-NEXT: v26 = m3.CallOp(srcs=[v22], dsts=[m1.TensorSpec(shape=(4,), dtype='float32')], callee='twice', xla_op='func.call', dl={{.*}})
// CHECK-NEXT: v27 = m1.AddOp(srcs=[v22, v22], dsts=[m1.TensorSpec(shape=(4,), dtype='float32')], xla_op='stablehlo.add', dl={{.*}})
// CHECK-NEXT: v26.setResults([v27])
// CHECK-NEXT: v28 = m3.CallOp(srcs=[v27], dsts=[m1.TensorSpec(shape=(4,), dtype='float32')], callee='twice', xla_op='func.call', dl={{.*}})
// CHECK-NEXT: v29 = m1.AddOp(srcs=[v27, v27], dsts=[m1.TensorSpec(shape=(4,), dtype='float32')], xla_op='stablehlo.add', dl={{.*}})
// CHECK-NEXT: v28.setResults([v29])
// CHECK-NEXT: function.markOutput(v3, index=0, name='output_0', is_slow_changing=False)
// CHECK-NEXT: function.markOutput(v2, index=1, name='output_1', is_slow_changing=False)
// CHECK-NEXT: function.markOutput(v13, index=2, name='output_2', is_slow_changing=False)
// CHECK-NEXT: function.markOutput(v17, index=3, name='output_3', is_slow_changing=False)
// CHECK-NEXT: function.markOutput(v29, index=4, name='output_4', is_slow_changing=False)
// MHLO-LABEL: attrs=('module=regions',)
// MHLO: v2, v3 = m1.WhileOp(srcs=[v0, input_0], {{.*}}regions=[v4, v8], xla_op='mhlo.while'
// MHLO: v13 = m1.CaseOp(srcs=[input_1], {{.*}}regions=[v14, v16], xla_op='mhlo.case'
// MHLO: v22 = m1.ScatterOp(srcs=[input_0, input_2, input_3], {{.*}}reducer='replace', xla_op='mhlo.scatter'
// MHLO: v26 = m3.CallOp(srcs=[v22], {{.*}}callee='twice', xla_op='func.call'
module @regions {
func.func @main(%x: tensor<4xf32>, %i: tensor<i32>, %idx: tensor<2x1xi32>, %u: tensor<2xf32>) -> (tensor<4xf32>, tensor<i32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %w:2 = stablehlo.while(%it = %c0, %acc = %x) : tensor<i32>, tensor<4xf32>
    cond {
      %lt = stablehlo.compare LT, %it, %i : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %n = stablehlo.add %it, %c1 : tensor<i32>
      %d = stablehlo.add %acc, %x : tensor<4xf32>
      stablehlo.return %n, %d : tensor<i32>, tensor<4xf32>
    }
  %cs = "stablehlo.case"(%i) ({
    %e = stablehlo.exponential %x : tensor<4xf32>
    stablehlo.return %e : tensor<4xf32>
  }, {
    stablehlo.return %x : tensor<4xf32>
  }) : (tensor<i32>) -> tensor<4xf32>
  %s = "stablehlo.sort"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %lt = stablehlo.compare GT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<4xf32>) -> tensor<4xf32>
  %sc = "stablehlo.scatter"(%x, %idx, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false} : (tensor<4xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<4xf32>
  %c = call @twice(%sc) : (tensor<4xf32>) -> tensor<4xf32>
  %c2 = call @twice(%c) : (tensor<4xf32>) -> tensor<4xf32>
  return %w#1, %w#0, %cs, %s, %c2 : tensor<4xf32>, tensor<i32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
func.func private @twice(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
}
