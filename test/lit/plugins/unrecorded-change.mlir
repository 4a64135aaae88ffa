// A plugin pass that changes the IR without the rewriter records nothing; with the verifier after
// each pass (hilo-opt's default) a plugin's pass is verified after anyway, so the error names it
// (and not the next pass that happens to record a change).
// The checking mode (on in the test suite) names it first, as a mutation made without the rewriter.
// RUN: not env HILO_MLIR_CHECK_ANALYSES=0 hilo-opt %s --load-pass-plugin=%S/Inputs/sneaky_move.py --pass-pipeline='builtin.module(func.func(stablehlo-sneaky-move),stablehlo-prune-functions)' 2>&1 | FileCheck %s
// RUN: not env HILO_MLIR_CHECK_ANALYSES=0 hilo-opt %s --load-pass-plugin=%S/Inputs/sneaky_move.py --stablehlo-sneaky-move --canonicalize 2>&1 | FileCheck %s
// RUN: not env HILO_MLIR_CHECK_ANALYSES=1 hilo-opt %s --load-pass-plugin=%S/Inputs/sneaky_move.py --stablehlo-sneaky-move --canonicalize 2>&1 | FileCheck %s --check-prefix=CHECKING

// CHECKING: hilo-opt: error: analysis check failed after pass 'stablehlo-sneaky-move': the rewriter recorded no change but the module changed

// CHECK: unrecorded-change.mlir:15:8: error: verifier failed after pass 'stablehlo-sneaky-move': operand #0 does not dominate this use
// CHECK-NOT: canonicalize
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
  %1 = stablehlo.multiply %0, %a : tensor<2xf32>
  return %1 : tensor<2xf32>
}
