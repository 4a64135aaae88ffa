// An expectation that is not produced, and a diagnostic that was not expected,
// both make --verify-diagnostics fail with exit 1.
// RUN: not hilo-opt %s --verify-diagnostics 2>&1 | FileCheck %s

// CHECK: verify-diagnostics-mismatch.mlir:9:8: error: unexpected error: {{.*}}requires the same shape
// CHECK: verify-diagnostics-mismatch.mlir:8:6: error: expected error "this is never produced" was not produced
func.func @bad(%a: tensor<4xf32>, %b: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error@+2 {{this is never produced}}
  %0 = "stablehlo.add"(%a, %b) : (tensor<4xf32>, tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
