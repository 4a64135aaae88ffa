// A NaN constant keeps its sign bit (total-order sort/compare and copysign see it):
// -NaN prints as float('-nan'), +NaN as float('nan'), in both printers.
// RUN: hilo-opt %s --stablehlo-to-py-penguin | FileCheck %s
// RUN: hilo-opt %s --stablehlo-legalize-to-hlo --mhlo-to-py-penguin | FileCheck %s
// RUN: hilo-opt %s --stablehlo-to-py-penguin | %python -c "import sys; from hilo_mlir import penguin_ref; import numpy as np; (r,) = penguin_ref.run(sys.stdin.read(), []); print(np.signbit(r).tolist())" | FileCheck %s --check-prefix=SIGN

// CHECK: value=[float('-nan'), float('nan'), -0.0]
// SIGN: [True, False, True]
func.func @main() -> tensor<3xf32> {
  %c = stablehlo.constant dense<[0xFFC00000, 0x7FC00000, -0.0]> : tensor<3xf32>
  return %c : tensor<3xf32>
}
