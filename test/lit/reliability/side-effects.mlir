// Side-effecting custom calls are never fused, reordered or deleted (all gates on, both spines).
// RUN: rm -rf %t
// RUN: hilo2penguin %s -o %t/m --preset all && FileCheck %s < %t/m/penguin.py
// RUN: hilo2penguin %s -o %t/s --preset all --spine stablehlo && FileCheck %s < %t/s/penguin.py

// CHECK-LABEL: = m0.Function(
// CHECK: prefix='first_effect'
// CHECK: prefix='second_effect'
// CHECK: prefix='third_effect'
// CHECK: markOutput
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.exponential %a : tensor<4xf32>
  stablehlo.custom_call @AwsNeuronDevicePrint(%0) {backend_config = "first_effect", has_side_effect = true} : (tensor<4xf32>) -> ()
  %1 = stablehlo.log %0 : tensor<4xf32>
  stablehlo.custom_call @AwsNeuronDevicePrint(%a) {backend_config = "second_effect", has_side_effect = true} : (tensor<4xf32>) -> ()
  %2 = stablehlo.add %1, %a : tensor<4xf32>
  stablehlo.custom_call @AwsNeuronDevicePrint(%2) {backend_config = "third_effect", has_side_effect = true} : (tensor<4xf32>) -> ()
  %3 = stablehlo.multiply %2, %2 : tensor<4xf32>
  return %3 : tensor<4xf32>
}
