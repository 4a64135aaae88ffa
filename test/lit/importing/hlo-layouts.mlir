// Issue 22 item 1: XLA's layouts are dropped at import (HLO values are logical); a layout
// that is meaning (a custom call's operand layout, a transposing bitcast) is one located error.
// Inputs/*.txt: Inputs/generate.py (real jax dumps) and hand-written cases.
// RUN: hilo-opt %S/Inputs/layouts.txt | FileCheck %s
// RUN: hilo-opt %S/Inputs/transpose.before_optimizations.txt | FileCheck %s --check-prefix=JAX
// RUN: rm -rf %t && mkdir -p %t && hilo2penguin %S/Inputs/transpose.before_optimizations.txt -o %t/m --debug 2>%t/m.err | FileCheck %s --check-prefix=WROTE
// RUN: FileCheck %s --check-prefix=DEBUG < %t/m.err
// RUN: hilo2penguin %S/Inputs/transpose.before_optimizations.txt -o %t/s --spine stablehlo --preset all | FileCheck %s --check-prefix=WROTE
// RUN: FileCheck %s --check-prefix=PENGUIN < %t/s/penguin.py
// RUN: not hilo2penguin %S/Inputs/bitcast-transpose.txt -o %t/b 2>&1 | FileCheck %s --check-prefix=BITCAST
// RUN: not hilo2penguin %S/Inputs/custom-call-layout.txt -o %t/c 2>&1 | FileCheck %s --check-prefix=CCLAYOUT
// RUN: not test -e %t/b
// RUN: not test -e %t/c

// CHECK-NOT: mhlo.xla_entry_computation
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[P:.*]]: tensor<4x8xf32>) -> (tensor<8x4xf32>, tensor<32xf32>, tensor<4x8xf32>)
// CHECK-NEXT: %[[T:.*]] = stablehlo.transpose %[[P]], dims = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: %[[R:.*]] = stablehlo.reshape %[[P]] : (tensor<4x8xf32>) -> tensor<32xf32>
// CHECK-NEXT: return %[[T]], %[[R]], %[[P]] :
// CHECK-NOT: layout
// CHECK-NOT: xla_shape
// CHECK-NOT: mhlo.copy

// JAX-LABEL: func.func @main(
// JAX: stablehlo.transpose
// JAX-NOT: result_layout
// JAX: stablehlo.multiply
// JAX-NOT: {{layout|xla_shape}}

// WROTE: wrote {{.*}}penguin.py
// DEBUG: [hlo-import] dropped 4 layout attribute(s) (XLA's physical layouts; HLO values are logical)
// PENGUIN: m1.TransposeOp(srcs=[input_0], dsts=[m1.TensorSpec(shape=(8, 4), dtype='float32')], permutation=[1, 0]
// PENGUIN-NOT: layout

// BITCAST: bitcast-transpose.txt:5:9: error: bitcast from tensor<4x8xf32> to tensor<8x4xf32> reinterprets the buffer ({1,0} -> {0,1}): it is a layout change XLA inserted, not an operation on values; use the module before XLA's optimizations
// BITCAST-NEXT: ROOT %b = f32[8,4]{0,1} bitcast(%p)
// BITCAST-NOT: Traceback
// CCLAYOUT: custom-call-layout.txt:5:9: error: custom call 'my_kernel' has the non-default layout {0,1} on operand 0: its target reads the buffer in that order, which a Penguin program cannot express
