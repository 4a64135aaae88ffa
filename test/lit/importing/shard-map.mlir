// Issue 22 item 5b: a jax.export of a shard_map manual over every mesh axis is its per-device
// program: the import (hilo-import, the first stage of hilo2penguin) makes the body main, with
// the per-device shapes (4x16 of the global 8x16). Inputs/generate.py writes both forms.
// RUN: hilo-opt %S/Inputs/shard_map.stablehlo.mlir --hilo-import | FileCheck %s
// RUN: hilo-opt %S/Inputs/shard_map_gspmd.stablehlo.mlir --hilo-import | FileCheck %s --check-prefix=GSPMD
// RUN: rm -rf %t && hilo2penguin %S/Inputs/shard_map.stablehlo.mlir -o %t/a --spine stablehlo --preset all | FileCheck %s --check-prefix=WROTE
// RUN: FileCheck %s --check-prefix=PENGUIN < %t/a/penguin.py
// RUN: hilo2penguin %S/Inputs/shard_map_gspmd.stablehlo.mlir -o %t/b | FileCheck %s --check-prefix=WROTE
// RUN: FileCheck %s --check-prefix=PENGUIN < %t/b/penguin.py

// CHECK-NOT: sdy.
// CHECK-LABEL: func.func public @main(
// CHECK-SAME: %[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<16x4xf32>) -> (tensor<4x4xf32> {jax.result_info = "result"})
// CHECK-NEXT: %[[D:.*]] = "mhlo.dot_general"(%[[X]], %[[W]])
// CHECK-NEXT: %[[T:.*]] = mhlo.tanh %[[D]]
// CHECK-NEXT: %[[R:.*]] = "mhlo.all_reduce"(%[[T]]) <{channel_handle = #mhlo.channel_handle<handle = 1, type = 0>, replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>, use_global_device_ids}>
// CHECK: return %[[R]] : tensor<4x4xf32>

// GSPMD-NOT: SPMDFullToShardShape
// GSPMD-LABEL: func.func public @main(
// GSPMD-SAME: %[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<16x4xf32>) -> (tensor<4x4xf32>
// GSPMD-NEXT: %[[C:.*]] = call @shmap_body(%[[X]], %[[W]])
// GSPMD-NEXT: return %[[C]] : tensor<4x4xf32>
// GSPMD-LABEL: func.func private @shmap_body(
// GSPMD: "mhlo.all_reduce"
// GSPMD-NOT: SPMDShardToFullShape

// WROTE: wrote {{.*}}penguin.py
// PENGUIN: input_0 = m1.Tensor(name='input_0', spec=m1.TensorSpec(shape=(4, 16), dtype='float32'))
// PENGUIN: input_1 = m1.Tensor(name='input_1', spec=m1.TensorSpec(shape=(16, 4), dtype='float32'))
// PENGUIN: m1.AllReduceOp(
