func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %dead = stablehlo.fft %x, type = RFFT, length = [4] : (tensor<4xf32>) -> tensor<3xcomplex<f32>>
  %e = chlo.erf %x : tensor<4xf32> -> tensor<4xf32>
  %y = stablehlo.add %e, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func private @never_called(%key: tensor<2xui64>) -> tensor<4xui32> {
  %k, %bits = stablehlo.rng_bit_generator %key, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  return %bits : tensor<4xui32>
}
