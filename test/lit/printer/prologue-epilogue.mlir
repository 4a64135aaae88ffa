// Prologue (Function, one markInput per entry argument) and epilogue (one markOutput per result)
// of both printers (seed 002 sections 4-5; docs/penguin_format.md sections 3-4).
// RUN: hilo-opt %s --split-input-file --mhlo-to-py-penguin=output=- -o /dev/null | FileCheck %s
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(hlo-legalize-to-stablehlo,stablehlo-to-py-penguin{output=-})' -o /dev/null | FileCheck %s
// With penguinize-io (spine step 26) in front, which stamps input_names/slowChanging* itself:
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(penguinize-io,mhlo-to-py-penguin{output=-})' -o /dev/null | FileCheck %s --check-prefix=PIO
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(hlo-legalize-to-stablehlo,stablehlo-penguinize-io,stablehlo-to-py-penguin{output=-})' -o /dev/null | FileCheck %s --check-prefix=PIO

// is_parameter_tensor=True (with the weight file) exactly for slowChangingIns; is_slow_changing from
// slowChangingOuts; names from the argument location and jax.result_info, else input_<i>/output_<j>.
// An input returned directly is marked by its input name.
// CHECK-LABEL: function = m0.Function(id_=0, batch_ids=[], attrs=('module=stamped', 'num-partitions=1', 'num-replicas=2'))
// CHECK-NEXT: input_0 = m1.Tensor(name='x', spec=m1.TensorSpec(shape=(4, 8), dtype='float32')).markInput(function, index=0, is_parameter_tensor=False)
// CHECK-NEXT: input_1 = m1.Tensor(name='input_1', spec=m1.TensorSpec(shape=(8,), dtype='bfloat16')).markInput(function, index=1, is_parameter_tensor=True, weight_file='input_1.npy')
// CHECK-NEXT: input_2 = m1.Tensor(name='input_2', spec=m1.TensorSpec(shape=(), dtype='int32')).markInput(function, index=2, is_parameter_tensor=False)
// CHECK-NEXT: function.markOutput(input_0, index=0, name='result[0]', is_slow_changing=False)
// CHECK-NEXT: function.markOutput(input_1, index=1, name='output_1', is_slow_changing=True)
// CHECK-NEXT: function.markOutput(input_2, index=2, name='count', is_slow_changing=True)
module @stamped attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
func.func @main(%x: tensor<4x8xf32> loc("x"), %w: tensor<8xbf16>, %t: tensor<i32>) -> (tensor<4x8xf32> {jax.result_info = "result[0]"}, tensor<8xbf16>, tensor<i32> {jax.result_info = "count"}) attributes {slowChangingIns = dense<[1]> : tensor<1xi32>, slowChangingOuts = dense<[1, 2]> : tensor<2xi32>} {
  return %x, %w, %t : tensor<4x8xf32>, tensor<8xbf16>, tensor<i32>
}
}

// -----

// input_names wins over the argument location; the same value may be marked twice.
// CHECK-LABEL: attrs=('module=named',)
// CHECK-NEXT: input_0 = m1.Tensor(name='tokens', spec={{.*}}).markInput(function, index=0, is_parameter_tensor=False)
// CHECK-NEXT: input_1 = m1.Tensor(name='embedding', spec={{.*}}).markInput(function, index=1, is_parameter_tensor=False)
// CHECK-NEXT: v0 = m1.AddOp(srcs=[input_0, input_1],
// CHECK-NEXT: function.markOutput(v0, index=0, name='output_0', is_slow_changing=False)
// CHECK-NEXT: function.markOutput(v0, index=1, name='output_1', is_slow_changing=False)
module @named {
func.func @main(%a: tensor<4xf32> loc("a"), %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {input_names = ["tokens", "embedding"]} {
  %0 = mhlo.add %a, %b : tensor<4xf32>
  return %0, %0 : tensor<4xf32>, tensor<4xf32>
}
}

// -----

// Without penguinize-io nothing is a parameter and the markers print as copies (left alone).
// CHECK-LABEL: attrs=('module=marked',)
// CHECK-NEXT: input_0 = m1.Tensor({{.*}}).markInput(function, index=0, is_parameter_tensor=False)
// CHECK-NEXT: input_1 = m1.Tensor({{.*}}).markInput(function, index=1, is_parameter_tensor=False)
// CHECK-NEXT: v0 = m1.CopyOp(srcs=[input_1], {{.*}}target_name='AwsNeuronTransferWithStaticRing',
// End to end with penguinize-io: the AwsNeuronTransferWithStaticRing marker on argument 1 becomes
// slowChangingIns = [1], the marker on a returned value slowChangingOuts = [1]; the returned tuple is flattened.
// PIO-LABEL: attrs=('module=marked',)
// PIO-NEXT: input_0 = m1.Tensor(name='input_0', {{.*}}).markInput(function, index=0, is_parameter_tensor=False)
// PIO-NEXT: input_1 = m1.Tensor(name='input_1', {{.*}}).markInput(function, index=1, is_parameter_tensor=True, weight_file='input_1.npy')
// PIO-NEXT: v0 = m1.MultiplyOp(srcs=[input_0, input_1],
// PIO-NEXT: v1 = m1.AddOp(srcs=[v0, input_1],
// PIO-NEXT: function.markOutput(v0, index=0, name='output_0', is_slow_changing=False)
// PIO-NEXT: function.markOutput(v1, index=1, name='output_1', is_slow_changing=True)
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
