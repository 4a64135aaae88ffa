// --max-pass-index N (LLVM's -opt-bisect-limit): passes with an index above N are skipped and the
// BISECT lines say which ran; --fusion-fuel N (XLA's --xla_fuel): at most N clusters in all.
// RUN: hilo-opt %s --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,neuron-op-fusion{fuse-dot-logistic=true general-elementwise-fusion=true})' --max-pass-index=0 2>&1 | FileCheck %s --check-prefix=LIMIT0
// RUN: hilo-opt %s --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,neuron-op-fusion{fuse-dot-logistic=true general-elementwise-fusion=true})' --max-pass-index=1 2>&1 | FileCheck %s --check-prefix=LIMIT1
// RUN: hilo-opt %s --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,neuron-op-fusion{fuse-dot-logistic=true general-elementwise-fusion=true})' --fusion-fuel=1 | FileCheck %s --check-prefix=FUEL1
// RUN: hilo-opt %s --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,neuron-op-fusion{fuse-dot-logistic=true general-elementwise-fusion=true})' --fusion-fuel=0 | FileCheck %s --check-prefix=FUEL0
// RUN: not hilo-opt %s --max-pass-index=-1 2>&1 | FileCheck %s --check-prefix=BAD
// The indices are those of --dump-pass-pipeline (0: hilo-import): both tools stop at the same pass.
// RUN: rm -rf %t && mkdir -p %t
// RUN: hilo2penguin --dump-pass-pipeline --preset all > %t/pipeline.txt
// RUN: sh -c 'hilo-opt %s --pass-pipeline="$(cat %t/pipeline.txt)" --max-pass-index=18 -o %t/opt.py 2>/dev/null'
// RUN: hilo2penguin %s --preset all --max-pass-index 18 -o %t/out
// RUN: cmp %t/opt.py %t/out/penguin.py

// LIMIT0: BISECT: running pass (0) stablehlo-legalize-to-hlo
// LIMIT0-NEXT: BISECT: NOT running pass (1) neuron-op-fusion
// LIMIT0-LABEL: func.func @main
// LIMIT0-NOT: mhlo.fusion
// LIMIT1: BISECT: running pass (0) stablehlo-legalize-to-hlo
// LIMIT1-NEXT: BISECT: running pass (1) neuron-op-fusion
// LIMIT1-LABEL: func.func @main
// LIMIT1-COUNT-2: "mhlo.fusion"
// LIMIT1-NOT: "mhlo.fusion"

// The first DotLogistic cluster takes the only unit; the second is not formed.
// FUEL1-LABEL: func.func @main
// FUEL1: %[[F:.*]] = "mhlo.fusion"(%arg0, %arg1)
// FUEL1: FusionKind = "DotLogistic"
// FUEL1-NOT: "mhlo.fusion"
// FUEL1: %[[D2:.*]] = "mhlo.dot_general"
// FUEL1-NEXT: %[[L2:.*]] = mhlo.logistic %[[D2]]
// FUEL1-NEXT: %[[M2:.*]] = mhlo.multiply %[[D2]], %[[L2]]
// FUEL1-NEXT: return %[[F]], %[[M2]]
// FUEL0-LABEL: func.func @main
// FUEL0-NOT: "mhlo.fusion"
// BAD: hilo-opt: error: argument --max-pass-index: '-1' is negative
func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %l = stablehlo.logistic %d : tensor<4x8xf32>
  %m = stablehlo.multiply %d, %l : tensor<4x8xf32>
  %e = stablehlo.exponential %w : tensor<8x8xf32>
  %d2 = stablehlo.dot_general %x, %e, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %l2 = stablehlo.logistic %d2 : tensor<4x8xf32>
  %m2 = stablehlo.multiply %d2, %l2 : tensor<4x8xf32>
  return %m, %m2 : tensor<4x8xf32>, tensor<4x8xf32>
}
