// Spine step 30: an aliased input must not be read after its output is written.
// RUN: hilo-opt %s --split-input-file --verify-diagnostics --verify-aliasing
// RUN: hilo-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(hlo-legalize-to-stablehlo,stablehlo-verify-aliasing)'
// RUN: not hilo-opt %s --split-input-file --verify-aliasing 2>&1 | FileCheck %s --check-prefix=ERR

// %1 (written into %arg0's buffer) is computed before the multiply reads %arg0.
func.func @main(%arg0: tensor<2xf32> {tf.aliasing_output = 0 : i32}) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = mhlo.negate %arg0 : tensor<2xf32>
  // ERR: verify-aliasing.mlir:11:8: error: {{.*}}reads argument #0 of @main after output 0
  // expected-error@+1 {{reads argument #0 of @main after output 0, which aliases it, is written by}}
  %1 = mhlo.multiply %arg0, %arg0 : tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}

// -----

// A read inside a nested region counts at its enclosing op; the return reading
// the input as another output is a read after the write too.
func.func @main(%arg0: tensor<2xf32> {tf.aliasing_output = 1 : i32}) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = mhlo.custom_call @AliasingCopy(%arg0, %arg0) {output_operand_aliases = [#mhlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>]} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  // expected-error@+1 {{'func.return' op reads argument #0 of @main after output 1, which aliases it, is written by}}
  return %arg0, %0 : tensor<2xf32>, tensor<2xf32>
}

// -----

// Fine: every read of %arg0 precedes the write; legalize-alias's form passes.
func.func @main(%arg0: tensor<2xf32> {tf.aliasing_output = 0 : i32}, %arg1: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = mhlo.add %arg0, %arg1 : tensor<2xf32>
  %1 = mhlo.negate %arg0 : tensor<2xf32>
  %2 = mhlo.custom_call @AliasingCopy(%0, %arg0) {output_operand_aliases = [#mhlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>]} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %2, %1 : tensor<2xf32>, tensor<2xf32>
}

// -----

// Fine: no alias declared.
func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %0 = mhlo.negate %arg0 : tensor<2xf32>
  %1 = mhlo.multiply %arg0, %0 : tensor<2xf32>
  return %1 : tensor<2xf32>
}
