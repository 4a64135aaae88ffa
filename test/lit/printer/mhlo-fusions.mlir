// The MHLO printer's FusionKind dispatch (docs/penguin_format.md section 6).
// RUN: hilo-opt %s --split-input-file --mhlo-to-py-penguin=output=- -o /dev/null | FileCheck %s
// Error cases (unknown / missing FusionKind): errors.mlir.

// DotLogistic -> NeuronTensorOp(op='DotFusion'), no hilo_fusion_op on MHLO; body re-emitted with parent=; results bound by setResults.
// CHECK-LABEL: 'module=dot_logistic'))
// CHECK: input_0 = m1.Tensor(
// CHECK: input_1 = m1.Tensor(
// CHECK-NEXT: [[V0:v[0-9]+]] = m3.NeuronTensorOp(srcs=[input_0, input_1], dsts=[m1.TensorSpec(shape=(4, 16), dtype='float32')], xla_op='mhlo.fusion', op='DotFusion', dl=m2.DebugLocation(file='', line=0, col=0, name='silu'))
// CHECK-NEXT: [[V1:v[0-9]+]] = m1.DotOp(srcs=[input_0, input_1], {{.*}}lhs_batch_dimensions=[], rhs_batch_dimensions=[], lhs_contracting_dimensions=[1], rhs_contracting_dimensions=[0], op='mhlo.dot', xla_op='mhlo.dot', dl={{.*}}, parent='[[V0]]'))
// CHECK-NEXT: [[V2:v[0-9]+]] = m1.LogisticOp(srcs=[[[V1]]], {{.*}}xla_op='mhlo.logistic', dl={{.*}}parent='[[V0]]'))
// CHECK-NEXT: [[V3:v[0-9]+]] = m1.MultiplyOp(srcs=[[[V1]], [[V2]]], {{.*}}parent='[[V0]]'))
// CHECK-NEXT: [[V0]].setResults([[[V3]]])
// CHECK-NEXT: [[V4:v[0-9]+]] = m1.NegateOp(srcs=[[[V3]]], {{.*}}dl=m2.DebugLocation({{.*}}name=''))
// CHECK-NEXT: v0.markOutput([[V4]], index=0, name='output_0', is_slow_changing=False)
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
// CHECK-LABEL: 'module=mul_red_sqrt'))
// CHECK: [[V1:v[0-9]+]] = m3.NeuronTensorOp(srcs=[input_0, [[V0:v[0-9]+]]], dsts=[m1.TensorSpec(shape=(4,), dtype='float32')], xla_op='mhlo.fusion', op='MulRedSqrt', reduce_dims=[1], dl=
// CHECK-NEXT: [[V2:v[0-9]+]] = m1.MultiplyOp(srcs=[input_0, input_0], {{.*}}parent='[[V1]]'))
// CHECK-NEXT: def [[V4:v[0-9]+]]([[V5:v[0-9]+]], [[V6:v[0-9]+]]):
// CHECK-NEXT:     [[V7:v[0-9]+]] = m1.AddOp(srcs=[[[V5]], [[V6]]], {{.*}}parent='[[V3:v[0-9]+]]'))
// CHECK-NEXT:     return [[[V7]]]
// CHECK-NEXT: [[V3]] = m1.ReduceOp(srcs=[[[V2]], [[V0]]], dsts=[m1.TensorSpec(shape=(4,), dtype='float32')], dimensions=[1], regions=[[[V4]]], reducer='add', xla_op='mhlo.reduce', dl={{.*}}parent='[[V1]]'))
// CHECK-NEXT: [[V8:v[0-9]+]] = m1.RsqrtOp(srcs=[[[V3]]], {{.*}}parent='[[V1]]'))
// CHECK-NEXT: [[V1]].setResults([[[V8]]])
// CHECK-NEXT: v0.markOutput([[V8]], index=0
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
// CHECK-LABEL: 'module=generic_kinds'))
// CHECK: [[V0:v[0-9]+]] = m3.NeuronTensorOp(srcs=[input_0], {{.*}}xla_op='mhlo.fusion', op='Elementwise'
// CHECK: [[V0]].setResults([[[V1:v[0-9]+]], input_0])
// CHECK: [[V2:v[0-9]+]] = m3.NeuronTensorOp(srcs=[[[V1]]], {{.*}}xla_op='mhlo.fusion', op='Expm1'
// CHECK-NEXT: [[V3:v[0-9]+]] = m1.ExponentialMinusOneOp(srcs=[[[V1]]]
// CHECK-NEXT: [[V2]].setResults([[[V3]]])
// CHECK: [[V4:v[0-9]+]] = m3.NeuronTensorOp(srcs=[[[V3]]], {{.*}}xla_op='mhlo.fusion', op='Log1p'
// CHECK: [[V6:v[0-9]+]] = m3.NeuronTensorOp(srcs=[[[V5:v[0-9]+]], input_0], {{.*}}xla_op='mhlo.fusion', op='DotSoftmax'
// CHECK: [[V6]].setResults([[[V8:v[0-9]+]]])
// CHECK: v0.markOutput([[V8]], index=0, {{.*}}
// CHECK-NEXT: v0.markOutput(input_0, index=1, {{.*}}
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
// CHECK-LABEL: 'module=schedule_fusion'))
// CHECK-NOT: NeuronTensorOp
// CHECK: def [[V1:v[0-9]+]]([[V2:v[0-9]+]], [[V3:v[0-9]+]]):
// CHECK: [[V0:v[0-9]+]] = m1.ReduceScatterOp(srcs=[input_0], dsts=[m1.TensorSpec(shape=(2,), dtype='float32')], {{.*}}replica_groups=[[0]], scatter_dimension=0, regions=[[[V1]]], reducer='add', xla_op='mhlo.reduce_scatter', dl=m2.DebugLocation({{.*}}name=''))
// CHECK-NEXT: [[V5:v[0-9]+]] = m1.AllGatherOp(srcs=[input_1], {{.*}}xla_op='mhlo.all_gather', dl=m2.DebugLocation({{.*}}name=''))
// CHECK-NOT: setResults
// CHECK: v0.markOutput([[V0]], index=0,
// CHECK-NEXT: v0.markOutput([[V5]], index=1,
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
// CHECK-LABEL: 'module=nested'))
// CHECK: [[V0:v[0-9]+]] = m3.NeuronTensorOp(srcs=[input_0], {{.*}}xla_op='mhlo.fusion', op='Elementwise', dl=m2.DebugLocation({{.*}}name=''))
// CHECK-NEXT: [[V1:v[0-9]+]] = m3.NeuronTensorOp(srcs=[input_0], {{.*}}xla_op='mhlo.fusion', op='Expm1', dl={{.*}}parent='[[V0]]'))
// CHECK-NEXT: [[V2:v[0-9]+]] = m1.ExponentialMinusOneOp(srcs=[input_0], {{.*}}parent='[[V1]]'))
// CHECK-NEXT: [[V1]].setResults([[[V2]]])
// CHECK-NEXT: [[V3:v[0-9]+]] = m1.NegateOp(srcs=[[[V2]]], {{.*}}parent='[[V0]]'))
// CHECK-NEXT: [[V0]].setResults([[[V3]]])
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
