// Issue 22 item 2: HLO text (XLA's dumps, compiled.as_text(), pasted bug reports) is read by
// XLA's own parser, detected by content whatever the file is named; parse errors are located
// in the HLO text.
// RUN: rm -rf %t && mkdir -p %t
// RUN: cp %S/Inputs/transpose.before_optimizations.txt %t/module_0001.jit_f.before_optimizations.txt
// RUN: cp %S/Inputs/transpose.before_optimizations.txt %t/f.hlo
// RUN: cp %S/Inputs/transpose.before_optimizations.txt %t/named-like-mlir.mlir
// RUN: hilo2penguin %t/module_0001.jit_f.before_optimizations.txt -o %t/a | FileCheck %s --check-prefix=WROTE
// RUN: hilo2penguin %t/f.hlo -o %t/b | FileCheck %s --check-prefix=WROTE
// RUN: hilo2penguin %t/named-like-mlir.mlir -o %t/c | FileCheck %s --check-prefix=WROTE
// RUN: hilo-opt %t/f.hlo --canonicalize | FileCheck %s
// RUN: not hilo2penguin %S/Inputs/unknown-opcode.txt -o %t/e1 2>&1 | FileCheck %s --check-prefix=OPCODE
// RUN: not hilo2penguin %S/Inputs/truncated.txt -o %t/e2 2>&1 | FileCheck %s --check-prefix=TRUNC
// RUN: not hilo2penguin %S/Inputs/garbage.txt -o %t/e3 2>&1 | FileCheck %s --check-prefix=GARBAGE
// RUN: not hilo2penguin %S/Inputs/unsupported-op.txt -o %t/e4 2>&1 | FileCheck %s --check-prefix=SOLVER
// RUN: not hilo-opt %S/Inputs/unknown-opcode.txt 2>&1 | FileCheck %s --check-prefix=OPCODE
// RUN: not test -e %t/e1
// RUN: not test -e %t/e2
// RUN: not test -e %t/e3
// RUN: not test -e %t/e4

// WROTE: wrote {{.*}}penguin.py
// CHECK-LABEL: func.func @main(
// CHECK: stablehlo.transpose
// CHECK: stablehlo.multiply
// OPCODE: unknown-opcode.txt:5:23: error: invalid HLO text: expects opcode but sees: frobnicate, error: Unknown opcode: frobnicate
// OPCODE-NOT: Traceback
// TRUNC: truncated.txt:24:17: error: invalid HLO text: expects opcode
// GARBAGE: garbage.txt:2:1: error: invalid HLO text: expects name
// SOLVER: unsupported-op.txt:5:9: error: 'stablehlo.cholesky': linear-algebra solvers have no Penguin equivalent
// SOLVER-NEXT: ROOT %r = f32[4,4]{1,0} cholesky(%p), lower=true
