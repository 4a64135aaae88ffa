// The MHLO printer's FusionKind dispatch (seed 002 section 1; docs/penguin_format.md section 6).
// RUN: hilo-opt %s --split-input-file --mhlo-to-py-penguin=output=- -o /dev/null | FileCheck %s
// Error cases (unknown / missing FusionKind): errors.mlir.

// DotLogistic -> NeuronTensorOp(op='DotFusion'), no hilo_fusion_op on MHLO; body re-emitted with parent=; results bound by setResults.
// CHECK-LABEL: attrs=('module=dot_logistic',)
// CHECK: input_0 = m1.Tensor(
// CHECK: input_1 = m1.Tensor(
// CHECK-NEXT: v0 = m3.NeuronTensorOp(srcs=[input_0, input_1], dsts=[m1.TensorSpec(shape=(4, 16), dtype='float32')], op='DotFusion', xla_op='mhlo.fusion', dl=m2.DebugLocation(file='', line=0, col=0, name='silu'))
// CHECK-NEXT: v1 = m1.DotGeneralOp(srcs=[input_0, input_1], {{.*}}lhs_contracting_dimensions=[1], rhs_contracting_dimensions=[0]), xla_op='mhlo.dot', dl={{.*}}, parent='v0'))
// CHECK-NEXT: v2 = m1.LogisticOp(srcs=[v1], {{.*}}xla_op='mhlo.logistic', dl={{.*}}parent='v0'))
// CHECK-NEXT: v3 = m1.MultiplyOp(srcs=[v1, v2], {{.*}}parent='v0'))
// CHECK-NEXT: v0.setResults([v3])
// CHECK-NEXT: v4 = m1.NegateOp(srcs=[v3], {{.*}}dl=m2.DebugLocation({{.*}}name=''))
// CHECK-NEXT: function.markOutput(v4, index=0, name='output_0', is_slow_changing=False)
// CHECK-NOT: hilo_fusion_op
module @dot_logistic {
func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = "mhlo.fusion"(%a, %b) ({
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8x16xf32>):
    %d = "mhlo.dot"(%x, %y) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    %l = mhlo.logistic %d : tensor<4x16xf32>
    %m = mhlo.multiply %d, %l : tensor<4x16xf32>
    mhlo.return %m : tensor<4x16xf32>
  }) {FusionKind = "DotLogistic"} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32> loc("silu")
  %1 = mhlo.negate %0 : tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
}
}

// -----

// MulRedSqrt -> op='MulRedSqrt' with reduce_dims from the body's reduce; the constant live-in is an operand.
// CHECK-LABEL: attrs=('module=mul_red_sqrt',)
// CHECK: v1 = m3.NeuronTensorOp(srcs=[input_0, v0], dsts=[m1.TensorSpec(shape=(4,), dtype='float32')], op='MulRedSqrt', reduce_dims=[1], xla_op='mhlo.fusion', dl=
// CHECK-NEXT: v2 = m1.MultiplyOp(srcs=[input_0, input_0], {{.*}}parent='v1'))
// CHECK-NEXT: def v4(v5, v6):
// CHECK-NEXT:     v7 = m1.AddOp(srcs=[v5, v6], {{.*}}parent='v3'))
// CHECK-NEXT:     return [v7]
// CHECK-NEXT: v3 = m1.ReduceOp(srcs=[v2, v0], dsts=[m1.TensorSpec(shape=(4,), dtype='float32')], dimensions=[1], regions=[v4], reducer='add', xla_op='mhlo.reduce', dl={{.*}}parent='v1'))
// CHECK-NEXT: v8 = m1.RsqrtOp(srcs=[v3], {{.*}}parent='v1'))
// CHECK-NEXT: v1.setResults([v8])
// CHECK-NEXT: function.markOutput(v8, index=0
module @mul_red_sqrt {
func.func @main(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %z = mhlo.constant dense<0.0> : tensor<f32>
  %0 = "mhlo.fusion"(%x, %z) ({
  ^bb0(%a: tensor<4x8xf32>, %c: tensor<f32>):
    %m = mhlo.multiply %a, %a : tensor<4x8xf32>
    %r = mhlo.reduce(%m init: %c) applies mhlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
    %s = mhlo.rsqrt %r : tensor<4xf32>
    mhlo.return %s : tensor<4xf32>
  }) {FusionKind = "MulRedSqrt"} : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
}

// -----

// Elementwise, Expm1, Log1p and DotSoftmax print the kind itself as the op name on MHLO.
// A multi-result fusion binds both results; a returned block argument is the outer operand's name.
// CHECK-LABEL: attrs=('module=generic_kinds',)
// CHECK: v0 = m3.NeuronTensorOp(srcs=[input_0], {{.*}}op='Elementwise', xla_op='mhlo.fusion'
// CHECK: v0.setResults([v1, input_0])
// CHECK: v2 = m3.NeuronTensorOp(srcs=[v1], {{.*}}op='Expm1', xla_op='mhlo.fusion'
// CHECK-NEXT: v3 = m1.ExponentialMinusOneOp(srcs=[v1]
// CHECK-NEXT: v2.setResults([v3])
// CHECK: v4 = m3.NeuronTensorOp(srcs=[v3], {{.*}}op='Log1p', xla_op='mhlo.fusion'
// CHECK: v6 = m3.NeuronTensorOp(srcs=[v5, input_0], {{.*}}op='DotSoftmax', xla_op='mhlo.fusion'
// CHECK: v6.setResults([v8])
// CHECK: function.markOutput(v8, index=0, {{.*}}
// CHECK-NEXT: function.markOutput(input_0, index=1, {{.*}}
module @generic_kinds {
func.func @main(%x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %0:2 = "mhlo.fusion"(%x) ({
  ^bb0(%a: tensor<4x4xf32>):
    %e = mhlo.exponential %a : tensor<4x4xf32>
    mhlo.return %e, %a : tensor<4x4xf32>, tensor<4x4xf32>
  }) {FusionKind = "Elementwise"} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>)
  %1 = "mhlo.fusion"(%0#0) ({
  ^bb0(%a: tensor<4x4xf32>):
    %e = mhlo.exponential_minus_one %a : tensor<4x4xf32>
    mhlo.return %e : tensor<4x4xf32>
  }) {FusionKind = "Expm1"} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %2 = "mhlo.fusion"(%1) ({
  ^bb0(%a: tensor<4x4xf32>):
    %e = mhlo.log_plus_one %a : tensor<4x4xf32>
    mhlo.return %e : tensor<4x4xf32>
  }) {FusionKind = "Log1p"} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %3 = "mhlo.fusion"(%2, %0#1) ({
  ^bb0(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>):
    %d = "mhlo.dot"(%a, %b) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %e = mhlo.exponential %d : tensor<4x4xf32>
    mhlo.return %e : tensor<4x4xf32>
  }) {FusionKind = "DotSoftmax"} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %3, %0#1 : tensor<4x4xf32>, tensor<4x4xf32>
}
}

