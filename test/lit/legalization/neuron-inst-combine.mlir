// RUN: hilo-opt %s --split-input-file --neuron-inst-combine | FileCheck %s
// RUN: hilo-opt %s --split-input-file --stablehlo-legalize-to-hlo --neuron-inst-combine | FileCheck %s --check-prefix=MHLO
// RUN: hilo-opt %s --split-input-file --neuron-inst-combine --debug 2>&1 | FileCheck %s --check-prefix=DBG

// add-reduce -> strided slice -> add-reduce: one slice of %x, one reduce over {1, 2}.
// CHECK-LABEL: func.func @combine
// CHECK: %[[S:.*]] = stablehlo.slice %arg0 [1:4:2, 0:5, 0:8] : (tensor<4x6x8xf32>) -> tensor<2x5x8xf32>
// CHECK: %[[R:.*]] = stablehlo.reduce(%[[S]] init: %{{.*}}) applies stablehlo.add across dimensions = [1, 2] : (tensor<2x5x8xf32>, tensor<f32>) -> tensor<2xf32>
// CHECK-NOT: stablehlo.reduce
// CHECK: return %[[R]]
// MHLO-LABEL: func.func @combine
// MHLO: %[[S:.*]] = "mhlo.slice"(%arg0) <{limit_indices = dense<[4, 5, 8]> : tensor<3xi64>, start_indices = dense<[1, 0, 0]> : tensor<3xi64>, strides = dense<[2, 1, 1]> : tensor<3xi64>}>
// MHLO: mhlo.reduce(%[[S]] init: %{{.*}}) applies mhlo.add across dimensions = [1, 2]
// MHLO-NOT: mhlo.reduce
func.func @combine(%x: tensor<4x6x8xf32>) -> tensor<2xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [2] : (tensor<4x6x8xf32>, tensor<f32>) -> tensor<4x6xf32>
  %1 = stablehlo.slice %0 [1:4:2, 0:5] : (tensor<4x6xf32>) -> tensor<2x5xf32>
  %2 = stablehlo.reduce(%1 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x5xf32>, tensor<f32>) -> tensor<2xf32>
  return %2 : tensor<2xf32>
}

// -----

// max with -inf init, inner reduce over the leading dim.
// CHECK-LABEL: func.func @combine_max
// MHLO-LABEL: func.func @combine_max
// MHLO: applies mhlo.maximum across dimensions = [0, 2]
// CHECK: stablehlo.slice %arg0 [0:3, 2:4, 0:5]
// CHECK: applies stablehlo.maximum across dimensions = [0, 2]
// CHECK-NOT: stablehlo.reduce
func.func @combine_max(%x: tensor<3x4x5xf32>) -> tensor<2xf32> {
  %m = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %m) applies stablehlo.maximum across dimensions = [0] : (tensor<3x4x5xf32>, tensor<f32>) -> tensor<4x5xf32>
  %1 = stablehlo.slice %0 [2:4, 0:5] : (tensor<4x5xf32>) -> tensor<2x5xf32>
  %2 = stablehlo.reduce(%1 init: %m) applies stablehlo.maximum across dimensions = [1] : (tensor<2x5xf32>, tensor<f32>) -> tensor<2xf32>
  return %2 : tensor<2xf32>
}

// -----

// Left alone: different reducers, a non-identity init, and an inner reduce with
// another user.
// CHECK-LABEL: func.func @untouched
// MHLO-LABEL: func.func @untouched
// MHLO-COUNT-6: mhlo.reduce
// CHECK-COUNT-6: stablehlo.reduce
// DBG: reducers differ or are not a single associative op (add vs maximum)
// DBG: an init value is not the identity of add
// DBG: inner reduce or slice has other users
func.func @untouched(%x: tensor<4x6xf32>) -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<4xf32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = stablehlo.slice %0 [0:2] : (tensor<4xf32>) -> tensor<2xf32>
  %2 = stablehlo.reduce(%1 init: %z) applies stablehlo.maximum across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
  %3 = stablehlo.reduce(%x init: %one) applies stablehlo.add across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
  %4 = stablehlo.slice %3 [0:2] : (tensor<4xf32>) -> tensor<2xf32>
  %5 = stablehlo.reduce(%4 init: %one) applies stablehlo.add across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
  %6 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
  %7 = stablehlo.slice %6 [1:3] : (tensor<4xf32>) -> tensor<2xf32>
  %8 = stablehlo.reduce(%7 init: %z) applies stablehlo.add across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
  return %2, %5, %8, %6 : tensor<f32>, tensor<f32>, tensor<f32>, tensor<4xf32>
}
