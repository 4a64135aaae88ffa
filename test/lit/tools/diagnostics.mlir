// Diagnostics as mlir-opt prints them: file:line:col, the source line, a caret
// under the column; notes for secondary locations; 'hilo-opt:' when there is
// no location (as argparse's errors).
// RUN: not hilo-opt %s --split-input-file 2>&1 | FileCheck %s
// RUN: not hilo-opt %s.missing 2>&1 | FileCheck %s --check-prefix=NOLOC
// RUN: not hilo-opt %s --pass-pipeline='builtin.module(cse' 2>&1 | FileCheck %s --check-prefix=PIPE

// CHECK: diagnostics.mlir:12:8: error: 'stablehlo.add' op requires the same shape for all operands and results
// CHECK-NEXT: {{^}}  %0 = "stablehlo.add"(%a, %b) : (tensor<4xf32>, tensor<2xf32>) -> tensor<4xf32>
// CHECK-NEXT: {{^}}       ^
func.func @bad(%a: tensor<4xf32>, %b: tensor<2xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.add"(%a, %b) : (tensor<4xf32>, tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A parse error: the caret is at the column the parser stopped.
// CHECK: diagnostics.mlir:23:24: error: expected ','
// CHECK-NEXT: {{^}}  %0 = stablehlo.add %a : tensor<4xf32>
// CHECK-NEXT: {{^}}                       ^
func.func @syntax(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// NOLOC: hilo-opt: error: cannot open input file '{{.*}}diagnostics.mlir.missing': no such file
// PIPE: hilo-opt: error: invalid pass pipeline 'builtin.module(cse': expected ')' at column 19
