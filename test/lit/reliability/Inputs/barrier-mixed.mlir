func.func @main(%a: tensor<4xf32>, %b: tensor<2xi32>) -> (tensor<4xf32>, tensor<2xi32>) {
  %0:2 = stablehlo.optimization_barrier %a, %b : tensor<4xf32>, tensor<2xi32>
  %1 = stablehlo.add %0#0, %0#0 : tensor<4xf32>
  %2 = stablehlo.multiply %0#1, %0#1 : tensor<2xi32>
  return %1, %2 : tensor<4xf32>, tensor<2xi32>
}
