// A plugin pass that changes the IR without the rewriter records nothing; with the verifier after
// each pass (hilo-opt's default) a plugin's pass is verified after anyway, so the error names it
// (and not the next pass that happens to record a change).
// RUN: not hilo-opt %s --load-pass-plugin=%S/Inputs/sneaky_move.py --pass-pipeline='builtin.module(func.func(stablehlo-sneaky-move),stablehlo-prune-functions)' 2>&1 | FileCheck %s
// RUN: not hilo-opt %s --load-pass-plugin=%S/Inputs/sneaky_move.py --stablehlo-sneaky-move --canonicalize 2>&1 | FileCheck %s

// CHECK: unrecorded-change.mlir:11:8: error: verifier failed after pass 'stablehlo-sneaky-move': operand #0 does not dominate this use
// CHECK-NOT: canonicalize
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
  %1 = stablehlo.multiply %0, %a : tensor<2xf32>
  return %1 : tensor<2xf32>
}
