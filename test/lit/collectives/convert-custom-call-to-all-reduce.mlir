// RUN: hilo-opt %s --split-input-file --verify-diagnostics --convert-custom-call-to-all-reduce | FileCheck %s

// The form the mhlo -> stablehlo legalization emits (from mlir-hlo's
// stablehlo-legalize-to-hlo test): reducer in a function, attributes in mhlo.attributes.
// CHECK-LABEL: func.func @variadic
// CHECK: %[[R:.*]]:2 = "stablehlo.all_reduce"(%arg0, %arg1) <{channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>, replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>}> ({
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<f32>, %[[Y:.*]]: tensor<f32>):
// CHECK-NEXT:   %[[S:.*]] = stablehlo.add %[[X]], %[[Y]] : tensor<f32>
// CHECK-NEXT:   stablehlo.return %[[S]] : tensor<f32>
// CHECK-NEXT: }) : (tensor<8xf32>, tensor<f32>) -> (tensor<8xf32>, tensor<f32>)
// CHECK: return %[[R]]#0, %[[R]]#1
// CHECK-NOT: func.func private @all_reduce0
func.func @variadic(%arg0: tensor<8xf32>, %arg1: tensor<f32>) -> (tensor<8xf32>, tensor<f32>) {
  %0:2 = stablehlo.custom_call @mhlo.all_reduce(%arg0, %arg1) {called_computations = [@all_reduce0], mhlo.attributes = {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #mhlo.channel_handle<handle = 5, type = 1>}} : (tensor<8xf32>, tensor<f32>) -> (tensor<8xf32>, tensor<f32>)
  return %0#0, %0#1 : tensor<8xf32>, tensor<f32>
}
func.func private @all_reduce0(%arg0: tensor<f32>, %arg1: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %arg0, %arg1 : tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

// Left alone: other custom calls and a plain all_reduce; a reducer still
// called elsewhere is kept.
// CHECK-LABEL: func.func @untouched
// CHECK: stablehlo.custom_call @mhlo.something_else(%arg0)
// CHECK: "stablehlo.all_reduce"(%arg0)
// CHECK: func.func private @keep
func.func @untouched(%arg0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = stablehlo.custom_call @mhlo.something_else(%arg0) {called_computations = [@keep]} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "stablehlo.all_reduce"(%arg0) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
func.func private @keep(%arg0: tensor<f32>, %arg1: tensor<f32>) -> tensor<f32> {
  func.return %arg0 : tensor<f32>
}

// -----

func.func @bad(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{@mhlo.all_reduce needs mhlo.attributes}}
  %0 = stablehlo.custom_call @mhlo.all_reduce(%arg0) {called_computations = [@r]} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @r(%arg0: tensor<f32>, %arg1: tensor<f32>) -> tensor<f32> {
  func.return %arg0 : tensor<f32>
}
