// Expectations that do not match (used by verify-diagnostics-forms.mlir).
func.func @re(%a: tensor<4xf32>, %b: tensor<2xf32>) -> tensor<4xf32> {
  // the regex does not match the message:
  // expected-error-re@+1 {{requires {{[0-9]+}} shapes}}
  %0 = "stablehlo.add"(%a, %b) : (tensor<4xf32>, tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @note(%a: tensor<4xf32>) -> tensor<4xf32> {
  // nothing is reported here:
  // expected-note@+1 {{never}}
  return %a : tensor<4xf32>
}

// -----

func.func @spaced_never(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{never produced}}
  return %a : tensor<4xf32>
}