// -----

// ScheduleFusion is transparent: no summary, no setResults, no parent=; the inner collectives in order.
// CHECK-LABEL: attrs=('module=schedule_fusion',)
// CHECK-NOT: NeuronTensorOp
// CHECK: def v1(v2, v3):
// CHECK: v0 = m1.ReduceScatterOp(srcs=[input_0], dsts=[m1.TensorSpec(shape=(2,), dtype='float32')], {{.*}}replica_groups=[[0]], scatter_dimension=0, regions=[v1], reducer='add', xla_op='mhlo.reduce_scatter', dl=m2.DebugLocation({{.*}}name=''))
// CHECK-NEXT: v5 = m1.AllGatherOp(srcs=[input_1], {{.*}}xla_op='mhlo.all_gather', dl=m2.DebugLocation({{.*}}name=''))
// CHECK-NOT: setResults
// CHECK: function.markOutput(v0, index=0,
// CHECK-NEXT: function.markOutput(v5, index=1,
module @schedule_fusion {
func.func @main(%x: tensor<2xf32>, %y: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0:2 = "mhlo.fusion"(%x, %y) ({
  ^bb0(%a: tensor<2xf32>, %b: tensor<2xf32>):
    %rs = "mhlo.reduce_scatter"(%a) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = mhlo.add %p, %q : tensor<f32>
      mhlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>, scatter_dimension = 0 : i64} : (tensor<2xf32>) -> tensor<2xf32>
    %ag = "mhlo.all_gather"(%b) {all_gather_dim = 0 : i64, replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<2xf32>) -> tensor<2xf32>
    mhlo.return %rs, %ag : tensor<2xf32>, tensor<2xf32>
  }) {FusionKind = "ScheduleFusion"} : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  return %0#0, %0#1 : tensor<2xf32>, tensor<2xf32>
}
}

// -----

// A fusion nested in a fusion: parent= is the innermost header.
// CHECK-LABEL: attrs=('module=nested',)
// CHECK: v0 = m3.NeuronTensorOp(srcs=[input_0], {{.*}}op='Elementwise', xla_op='mhlo.fusion', dl=m2.DebugLocation({{.*}}name=''))
// CHECK-NEXT: v1 = m3.NeuronTensorOp(srcs=[input_0], {{.*}}op='Expm1', xla_op='mhlo.fusion', dl={{.*}}parent='v0'))
// CHECK-NEXT: v2 = m1.ExponentialMinusOneOp(srcs=[input_0], {{.*}}parent='v1'))
// CHECK-NEXT: v1.setResults([v2])
// CHECK-NEXT: v3 = m1.NegateOp(srcs=[v2], {{.*}}parent='v0'))
// CHECK-NEXT: v0.setResults([v3])
module @nested {
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "mhlo.fusion"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    %1 = "mhlo.fusion"(%a) ({
    ^bb0(%b: tensor<4xf32>):
      %e = mhlo.exponential_minus_one %b : tensor<4xf32>
      mhlo.return %e : tensor<4xf32>
    }) {FusionKind = "Expm1"} : (tensor<4xf32>) -> tensor<4xf32>
    %n = mhlo.negate %1 : tensor<4xf32>
    mhlo.return %n : tensor<4xf32>
  }) {FusionKind = "Elementwise"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
}
