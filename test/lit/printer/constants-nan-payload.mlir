// NaN constants print bit-exactly and without floating-point warnings (docs/penguin_format.md
// section 5a): a NaN that float('nan') / float('-nan') gives back prints as a float literal; any
// other NaN (a signalling NaN, a quiet NaN with a payload) makes the value print as the elements'
// bit patterns, m1.Bits(...); a large one goes to .npy with its bits. The program runs with
// warnings as errors and gives back every bit.
// RUN: %python -W error::RuntimeWarning -m hilo_mlir.tools.opt %s --stablehlo-to-py-penguin="output=- inline-constant-max-elements=4" -o /dev/null | FileCheck %s
// RUN: %python -W error::RuntimeWarning -m hilo_mlir.tools.opt %s --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,mhlo-to-py-penguin{output=- inline-constant-max-elements=4})' -o /dev/null | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t && %python -W error::RuntimeWarning -m hilo_mlir.tools.opt %s --stablehlo-to-py-penguin="output=%t/penguin.py inline-constant-max-elements=4" -o /dev/null
// RUN: %python -W error::RuntimeWarning -c "import sys, numpy as np; from hilo_mlir import penguin_ref; outs = penguin_ref.run(sys.argv[1], []); [print(' '.join(hex(b) for b in np.ascontiguousarray(o).reshape(-1).view('u%%d' %% o.dtype.itemsize).tolist())) for o in outs]" %t/penguin.py | FileCheck %s --check-prefix=BITS

// CHECK-LABEL: attrs=('model-type=generic', 'mac-count=0', 'module=nan_payloads'))
// CHECK-NEXT: [[A:v[0-9]+]] = m1.ConstantOp(srcs=[], dsts=[m1.TensorSpec(shape=(4,), dtype='float32')], value=m1.Bits([0xffc00000, 0x7fc00000, 0x7f800001, 0x7fc00123]), xla_op=
// CHECK-NEXT: [[B:v[0-9]+]] = m1.ConstantOp(srcs=[], dsts=[m1.TensorSpec(shape=(3,), dtype='bfloat16')], value=m1.Bits([0x7fc1, 0x3fc0, 0xff80]), xla_op=
// CHECK-NEXT: [[C:v[0-9]+]] = m1.ConstantOp(srcs=[], dsts=[m1.TensorSpec(shape=(2,), dtype='float32')], value=m1.Bits(0x7f800001), xla_op=
// CHECK-NEXT: [[D:v[0-9]+]] = m1.ConstantOp(srcs=[], dsts=[m1.TensorSpec(shape=(2, 2), dtype='float32')], value=float('-nan'), xla_op=
// CHECK-NEXT: [[E:v[0-9]+]] = m1.ConstantOp(srcs=[], dsts=[m1.TensorSpec(shape=(2,), dtype='float32')], value=[float('nan'), 1.0], xla_op=
// CHECK-NEXT: [[F:v[0-9]+]] = m1.ConstantOp(srcs=[], dsts=[m1.TensorSpec(shape=(6,), dtype='float32')], value=m1.NpyFile('const_0.npy'), xla_op=
// BITS:      0xffc00000 0x7fc00000 0x7f800001 0x7fc00123
// BITS-NEXT: 0x7fc1 0x3fc0 0xff80
// BITS-NEXT: 0x7f800001 0x7f800001
// BITS-NEXT: 0xffc00000 0xffc00000 0xffc00000 0xffc00000
// BITS-NEXT: 0x7fc00000 0x3f800000
// BITS-NEXT: 0x7fa00000 0x0 0x7f800001 0x3f800000 0xffc00001 0x40000000
module @nan_payloads {
func.func @main() -> (tensor<4xf32>, tensor<3xbf16>, tensor<2xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<6xf32>) {
  %a = stablehlo.constant dense<[0xFFC00000, 0x7FC00000, 0x7F800001, 0x7FC00123]> : tensor<4xf32>
  %b = stablehlo.constant dense<[0x7FC1, 1.5, 0xFF80]> : tensor<3xbf16>
  %c = stablehlo.constant dense<0x7F800001> : tensor<2xf32>
  %d = stablehlo.constant dense<0xFFC00000> : tensor<2x2xf32>
  %e = stablehlo.constant dense<[0x7FC00000, 1.0]> : tensor<2xf32>
  %f = stablehlo.constant dense<[0x7FA00000, 0.0, 0x7F800001, 1.0, 0xFFC00001, 2.0]> : tensor<6xf32>
  return %a, %b, %c, %d, %e, %f : tensor<4xf32>, tensor<3xbf16>, tensor<2xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<6xf32>
}
}
