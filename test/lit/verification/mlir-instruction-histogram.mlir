// Spine step 31: op-count histogram (deterministic: count desc, then name).
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(mlir-instruction-histogram{output=-})' 2>&1 >/dev/null | FileCheck %s --check-prefix=HIST
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(mlir-instruction-histogram{output=%t.txt})' | FileCheck %s
// RUN: FileCheck %s --check-prefix=FILE < %t.txt
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(mlir-instruction-histogram)' --mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STAT

// The IR is left alone. (--pass-pipeline: hilo-opt reserves --mlir-* flags for its own options.)
// CHECK-LABEL: func.func @main
// CHECK-NEXT: mhlo.add
// CHECK-NEXT: mhlo.add
// CHECK-NEXT: mhlo.multiply
// HIST: ===- MLIR instruction histogram -===
// HIST-NEXT: 5 total ops, 4 distinct
// HIST-NEXT: 2 mhlo.add
// HIST-NEXT: 1 func.func
// HIST-NEXT: 1 func.return
// HIST-NEXT: 1 mhlo.multiply
// STAT: MLIRInstructionHistogram
// STAT-NEXT: (func.func) 1
// STAT-NEXT: (func.return) 1
// STAT-NEXT: (mhlo.add) 2
func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %0 = mhlo.add %arg0, %arg0 : tensor<2xf32>
  %1 = mhlo.add %0, %arg0 : tensor<2xf32>
  %2 = mhlo.multiply %1, %0 : tensor<2xf32>
  return %2 : tensor<2xf32>
}
// FILE: ===- MLIR instruction histogram -===
// FILE-NEXT: 5 total ops, 4 distinct
// FILE-NEXT: 2 mhlo.add
// FILE-NEXT: 1 func.func
