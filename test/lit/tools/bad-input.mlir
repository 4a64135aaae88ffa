// Bad input: one error line with file:line:col, exit 1, no traceback, no output file.
// RUN: rm -f %t.out
// RUN: not hilo-opt %s -o %t.out 2>&1 | FileCheck %s
// RUN: not test -e %t.out
// RUN: not hilo-opt %s.missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: printf '' > %t.empty && hilo-opt %t.empty | FileCheck %s --check-prefix=EMPTY && printf '' | hilo-opt - | FileCheck %s --check-prefix=EMPTY
// RUN: not hilo-opt %S/Inputs/unknown-dialect.mlir 2>&1 | FileCheck %s --check-prefix=DIALECT
// RUN: hilo-opt %S/Inputs/unknown-dialect.mlir --allow-unregistered-dialect | FileCheck %s --check-prefix=ALLOWED
// RUN: not hilo-opt %S/Inputs/unknown-dialect.mlir 2>&1 | FileCheck %s --check-prefix=NOTRACE

// CHECK: bad-input.mlir:14:24: error: expected ','
// CHECK-NOT: Traceback
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// MISSING: error: cannot open input file '{{.*}}bad-input.mlir.missing': no such file
// An empty file and empty stdin are the same: the empty module, exit 0 (as mlir-opt).
// EMPTY: module {
// EMPTY-NEXT: }
// DIALECT: unknown-dialect.mlir:3:17: error: operation being parsed with an unregistered dialect
// ALLOWED: foo.bar
// NOTRACE-NOT: Traceback
