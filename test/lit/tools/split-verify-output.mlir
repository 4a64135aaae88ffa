// With --split-input-file and --verify-diagnostics, every chunk keeps its place between the
// '// -----' markers on stdout; a chunk that fails as expected prints nothing (as mlir-opt).
// RUN: hilo-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @a
// CHECK-NEXT: return
// CHECK: {{^}}// -----
// CHECK-NEXT: {{^}}// -----
// CHECK-NEXT: module {
// CHECK-NEXT: func.func @c
func.func @a(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}

// -----

func.func @b(%x: tensor<4xf32>, %y: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{requires the same shape}}
  %0 = "stablehlo.add"(%x, %y) : (tensor<4xf32>, tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @c(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
