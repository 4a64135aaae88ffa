// The StableHLO printer's CompositeKind dispatch: the seven-way table
// (docs/penguin_format.md section 6). Composite operands are aliased onto the decomposition's
// arguments (inner ops use the composite's operand names); parent= comes from the nesting stack.
// RUN: hilo-opt %s --split-input-file --stablehlo-to-py-penguin=output=- -o /dev/null | FileCheck %s
// The MHLO spine sees these as mhlo.composite after legalization and prints them the same way.
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,mhlo-to-py-penguin{output=-})' -o /dev/null | FileCheck %s --check-prefix=MHLO

// CHECK-LABEL: 'module=seven_kinds'))
// CHECK: [[V0:v[0-9]+]] = m3.NeuronTensorOp(srcs=[input_0, input_1], dsts=[m1.TensorSpec(shape=(4, 16), dtype='float32')], xla_op='mhlo.fusion', op='DotFusion', hilo_fusion_op='DotLogistic', dl=m2.DebugLocation(file='{{.*}}stablehlo-composites.mlir', line=49, col=8, name=''))
// CHECK-NEXT: [[V1:v[0-9]+]] = m1.DotOp(srcs=[input_0, input_1], {{.*}}lhs_contracting_dimensions=[1], rhs_contracting_dimensions=[0], op='stablehlo.dot_general', xla_op='stablehlo.dot_general', dl={{.*}}parent='[[V0]]'))
// CHECK-NEXT: [[V2:v[0-9]+]] = m1.LogisticOp(srcs=[[[V1]]], {{.*}}parent='[[V0]]'))
// CHECK-NEXT: [[V3:v[0-9]+]] = m1.MultiplyOp(srcs=[[[V1]], [[V2]]], {{.*}}parent='[[V0]]'))
// CHECK-NEXT: [[V0]].setResults([[[V3]]])
// CHECK-NEXT: [[V4:v[0-9]+]] = m3.NeuronTensorOp(srcs=[[[V3]]], {{.*}}xla_op='mhlo.fusion', op='Elementwise', hilo_fusion_op='Expm1'
// CHECK-NEXT: [[V5:v[0-9]+]] = m1.ExponentialMinusOneOp(srcs=[[[V3]]], {{.*}}xla_op='stablehlo.exponential_minus_one', dl={{.*}}parent='[[V4]]'))
// CHECK-NEXT: [[V4]].setResults([[[V5]]])
// CHECK-NEXT: [[V6:v[0-9]+]] = m3.NeuronTensorOp(srcs=[[[V5]]], {{.*}}xla_op='mhlo.fusion', op='Elementwise', hilo_fusion_op='Log1p'
// CHECK-NEXT: [[V7:v[0-9]+]] = m1.LogPlusOneOp(srcs=[[[V5]]], {{.*}}parent='[[V6]]'))
// CHECK-NEXT: [[V6]].setResults([[[V7]]])
// CHECK-NEXT: [[V8:v[0-9]+]] = m3.NeuronTensorOp(srcs=[[[V7]]], {{.*}}xla_op='mhlo.fusion', op='Elementwise', hilo_fusion_op='Elementwise'
// CHECK-NEXT: [[V9:v[0-9]+]] = m1.ExponentialOp(srcs=[[[V7]]], {{.*}}parent='[[V8]]'))
// CHECK-NEXT: [[V8]].setResults([[[V9]]])
// CHECK-NEXT: [[V10:v[0-9]+]] = m3.NeuronTensorOp(srcs=[[[V9]], input_2], {{.*}}xla_op='mhlo.fusion', op='DotSoftmax', hilo_fusion_op='DotSoftmax'
// CHECK: [[V10]].setResults([[[V12:v[0-9]+]]])
// CHECK-NEXT: [[V13:v[0-9]+]] = m1.ConstantOp(srcs=[], dsts=[m1.TensorSpec(shape=(), dtype='float32')], value=0.0
// CHECK-NEXT: [[V14:v[0-9]+]] = m3.NeuronTensorOp(srcs=[[[V12]], [[V13]]], dsts=[m1.TensorSpec(shape=(4,), dtype='float32')], xla_op='mhlo.fusion', op='MulRedSqrt', hilo_fusion_op='MulRedSqrt', reduce_dims=[1]
// CHECK-NEXT: [[V15:v[0-9]+]] = m1.MultiplyOp(srcs=[[[V12]], [[V12]]], {{.*}}parent='[[V14]]'))
// CHECK-NEXT: def [[V17:v[0-9]+]]([[V18:v[0-9]+]], [[V19:v[0-9]+]]):
// CHECK-NEXT:     [[V20:v[0-9]+]] = m1.AddOp(srcs=[[[V18]], [[V19]]], {{.*}}parent='[[V16:v[0-9]+]]'))
// CHECK-NEXT:     return [[[V20]]]
// CHECK-NEXT: [[V16]] = m1.ReduceOp(srcs=[[[V15]], [[V13]]], {{.*}}dimensions=[1], regions=[[[V17]]], reducer='add', xla_op='stablehlo.reduce', dl={{.*}}parent='[[V14]]'))
// CHECK-NEXT: [[V21:v[0-9]+]] = m1.SqrtOp(srcs=[[[V16]]], {{.*}}parent='[[V14]]'))
// CHECK-NEXT: [[V14]].setResults([[[V21]]])
// ScheduleFusion: transparent.
// CHECK-NEXT: [[V22:v[0-9]+]] = m1.AllGatherOp(srcs=[[[V21]]], {{.*}}xla_op='stablehlo.all_gather', dl=m2.DebugLocation({{[^)]*}}name=''))
// CHECK-NEXT: v0.markOutput([[V22]], index=0,
// MHLO-LABEL: 'module=seven_kinds'))
// MHLO: [[V0:v[0-9]+]] = m3.NeuronTensorOp(srcs=[input_0, input_1], {{.*}}xla_op='mhlo.fusion', op='DotFusion', hilo_fusion_op='DotLogistic'
// MHLO: [[V1:v[0-9]+]] = m1.DotOp(srcs=[input_0, input_1], {{.*}}lhs_contracting_dimensions=[1], rhs_contracting_dimensions=[0], op='mhlo.dot_general', xla_op='mhlo.dot_general', dl={{.*}}parent='[[V0]]'))
// MHLO: op='Elementwise', hilo_fusion_op='Expm1'
// MHLO: op='Elementwise', hilo_fusion_op='Log1p'
// MHLO: op='Elementwise', hilo_fusion_op='Elementwise'
// MHLO: op='DotSoftmax', hilo_fusion_op='DotSoftmax'
// MHLO: op='MulRedSqrt', hilo_fusion_op='MulRedSqrt', reduce_dims=[1]
// MHLO-NOT: ScheduleFusion
// MHLO: [[V22:v[0-9]+]] = m1.AllGatherOp(srcs=[[[V21:v[0-9]+]]], {{.*}}xla_op='mhlo.all_gather'
module @seven_kinds {
func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<16x16xf32>) -> tensor<4xf32> {
  %0 = stablehlo.composite "neuron.DotLogistic" %a, %b {decomposition = @neuron.DotLogistic.impl, version = 1 : i32, CompositeKind = "DotLogistic"} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = stablehlo.composite "neuron.Expm1" %0 {decomposition = @neuron.Expm1.impl, CompositeKind = "Expm1"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %2 = stablehlo.composite "neuron.Log1p" %1 {decomposition = @neuron.Log1p.impl, CompositeKind = "Log1p"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %3 = stablehlo.composite "neuron.Elementwise" %2 {decomposition = @neuron.Elementwise.impl, CompositeKind = "Elementwise"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %4 = stablehlo.composite "neuron.DotSoftmax" %3, %c {decomposition = @neuron.DotSoftmax.impl, CompositeKind = "DotSoftmax"} : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %5 = stablehlo.composite "neuron.MulRedSqrt" %4, %z {decomposition = @neuron.MulRedSqrt.impl, CompositeKind = "MulRedSqrt"} : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
  %6 = stablehlo.composite "neuron.ScheduleFusion" %5 {decomposition = @neuron.ScheduleFusion.impl, CompositeKind = "ScheduleFusion"} : (tensor<4xf32>) -> tensor<4xf32>
  return %6 : tensor<4xf32>
}
func.func private @neuron.DotLogistic.impl(%x: tensor<4x8xf32>, %y: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %d = stablehlo.dot_general %x, %y, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %l = stablehlo.logistic %d : tensor<4x16xf32>
  %m = stablehlo.multiply %d, %l : tensor<4x16xf32>
  return %m : tensor<4x16xf32>
}
func.func private @neuron.Expm1.impl(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %e = stablehlo.exponential_minus_one %x : tensor<4x16xf32>
  return %e : tensor<4x16xf32>
}
func.func private @neuron.Log1p.impl(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %e = stablehlo.log_plus_one %x : tensor<4x16xf32>
  return %e : tensor<4x16xf32>
}
func.func private @neuron.Elementwise.impl(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %e = stablehlo.exponential %x : tensor<4x16xf32>
  return %e : tensor<4x16xf32>
}
func.func private @neuron.DotSoftmax.impl(%x: tensor<4x16xf32>, %y: tensor<16x16xf32>) -> tensor<4x16xf32> {
  %d = stablehlo.dot_general %x, %y, contracting_dims = [1] x [0] : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %e = stablehlo.exponential %d : tensor<4x16xf32>
  return %e : tensor<4x16xf32>
}
func.func private @neuron.MulRedSqrt.impl(%x: tensor<4x16xf32>, %z: tensor<f32>) -> tensor<4xf32> {
  %m = stablehlo.multiply %x, %x : tensor<4x16xf32>
  %r = stablehlo.reduce(%m init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
  %s = stablehlo.sqrt %r : tensor<4xf32>
  return %s : tensor<4xf32>
}
func.func private @neuron.ScheduleFusion.impl(%x: tensor<4xf32>) -> tensor<4xf32> {
  %g = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}
}

// -----

// A composite JAX emits itself (no CompositeKind): printed through its decomposition behind a CompositeOp header.
// Two instances of one decomposition are both re-emitted; nested composites get the innermost parent.
// CHECK-LABEL: 'module=foreign'))
// CHECK: [[V0:v[0-9]+]] = m3.CompositeOp(srcs=[input_0], dsts=[m1.TensorSpec(shape=(4,), dtype='float32')], xla_op='stablehlo.composite', name='chlo.tan', composite_attributes={'k': 3, 'mode': 'fast'}, version=1, decomposition='chlo.tan.impl', dl=
// CHECK-NEXT: [[V1:v[0-9]+]] = m3.NeuronTensorOp(srcs=[input_0], {{.*}}xla_op='mhlo.fusion', op='Elementwise', hilo_fusion_op='Elementwise', dl={{.*}}parent='[[V0]]'))
// CHECK-NEXT: [[V2:v[0-9]+]] = m1.SineOp(srcs=[input_0], {{.*}}parent='[[V1]]'))
// CHECK-NEXT: [[V1]].setResults([[[V2]]])
// CHECK-NEXT: [[V3:v[0-9]+]] = m1.CosineOp(srcs=[input_0], {{.*}}parent='[[V0]]'))
// CHECK-NEXT: [[V4:v[0-9]+]] = m1.DivideOp(srcs=[[[V2]], [[V3]]], {{.*}}parent='[[V0]]'))
// CHECK-NEXT: [[V0]].setResults([[[V4]]])
// CHECK-NEXT: [[V5:v[0-9]+]] = m3.CompositeOp(srcs=[[[V4]]], {{.*}}name='chlo.tan', {{.*}}dl=m2.DebugLocation({{[^)]*}}name=''))
// CHECK-NEXT: [[V6:v[0-9]+]] = m3.NeuronTensorOp(srcs=[[[V4]]], {{.*}}parent='[[V5]]'))
// CHECK-NEXT: [[V7:v[0-9]+]] = m1.SineOp(srcs=[[[V4]]], {{.*}}parent='[[V6]]'))
// CHECK: [[V5]].setResults([[[V9:v[0-9]+]]])
// CHECK-NEXT: v0.markOutput([[V9]], index=0,
module @foreign {
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.composite "chlo.tan" %a {composite_attributes = {mode = "fast", k = 3 : i64}, decomposition = @chlo.tan.impl, version = 1 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = stablehlo.composite "chlo.tan" %0 {composite_attributes = {mode = "fast", k = 3 : i64}, decomposition = @chlo.tan.impl, version = 1 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @chlo.tan.impl(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = stablehlo.composite "neuron.Elementwise" %x {decomposition = @neuron.Elementwise.impl, CompositeKind = "Elementwise"} : (tensor<4xf32>) -> tensor<4xf32>
  %c = stablehlo.cosine %x : tensor<4xf32>
  %t = stablehlo.divide %s, %c : tensor<4xf32>
  return %t : tensor<4xf32>
}
func.func private @neuron.Elementwise.impl(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = stablehlo.sine %x : tensor<4xf32>
  return %s : tensor<4xf32>
}
}
