func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "mhlo.fusion"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    %e = mhlo.exponential %a : tensor<4xf32>
    mhlo.return %e : tensor<4xf32>
  }) {FusionKind = "FusedComposite"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
