func.func @main(%arg0: tensor<2xi32>) -> () {
  %0 = "mhlo.abs"(%arg0) : (tensor<2xi32>) -> tensor<2xi32>
  "mhlo.return"(%0) : (tensor<2xi32>) -> ()
}
