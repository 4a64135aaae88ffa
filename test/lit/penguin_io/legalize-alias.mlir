// Spine step 29: custom_call @AliasingCopy for declared input/output aliases.
// RUN: hilo-opt %s --split-input-file --legalize-alias | FileCheck %s
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(hlo-legalize-to-stablehlo,stablehlo-legalize-alias,stablehlo-legalize-alias)' | FileCheck %s --check-prefix=SHLO

// tf.aliasing_output: output 1 is written into %arg0's buffer. The producer's
// neuron.symName moves to the copy. Running twice inserts nothing more.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[N:.*]] = mhlo.negate %arg1 : tensor<3xf32>
// CHECK-NEXT: %[[A:.*]] = mhlo.add
// CHECK-NEXT: %[[C:.*]] = mhlo.custom_call @AliasingCopy(%[[N]], %arg0) {neuron.symName = "out1", output_operand_aliases = [#mhlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>]}
// CHECK-NEXT: return %[[A]], %[[C]]
// SHLO-LABEL: func.func @main
// SHLO: %[[C:.*]] = stablehlo.custom_call @AliasingCopy(%{{.*}}, %arg0) {neuron.symName = "out1", output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>]}
// SHLO-NOT: AliasingCopy
// SHLO: return %{{.*}}, %[[C]]
func.func @main(%arg0: tensor<3xf32> {tf.aliasing_output = 1 : i32}, %arg1: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %0 = mhlo.negate %arg1 {neuron.symName = "out1"} : tensor<3xf32>
  %1 = mhlo.add %arg0, %arg1 : tensor<3xf32>
  return %1, %0 : tensor<3xf32>, tensor<3xf32>
}

// -----

// The XLA alias config on the module (output_index = [] for the single result).
// CHECK-LABEL: func.func @main
// CHECK: mhlo.custom_call @AliasingCopy(%{{.*}}, %arg1)
// SHLO-LABEL: func.func @main
// SHLO: stablehlo.custom_call @AliasingCopy(%{{.*}}, %arg1)
module attributes {mhlo.input_output_alias = [{alias = {kind = "may_alias", parameter_index = array<i64>, parameter_number = 1 : i64}, output_index = array<i64>}]} {
  func.func @main(%arg0: tensor<2xi32>, %arg1: tensor<2xi32>) -> tensor<2xi32> {
    %0 = mhlo.add %arg0, %arg1 : tensor<2xi32>
    return %0 : tensor<2xi32>
  }
}

// -----

// Must not touch: no alias declared; an alias whose output is the argument itself.
// CHECK-LABEL: func.func @main
// CHECK-NOT: AliasingCopy
// CHECK: return %arg0, %{{.*}}
// SHLO-LABEL: func.func @main
// SHLO-NOT: AliasingCopy
func.func @main(%arg0: tensor<2xf32> {tf.aliasing_output = 0 : i32}, %arg1: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = mhlo.sine %arg1 : tensor<2xf32>
  return %arg0, %0 : tensor<2xf32>, tensor<2xf32>
}

