// A marker spelled has_side_effect = false with an unused result is dead code to
// canonicalize / remove-dead-values (steps 1 and 13): alone they delete it and
// step 26 never sees the weight. The spine protects it: compiler.compile_loaded
// sets has_side_effect = true on every AwsNeuronTransferWithStaticRing before step 1.
// RUN: hilo-opt %s --pass-pipeline='builtin.module(canonicalize,remove-dead-values,penguinize-io)' | FileCheck %s --check-prefix=UNPROTECTED
// RUN: rm -rf %t.m %t.s
// RUN: hilo2penguin %s -o %t.m --preset all
// RUN: FileCheck %s --check-prefix=PY < %t.m/penguin.py
// RUN: hilo2penguin %s -o %t.s --preset all --spine stablehlo
// RUN: FileCheck %s --check-prefix=PY < %t.s/penguin.py
// RUN: hilo2penguin %s -o %t.m --preset all --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=IR

// UNPROTECTED-LABEL: func.func @main
// UNPROTECTED-SAME: slowChangingIns = dense<> : tensor<0xi32>
// UNPROTECTED-NOT: custom_call
// PY: input_0 = {{.*}}is_parameter_tensor=False
// PY: input_1 = {{.*}}is_parameter_tensor=True
// IR: IR Dump After CanonicalizerPass: canonicalize
// IR: mhlo.custom_call @AwsNeuronTransferWithStaticRing(%arg1) {api_version = 0 : i32, has_side_effect = true}
// IR: IR Dump After RemoveDeadValuesPass: remove-dead-values
// IR: mhlo.custom_call @AwsNeuronTransferWithStaticRing(%arg1) {api_version = 0 : i32, has_side_effect = true}
// IR: IR Dump After PenguinizeFunctions: penguinize-io
// IR: slowChangingIns = dense<1> : tensor<1xi32>
// IR-NOT: AwsNeuronTransferWithStaticRing
func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
  %m = stablehlo.custom_call @AwsNeuronTransferWithStaticRing(%arg1) {api_version = 0 : i32, has_side_effect = false} : (tensor<4xf32>) -> tensor<4xf32>
  %n = stablehlo.add %arg0, %arg1 : tensor<4xf32>
  return %n : tensor<4xf32>
}
