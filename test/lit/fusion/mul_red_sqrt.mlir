// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(neuron-op-fusion{fuse-dot-logistic=true})' | FileCheck %s

// fuseMulRedSqrt (DESIGN.md decision 5): the RMSNorm core, run under the
// fuse-dot-logistic gate after fuseDotLogisticOp.

// jnp.mean(x*x, -1, keepdims=True) + eps, rsqrt: multiply, reduce, keepdims
// broadcast, divide by N, add eps, rsqrt -> one MulRedSqrt fusion; the
// constants and their broadcasts stay live-ins; the result feeds the scale.
// CHECK-LABEL: func.func @rmsnorm
// CHECK:      %[[N:.*]] = "mhlo.broadcast_in_dim"(%{{.*}})
// CHECK:      %[[EPS:.*]] = "mhlo.broadcast_in_dim"(%{{.*}})
// CHECK:      %[[F:.*]] = "mhlo.fusion"(%arg0, %{{.*}}, %[[N]], %[[EPS]]) ({
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<4x128xf32>, %[[Z:.*]]: tensor<f32>, %[[CN:.*]]: tensor<4x1xf32>, %[[CE:.*]]: tensor<4x1xf32>):
// CHECK-NEXT:   %[[SQ:.*]] = mhlo.multiply %[[X]], %[[X]]
// CHECK-NEXT:   %[[R:.*]] = mhlo.reduce(%[[SQ]] init: %[[Z]]) applies mhlo.add across dimensions = [1]
// CHECK-NEXT:   %[[K:.*]] = "mhlo.broadcast_in_dim"(%[[R]])
// CHECK-NEXT:   %[[D:.*]] = mhlo.divide %[[K]], %[[CN]]
// CHECK-NEXT:   %[[A:.*]] = mhlo.add %[[D]], %[[CE]]
// CHECK-NEXT:   %[[Q:.*]] = mhlo.rsqrt %[[A]]
// CHECK-NEXT:   mhlo.return %[[Q]]
// CHECK-NEXT: }) {FusionKind = "MulRedSqrt"}
// CHECK:      "mhlo.broadcast_in_dim"(%[[F]])
func.func @rmsnorm(%x: tensor<4x128xf32>) -> tensor<4x128xf32> {
  %eps = mhlo.constant dense<9.99999997E-7> : tensor<f32>
  %n = mhlo.constant dense<1.280000e+02> : tensor<f32>
  %z = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = mhlo.multiply %x, %x : tensor<4x128xf32>
  %1 = mhlo.reduce(%0 init: %z) applies mhlo.add across dimensions = [1] : (tensor<4x128xf32>, tensor<f32>) -> tensor<4xf32>
  %2 = "mhlo.broadcast_in_dim"(%1) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<4xf32>) -> tensor<4x1xf32>
  %3 = "mhlo.broadcast_in_dim"(%n) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>) -> tensor<4x1xf32>
  %4 = mhlo.divide %2, %3 : tensor<4x1xf32>
  %5 = "mhlo.broadcast_in_dim"(%eps) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>) -> tensor<4x1xf32>
  %6 = mhlo.add %4, %5 : tensor<4x1xf32>
  %7 = mhlo.rsqrt %6 : tensor<4x1xf32>
  %8 = "mhlo.broadcast_in_dim"(%7) {broadcast_dimensions = dense<[0, 1]> : tensor<2xi64>} : (tensor<4x1xf32>) -> tensor<4x128xf32>
  %9 = mhlo.multiply %x, %8 : tensor<4x128xf32>
  return %9 : tensor<4x128xf32>
}

// -----

// sqrt root, reshape keepdims, multiply by 1/N, no epsilon.
// CHECK-LABEL: func.func @sqrt_reshape
// CHECK:      "mhlo.fusion"
// CHECK-NEXT: ^bb0(
// CHECK-NEXT:   mhlo.multiply
// CHECK-NEXT:   mhlo.reduce
// CHECK-NEXT:   mhlo.reshape
// CHECK-NEXT:   mhlo.multiply
// CHECK-NEXT:   mhlo.sqrt
// CHECK-NEXT:   mhlo.return
// CHECK-NEXT: }) {FusionKind = "MulRedSqrt"}
func.func @sqrt_reshape(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %z = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %inv = mhlo.constant dense<1.250000e-01> : tensor<4x1xf32>
  %0 = mhlo.multiply %x, %x : tensor<4x8xf32>
  %1 = mhlo.reduce(%0 init: %z) applies mhlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %2 = mhlo.reshape %1 : (tensor<4xf32>) -> tensor<4x1xf32>
  %3 = mhlo.multiply %inv, %2 : tensor<4x1xf32>
  %4 = mhlo.sqrt %3 : tensor<4x1xf32>
  return %4 : tensor<4x1xf32>
}

// -----

// Not the idiom: x*y (not a square), a max-reduce, a link used twice. No fusion.
// CHECK-LABEL: func.func @not_rms
// CHECK-NOT: mhlo.fusion
func.func @not_rms(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %z = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = mhlo.multiply %x, %y : tensor<4x8xf32>
  %1 = mhlo.reduce(%0 init: %z) applies mhlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %2 = mhlo.rsqrt %1 : tensor<4xf32>
  %3 = mhlo.multiply %x, %x : tensor<4x8xf32>
  %4 = mhlo.reduce(%3 init: %z) applies mhlo.maximum across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %5 = mhlo.sqrt %4 : tensor<4xf32>
  %6 = mhlo.multiply %y, %y : tensor<4x8xf32>
  %7 = mhlo.reduce(%6 init: %z) applies mhlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %8 = mhlo.sqrt %7 : tensor<4xf32>
  return %2, %5, %8, %7 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
