// Per-device programs with collectives, as XLA's HLO import spells them (mhlo, channel handles of
// type 0, use_global_device_ids), compile on both spines with the defaults and with --preset all;
// every collective prints as one statement with its groups, channel handle and global-device-ids
// flag (docs/penguin_format.md section 5b). collective_broadcast prints as the all_gather + slice of
// spine step 3; the reducer regions print as region functions.
// RUN: rm -rf %t && mkdir -p %t
// RUN: hilo2penguin %s -o %t/m --spine mhlo
// RUN: FileCheck %s --input-file %t/m/penguin.py
// RUN: hilo2penguin %s -o %t/s --spine stablehlo
// RUN: FileCheck %s --input-file %t/s/penguin.py
// RUN: hilo2penguin %s -o %t/ma --spine mhlo --preset all
// RUN: FileCheck %s --input-file %t/ma/penguin.py
// RUN: hilo2penguin %s -o %t/sa --spine stablehlo --preset all --mlir-pass-statistics 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: FileCheck %s --input-file %t/sa/penguin.py

// CHECK: 'module=collectives', 'num-partitions=4', 'num-replicas=1'))
// CHECK-DAG: = m1.AllReduceOp(srcs=[input_0], dsts=[m1.TensorSpec(shape=(4, 2), dtype='float32')], channel_handle=dict(handle=1, type=0), {{.*}}replica_groups=[[0, 1, 2, 3]], use_global_device_ids=True, regions=[{{v[0-9]+}}], reducer='add', xla_op='{{(mhlo|stablehlo)}}.all_reduce', dl=
// CHECK-DAG: = m1.AllReduceOp(srcs=[input_0, input_1], dsts=[m1.TensorSpec(shape=(4, 2), dtype='float32'), m1.TensorSpec(shape=(3,), dtype='float32')], channel_handle=dict(handle=2, type=0), {{.*}}replica_groups=[[0, 2], [1, 3]], use_global_device_ids=True, regions=[{{v[0-9]+}}], reducer='maximum', xla_op='{{(mhlo|stablehlo)}}.all_reduce', dl=
// CHECK-DAG: = m1.AllGatherOp(srcs=[input_0], dsts=[m1.TensorSpec(shape=(16, 2), dtype='float32')], all_gather_dim=0, channel_handle=dict(handle=3, type=0), {{.*}}replica_groups=[[0, 1, 2, 3]], use_global_device_ids=True, xla_op='{{(mhlo|stablehlo)}}.all_gather', dl=
// CHECK-DAG: = m1.ReduceScatterOp(srcs=[{{v[0-9]+|input_2}}], dsts=[m1.TensorSpec(shape=(2, 2), dtype='float32')], channel_handle=dict(handle=4, type=0), {{.*}}replica_groups=[[0, 1, 2, 3]], scatter_dimension=0, use_global_device_ids=True, regions=[{{v[0-9]+}}], reducer='add', xla_op='{{(mhlo|stablehlo)}}.reduce_scatter', dl=
// CHECK-DAG: = m1.CollectivePermuteOp(srcs=[input_0], dsts=[m1.TensorSpec(shape=(4, 2), dtype='float32')], channel_handle=dict(handle=5, type=0), {{.*}}source_target_pairs=[[0, 1], [1, 2], [2, 3], [3, 0]], xla_op='{{(mhlo|stablehlo)}}.collective_permute', dl=
// CHECK-DAG: = m1.AllToAllOp(srcs=[input_0], dsts=[m1.TensorSpec(shape=(4, 2), dtype='float32')], channel_handle=dict(handle=6, type=0), concat_dimension=0, {{.*}}replica_groups=[[0, 1, 2, 3]], split_count=4, split_dimension=0, xla_op='{{(mhlo|stablehlo)}}.all_to_all', dl=
// CHECK-DAG: [[B:v[0-9]+]] = m1.AllGatherOp(srcs=[input_0], dsts=[m1.TensorSpec(shape=(8, 2), dtype='float32')], all_gather_dim=0, channel_handle=dict(handle=7, type=0), replica_groups=[[2, 0], [1, 3]], use_global_device_ids=True, xla_op='{{(mhlo|stablehlo)}}.all_gather', dl=
// CHECK-DAG: = m1.SliceOp(srcs=[[[B]]], dsts=[m1.TensorSpec(shape=(4, 2), dtype='float32')], limit_indices=[4, 2], {{.*}}start_indices=[0, 0], strides=[1, 1], xla_op='{{(mhlo|stablehlo)}}.slice', dl=
// CHECK-DAG: = m1.PartitionIdOp(srcs=[], dsts=[m1.TensorSpec(shape=(), dtype='uint32')], {{.*}}xla_op='{{(mhlo|stablehlo)}}.partition_id', dl=
// CHECK-DAG: = m1.ReplicaIdOp(srcs=[], dsts=[m1.TensorSpec(shape=(), dtype='uint32')], {{.*}}xla_op='{{(mhlo|stablehlo)}}.replica_id', dl=
// STATS: CoalesceCollectiveOps
// STATS-NEXT: (collectives-moved) 0
// STATS: ScheduleFusion
// STATS-NEXT: (fused-pairs) 1

module @collectives attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func @main(%x: tensor<4x2xf32>, %k: tensor<3xf32>, %g: tensor<8x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<3xf32>, tensor<16x2xf32>, tensor<2x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<ui32>, tensor<ui32>) {
    %0 = "mhlo.all_reduce"(%x) <{channel_handle = #mhlo.channel_handle<handle = 1, type = 0>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = mhlo.add %a, %b : tensor<f32>
      mhlo.return %s : tensor<f32>
    }) : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %1:2 = "mhlo.all_reduce"(%x, %k) <{channel_handle = #mhlo.channel_handle<handle = 2, type = 0>, replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>, use_global_device_ids}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = mhlo.maximum %a, %b : tensor<f32>
      mhlo.return %s : tensor<f32>
    }) : (tensor<4x2xf32>, tensor<3xf32>) -> (tensor<4x2xf32>, tensor<3xf32>)
    %2 = "mhlo.all_gather"(%x) <{all_gather_dim = 0 : i64, channel_handle = #mhlo.channel_handle<handle = 3, type = 0>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> : (tensor<4x2xf32>) -> tensor<16x2xf32>
    %3 = "mhlo.reduce_scatter"(%g) <{channel_handle = #mhlo.channel_handle<handle = 4, type = 0>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, scatter_dimension = 0 : i64, use_global_device_ids}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = mhlo.add %a, %b : tensor<f32>
      mhlo.return %s : tensor<f32>
    }) : (tensor<8x2xf32>) -> tensor<2x2xf32>
    %4 = "mhlo.collective_permute"(%x) <{channel_handle = #mhlo.channel_handle<handle = 5, type = 0>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}> : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %5 = "mhlo.all_to_all"(%x) <{channel_handle = #mhlo.channel_handle<handle = 6, type = 0>, concat_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, split_count = 4 : i64, split_dimension = 0 : i64}> : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %6 = "mhlo.collective_broadcast"(%x) <{channel_handle = #mhlo.channel_handle<handle = 7, type = 0>, replica_groups = dense<[[2, 0], [1, 3]]> : tensor<2x2xi64>}> : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %7 = mhlo.partition_id : tensor<ui32>
    %8 = "mhlo.replica_id"() : () -> tensor<ui32>
    return %0, %1#0, %1#1, %2, %3, %4, %5, %6, %7, %8 : tensor<4x2xf32>, tensor<4x2xf32>, tensor<3xf32>, tensor<16x2xf32>, tensor<2x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<ui32>, tensor<ui32>
  }
}
