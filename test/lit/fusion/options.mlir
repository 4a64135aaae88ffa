// RUN: hilo-opt %s --pass-pipeline='builtin.module(neuron-op-fusion{fuse-dot-logistic=true general-elementwise-fusion=true})' --mlir-pass-statistics 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: not hilo-opt %s --pass-pipeline='builtin.module(neuron-op-fusion{fuse-dot-logistic=maybe})' 2>&1 | FileCheck %s --check-prefix=BADVAL
// RUN: not hilo-opt %s --pass-pipeline='builtin.module(neuron-op-fusion{fuse-everything=true})' 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: hilo-opt %s --pass-pipeline='builtin.module(neuron-op-fusion{general-elementwise-fusion=1})' | FileCheck %s --check-prefix=GATE

// The two gates are typed options; statistics count clusters and absorbed ops per kind.

// STATS: NeuronOpFusion
// STATS-DAG: (clusters-DotLogistic) 1
// STATS-DAG: (ops-absorbed-DotLogistic) 3
// STATS-DAG: (clusters-Expm1) 1
// STATS-DAG: (expanded-Expm1) 1
// STATS-DAG: (ops-absorbed-Expm1) 3
// STATS-DAG: (clusters-Elementwise) 1
// STATS-DAG: (ops-absorbed-Elementwise) 2
// BADVAL: error: invalid value 'maybe' for option 'fuse-dot-logistic' of pass 'neuron-op-fusion' (expected bool)
// BADOPT: error: pass 'neuron-op-fusion' has no option 'fuse-everything' (options: fuse-dot-logistic, general-elementwise-fusion, report)
// GATE-LABEL: func.func @main
// GATE-NOT: FusionKind = "DotLogistic"
// GATE: FusionKind = "Expm1"
func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %y: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4xf32>) {
  %0 = "mhlo.dot_general"(%x, %w) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = mhlo.logistic %0 : tensor<4x16xf32>
  %2 = mhlo.multiply %1, %0 : tensor<4x16xf32>
  %3 = mhlo.exponential_minus_one %y : tensor<4x16xf32>
  %4 = mhlo.abs %3 : tensor<4x16xf32>
  %z = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %5 = mhlo.reduce(%4 init: %z) applies mhlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
  return %2, %5 : tensor<4x16xf32>, tensor<4xf32>
}
