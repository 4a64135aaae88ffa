// Prologue (Function, one markInput per entry argument) and epilogue (one markOutput per result)
// of both printers (docs/penguin_format.md sections 3-4).
// RUN: hilo-opt %s --split-input-file --mhlo-to-py-penguin=output=- -o /dev/null | FileCheck %s
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(hlo-legalize-to-stablehlo,stablehlo-to-py-penguin{output=-})' -o /dev/null | FileCheck %s
// With penguinize-io (spine step 26) in front, which stamps input_names/slowChanging* itself:
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(penguinize-io,mhlo-to-py-penguin{output=-})' -o /dev/null | FileCheck %s --check-prefix=PIO
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(hlo-legalize-to-stablehlo,stablehlo-penguinize-io,stablehlo-to-py-penguin{output=-})' -o /dev/null | FileCheck %s --check-prefix=PIO
// The model-type option:
// RUN: hilo-opt %s --split-input-file --mhlo-to-py-penguin="output=- model-type=unet-inference" -o /dev/null | FileCheck %s --check-prefix=UNET
// RUN: not hilo-opt %s --split-input-file --mhlo-to-py-penguin="output=- model-type=cnn" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADTYPE

// The Function handle is the first v<N>; model-type and mac-count come first in attrs;
// is_parameter_tensor=True (with weight_files and np_file) exactly for slowChangingIns; is_slow_changing from
// slowChangingOuts; names from the argument location and jax.result_info, else input_<i>/output_<j>.
// An input returned directly is marked by its input name.
// CHECK-LABEL: v0 = m0.Function(id_=0, batch_ids=[], attrs=('model-type=generic', 'mac-count=0', 'module=stamped', 'num-partitions=1', 'num-replicas=2'))
// CHECK-NEXT: input_0 = m1.Tensor(name='x', spec=m1.TensorSpec(shape=(4, 8), dtype='float32')).markInput(v0, index=0, is_parameter_tensor=False)
// CHECK-NEXT: input_1 = m1.Tensor(name='input_1', spec=m1.TensorSpec(shape=(8,), dtype='bfloat16')).markInput(v0, index=1, is_parameter_tensor=True, weight_files=['input_1.npy'], np_file='input_1.npy')
// CHECK-NEXT: input_2 = m1.Tensor(name='input_2', spec=m1.TensorSpec(shape=(), dtype='int32')).markInput(v0, index=2, is_parameter_tensor=False)
// CHECK-NEXT: v0.markOutput(input_0, index=0, name='result[0]', is_slow_changing=False)
// CHECK-NEXT: v0.markOutput(input_1, index=1, name='output_1', is_slow_changing=True)
// CHECK-NEXT: v0.markOutput(input_2, index=2, name='count', is_slow_changing=True)
// UNET-LABEL: v0 = m0.Function(id_=0, batch_ids=[], attrs=('model-type=unet-inference', 'mac-count=0', 'module=stamped',
// BADTYPE: error: invalid value 'cnn' for option 'model-type' of pass 'mhlo-to-py-penguin': expected one of: generic, transformer, unet-inference
module @stamped attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
func.func @main(%x: tensor<4x8xf32> loc("x"), %w: tensor<8xbf16>, %t: tensor<i32>) -> (tensor<4x8xf32> {jax.result_info = "result[0]"}, tensor<8xbf16>, tensor<i32> {jax.result_info = "count"}) attributes {slowChangingIns = dense<[1]> : tensor<1xi32>, slowChangingOuts = dense<[1, 2]> : tensor<2xi32>} {
  return %x, %w, %t : tensor<4x8xf32>, tensor<8xbf16>, tensor<i32>
}
}

// -----

