module {
  sdy.mesh @mesh = <["x"=2]>
  func.func @main(%a: tensor<8x4xf32>) -> tensor<8x4xf32> {
    %0 = sdy.sharding_constraint %a <@mesh, [{"x"}, {}]> : tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }
}
