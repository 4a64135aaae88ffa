func.func @main(%a: tensor<4xf32>, %t: !stablehlo.token) -> (tensor<4xf32>, !stablehlo.token) {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  %1 = stablehlo.after_all %t : !stablehlo.token
  return %0, %1 : tensor<4xf32>, !stablehlo.token
}
