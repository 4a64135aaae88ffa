// The attributes only the spine's passes read (the printer never sees them in this form): one located error.
// RUN: hilo-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(stablehlo-penguinize-io)'

// expected-error@+1 {{'tf.aliasing_output' must be an integer in [0, 2^31), got "x"}}
func.func @main(%arg0: tensor<2xf32> {tf.aliasing_output = "x"}) -> tensor<2xf32> {
  return %arg0 : tensor<2xf32>
}

// -----

// expected-error@+1 {{'neuron.input_names' must be an array of strings (["a", "b"]), got 5 : i64}}
module attributes {neuron.input_names = 5} {
  func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    return %arg0 : tensor<2xf32>
  }
}

// -----

func.func @main(%arg0: tensor<2xf32> {tf.aliasing_output = 0 : i32}) -> tensor<2xf32> attributes {input_names = ["x"], slowChangingIns = array<i64: 0>} {
  return %arg0 : tensor<2xf32>
}
