// --verify-diagnostics: expected-error-re, expected-warning, expected-note,
// @unknown, and mismatches reported with line:col.
// RUN: hilo-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(fold-iota)'
// RUN: not hilo-opt %S/Inputs/verify-mismatch-forms.mlir --split-input-file --verify-diagnostics 2>&1 | FileCheck %s

// A regular expression in the expected text.
func.func @re(%a: tensor<4xf32>, %b: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error-re@+1 {{requires the same {{[a-z]+}} for all operands}}
  %0 = "stablehlo.add"(%a, %b) : (tensor<4xf32>, tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A warning of the pipeline: an mhlo pass on a stablehlo-only module names its twin.
// expected-warning@+1 {{pass 'fold-iota' works on mhlo ops but the module has none (it has stablehlo ops): use its twin 'stablehlo-fold-iota'}}
module {
  func.func @warn(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.add %a, %a : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

// Spaces before '@' and before the text, as upstream tests write them.
func.func @spaced(%a: tensor<4xf32>, %b: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error @+1   {{requires the same shape}}
  %0 = "stablehlo.add"(%a, %b) : (tensor<4xf32>, tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// An error at an unknown location.
func.func @unknown(%a: tensor<4xf32>, %b: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error@unknown {{requires the same shape}}
  %0 = "stablehlo.add"(%a, %b) : (tensor<4xf32>, tensor<2xf32>) -> tensor<4xf32> loc(unknown)
  return %0 : tensor<4xf32>
}

// CHECK: verify-mismatch-forms.mlir:5:8: error: unexpected error: 'stablehlo.add' op requires the same shape for all operands and results
// CHECK-NEXT: {{^}}  %0 = "stablehlo.add"(%a, %b) : (tensor<4xf32>, tensor<2xf32>) -> tensor<4xf32>
// CHECK-NEXT: {{^}}       ^
// CHECK: verify-mismatch-forms.mlir:4:6: error: expected error "requires {{[{][{]}}[0-9]+{{[}][}]}} shapes" was not produced
// CHECK-NEXT: {{^}}  // expected-{{e}}rror-re
// CHECK-NEXT: {{^}}     ^
// CHECK: verify-mismatch-forms.mlir:13:6: error: expected note "never" was not produced
// CHECK: verify-mismatch-forms.mlir:20:6: error: expected error "never produced" was not produced
