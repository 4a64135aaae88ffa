// custom_call @mhlo.<op>: mhlo ops without a StableHLO equivalent, as hlo-legalize-to-stablehlo writes them
// (StableHLO spine). Printed as the op itself: mhlo.attributes become keyword arguments,
// called_computations become region functions.
// RUN: hilo-opt %s --stablehlo-to-py-penguin=output=- -o /dev/null | FileCheck %s

// CHECK-LABEL: 'module=mhlo_targets'))
// CHECK: [[G:v[0-9]+]] = m1.ErfOp(srcs=[input_0], dsts=[m1.TensorSpec(shape=(4, 8), dtype='float32')], xla_op='mhlo.erf', dl=
// CHECK-NEXT: [[K:v[0-9]+]], {{v[0-9]+}} = m1.TopkOp(srcs=[[[G]]], dsts=[m1.TensorSpec(shape=(4, 2), dtype='float32'), m1.TensorSpec(shape=(4, 2), dtype='int32')], k=2, largest=True, xla_op='mhlo.topk', dl=
// CHECK-NEXT: def [[SUM:v[0-9]+]]([[A:v[0-9]+]], [[B:v[0-9]+]]):
// CHECK-NEXT:     [[S:v[0-9]+]] = m1.AddOp(srcs=[[[A]], [[B]]], {{.*}}xla_op='stablehlo.add', dl={{.*}}parent='[[U:v[0-9]+]]'))
// CHECK-NEXT:     return [[[S]]]
// CHECK-NEXT: [[U]] = m1.AllReduceOp(srcs=[[[G]]], dsts=[m1.TensorSpec(shape=(4, 8), dtype='float32')], replica_groups=[[0]], regions=[[[SUM]]], reducer='add', xla_op='mhlo.all_reduce', dl=
// CHECK-NEXT: v0.markOutput([[K]], index=0,
// CHECK-NEXT: v0.markOutput([[U]], index=1,
module @mhlo_targets {
func.func @main(%x: tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x8xf32>) {
  %g = stablehlo.custom_call @mhlo.erf(%x) {mhlo.attributes = {}, mhlo.version = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %k:2 = stablehlo.custom_call @mhlo.topk(%g) {mhlo.attributes = {k = 2 : i64, largest = true}, mhlo.version = 1 : i64} : (tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x2xi32>)
  %u = stablehlo.custom_call @mhlo.all_reduce(%g) {called_computations = [@sum], mhlo.attributes = {replica_groups = dense<[[0]]> : tensor<1x1xi64>}} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %k#0, %u : tensor<4x2xf32>, tensor<4x8xf32>
}
func.func private @sum(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %s = stablehlo.add %a, %b : tensor<f32>
  return %s : tensor<f32>
}
}
