func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  %1 = stablehlo.convert %0 : (tensor<4xf32>) -> tensor<?xf32>
  %2 = stablehlo.convert %1 : (tensor<?xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
