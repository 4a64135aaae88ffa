module {
  func.func private @"\FF"(%a: tensor<4xf32>) -> tensor<4xf32> {
    return %a : tensor<4xf32>
  }
  func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = func.call @"\FF"(%a) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
