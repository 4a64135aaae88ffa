// The parser's notes are printed under its error, as mlir-opt prints them, and
// --verify-diagnostics matches them with expected-note.
// RUN: not hilo-opt %s 2>&1 | FileCheck %s
// RUN: hilo-opt %s --verify-diagnostics

// CHECK: parser-notes.mlir:12:22: error: use of value '%b' expects different type than prior uses: 'tensor<4xf32>' vs 'tensor<2xf32>'
// CHECK: parser-notes.mlir:11:26: note: prior use here
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-note@+2 {{prior use here}}
  // expected-error@+2 {{use of value '%b' expects different type than prior uses}}
  %0 = stablehlo.add %a, %b : tensor<2xf32>
  %1 = stablehlo.add %b, %a : (tensor<4xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
