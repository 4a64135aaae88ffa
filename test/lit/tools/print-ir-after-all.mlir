// RUN: hilo-opt %s --pass-pipeline='builtin.module(canonicalize,cse)' --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s
// RUN: hilo-opt %s --pass-pipeline='builtin.module(cse)' --mlir-print-ir-before-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: hilo-opt %s --pass-pipeline='builtin.module(canonicalize,cse)' --mlir-timing -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIMING

// CHECK: // -----// IR Dump After CanonicalizerPass: canonicalize{{[{].*[}]}} //----- //
// CHECK: stablehlo.add
// CHECK: stablehlo.add
// CHECK: // -----// IR Dump After CSEPass: cse //----- //
// CHECK: func.func @f
// CHECK: %[[A:.*]] = stablehlo.add
// CHECK-NEXT: stablehlo.multiply %[[A]], %[[A]]

// BEFORE: // -----// IR Dump Before CSEPass: cse //----- //
// BEFORE: stablehlo.add
// BEFORE: stablehlo.add

// TIMING: ... Execution time report ...
// TIMING: CanonicalizerPass (canonicalize)
// TIMING: CSEPass (cse)
// TIMING: (100.0%)  Total

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  %1 = stablehlo.add %a, %a : tensor<4xf32>
  %2 = stablehlo.multiply %0, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}
