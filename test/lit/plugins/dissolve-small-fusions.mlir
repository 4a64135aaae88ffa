// The example pass plugin examples/plugins/dissolve_small_fusions.py, loaded by
// path: fusions of at most max-ops ops become plain ops again (both dialects);
// larger ones are kept. It runs by name in a pipeline and as a flag.
// RUN: hilo-opt %s --split-input-file --load-pass-plugin=%plugins/dissolve_small_fusions.py --pass-pipeline='builtin.module(dissolve-small-fusions{max-ops=2},stablehlo-dissolve-small-fusions{max-ops=2})' | FileCheck %s
// RUN: hilo-opt %s --split-input-file --load-pass-plugin=%plugins/dissolve_small_fusions.py --dissolve-small-fusions --stablehlo-dissolve-small-fusions | FileCheck %s --check-prefix=KEEP
// RUN: hilo-opt %s --split-input-file --load-pass-plugin=%plugins/dissolve_small_fusions.py --pass-pipeline='builtin.module(dissolve-small-fusions{max-ops=2},stablehlo-dissolve-small-fusions{max-ops=2})' --mlir-pass-statistics -o /dev/null 2>&1 | grep -v warning: | FileCheck %s --check-prefix=STATS
// RUN: hilo-opt --load-pass-plugin=%plugins/dissolve_small_fusions.py --help | FileCheck %s --check-prefix=HELP

// CHECK-LABEL: func.func @mhlo_fusion
// CHECK-NOT: mhlo.fusion
// CHECK: %[[D:.*]] = "mhlo.dot_general"(%arg0, %arg1)
// CHECK-NEXT: %[[L:.*]] = mhlo.logistic %[[D]]
// CHECK-NEXT: %[[M:.*]] = mhlo.multiply %[[L]], %arg2
// CHECK-NEXT: return %[[M]]
// KEEP-LABEL: func.func @mhlo_fusion
// KEEP: "mhlo.fusion"(%arg0, %arg1)
func.func @mhlo_fusion(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %v: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = "mhlo.fusion"(%x, %w) ({
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>):
    %2 = "mhlo.dot_general"(%a, %b) <{dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    %3 = mhlo.logistic %2 : tensor<4x16xf32>
    mhlo.return %3 : tensor<4x16xf32>
  }) {FusionKind = "DotLogistic"} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = mhlo.multiply %0, %v : tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
}

// -----

// A fusion of three ops is above max-ops=2: kept.
// CHECK-LABEL: func.func @big_fusion
// CHECK: "mhlo.fusion"
// CHECK: FusionKind = "Elementwise"
func.func @big_fusion(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "mhlo.fusion"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    %1 = mhlo.exponential %a : tensor<4xf32>
    %2 = mhlo.add %1, %a : tensor<4xf32>
    %3 = mhlo.multiply %2, %2 : tensor<4xf32>
    mhlo.return %3 : tensor<4xf32>
  }) {FusionKind = "Elementwise"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// The StableHLO twin: the composite's decomposition is inlined and erased.
// CHECK-LABEL: func.func @composite
// CHECK-NOT: stablehlo.composite
// CHECK: %[[D:.*]] = stablehlo.dot_general %arg0, %arg1
// CHECK-NEXT: %[[L:.*]] = stablehlo.logistic %[[D]]
// CHECK-NEXT: stablehlo.multiply %[[L]], %arg2
// CHECK-NOT: @neuron.DotLogistic.impl
// KEEP-LABEL: func.func @composite
// KEEP: stablehlo.composite "neuron.DotLogistic"
module {
  func.func @composite(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %v: tensor<4x16xf32>) -> tensor<4x16xf32> {
    %0 = stablehlo.composite "neuron.DotLogistic" %x, %w {CompositeKind = "DotLogistic", decomposition = @neuron.DotLogistic.impl, version = 1 : i32} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    %1 = stablehlo.multiply %0, %v : tensor<4x16xf32>
    return %1 : tensor<4x16xf32>
  }
  func.func private @neuron.DotLogistic.impl(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    %1 = stablehlo.logistic %0 : tensor<4x16xf32>
    return %1 : tensor<4x16xf32>
  }
}

// One report per chunk: the fusion of @mhlo_fusion dissolved, @big_fusion's kept,
// the composite dissolved by the twin.
// STATS: {{^}}DissolveSmallFusions
// STATS-NEXT:   (fusions-dissolved) 1
// STATS-NEXT:   (fusions-seen) 1
// STATS-NEXT:   (ops-unfused) 2
// STATS: {{^}}DissolveSmallFusions
// STATS-NEXT:   (fusions-seen) 1
// STATS-NEXT: StableHLODissolveSmallFusions
// STATS: StableHLODissolveSmallFusions
// STATS-NEXT:   (fusions-dissolved) 1
// STATS-NEXT:   (fusions-seen) 1
// STATS-NEXT:   (ops-unfused) 2

// HELP: plugin passes:
// HELP-NEXT: --dissolve-small-fusions {{.*}} [mhlo; anchor builtin.module] (plugin: {{.*}}dissolve_small_fusions.py)
// HELP-NEXT: max-ops=int    (default 1) dissolve fusions whose body has at most this many ops
