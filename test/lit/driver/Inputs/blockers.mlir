func.func @main(%key: tensor<2xui64>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<2xui64>) {
  %k, %bits = stablehlo.rng_bit_generator %key, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  %c = stablehlo.constant dense<9> : tensor<4xui32>
  %s = stablehlo.shift_right_logical %bits, %c : tensor<4xui32>
  %f = stablehlo.convert %s : (tensor<4xui32>) -> tensor<4xf32>
  %y = stablehlo.add %f, %x : tensor<4xf32>
  %z = stablehlo.popcnt %key : tensor<2xui64>
  %e = stablehlo.einsum %x, %x, config = "i,i->i" : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %w = stablehlo.multiply %y, %e : tensor<4xf32>
  %q = stablehlo.custom_call @my_runtime_hook(%w) : (tensor<4xf32>) -> tensor<4xf32>
  return %q, %z : tensor<4xf32>, tensor<2xui64>
}