// input_names wins over the argument location; the same value may be marked twice.
// CHECK-LABEL: 'module=named'))
// CHECK-NEXT: input_0 = m1.Tensor(name='tokens', spec={{.*}}).markInput(v0, index=0, is_parameter_tensor=False)
// CHECK-NEXT: input_1 = m1.Tensor(name='embedding', spec={{.*}}).markInput(v0, index=1, is_parameter_tensor=False)
// CHECK-NEXT: [[S:v[0-9]+]] = m1.AddOp(srcs=[input_0, input_1],
// CHECK-NEXT: v0.markOutput([[S]], index=0, name='output_0', is_slow_changing=False)
// CHECK-NEXT: v0.markOutput([[S]], index=1, name='output_1', is_slow_changing=False)
module @named {
func.func @main(%a: tensor<4xf32> loc("a"), %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {input_names = ["tokens", "embedding"]} {
  %0 = mhlo.add %a, %b : tensor<4xf32>
  return %0, %0 : tensor<4xf32>, tensor<4xf32>
}
}

// -----

// Without penguinize-io nothing is a parameter and the markers print as copies (left alone).
// CHECK-LABEL: 'module=marked'))
// CHECK-NEXT: input_0 = m1.Tensor({{.*}}).markInput(v0, index=0, is_parameter_tensor=False)
// CHECK-NEXT: input_1 = m1.Tensor({{.*}}).markInput(v0, index=1, is_parameter_tensor=False)
// CHECK-NEXT: {{v[0-9]+}} = m1.CopyOp(srcs=[input_1], {{.*}}target_name='AwsNeuronTransferWithStaticRing',
// End to end with penguinize-io: the AwsNeuronTransferWithStaticRing marker on argument 1 becomes
// slowChangingIns = [1], the marker on a returned value slowChangingOuts = [1]; the returned tuple is flattened.
// PIO-LABEL: 'module=marked'))
// PIO-NEXT: input_0 = m1.Tensor(name='input_0', {{.*}}).markInput(v0, index=0, is_parameter_tensor=False)
// PIO-NEXT: input_1 = m1.Tensor(name='input_1', {{.*}}).markInput(v0, index=1, is_parameter_tensor=True, weight_files=['input_1.npy'], np_file='input_1.npy')
// PIO-NEXT: [[M:v[0-9]+]] = m1.MultiplyOp(srcs=[input_0, input_1],
// PIO-NEXT: [[A:v[0-9]+]] = m1.AddOp(srcs=[[[M]], input_1],
// PIO-NEXT: v0.markOutput([[M]], index=0, name='output_0', is_slow_changing=False)
// PIO-NEXT: v0.markOutput([[A]], index=1, name='output_1', is_slow_changing=True)
module @marked {
func.func @main(%a: tensor<4xf32>, %w: tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>> {
  %l = mhlo.custom_call @AwsNeuronTransferWithStaticRing(%w) : (tensor<4xf32>) -> tensor<4xf32>
  %0 = mhlo.multiply %a, %l : tensor<4xf32>
  %1 = mhlo.add %0, %l : tensor<4xf32>
  %m = mhlo.custom_call @AwsNeuronTransferWithStaticRing(%1) : (tensor<4xf32>) -> tensor<4xf32>
  %t = mhlo.tuple %0, %m : tuple<tensor<4xf32>, tensor<4xf32>>
  return %t : tuple<tensor<4xf32>, tensor<4xf32>>
}
}

// -----

// mac-count is exact: dot (4x8 result, K=16), dot_general (batch 2, 3x5 result, K=7) and a
// convolution (1x6x6x4 result, 3x3x2x4 kernel: 3*3*2 = 18 MACs per output element), counted as printed.
// 4*8*16 + 2*3*5*7 + (1*6*6*4)*(3*3*2) = 512 + 210 + 2592 = 3314
// CHECK-LABEL: attrs=('model-type=generic', 'mac-count=3314', 'module=macs'))
// CHECK: = m1.DotOp(srcs=[input_0, input_1], dsts=[m1.TensorSpec(shape=(4, 8), dtype='float32')], lhs_batch_dimensions=[], rhs_batch_dimensions=[], lhs_contracting_dimensions=[1], rhs_contracting_dimensions=[0], op='{{(mhlo|stablehlo)}}.dot', xla_op='{{(mhlo|stablehlo)}}.dot', dl=
// CHECK: = m1.DotOp(srcs=[input_2, input_3], dsts=[m1.TensorSpec(shape=(2, 3, 5), dtype='float32')], lhs_batch_dimensions=[0], rhs_batch_dimensions=[0], lhs_contracting_dimensions=[2], rhs_contracting_dimensions=[1], op='{{(mhlo|stablehlo)}}.dot_general', xla_op='{{(mhlo|stablehlo)}}.dot_general', dl=
// CHECK: = m1.ConvolutionOp(srcs=[input_4, input_5],
module @macs {
func.func @main(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>, %c: tensor<2x3x7xf32>, %d: tensor<2x7x5xf32>, %x: tensor<1x8x8x2xf32>, %k: tensor<3x3x2x4xf32>) -> (tensor<4x8xf32>, tensor<2x3x5xf32>, tensor<1x6x6x4xf32>) {
  %0 = "mhlo.dot"(%a, %b) : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %1 = "mhlo.dot_general"(%c, %d) {dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} : (tensor<2x3x7xf32>, tensor<2x7x5xf32>) -> tensor<2x3x5xf32>
  %2 = mhlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x6x6x4xf32>
  return %0, %1, %2 : tensor<4x8xf32>, tensor<2x3x5xf32>, tensor<1x6x6x4xf32>
}
}
