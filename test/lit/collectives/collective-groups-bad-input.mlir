// A module that declares its devices (mhlo.num_replicas x mhlo.num_partitions) and a collective whose
// groups do not fit them: one error located at the collective, naming its groups and the devices, before
// any pass runs; exit 1, nothing written, no traceback.
// RUN: rm -rf %t && mkdir -p %t
// RUN: not hilo2penguin %s -o %t/a 2>&1 | FileCheck %s --check-prefix=BEYOND
// RUN: not test -e %t/a
// RUN: not hilo2penguin %S/Inputs/groups-leave-out-a-device.mlir -o %t/b --spine stablehlo 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not test -e %t/b
// RUN: not hilo2penguin %S/Inputs/broadcast-beyond-devices.mlir -o %t/c 2>&1 | FileCheck %s --check-prefix=BROADCAST
// RUN: not test -e %t/c

// BEYOND: collective-groups-bad-input.mlir:23:10: error: 'mhlo.collective_permute' op: source_target_pairs {{\[\[}}0, 1], [1, 2]] name partition 2, but there are 2 partitions (2 device(s): 1 replica(s) x 2 partition(s))
// BEYOND-NOT: Traceback
// MISSING: groups-leave-out-a-device.mlir:3:10: error: 'stablehlo.all_reduce' op: its groups {{\[\[}}0, 1], [2, 3]] leave out device 4 of 8 (8 device(s): 1 replica(s) x 8 partition(s))
// MISSING-NOT: Traceback
// BROADCAST: broadcast-beyond-devices.mlir:3:10: error: 'stablehlo.collective_broadcast' op: its groups {{\[\[}}0, 5]] name partition 5, but there are 1 partitions (2 device(s): 2 replica(s) x 1 partition(s))
// BROADCAST-NOT: Traceback

module @m attributes {mhlo.num_partitions = 2 : i32} {
  func.func @main(%x: tensor<4xf32>) -> (tensor<8xf32>, tensor<4xf32>) {
    %0 = "mhlo.all_gather"(%x) <{all_gather_dim = 0 : i64, channel_handle = #mhlo.channel_handle<handle = 1, type = 0>,
        replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>, use_global_device_ids}> : (tensor<4xf32>) -> tensor<8xf32>
    %1 = "mhlo.collective_permute"(%x) <{channel_handle = #mhlo.channel_handle<handle = 2, type = 0>,
        source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
    return %0, %1 : tensor<8xf32>, tensor<4xf32>
  }
}
