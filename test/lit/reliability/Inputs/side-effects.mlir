func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.exponential %a : tensor<4xf32>
  stablehlo.custom_call @AwsNeuronDevicePrint(%0) {backend_config = "first_effect", has_side_effect = true} : (tensor<4xf32>) -> ()
  %1 = stablehlo.log %0 : tensor<4xf32>
  stablehlo.custom_call @AwsNeuronDevicePrint(%a) {backend_config = "second_effect", has_side_effect = true} : (tensor<4xf32>) -> ()
  stablehlo.custom_call @AwsNeuronDevicePrint(%1) {backend_config = "third_effect", has_side_effect = true} : (tensor<4xf32>) -> ()
  %3 = stablehlo.add %1, %a : tensor<4xf32>
  return %3 : tensor<4xf32>
}
