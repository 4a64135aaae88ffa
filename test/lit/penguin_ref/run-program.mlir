// hilo-penguin-run executes the penguin.py that hilo2penguin wrote, in both spines, and writes
// out<i>.npy in main's result order (issue 5 item 8).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save(r'%t/x.npy', np.array([[1, -2, 3, -4], [0.5, 0.25, 2, 8]], np.float32)); np.save(r'%t/w.npy', np.array([1, 2, 3, 4], np.float32))"
// RUN: hilo2penguin %s -o %t/mhlo --spine mhlo
// RUN: hilo-penguin-run %t/mhlo/penguin.py --inputs %t/x.npy %t/w.npy --out %t/res-mhlo --print | FileCheck %s
// RUN: hilo2penguin %s -o %t/shlo --spine stablehlo --preset all
// RUN: hilo-penguin-run %t/shlo --inputs %t/x.npy %t/w.npy --out %t/res-shlo --print | FileCheck %s
// RUN: %python -c "import numpy as np; a = np.load(r'%t/res-mhlo/out1.npy'); b = np.load(r'%t/res-shlo/out1.npy'); assert a.dtype == np.int32 and a.tolist() == b.tolist() == [-2, 8]; print('ok')" | FileCheck --check-prefix=NPY %s

// CHECK: out0: float32 (2, 4) {{\[}}[1.0, -4.0, 9.0, -16.0], [0.5, 0.5, 6.0, 32.0]]
// CHECK-NEXT: out1: int32 (2,) [-2, 8]
// CHECK-NEXT: out2: float32 (2,) [-10.0, 39.0]
// NPY: ok

func.func @main(%x: tensor<2x4xf32>, %w: tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2xi32>, tensor<2xf32>) {
  %b = stablehlo.broadcast_in_dim %w, dims = [1] : (tensor<4xf32>) -> tensor<2x4xf32>
  %m = stablehlo.multiply %x, %b : tensor<2x4xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%m init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x4xf32>, tensor<f32>) -> tensor<2xf32>
  %i = stablehlo.convert %s : (tensor<2xf32>) -> tensor<2xi32>
  %lo = stablehlo.constant dense<-2> : tensor<i32>
  %hi = stablehlo.constant dense<8> : tensor<i32>
  %c = stablehlo.clamp %lo, %i, %hi : (tensor<i32>, tensor<2xi32>, tensor<i32>) -> tensor<2xi32>
  return %m, %c, %s : tensor<2x4xf32>, tensor<2xi32>, tensor<2xf32>
}
