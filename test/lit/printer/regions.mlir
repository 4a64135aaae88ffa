// Ops with regions print one Python function per region, passed as regions=[...], defined after the
// op's result names are allocated (docs/penguin_format.md section 7): while [cond, body], case
// [branches], sort [comparator], scatter [update] (reducer='replace' hint: returns the update).
// func.call inlines the callee at every call site behind a CallOp header (section 6); implicit
// captures (%x, %i inside the regions) are Python closures.
// RUN: hilo-opt %s --stablehlo-to-py-penguin=output=- -o /dev/null | FileCheck %s
// RUN: hilo-opt %s --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,mhlo-to-py-penguin{output=-})' -o /dev/null | FileCheck %s --check-prefix=MHLO

// CHECK-LABEL: 'module=regions'))
// CHECK-NEXT: input_0 = m1.Tensor(
// CHECK-NEXT: input_1 = m1.Tensor(
// CHECK-NEXT: input_2 = m1.Tensor(
// CHECK-NEXT: input_3 = m1.Tensor(
// CHECK-NEXT: [[V0:v[0-9]+]] = m1.ConstantOp(srcs=[], dsts=[m1.TensorSpec(shape=(), dtype='int32')], value=0, xla_op='stablehlo.constant', dl={{.*}})
// CHECK-NEXT: [[V1:v[0-9]+]] = m1.ConstantOp(srcs=[], dsts=[m1.TensorSpec(shape=(), dtype='int32')], value=1, xla_op='stablehlo.constant', dl={{.*}})
// CHECK-NEXT: def [[V4:v[0-9]+]]([[V5:v[0-9]+]], [[V6:v[0-9]+]]):
// CHECK-NEXT:     [[V7:v[0-9]+]] = m1.CompareOp(srcs=[[[V5]], input_1], dsts=[m1.TensorSpec(shape=(), dtype='bool')], comparison_direction='LT', xla_op='stablehlo.compare', dl={{.*}})
// CHECK-NEXT:     return [[[V7]]]
// CHECK-NEXT: def [[V8:v[0-9]+]]([[V9:v[0-9]+]], [[V10:v[0-9]+]]):
// CHECK-NEXT:     [[V11:v[0-9]+]] = m1.AddOp(srcs=[[[V9]], [[V1]]], dsts=[m1.TensorSpec(shape=(), dtype='int32')], xla_op='stablehlo.add', dl={{.*}})
// CHECK-NEXT:     [[V12:v[0-9]+]] = m1.AddOp(srcs=[[[V10]], input_0], dsts=[m1.TensorSpec(shape=(4,), dtype='float32')], xla_op='stablehlo.add', dl={{.*}})
// CHECK-NEXT:     return [[[V11]], [[V12]]]
// CHECK-NEXT: [[V2:v[0-9]+]], [[V3:v[0-9]+]] = m1.WhileOp(srcs=[[[V0]], input_0], dsts=[m1.TensorSpec(shape=(), dtype='int32'), m1.TensorSpec(shape=(4,), dtype='float32')], regions=[[[V4]], [[V8]]], xla_op='stablehlo.while', dl={{.*}})
// CHECK-NEXT: def [[V14:v[0-9]+]]():
// CHECK-NEXT:     [[V15:v[0-9]+]] = m1.ExponentialOp(srcs=[input_0], dsts=[m1.TensorSpec(shape=(4,), dtype='float32')], xla_op='stablehlo.exponential', dl={{.*}})
// CHECK-NEXT:     return [[[V15]]]
// CHECK-NEXT: def [[V16:v[0-9]+]]():
// CHECK-NEXT:     return [input_0]
// CHECK-NEXT: [[V13:v[0-9]+]] = m1.CaseOp(srcs=[input_1], dsts=[m1.TensorSpec(shape=(4,), dtype='float32')], regions=[[[V14]], [[V16]]], xla_op='stablehlo.case', dl={{.*}})
// CHECK-NEXT: def [[V18:v[0-9]+]]([[V19:v[0-9]+]], [[V20:v[0-9]+]]):
// CHECK-NEXT:     [[V21:v[0-9]+]] = m1.CompareOp(srcs=[[[V19]], [[V20]]], dsts=[m1.TensorSpec(shape=(), dtype='bool')], compare_type='FLOAT', comparison_direction='GT', xla_op='stablehlo.compare', dl={{.*}})
// CHECK-NEXT:     return [[[V21]]]
// CHECK-NEXT: [[V17:v[0-9]+]] = m1.SortOp(srcs=[input_0], dsts=[m1.TensorSpec(shape=(4,), dtype='float32')], dimension=0, is_stable=True, regions=[[[V18]]], xla_op='stablehlo.sort', dl={{.*}})
// CHECK-NEXT: def [[V23:v[0-9]+]]([[V24:v[0-9]+]], [[V25:v[0-9]+]]):
// CHECK-NEXT:     return [[[V25]]]
// CHECK-NEXT: [[V22:v[0-9]+]] = m1.ScatterOp(srcs=[input_0, input_2, input_3], dsts=[m1.TensorSpec(shape=(4,), dtype='float32')], indices_are_sorted=False, scatter_dimension_numbers=dict(update_window_dims=[], inserted_window_dims=[0], input_batching_dims=[], scatter_indices_batching_dims=[], scatter_dims_to_operand_dims=[0], index_vector_dim=1), unique_indices=False, regions=[[[V23]]], reducer='replace', xla_op='stablehlo.scatter', dl={{.*}})
// CHECK-NEXT: [[V26:v[0-9]+]] = m3.CallOp(srcs=[[[V22]]], dsts=[m1.TensorSpec(shape=(4,), dtype='float32')], xla_op='func.call', callee='twice', dl={{.*}})
// CHECK-NEXT: [[V27:v[0-9]+]] = m1.AddOp(srcs=[[[V22]], [[V22]]], dsts=[m1.TensorSpec(shape=(4,), dtype='float32')], xla_op='stablehlo.add', dl={{.*}})
// CHECK-NEXT: [[V26]].setResults([[[V27]]])
// CHECK-NEXT: [[V28:v[0-9]+]] = m3.CallOp(srcs=[[[V27]]], dsts=[m1.TensorSpec(shape=(4,), dtype='float32')], xla_op='func.call', callee='twice', dl={{.*}})
// CHECK-NEXT: [[V29:v[0-9]+]] = m1.AddOp(srcs=[[[V27]], [[V27]]], dsts=[m1.TensorSpec(shape=(4,), dtype='float32')], xla_op='stablehlo.add', dl={{.*}})
// CHECK-NEXT: [[V28]].setResults([[[V29]]])
// CHECK-NEXT: v0.markOutput([[V3]], index=0, name='output_0', is_slow_changing=False)
// CHECK-NEXT: v0.markOutput([[V2]], index=1, name='output_1', is_slow_changing=False)
// CHECK-NEXT: v0.markOutput([[V13]], index=2, name='output_2', is_slow_changing=False)
// CHECK-NEXT: v0.markOutput([[V17]], index=3, name='output_3', is_slow_changing=False)
// CHECK-NEXT: v0.markOutput([[V29]], index=4, name='output_4', is_slow_changing=False)
// MHLO-LABEL: 'module=regions'))
// MHLO: [[V2:v[0-9]+]], [[V3:v[0-9]+]] = m1.WhileOp(srcs=[[[V0:v[0-9]+]], input_0], {{.*}}regions=[[[V4:v[0-9]+]], [[V8:v[0-9]+]]], xla_op='mhlo.while'
// MHLO: [[V13:v[0-9]+]] = m1.CaseOp(srcs=[input_1], {{.*}}regions=[[[V14:v[0-9]+]], [[V16:v[0-9]+]]], xla_op='mhlo.case'
// MHLO: [[V22:v[0-9]+]] = m1.ScatterOp(srcs=[input_0, input_2, input_3], {{.*}}reducer='replace', xla_op='mhlo.scatter'
// MHLO: [[V26:v[0-9]+]] = m3.CallOp(srcs=[[[V22]]], {{.*}}xla_op='func.call', callee='twice'
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
