// RUN: hilo-opt %s --split-input-file --call-inliner --verify-diagnostics -o /dev/null

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{cannot inline recursive call to '@rec'}}
  %0 = func.call @rec(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @rec(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @rec(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{cannot inline call to '@ext': no function body}}
  %0 = func.call @ext(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @ext(%a: tensor<4xf32>) -> tensor<4xf32>
