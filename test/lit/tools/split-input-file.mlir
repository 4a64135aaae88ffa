// RUN: hilo-opt %s --split-input-file --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @first
// CHECK-NOT: stablehlo.add
// CHECK: return %arg0
func.func @first(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----
// CHECK: // -----
// CHECK-LABEL: func.func @second
// CHECK: stablehlo.multiply
func.func @second(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.multiply %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
