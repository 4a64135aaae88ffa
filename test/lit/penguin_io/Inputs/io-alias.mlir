// Input of penguinize-io-errors.mlir: an XLA-style alias into a returned tuple.
module attributes {mhlo.input_output_alias = [{alias = {kind = "may_alias", parameter_index = array<i64>, parameter_number = 1 : i64}, output_index = array<i64: 1, 0>}]} {
  func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<3xf32>) -> tuple<tensor<2xf32>, tuple<tensor<3xf32>>> {
    %0 = stablehlo.negate %arg1 : tensor<3xf32>
    %1 = stablehlo.tuple %0 : tuple<tensor<3xf32>>
    %2 = stablehlo.tuple %arg0, %1 : tuple<tensor<2xf32>, tuple<tensor<3xf32>>>
    return %2 : tuple<tensor<2xf32>, tuple<tensor<3xf32>>>
  }
}
