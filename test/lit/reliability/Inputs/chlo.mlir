func.func @main(%a: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = chlo.erf %a : tensor<8xf32> -> tensor<8xf32>
  %1 = chlo.tan %b : tensor<8xf32> -> tensor<8xf32>
  %2 = chlo.broadcast_add %0, %1 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %0, %1, %2 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
