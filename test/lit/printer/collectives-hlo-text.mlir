// The collectives of an XLA HLO text module (the form of an after-spmd-partitioning dump: channel ids,
// replica_groups as lists and as iota lists, use_global_device_ids, source_target_pairs, num_partitions)
// through the HLO text import, both spines: one statement each with groups, channel and flag; the
// program then runs on 4 simulated devices.
// RUN: rm -rf %t && mkdir -p %t
// RUN: hilo2penguin %S/Inputs/collectives.hlo.txt -o %t/m --spine mhlo
// RUN: FileCheck %s --input-file %t/m/penguin.py
// RUN: hilo2penguin %S/Inputs/collectives.hlo.txt -o %t/s --spine stablehlo --preset all
// RUN: FileCheck %s --input-file %t/s/penguin.py
// RUN: %python -c "import numpy as np; np.save(r'%t/x.npy', np.stack([np.arange(8, dtype=np.float32).reshape(4, 2) + 100 * d for d in range(4)])); np.save(r'%t/g.npy', np.ones((8, 2), np.float32))"
// RUN: hilo-penguin-run %t/m --devices 4 --inputs %t/x.npy %t/g.npy --out %t/o --print | FileCheck %s --check-prefix=OUT
// RUN: hilo-penguin-run %t/s --devices 4 --inputs %t/x.npy %t/g.npy --out %t/o --print | FileCheck %s --check-prefix=OUT

// CHECK-DAG: = m1.AllReduceOp(srcs=[input_0], dsts=[m1.TensorSpec(shape=(4, 2), dtype='float32')], channel_handle=dict(handle=1, type=0), {{.*}}replica_groups=[[0, 1, 2, 3]], use_global_device_ids=True, regions=[{{v[0-9]+}}], reducer='add', xla_op='{{(mhlo|stablehlo)}}.all_reduce', dl=
// CHECK-DAG: = m1.AllGatherOp(srcs=[input_0], dsts=[m1.TensorSpec(shape=(16, 2), dtype='float32')], all_gather_dim=0, channel_handle=dict(handle=2, type=0), {{.*}}replica_groups=[[0, 1, 2, 3]], use_global_device_ids=True, xla_op='{{(mhlo|stablehlo)}}.all_gather', dl=
// CHECK-DAG: = m1.ReduceScatterOp(srcs=[input_1], dsts=[m1.TensorSpec(shape=(2, 2), dtype='float32')], channel_handle=dict(handle=3, type=0), {{.*}}replica_groups=[[0, 1, 2, 3]], scatter_dimension=0, use_global_device_ids=True, regions=[{{v[0-9]+}}], reducer='add', xla_op='{{(mhlo|stablehlo)}}.reduce_scatter', dl=
// CHECK-DAG: = m1.CollectivePermuteOp(srcs=[input_0], dsts=[m1.TensorSpec(shape=(4, 2), dtype='float32')], channel_handle=dict(handle=4, type=0), {{.*}}source_target_pairs=[[0, 1], [1, 2], [2, 3], [3, 0]], xla_op='{{(mhlo|stablehlo)}}.collective_permute', dl=
// CHECK-DAG: = m1.AllToAllOp(srcs=[input_0], dsts=[m1.TensorSpec(shape=(4, 2), dtype='float32')], channel_handle=dict(handle=5, type=0), concat_dimension=0, {{.*}}replica_groups=[[0, 1, 2, 3]], split_count=4, split_dimension=0, xla_op='{{(mhlo|stablehlo)}}.all_to_all', dl=
// CHECK-DAG: = m1.AllGatherOp(srcs=[input_0], dsts=[m1.TensorSpec(shape=(8, 2), dtype='float32')], all_gather_dim=0, channel_handle=dict(handle=6, type=0), replica_groups=[[2, 0], [1, 3]], use_global_device_ids=True, xla_op='{{(mhlo|stablehlo)}}.all_gather', dl=
// CHECK-DAG: = m1.PartitionIdOp(srcs=[], dsts=[m1.TensorSpec(shape=(), dtype='uint32')], {{.*}}xla_op='{{(mhlo|stablehlo)}}.partition_id', dl=
// CHECK-DAG: = m1.ReplicaIdOp(srcs=[], dsts=[m1.TensorSpec(shape=(), dtype='uint32')], {{.*}}xla_op='{{(mhlo|stablehlo)}}.replica_id', dl=

// device d's x = [[0, 1], [2, 3], [4, 5], [6, 7]] + 100 d; g = ones
// OUT: out0: float32 (4, 4, 2) {{\[\[\[}}600.0, 604.0], [608.0, 612.0], [616.0, 620.0], [624.0, 628.0]], [[600.0, 604.0],
// OUT: out2: float32 (4, 2, 2) {{\[\[\[}}4.0, 4.0], [4.0, 4.0]], [[4.0, 4.0], [4.0, 4.0]], [[4.0, 4.0], [4.0, 4.0]], [[4.0, 4.0], [4.0, 4.0]]]
// OUT: out3: float32 (4, 4, 2) {{\[\[\[}}300.0, 301.0], [302.0, 303.0], [304.0, 305.0], [306.0, 307.0]], {{\[\[}}0.0, 1.0],
// OUT: out4: float32 (4, 4, 2) {{\[\[\[}}0.0, 1.0], [100.0, 101.0], [200.0, 201.0], [300.0, 301.0]], {{\[\[}}2.0, 3.0], [102.0, 103.0],
// OUT: out5: float32 (4, 4, 2) {{\[\[\[}}200.0, 201.0], [202.0, 203.0], [204.0, 205.0], [206.0, 207.0]], {{\[\[}}100.0, 101.0],
// OUT: out6: uint32 (4,) [0, 1, 2, 3]
// OUT: out7: uint32 (4,) [0, 0, 0, 0]
