// StableHLO step 26a: shift_right_arithmetic on unsigned integers made signed-correct.
// RUN: hilo-opt %s --split-input-file --legalize-sra | FileCheck %s

// CHECK-LABEL: func.func @sra_ui32
// CHECK-NEXT: %[[K:.*]] = stablehlo.constant dense<31> : tensor<4xui32>
// CHECK-NEXT: %[[N:.*]] = stablehlo.minimum %arg1, %[[K]] : tensor<4xui32>
// CHECK-NEXT: %[[L:.*]] = stablehlo.bitcast_convert %arg0 : (tensor<4xui32>) -> tensor<4xi32>
// CHECK-NEXT: %[[R:.*]] = stablehlo.bitcast_convert %[[N]] : (tensor<4xui32>) -> tensor<4xi32>
// CHECK-NEXT: %[[S:.*]] = stablehlo.shift_right_arithmetic %[[L]], %[[R]] : tensor<4xi32>
// CHECK-NEXT: %[[B:.*]] = stablehlo.bitcast_convert %[[S]] : (tensor<4xi32>) -> tensor<4xui32>
// CHECK-NEXT: return %[[B]]
func.func @sra_ui32(%arg0: tensor<4xui32>, %arg1: tensor<4xui32>) -> tensor<4xui32> {
  %0 = stablehlo.shift_right_arithmetic %arg0, %arg1 : tensor<4xui32>
  return %0 : tensor<4xui32>
}

// -----

// ui8 scalar, inside a reduce body too.
// CHECK-LABEL: func.func @sra_ui8_nested
// CHECK: stablehlo.reduce
// CHECK: stablehlo.constant dense<7> : tensor<ui8>
// CHECK: stablehlo.shift_right_arithmetic %{{.*}}, %{{.*}} : tensor<i8>
func.func @sra_ui8_nested(%arg0: tensor<3xui8>, %arg1: tensor<ui8>) -> tensor<ui8> {
  %0 = stablehlo.reduce(%arg0 init: %arg1) across dimensions = [0] : (tensor<3xui8>, tensor<ui8>) -> tensor<ui8>
   reducer(%a: tensor<ui8>, %b: tensor<ui8>) {
    %1 = stablehlo.shift_right_arithmetic %a, %b : tensor<ui8>
    stablehlo.return %1 : tensor<ui8>
  }
  return %0 : tensor<ui8>
}

// -----

// Must not touch: signed (signless) SRA, and unsigned logical shifts.
// CHECK-LABEL: func.func @signed_and_logical
// CHECK-NEXT: %[[A:.*]] = stablehlo.shift_right_arithmetic %arg0, %arg0 : tensor<4xi32>
// CHECK-NEXT: %[[B:.*]] = stablehlo.shift_right_logical %arg1, %arg1 : tensor<4xui32>
// CHECK-NEXT: return %[[A]], %[[B]]
func.func @signed_and_logical(%arg0: tensor<4xi32>, %arg1: tensor<4xui32>) -> (tensor<4xi32>, tensor<4xui32>) {
  %0 = stablehlo.shift_right_arithmetic %arg0, %arg0 : tensor<4xi32>
  %1 = stablehlo.shift_right_logical %arg1, %arg1 : tensor<4xui32>
  return %0, %1 : tensor<4xi32>, tensor<4xui32>
}
