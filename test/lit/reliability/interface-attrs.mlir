// Every interface attribute the spine reads is checked with one located error (issue 23): never an internal error.
// RUN: hilo-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(stablehlo-penguinize-io,stablehlo-tensorizer-legalization,stablehlo-to-py-penguin)'
// RUN: hilo-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(stablehlo-to-py-penguin)'

// expected-error@+1 {{'slowChangingIns' must be a list of indices in [0, 2^31)}}
func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> attributes {slowChangingIns = ["x"]} {
  return %arg0 : tensor<2xf32>
}

// -----

// expected-error@+1 {{'slowChangingIns' must be a list of indices in [0, 2^31) (dense<[0, 2]> : tensor<2xi32>, array<i64: 0, 2> or [0 : i32, 2 : i32]), got [340282366920938463463374607431768211455 : ui128]}}
func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> attributes {slowChangingIns = [340282366920938463463374607431768211455 : ui128]} {
  return %arg0 : tensor<2xf32>
}

// -----

// expected-error@+1 {{'slowChangingOuts' must be a list of indices in [0, 2^31)}}
func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> attributes {slowChangingOuts = dense<-1> : tensor<1xi32>} {
  return %arg0 : tensor<2xf32>
}

// -----

// expected-error@+1 {{'input_names' must be an array of strings (["a", "b"]), got [1]}}
func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> attributes {input_names = [1]} {
  return %arg0 : tensor<2xf32>
}

// -----

// expected-error@+1 {{'output_names' must be an array of strings (["a", "b"]), got "x"}}
func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> attributes {output_names = "x"} {
  return %arg0 : tensor<2xf32>
}

// -----

// expected-error@+1 {{'jax.result_info' must be a string, got 5 : i64}}
func.func @main(%arg0: tensor<2xf32>) -> (tensor<2xf32> {jax.result_info = 5}) {
  return %arg0 : tensor<2xf32>
}
