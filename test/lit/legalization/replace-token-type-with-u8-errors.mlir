// RUN: hilo-opt %s --split-input-file --stablehlo-replace-token-type-with-u8 --verify-diagnostics
// RUN: not hilo-opt %s --split-input-file --stablehlo-replace-token-type-with-u8 2>&1 | FileCheck %s

// Ops whose verifier requires a token cannot hold tensor<ui8>: one clear error naming the op.
// CHECK: replace-token-type-with-u8-errors.mlir:9:{{[0-9]+}}: error: 'stablehlo.outfeed' op requires a token operand or result
func.func @outfeed(%x: tensor<4xf32>) -> !stablehlo.token {
  %t = stablehlo.create_token : !stablehlo.token
  // expected-error@+1 {{'stablehlo.outfeed' op requires a token operand or result and cannot be retyped to tensor<ui8>}}
  %t2 = "stablehlo.outfeed"(%x, %t) {outfeed_config = ""} : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
  return %t2 : !stablehlo.token
}

// -----

func.func @infeed(%t: !stablehlo.token) -> tensor<4xf32> {
  // expected-error@+1 {{'stablehlo.infeed' op requires a token operand or result}}
  %x, %t2 = "stablehlo.infeed"(%t) {infeed_config = ""} : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
  return %x : tensor<4xf32>
}
