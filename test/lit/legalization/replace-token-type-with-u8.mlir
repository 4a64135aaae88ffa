// RUN: hilo-opt %s --split-input-file --stablehlo-replace-token-type-with-u8 | FileCheck %s
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,replace-token-type-with-u8)' | FileCheck %s --check-prefix=MHLO

// Signature, after_all, custom_call, tuple, call and callee: every token becomes tensor<ui8>.
// CHECK-LABEL: func.func @tokens
// CHECK-SAME: (%arg0: tensor<ui8>, %arg1: tensor<4xf32>) -> (tensor<ui8>, tuple<tensor<4xf32>, tensor<ui8>>)
// CHECK-NEXT: %[[Z:.*]] = stablehlo.constant dense<0> : tensor<ui8>
// CHECK-NEXT: %[[CC:.*]] = stablehlo.custom_call @foo(%arg1, %[[Z]]) {has_side_effect = true} : (tensor<4xf32>, tensor<ui8>) -> tensor<ui8>
// CHECK-NEXT: %[[CALL:.*]] = call @callee(%[[CC]]) : (tensor<ui8>) -> tensor<ui8>
// CHECK-NEXT: %[[T:.*]] = stablehlo.tuple %arg1, %[[CALL]] : tuple<tensor<4xf32>, tensor<ui8>>
// CHECK-NEXT: return %[[CC]], %[[T]]
// CHECK-LABEL: func.func private @callee
// CHECK-SAME: (%arg0: tensor<ui8>) -> tensor<ui8>
// CHECK-NOT: token
// MHLO-LABEL: func.func @tokens
// MHLO-SAME: (%arg0: tensor<ui8>, %arg1: tensor<4xf32>) -> (tensor<ui8>, tuple<tensor<4xf32>, tensor<ui8>>)
// MHLO-NEXT: mhlo.constant dense<0> : tensor<ui8>
// MHLO-NOT: token
func.func @tokens(%t: !stablehlo.token, %x: tensor<4xf32>) -> (!stablehlo.token, tuple<tensor<4xf32>, !stablehlo.token>) {
  %t2 = stablehlo.after_all %t : !stablehlo.token
  %cc = stablehlo.custom_call @foo(%x, %t2) {has_side_effect = true} : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
  %c = func.call @callee(%cc) : (!stablehlo.token) -> !stablehlo.token
  %tup = stablehlo.tuple %x, %c : tuple<tensor<4xf32>, !stablehlo.token>
  return %cc, %tup : !stablehlo.token, tuple<tensor<4xf32>, !stablehlo.token>
}
func.func private @callee(%t: !stablehlo.token) -> !stablehlo.token {
  %t2 = stablehlo.after_all %t, %t : !stablehlo.token
  return %t2 : !stablehlo.token
}

// -----

// A token carried through a while loop: loop results and body arguments are retyped.
// CHECK-LABEL: func.func @loop
// CHECK: stablehlo.while(%{{.*}} = %{{.*}}, %{{.*}} = %arg1) : tensor<i32>, tensor<ui8>
// CHECK-NOT: token
// MHLO-LABEL: func.func @loop
// MHLO: mhlo.while
// MHLO-SAME: tensor<i32>, tensor<ui8>
func.func @loop(%n: tensor<i32>, %t: !stablehlo.token) -> !stablehlo.token {
  %w:2 = stablehlo.while(%i = %n, %tk = %t) : tensor<i32>, !stablehlo.token
   cond {
    %z = stablehlo.constant dense<0> : tensor<i32>
    %c = stablehlo.compare GT, %i, %z : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %d = stablehlo.subtract %i, %one : tensor<i32>
    %tk2 = stablehlo.custom_call @step(%tk) {has_side_effect = true} : (!stablehlo.token) -> !stablehlo.token
    stablehlo.return %d, %tk2 : tensor<i32>, !stablehlo.token
  }
  return %w#1 : !stablehlo.token
}

// -----

// No token anywhere: unchanged.
// CHECK-LABEL: func.func @no_tokens
// CHECK-SAME: (%arg0: tensor<4xui8>) -> tensor<4xui8>
// CHECK-NEXT: stablehlo.add %arg0, %arg0 : tensor<4xui8>
// CHECK-NEXT: return
// MHLO-LABEL: func.func @no_tokens
// MHLO-NEXT: mhlo.add %arg0, %arg0 : tensor<4xui8>
func.func @no_tokens(%x: tensor<4xui8>) -> tensor<4xui8> {
  %0 = stablehlo.add %x, %x : tensor<4xui8>
  return %0 : tensor<4xui8>
}
