// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(canonicalize,convert-fs-pattern-to-custom-calls,remove-dead-values)' | FileCheck %s
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(canonicalize,convert-fs-pattern-to-custom-calls,remove-dead-values)' --debug 2>&1 >/dev/null | FileCheck %s --check-prefix=DBG
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(convert-fs-pattern-to-custom-calls,remove-dead-values)' --debug 2>&1 | FileCheck %s --check-prefix=ALONE

// Spine step 13 after step 12: the softmax becomes one custom call and leaves its constants dead.
// After canonicalize (no dead op then) the pipeline lists the ops that may become dead, and
// remove-dead-values erases them in Python (it would run the C++ pass on the module otherwise).
// CHECK-LABEL: func.func @softmax
// CHECK-NOT: mhlo.constant
// CHECK: %[[R:.*]] = mhlo.custom_call @AwsFSPattern5(%arg0)
// CHECK-NOT: mhlo.constant
// CHECK: return %[[R]]
// DBG: remove-dead-values: in Python, 3 dead ops erased
// ALONE-NOT: remove-dead-values: in Python
// ALONE-LABEL: func.func @softmax
// ALONE-NOT: mhlo.constant
// ALONE: mhlo.custom_call @AwsFSPattern5
func.func @softmax(%x: tensor<2x16x16xf32>) -> tensor<2x16x16xf32> {
  %cst = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %cst_0 = mhlo.constant dense<0xFF800000> : tensor<f32>
  %5 = mhlo.reduce(%x init: %cst_0) applies mhlo.maximum across dimensions = [2] : (tensor<2x16x16xf32>, tensor<f32>) -> tensor<2x16xf32>
  %6 = "mhlo.broadcast_in_dim"(%cst_0) <{broadcast_dimensions = dense<> : tensor<0xi64>}> : (tensor<f32>) -> tensor<2x16xf32>
  %7 = mhlo.maximum %6, %5 : tensor<2x16xf32>
  %8 = "mhlo.broadcast_in_dim"(%7) <{broadcast_dimensions = dense<[0, 1]> : tensor<2xi64>}> : (tensor<2x16xf32>) -> tensor<2x16x1xf32>
  %9 = "mhlo.broadcast_in_dim"(%8) <{broadcast_dimensions = dense<[0, 1, 2]> : tensor<3xi64>}> : (tensor<2x16x1xf32>) -> tensor<2x16x16xf32>
  %10 = mhlo.subtract %x, %9 : tensor<2x16x16xf32>
  %11 = mhlo.exponential %10 : tensor<2x16x16xf32>
  %12 = mhlo.reduce(%11 init: %cst) applies mhlo.add across dimensions = [2] : (tensor<2x16x16xf32>, tensor<f32>) -> tensor<2x16xf32>
  %13 = "mhlo.broadcast_in_dim"(%12) <{broadcast_dimensions = dense<[0, 1]> : tensor<2xi64>}> : (tensor<2x16xf32>) -> tensor<2x16x1xf32>
  %14 = "mhlo.broadcast_in_dim"(%13) <{broadcast_dimensions = dense<[0, 1, 2]> : tensor<3xi64>}> : (tensor<2x16x1xf32>) -> tensor<2x16x16xf32>
  %15 = mhlo.divide %11, %14 : tensor<2x16x16xf32>
  return %15 : tensor<2x16x16xf32>
}

// -----

// A private function: the C++ pass also drops the unused arguments and results of private functions
// (with no caller, all of them, and then the whole body), so it runs.
// CHECK-LABEL: func.func private @private_softmax() {
// CHECK-NEXT: return
// DBG: remove-dead-values: the C++ pass runs (a private function)
func.func private @private_softmax(%x: tensor<2x16x16xf32>, %unused: tensor<4xf32>) -> tensor<2x16x16xf32> {
  %cst = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %cst_0 = mhlo.constant dense<0xFF800000> : tensor<f32>
  %5 = mhlo.reduce(%x init: %cst_0) applies mhlo.maximum across dimensions = [2] : (tensor<2x16x16xf32>, tensor<f32>) -> tensor<2x16xf32>
  %6 = "mhlo.broadcast_in_dim"(%cst_0) <{broadcast_dimensions = dense<> : tensor<0xi64>}> : (tensor<f32>) -> tensor<2x16xf32>
  %7 = mhlo.maximum %6, %5 : tensor<2x16xf32>
  %8 = "mhlo.broadcast_in_dim"(%7) <{broadcast_dimensions = dense<[0, 1]> : tensor<2xi64>}> : (tensor<2x16xf32>) -> tensor<2x16x1xf32>
  %9 = "mhlo.broadcast_in_dim"(%8) <{broadcast_dimensions = dense<[0, 1, 2]> : tensor<3xi64>}> : (tensor<2x16x1xf32>) -> tensor<2x16x16xf32>
  %10 = mhlo.subtract %x, %9 : tensor<2x16x16xf32>
  %11 = mhlo.exponential %10 : tensor<2x16x16xf32>
  %12 = mhlo.reduce(%11 init: %cst) applies mhlo.add across dimensions = [2] : (tensor<2x16x16xf32>, tensor<f32>) -> tensor<2x16xf32>
  %13 = "mhlo.broadcast_in_dim"(%12) <{broadcast_dimensions = dense<[0, 1]> : tensor<2xi64>}> : (tensor<2x16xf32>) -> tensor<2x16x1xf32>
  %14 = "mhlo.broadcast_in_dim"(%13) <{broadcast_dimensions = dense<[0, 1, 2]> : tensor<3xi64>}> : (tensor<2x16x1xf32>) -> tensor<2x16x16xf32>
  %15 = mhlo.divide %11, %14 : tensor<2x16x16xf32>
  return %15 : tensor<2x16x16xf32>
}

// -----

// Nothing became dead: the fast path erases nothing (and records no change).
// CHECK-LABEL: func.func @nothing_dead
// CHECK: %[[C:.*]] = mhlo.constant
// CHECK: mhlo.add %arg0, %[[C]]
// DBG: remove-dead-values: in Python, 0 dead ops erased
func.func @nothing_dead(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = mhlo.constant dense<2.0> : tensor<4xf32>
  %0 = mhlo.add %x, %c : tensor<4xf32>
  return %0 : tensor<4xf32>
}
