// tensorizer-legalization: diagnostics.
// RUN: hilo-opt %s --split-input-file --verify-diagnostics --tensorizer-legalization

// expected-error@+1 {{'output_names' has 1 names but @main has 2 results}}
func.func @main(%arg0: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) attributes {output_names = ["only"]} {
  %0 = mhlo.negate %arg0 : tensor<2xf32>
  %1 = mhlo.abs %arg0 : tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}
