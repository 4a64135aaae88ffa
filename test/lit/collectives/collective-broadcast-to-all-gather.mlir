// RUN: hilo-opt %s --split-input-file --collective-broadcast-to-all-gather | FileCheck %s

// StableHLO: two groups of two; the source replica's part is the first slice.
// CHECK-LABEL: func.func @shlo
// CHECK: %[[G:.*]] = "stablehlo.all_gather"(%arg0) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<{{\[\[}}0, 1], [2, 3]]> : tensor<2x2xi64>, use_global_device_ids}> : (tensor<3x4xf32>) -> tensor<6x4xf32>
// CHECK: %[[S:.*]] = stablehlo.slice %[[G]] [0:3, 0:4] : (tensor<6x4xf32>) -> tensor<3x4xf32>
// CHECK-NOT: collective_broadcast
// CHECK: return %[[S]]
func.func @shlo(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = "stablehlo.collective_broadcast"(%x) {replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// MHLO, rank 0: reshaped to tensor<1> around the gather.
// CHECK-LABEL: func.func @mhlo_scalar
// CHECK: %[[R:.*]] = mhlo.reshape %arg0 : (tensor<i32>) -> tensor<1xi32>
// CHECK: %[[G:.*]] = "mhlo.all_gather"(%[[R]]) <{all_gather_dim = 0 : i64, replica_groups = dense<{{\[\[}}0, 1, 2]]> : tensor<1x3xi64>}> : (tensor<1xi32>) -> tensor<3xi32>
// CHECK: %[[S:.*]] = "mhlo.slice"(%[[G]]) <{limit_indices = dense<1> : tensor<1xi64>, start_indices = dense<0> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>}>
// CHECK: %[[B:.*]] = mhlo.reshape %[[S]] : (tensor<1xi32>) -> tensor<i32>
// CHECK: return %[[B]]
func.func @mhlo_scalar(%x: tensor<i32>) -> tensor<i32> {
  %0 = "mhlo.collective_broadcast"(%x) {replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

// Left alone: empty groups (processes outside every group get zeros, which an
// all_gather cannot express), and no collective_broadcast at all.
// CHECK-LABEL: func.func @untouched
// CHECK: "stablehlo.collective_broadcast"(%arg0)
// CHECK-NOT: all_gather
// CHECK: stablehlo.all_reduce
func.func @untouched(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "stablehlo.collective_broadcast"(%x) {replica_groups = dense<> : tensor<0x0xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "stablehlo.all_reduce"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// 2 replicas x 2 partitions: the broadcast's groups are partition ids within each replica; the
// all_gather's are flattened device ids, one group per replica and partition group.
// CHECK-LABEL: func.func @two_replicas
// CHECK: "stablehlo.all_gather"(%arg0) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<{{\[\[}}1, 0], [3, 2]]> : tensor<2x2xi64>, use_global_device_ids}>
module attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 2 : i32} {
  func.func @two_replicas(%x: tensor<3xf32>) -> tensor<3xf32> {
    %0 = "stablehlo.collective_broadcast"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>}> : (tensor<3xf32>) -> tensor<3xf32>
    return %0 : tensor<3xf32>
  }
}
