// RUN: hilo-opt %s --split-input-file --verify-diagnostics
// RUN: not hilo-opt %s --split-input-file 2>&1 | FileCheck %s --check-prefix=ERR

// A verifier error from the parser, reported at the op's line.
func.func @bad_add(%a: tensor<4xf32>, %b: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{requires the same shape for all operands and results}}
  %0 = "stablehlo.add"(%a, %b) : (tensor<4xf32>, tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// ERR: verify-diagnostics.mlir:7:8: error: {{.*}}requires the same shape

// -----

// A chunk with no diagnostics still verifies.
func.func @good(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// expected-error@+1 {{expected non-function type}}
func.func @syntax(%a: ) {
  return
}
