// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(stablehlo-neuron-op-fusion{fuse-dot-logistic=true general-elementwise-fusion=true})' | FileCheck %s

// The StableHLO twin (DESIGN.md decision 6): the same clusters become
// stablehlo.composite "neuron.<Kind>" with a private decomposition.

// CHECK-LABEL: func.func @silu
// CHECK:      %[[C:.*]] = stablehlo.composite "neuron.DotLogistic" %arg0, %arg1 {CompositeKind = "DotLogistic", decomposition = @neuron.DotLogistic.impl, version = 1 : i32} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: return %[[C]]
// CHECK-LABEL: func.func private @neuron.DotLogistic.impl(%arg0: tensor<4x8xf32>, %arg1: tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:   %[[D:.*]] = stablehlo.dot_general %arg0, %arg1
// CHECK-NEXT:   %[[L:.*]] = stablehlo.logistic %[[D]]
// CHECK-NEXT:   %[[M:.*]] = stablehlo.multiply %[[D]], %[[L]]
// CHECK-NEXT:   return %[[M]]
func.func @silu(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = stablehlo.logistic %0 : tensor<4x16xf32>
  %2 = stablehlo.multiply %0, %1 : tensor<4x16xf32>
  return %2 : tensor<4x16xf32>
}

// -----

// Two clusters of one kind get unique, ordered names; a dependent op moves after the composite.
// CHECK-LABEL: func.func @two_expm1
// CHECK:      %[[A:.*]] = stablehlo.composite "neuron.Expm1" %arg0 {{{.*}}decomposition = @neuron.Expm1.impl,
// CHECK-NEXT: %[[B:.*]] = stablehlo.composite "neuron.Expm1" %arg1 {{{.*}}decomposition = @neuron.Expm1.impl.1,
// CHECK-LABEL: func.func private @neuron.Expm1.impl(%arg0: tensor<4xbf16>) -> tensor<4xbf16>
// CHECK-NEXT:   stablehlo.constant dense<1.000000e+00> : tensor<4xbf16>
// CHECK-NEXT:   stablehlo.exponential %arg0
// CHECK-NEXT:   stablehlo.subtract
// CHECK-LABEL: func.func private @neuron.Expm1.impl.1
func.func @two_expm1(%x: tensor<4xbf16>, %y: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = stablehlo.exponential_minus_one %x : tensor<4xbf16>
  %1 = stablehlo.exponential_minus_one %y : tensor<4xbf16>
  %2 = stablehlo.add %0, %1 : tensor<4xbf16>
  return %2 : tensor<4xbf16>
}

// -----

// fuseSubExp, RMSNorm and a reduce seed, all in one function.
// CHECK-LABEL: func.func @mixed
// CHECK-DAG: stablehlo.composite "neuron.Elementwise" %arg0, %arg1 {CompositeKind = "Elementwise", decomposition = @neuron.Elementwise.impl
// CHECK-DAG: stablehlo.composite "neuron.MulRedSqrt" %arg2, {{.*}}decomposition = @neuron.MulRedSqrt.impl,
// CHECK-LABEL: func.func private @neuron.Elementwise.impl
// CHECK-COUNT-2: stablehlo.exponential
// CHECK: stablehlo.log
// CHECK-LABEL: func.func private @neuron.MulRedSqrt.impl
// CHECK: stablehlo.multiply %arg0, %arg0
// CHECK: stablehlo.reduce
// CHECK: stablehlo.rsqrt
func.func @mixed(%a: tensor<4xf32>, %b: tensor<4xf32>, %x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %m = stablehlo.maximum %a, %b : tensor<4xf32>
  %s1 = stablehlo.subtract %a, %m : tensor<4xf32>
  %e1 = stablehlo.exponential %s1 : tensor<4xf32>
  %s2 = stablehlo.subtract %b, %m : tensor<4xf32>
  %e2 = stablehlo.exponential %s2 : tensor<4xf32>
  %i = stablehlo.add %e1, %e2 : tensor<4xf32>
  %l = stablehlo.log %i : tensor<4xf32>
  %r = stablehlo.add %m, %l : tensor<4xf32>
  %z = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %eps = stablehlo.constant dense<1.000000e-06> : tensor<4xf32>
  %0 = stablehlo.multiply %x, %x : tensor<4x8xf32>
  %1 = stablehlo.reduce(%0 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %2 = stablehlo.add %1, %eps : tensor<4xf32>
  %3 = stablehlo.rsqrt %2 : tensor<4xf32>
  return %r, %3 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A composite already in the input is left alone and its decomposition is not
// visited (its log-add-exp tree stays as it is); the new decomposition name
// avoids the existing symbol.
// CHECK-LABEL: func.func @foreign
// CHECK:      stablehlo.composite "chlo.lae" %arg0, %arg1 {decomposition = @neuron.Elementwise.impl}
// CHECK-NEXT: stablehlo.composite "neuron.Elementwise" %arg0, %arg1 {{{.*}}decomposition = @neuron.Elementwise.impl.1,
// CHECK-LABEL: func.func private @neuron.Elementwise.impl(
// CHECK-NOT:  stablehlo.composite
// CHECK:      stablehlo.maximum
// CHECK-LABEL: func.func private @neuron.Elementwise.impl.1(
func.func @foreign(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = stablehlo.composite "chlo.lae" %a, %b {decomposition = @neuron.Elementwise.impl} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %m = stablehlo.maximum %a, %b : tensor<4xf32>
  %s1 = stablehlo.subtract %a, %m : tensor<4xf32>
  %e1 = stablehlo.exponential %s1 : tensor<4xf32>
  %s2 = stablehlo.subtract %b, %m : tensor<4xf32>
  %e2 = stablehlo.exponential %s2 : tensor<4xf32>
  %i = stablehlo.add %e1, %e2 : tensor<4xf32>
  %l = stablehlo.log %i : tensor<4xf32>
  %1 = stablehlo.add %m, %l : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
func.func private @neuron.Elementwise.impl(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %m = stablehlo.maximum %a, %b : tensor<4xf32>
  %s1 = stablehlo.subtract %a, %m : tensor<4xf32>
  %e1 = stablehlo.exponential %s1 : tensor<4xf32>
  %s2 = stablehlo.subtract %b, %m : tensor<4xf32>
  %e2 = stablehlo.exponential %s2 : tensor<4xf32>
  %i = stablehlo.add %e1, %e2 : tensor<4xf32>
  %l = stablehlo.log %i : tensor<4xf32>
  %r = stablehlo.add %m, %l : tensor<4xf32>
  return %r : tensor<4xf32>
}
