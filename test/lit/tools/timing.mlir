// --mlir-timing: one row for the parser, one per pass, one for the verifier runs after our passes
// (upstream passes verify inside their own row); hilo2penguin adds the steps before the spine.
// RUN: hilo-opt %s --canonicalize --raise-logistic --mlir-timing -o /dev/null 2>&1 | FileCheck %s
// RUN: rm -rf %t && hilo2penguin %s -o %t --mlir-timing 2>&1 | FileCheck %s --check-prefix=MAIN

// CHECK: ... Execution time report ...
// CHECK: Total Execution Time: {{[0-9.]+}} seconds
// CHECK: ----Wall Time----  ----Name----
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  Parser
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  CanonicalizerPass (canonicalize)
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  RaiseLogistic (raise-logistic)
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  Verifier
// CHECK-NEXT: {{[0-9.]+}} (100.0%)  Total

// MAIN: ----Wall Time----  ----Name----
// MAIN-NEXT: Parser
// MAIN-NEXT: Input checks and bridge (before the spine)
// MAIN-NEXT: HiloImport (hilo-import)
// MAIN-NEXT: CallInliner (call-inliner)
// MAIN: MhloToPyPenguin (mhlo-to-py-penguin)
// MAIN-NEXT: Verifier
// MAIN-NEXT: (100.0%)  Total
// MAIN: wrote {{.*}}penguin.py
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.negate %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
