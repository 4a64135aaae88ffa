// Constants (docs/penguin_format.md section 5a): splat -> a scalar literal whatever the size;
// small -> a nested-list literal (exact values, float('nan')/float('inf'), complex(re, im));
// more than inline-constant-max-elements -> m1.NpyFile('const_<K>.npy') beside penguin.py.
// RUN: hilo-opt %s --stablehlo-to-py-penguin="output=- inline-constant-max-elements=4" -o /dev/null | FileCheck %s
// RUN: hilo-opt %s --stablehlo-to-py-penguin="output=- inline-constant-max-elements=8" -o /dev/null | FileCheck %s --check-prefix=BIG
// RUN: hilo-opt %s --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,mhlo-to-py-penguin{output=- inline-constant-max-elements=4})' -o /dev/null | FileCheck %s

// CHECK-LABEL: attrs=('model-type=generic', 'mac-count=0', 'module=constants'))
// CHECK-NEXT: {{v[0-9]+}} = m1.ConstantOp(srcs=[], dsts=[m1.TensorSpec(shape=(2, 3), dtype='float32')], value=1.5, xla_op='{{(stablehlo|mhlo)}}.constant', dl=
// CHECK-NEXT: {{v[0-9]+}} = m1.ConstantOp(srcs=[], dsts=[m1.TensorSpec(shape=(), dtype='float32')], value=0.10000000149011612, xla_op=
// CHECK-NEXT: {{v[0-9]+}} = m1.ConstantOp(srcs=[], dsts=[m1.TensorSpec(shape=(3,), dtype='int32')], value=[0, -1, 2147483647], xla_op=
// CHECK-NEXT: {{v[0-9]+}} = m1.ConstantOp(srcs=[], dsts=[m1.TensorSpec(shape=(4,), dtype='bool')], value=[True, False, True, True], xla_op=
// CHECK-NEXT: {{v[0-9]+}} = m1.ConstantOp(srcs=[], dsts=[m1.TensorSpec(shape=(6,), dtype='bfloat16')], value=m1.NpyFile('const_0.npy'), xla_op=
// CHECK-NEXT: {{v[0-9]+}} = m1.ConstantOp(srcs=[], dsts=[m1.TensorSpec(shape=(2,), dtype='complex64')], value=[complex(1.0, 2.0), complex(-3.5, 0.0)], xla_op=
// CHECK-NEXT: {{v[0-9]+}} = m1.ConstantOp(srcs=[], dsts=[m1.TensorSpec(shape=(8,), dtype='float32')], value=m1.NpyFile('const_1.npy'), xla_op=
// CHECK-NEXT: {{v[0-9]+}} = m1.ConstantOp(srcs=[], dsts=[m1.TensorSpec(shape=(2,), dtype='uint32')], value=[4294967295, 7], xla_op=
// CHECK-NEXT: {{v[0-9]+}} = m1.ConstantOp(srcs=[], dsts=[m1.TensorSpec(shape=(3,), dtype='float16')], value=[1.0, 0.5, 65504.0], xla_op=
// CHECK-NEXT: {{v[0-9]+}} = m1.ConstantOp(srcs=[], dsts=[m1.TensorSpec(shape=(1000,), dtype='bfloat16')], value=2.0, xla_op=
// CHECK-NEXT: {{v[0-9]+}} = m1.ConstantOp(srcs=[], dsts=[m1.TensorSpec(shape=(2,), dtype='int64')], value=[-9223372036854775808, 9223372036854775807], xla_op=
// BIG: {{v[0-9]+}} = m1.ConstantOp(srcs=[], dsts=[m1.TensorSpec(shape=(6,), dtype='bfloat16')], value=[1.0, -0.0, float('nan'), float('inf'), float('-inf'), 3.140625], xla_op=
// BIG: {{v[0-9]+}} = m1.ConstantOp(srcs=[], dsts=[m1.TensorSpec(shape=(8,), dtype='float32')], value=[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], xla_op=
// BIG-NOT: NpyFile
module @constants {
func.func @main() -> (tensor<2x3xf32>, tensor<f32>, tensor<3xi32>, tensor<4xi1>, tensor<6xbf16>, tensor<2xcomplex<f32>>, tensor<8xf32>, tensor<2xui32>, tensor<3xf16>, tensor<1000xbf16>, tensor<2xi64>) {
  %0 = stablehlo.constant dense<1.5> : tensor<2x3xf32>
  %1 = stablehlo.constant dense<0.1> : tensor<f32>
  %2 = stablehlo.constant dense<[0, -1, 2147483647]> : tensor<3xi32>
  %3 = stablehlo.constant dense<[true, false, true, true]> : tensor<4xi1>
  %4 = stablehlo.constant dense<[1.0, -0.0, 0x7FC0, 0x7F80, 0xFF80, 3.140630e+00]> : tensor<6xbf16>
  %5 = stablehlo.constant dense<[(1.0, 2.0), (-3.5, 0.0)]> : tensor<2xcomplex<f32>>
  %6 = stablehlo.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]> : tensor<8xf32>
  %7 = stablehlo.constant dense<[4294967295, 7]> : tensor<2xui32>
  %8 = stablehlo.constant dense<[1.0, 0.5, 65504.0]> : tensor<3xf16>
  %9 = stablehlo.constant dense<2.0> : tensor<1000xbf16>
  %10 = stablehlo.constant dense<[-9223372036854775808, 9223372036854775807]> : tensor<2xi64>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : tensor<2x3xf32>, tensor<f32>, tensor<3xi32>, tensor<4xi1>, tensor<6xbf16>, tensor<2xcomplex<f32>>, tensor<8xf32>, tensor<2xui32>, tensor<3xf16>, tensor<1000xbf16>, tensor<2xi64>
}
}
