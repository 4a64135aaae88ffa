// legalize-alias / verify-aliasing: bad alias declarations (both twins).
// RUN: hilo-opt %s --split-input-file --verify-diagnostics --legalize-alias
// RUN: hilo-opt %s --split-input-file --verify-diagnostics --verify-aliasing

// expected-error@+1 {{@main argument #0 (tensor<2xf32>) is declared to alias output 0 of a different type (tensor<2xf16>)}}
func.func @main(%arg0: tensor<2xf32> {tf.aliasing_output = 0 : i32}) -> tensor<2xf16> {
  %0 = mhlo.convert %arg0 : (tensor<2xf32>) -> tensor<2xf16>
  return %0 : tensor<2xf16>
}

// -----

// expected-error@+1 {{tf.aliasing_output = 3 but @main has 1 results}}
func.func @main(%arg0: tensor<2xf32> {tf.aliasing_output = 3 : i32}) -> tensor<2xf32> {
  %0 = mhlo.negate %arg0 : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// expected-error@+1 {{output 0 is declared to alias both argument #0 and argument #1}}
func.func @main(%arg0: tensor<2xf32> {tf.aliasing_output = 0 : i32}, %arg1: tensor<2xf32> {tf.aliasing_output = 0 : i32}) -> tensor<2xf32> {
  %0 = mhlo.add %arg0, %arg1 : tensor<2xf32>
  return %0 : tensor<2xf32>
}
