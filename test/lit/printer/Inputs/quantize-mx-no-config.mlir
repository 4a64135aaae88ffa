func.func @main(%x: tensor<4xf32>) -> tensor<1xui32> {
  %0:2 = stablehlo.custom_call @QuantizeMX(%x) : (tensor<4xf32>) -> (tensor<1xui32>, tensor<1xf8E8M0FNU>)
  return %0#0 : tensor<1xui32>
}
