// RUN: hilo-opt %s --split-input-file --stablehlo-convert-fs-pattern-to-custom-calls | FileCheck %s
// RUN: hilo-opt %s --split-input-file --stablehlo-legalize-to-hlo --convert-fs-pattern-to-custom-calls | FileCheck %s --check-prefix=MHLO
// RUN: hilo-opt %s --split-input-file --stablehlo-convert-fs-pattern-to-custom-calls --debug 2>&1 | FileCheck %s --check-prefix=DBG

// The form jax.nn.softmax lowers to (corpus/jax/attention.stablehlo.mlir):
// max with the -inf guard, keepdims broadcast chains, reduce over dim 2.
// CHECK-LABEL: func.func @jax_softmax
// CHECK: %[[R:.*]] = stablehlo.custom_call @AwsFSPattern5(%arg0) {backend_config = "{\22dim\22: 2}"} : (tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
// CHECK-NOT: stablehlo.exponential
// CHECK-NOT: stablehlo.reduce
// CHECK-NOT: stablehlo.divide
// CHECK: return %[[R]]
// MHLO-LABEL: func.func @jax_softmax
// MHLO: %[[R:.*]] = mhlo.custom_call @AwsFSPattern5(%arg0) {backend_config = "{\22dim\22: 2}"} : (tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
// MHLO-NOT: mhlo.exponential
// MHLO: return %[[R]]
func.func @jax_softmax(%x: tensor<2x16x16xf32>) -> tensor<2x16x16xf32> {
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %5 = stablehlo.reduce(%x init: %cst_0) applies stablehlo.maximum across dimensions = [2] : (tensor<2x16x16xf32>, tensor<f32>) -> tensor<2x16xf32>
  %6 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x16xf32>
  %7 = stablehlo.maximum %6, %5 : tensor<2x16xf32>
  %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<2x16xf32>) -> tensor<2x16x1xf32>
  %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<2x16x1xf32>) -> tensor<2x16x16xf32>
  %10 = stablehlo.subtract %x, %9 : tensor<2x16x16xf32>
  %11 = stablehlo.exponential %10 : tensor<2x16x16xf32>
  %12 = stablehlo.reduce(%11 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<2x16x16xf32>, tensor<f32>) -> tensor<2x16xf32>
  %13 = stablehlo.broadcast_in_dim %12, dims = [0, 1] : (tensor<2x16xf32>) -> tensor<2x16x1xf32>
  %14 = stablehlo.broadcast_in_dim %13, dims = [0, 1, 2] : (tensor<2x16x1xf32>) -> tensor<2x16x16xf32>
  %15 = stablehlo.divide %11, %14 : tensor<2x16x16xf32>
  return %15 : tensor<2x16x16xf32>
}

// -----

// Reduce over dim 0, direct broadcasts, a reshape keepdims on the sum.
// CHECK-LABEL: func.func @dim0
// CHECK: stablehlo.custom_call @AwsFSPattern5(%arg0) {backend_config = "{\22dim\22: 0}"} : (tensor<5x3xf32>) -> tensor<5x3xf32>
// CHECK-NOT: stablehlo.exponential
func.func @dim0(%x: tensor<5x3xf32>) -> tensor<5x3xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [0] : (tensor<5x3xf32>, tensor<f32>) -> tensor<3xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [1] : (tensor<3xf32>) -> tensor<5x3xf32>
  %s = stablehlo.subtract %x, %mb : tensor<5x3xf32>
  %e = stablehlo.exponential %s : tensor<5x3xf32>
  %t = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [0] : (tensor<5x3xf32>, tensor<f32>) -> tensor<3xf32>
  %tr = stablehlo.reshape %t : (tensor<3xf32>) -> tensor<1x3xf32>
  %tb = stablehlo.broadcast_in_dim %tr, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<5x3xf32>
  %r = stablehlo.divide %e, %tb : tensor<5x3xf32>
  return %r : tensor<5x3xf32>
}

// -----

// Left alone: the sum runs over another dimension than the max; the
// exponential is also returned (used outside the pattern).
// CHECK-LABEL: func.func @other_dim
// CHECK-NOT: AwsFSPattern5
// CHECK: stablehlo.divide
// CHECK-LABEL: func.func @escaping
// CHECK-NOT: AwsFSPattern5
// CHECK: stablehlo.divide
// DBG: broadcasts do not re-insert one reduced dimension
// DBG: a softmax intermediate has users outside the pattern
func.func @other_dim(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<4xf32>) -> tensor<4x4xf32>
  %s = stablehlo.subtract %x, %mb : tensor<4x4xf32>
  %e = stablehlo.exponential %s : tensor<4x4xf32>
  %t = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
  %tb = stablehlo.broadcast_in_dim %t, dims = [1] : (tensor<4xf32>) -> tensor<4x4xf32>
  %r = stablehlo.divide %e, %tb : tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
func.func @escaping(%x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<4xf32>) -> tensor<4x4xf32>
  %s = stablehlo.subtract %x, %mb : tensor<4x4xf32>
  %e = stablehlo.exponential %s : tensor<4x4xf32>
  %t = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
  %tb = stablehlo.broadcast_in_dim %t, dims = [0] : (tensor<4xf32>) -> tensor<4x4xf32>
  %r = stablehlo.divide %e, %tb : tensor<4x4xf32>
  return %r, %e : tensor<4x4xf32>, tensor<4x4xf32>
}
