// The StableHLO printer's CompositeKind dispatch: the seven-way table of seed 002 section 2
// (docs/penguin_format.md section 6). Composite operands are aliased onto the decomposition's
// arguments (inner ops use the composite's operand names); parent= comes from the nesting stack.
// RUN: hilo-opt %s --split-input-file --stablehlo-to-py-penguin=output=- -o /dev/null | FileCheck %s
// The MHLO spine sees these as mhlo.composite after legalization and prints them the same way.
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,mhlo-to-py-penguin{output=-})' -o /dev/null | FileCheck %s --check-prefix=MHLO

// CHECK-LABEL: attrs=('module=seven_kinds',)
// CHECK: v0 = m3.NeuronTensorOp(srcs=[input_0, input_1], dsts=[m1.TensorSpec(shape=(4, 16), dtype='float32')], op='DotFusion', hilo_fusion_op='DotLogistic', xla_op='mhlo.fusion', dl=m2.DebugLocation(file='{{.*}}stablehlo-composites.mlir', line=49, col=8, name=''))
// CHECK-NEXT: v1 = m1.DotGeneralOp(srcs=[input_0, input_1], {{.*}}xla_op='stablehlo.dot_general', dl={{.*}}parent='v0'))
// CHECK-NEXT: v2 = m1.LogisticOp(srcs=[v1], {{.*}}parent='v0'))
// CHECK-NEXT: v3 = m1.MultiplyOp(srcs=[v1, v2], {{.*}}parent='v0'))
// CHECK-NEXT: v0.setResults([v3])
// CHECK-NEXT: v4 = m3.NeuronTensorOp(srcs=[v3], {{.*}}op='Elementwise', hilo_fusion_op='Expm1', xla_op='mhlo.fusion'
// CHECK-NEXT: v5 = m1.ExponentialMinusOneOp(srcs=[v3], {{.*}}xla_op='stablehlo.exponential_minus_one', dl={{.*}}parent='v4'))
// CHECK-NEXT: v4.setResults([v5])
// CHECK-NEXT: v6 = m3.NeuronTensorOp(srcs=[v5], {{.*}}op='Elementwise', hilo_fusion_op='Log1p', xla_op='mhlo.fusion'
// CHECK-NEXT: v7 = m1.LogPlusOneOp(srcs=[v5], {{.*}}parent='v6'))
// CHECK-NEXT: v6.setResults([v7])
// CHECK-NEXT: v8 = m3.NeuronTensorOp(srcs=[v7], {{.*}}op='Elementwise', hilo_fusion_op='Elementwise', xla_op='mhlo.fusion'
// CHECK-NEXT: v9 = m1.ExponentialOp(srcs=[v7], {{.*}}parent='v8'))
// CHECK-NEXT: v8.setResults([v9])
// CHECK-NEXT: v10 = m3.NeuronTensorOp(srcs=[v9, input_2], {{.*}}op='DotSoftmax', hilo_fusion_op='DotSoftmax', xla_op='mhlo.fusion'
// CHECK: v10.setResults([v12])
// CHECK-NEXT: v13 = m1.ConstantOp(srcs=[], dsts=[m1.TensorSpec(shape=(), dtype='float32')], value=0.0
// CHECK-NEXT: v14 = m3.NeuronTensorOp(srcs=[v12, v13], dsts=[m1.TensorSpec(shape=(4,), dtype='float32')], op='MulRedSqrt', hilo_fusion_op='MulRedSqrt', reduce_dims=[1], xla_op='mhlo.fusion'
// CHECK-NEXT: v15 = m1.MultiplyOp(srcs=[v12, v12], {{.*}}parent='v14'))
// CHECK-NEXT: def v17(v18, v19):
// CHECK-NEXT:     v20 = m1.AddOp(srcs=[v18, v19], {{.*}}parent='v16'))
// CHECK-NEXT:     return [v20]
// CHECK-NEXT: v16 = m1.ReduceOp(srcs=[v15, v13], {{.*}}dimensions=[1], regions=[v17], reducer='add', xla_op='stablehlo.reduce', dl={{.*}}parent='v14'))
// CHECK-NEXT: v21 = m1.SqrtOp(srcs=[v16], {{.*}}parent='v14'))
// CHECK-NEXT: v14.setResults([v21])
// ScheduleFusion: transparent.
// CHECK-NEXT: v22 = m1.AllGatherOp(srcs=[v21], {{.*}}xla_op='stablehlo.all_gather', dl=m2.DebugLocation({{[^)]*}}name=''))
// CHECK-NEXT: function.markOutput(v22, index=0,
// MHLO-LABEL: attrs=('module=seven_kinds',)
// MHLO: v0 = m3.NeuronTensorOp(srcs=[input_0, input_1], {{.*}}op='DotFusion', hilo_fusion_op='DotLogistic', xla_op='mhlo.fusion'
// MHLO: v1 = m1.DotGeneralOp(srcs=[input_0, input_1], {{.*}}xla_op='mhlo.dot_general', dl={{.*}}parent='v0'))
// MHLO: op='Elementwise', hilo_fusion_op='Expm1'
// MHLO: op='Elementwise', hilo_fusion_op='Log1p'
// MHLO: op='Elementwise', hilo_fusion_op='Elementwise'
// MHLO: op='DotSoftmax', hilo_fusion_op='DotSoftmax'
// MHLO: op='MulRedSqrt', hilo_fusion_op='MulRedSqrt', reduce_dims=[1]
// MHLO-NOT: ScheduleFusion
// MHLO: v22 = m1.AllGatherOp(srcs=[v21], {{.*}}xla_op='mhlo.all_gather'
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
// CHECK-LABEL: attrs=('module=foreign',)
// CHECK: v0 = m3.CompositeOp(srcs=[input_0], dsts=[m1.TensorSpec(shape=(4,), dtype='float32')], name='chlo.tan', composite_attributes={'k': 3, 'mode': 'fast'}, version=1, decomposition='chlo.tan.impl', xla_op='stablehlo.composite', dl=
// CHECK-NEXT: v1 = m3.NeuronTensorOp(srcs=[input_0], {{.*}}op='Elementwise', hilo_fusion_op='Elementwise', xla_op='mhlo.fusion', dl={{.*}}parent='v0'))
// CHECK-NEXT: v2 = m1.SineOp(srcs=[input_0], {{.*}}parent='v1'))
// CHECK-NEXT: v1.setResults([v2])
// CHECK-NEXT: v3 = m1.CosineOp(srcs=[input_0], {{.*}}parent='v0'))
// CHECK-NEXT: v4 = m1.DivideOp(srcs=[v2, v3], {{.*}}parent='v0'))
// CHECK-NEXT: v0.setResults([v4])
// CHECK-NEXT: v5 = m3.CompositeOp(srcs=[v4], {{.*}}name='chlo.tan', {{.*}}dl=m2.DebugLocation({{[^)]*}}name=''))
// CHECK-NEXT: v6 = m3.NeuronTensorOp(srcs=[v4], {{.*}}parent='v5'))
// CHECK-NEXT: v7 = m1.SineOp(srcs=[v4], {{.*}}parent='v6'))
// CHECK: v5.setResults([v9])
// CHECK-NEXT: function.markOutput(v9, index=0,
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
