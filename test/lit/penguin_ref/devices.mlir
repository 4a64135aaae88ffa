// hilo-penguin-run --devices N: per-device inputs stacked on a leading axis (or one array for every
// device), outputs stacked per device; a device count the program does not allow, an input of neither
// shape, and devices that deadlock are each one error, exit code 1, no traceback.
// RUN: rm -rf %t && mkdir -p %t
// RUN: hilo2penguin %s -o %t/p --spine stablehlo
// RUN: %python -c "import numpy as np; np.save(r'%t/x.npy', np.arange(4, dtype=np.float32).reshape(4, 1) * 10 + np.arange(2, dtype=np.float32)); np.save(r'%t/w.npy', np.ones(2, np.float32)); np.save(r'%t/bad.npy', np.ones((3, 2), np.float32))"
// RUN: hilo-penguin-run %t/p --inputs %t/x.npy %t/w.npy --devices 4 --out %t/o --print | FileCheck %s
// RUN: %python -c "import numpy as np; a = np.load(r'%t/o/out0.npy'); assert a.shape == (4, 2), a.shape"
// RUN: not hilo-penguin-run %t/p --inputs %t/x.npy %t/w.npy --devices 2 --out %t/o 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not hilo-penguin-run %t/p --inputs %t/bad.npy %t/w.npy --devices 4 --out %t/o 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: hilo2penguin %S/Inputs/deadlock.mlir -o %t/d --spine mhlo
// RUN: not hilo-penguin-run %t/d --inputs %t/w.npy --devices 2 --out %t/o 2>&1 | FileCheck %s --check-prefix=DEADLOCK

// Device d's input x[d] = [10d, 10d + 1]; w = [1, 1] for every device.
// out0: the sum over the 4 devices, times w; out1: what arrives from the previous device (device 0: zeros);
// out2: partition ids.
// CHECK: out0: float32 (4, 2) {{\[\[}}60.0, 64.0], [60.0, 64.0], [60.0, 64.0], [60.0, 64.0]]
// CHECK-NEXT: out1: float32 (4, 2) {{\[\[}}0.0, 0.0], [0.0, 1.0], [10.0, 11.0], [20.0, 21.0]]
// CHECK-NEXT: out2: uint32 (4,) [0, 1, 2, 3]
// COUNT: hilo-penguin-run: error: penguin_ref: the program is compiled for num-replicas=1 x num-partitions=4 devices, but 2 device(s) were asked for
// COUNT-NOT: Traceback
// SHAPE: hilo-penguin-run: error: input 0 ('{{.*}}bad.npy') has shape (3, 2); with --devices 4 it must be (4, 2) (one array per device, stacked) or (2,) (the same array for every device)
// DEADLOCK: deadlock.mlir:7:12: error: penguin_ref: the devices deadlock: device 0 waits at 'mhlo.all_reduce' (AllReduceOp) (penguin.py line {{[0-9]+}}) (execution 1); device 1 has finished
// DEADLOCK-NOT: Traceback

module @m attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func @main(%x: tensor<2xf32>, %w: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<ui32>) {
    %s = "stablehlo.all_reduce"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) : (tensor<2xf32>) -> tensor<2xf32>
    %m = stablehlo.multiply %s, %w : tensor<2xf32>
    %p = "stablehlo.collective_permute"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3]]> : tensor<3x2xi64>}> : (tensor<2xf32>) -> tensor<2xf32>
    %id = stablehlo.partition_id : tensor<ui32>
    return %m, %p, %id : tensor<2xf32>, tensor<2xf32>, tensor<ui32>
  }
}
