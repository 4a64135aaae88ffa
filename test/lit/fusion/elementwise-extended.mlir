// The Elementwise grower absorbs the elementwise ops that are ours beyond the seed's
// isElementwiseOp count (decision 3; docs/provenance.md lists them) and says so with --debug.
// RUN: hilo-opt %s --split-input-file --stablehlo-neuron-op-fusion=general-elementwise-fusion=true --debug 2>&1 >/dev/null | FileCheck %s
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,neuron-op-fusion{general-elementwise-fusion=true})' --debug 2>&1 >/dev/null | FileCheck %s --check-prefix=MHLO
// RUN: hilo-opt %s --split-input-file --stablehlo-neuron-op-fusion=general-elementwise-fusion=true | FileCheck %s --check-prefix=IR

// sign and tan are beyond the count: one line each (the worklist visits the latest producer first);
// multiply is in it: no line.
// CHECK: [stablehlo-neuron-op-fusion] fuseElementwiseOps: absorbed 'stablehlo.sign' at {{.*}}elementwise-extended.mlir:23:8 into the cluster of 'stablehlo.reduce' at {{.*}}elementwise-extended.mlir:25:24: an elementwise op hilo_mlir adds to the Neuron compiler's set
// CHECK-NEXT: [stablehlo-neuron-op-fusion] fuseElementwiseOps: absorbed 'stablehlo.tan' at {{.*}}elementwise-extended.mlir:22:8
// CHECK-NOT: absorbed
// MHLO: [neuron-op-fusion] fuseElementwiseOps: absorbed 'mhlo.sign'
// MHLO-NEXT: [neuron-op-fusion] fuseElementwiseOps: absorbed 'mhlo.tan'
// MHLO-NOT: absorbed
// IR-LABEL: func.func @extended
// IR: stablehlo.composite "neuron.MulRedSqrt"
// IR-LABEL: func.func private @neuron.MulRedSqrt.impl
// IR: stablehlo.tan
// IR: stablehlo.sign
func.func @extended(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %a = stablehlo.tan %x : tensor<4x8xf32>
  %s = stablehlo.sign %a : tensor<4x8xf32>
  %m = stablehlo.multiply %s, %x : tensor<4x8xf32>
  %r = stablehlo.reduce(%m init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Only ops of the seed's count (exponential, add, multiply): absorbed silently.
// IR-LABEL: func.func @counted
// IR: stablehlo.composite "neuron.MulRedSqrt"
func.func @counted(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %e = stablehlo.exponential %x : tensor<4x8xf32>
  %a = stablehlo.add %e, %x : tensor<4x8xf32>
  %m = stablehlo.multiply %a, %a : tensor<4x8xf32>
  %r = stablehlo.reduce(%m init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
