func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.complex %a, %b : tensor<4xcomplex<f32>>
  %1 = stablehlo.add %0, %0 : tensor<4xcomplex<f32>>
  %2 = stablehlo.real %1 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
