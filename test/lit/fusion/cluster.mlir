// RUN: hilo-test-opt %s --split-input-file --pass-pipeline='builtin.module(test-fusion-cluster)' | FileCheck %s
// RUN: hilo-test-opt %s --split-input-file --pass-pipeline='builtin.module(stablehlo-test-fusion-cluster)' | FileCheck %s --check-prefix=SHLO

// The shared codegen (seed 000 FusionCluster::codeGen; DESIGN.md "The op-fusion
// core"), driven by test.fuse attributes through test-fusion-cluster.

// Not convex: exp -> negate (outside) -> add (inside). Refused, IR unchanged.
// CHECK-LABEL: func.func @not_convex
// CHECK-NOT: mhlo.fusion
// CHECK: stablehlo.exponential %arg0 {test.fuse = "g"}
// CHECK: stablehlo.negate
// CHECK: stablehlo.add {{.*}} {test.fuse = "g"}
// SHLO-LABEL: func.func @not_convex
// SHLO-NOT: stablehlo.composite
func.func @not_convex(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.exponential %x {test.fuse = "g"} : tensor<4xf32>
  %1 = stablehlo.negate %0 : tensor<4xf32>
  %2 = stablehlo.add %0, %1 {test.fuse = "g"} : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// Convex with dependent ops in between: %1 and %2 depend on the exp (a
// live-out) and sit before the last member, so they move after the fusion in
// their order; %i does not depend on the cluster and stays before it.
// CHECK-LABEL: func.func @moves_dependents
// CHECK:      %[[I:.*]] = stablehlo.abs %arg1
// CHECK-NEXT: %[[F:.*]]:2 = "mhlo.fusion"(%arg0) ({
// CHECK:      }) {FusionKind = "Elementwise"}
// CHECK-NEXT: %[[A:.*]] = stablehlo.add %[[F]]#0, %arg1
// CHECK-NEXT: %[[M:.*]] = stablehlo.multiply %[[A]], %[[I]]
// CHECK-NEXT: return %[[M]], %[[F]]#1
// SHLO-LABEL: func.func @moves_dependents
// SHLO:      stablehlo.abs %arg1
// SHLO-NEXT: %[[F:.*]]:2 = stablehlo.composite "neuron.Elementwise" %arg0
// SHLO-NEXT: %[[A:.*]] = stablehlo.add %[[F]]#0, %arg1
func.func @moves_dependents(%x: tensor<4xf32>, %c: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = stablehlo.exponential %x {test.fuse = "g"} : tensor<4xf32>
  %1 = stablehlo.add %0, %c : tensor<4xf32>
  %i = stablehlo.abs %c : tensor<4xf32>
  %2 = stablehlo.multiply %1, %i : tensor<4xf32>
  %3 = stablehlo.negate %0 {test.fuse = "g"} : tensor<4xf32>
  return %2, %3 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A dependent op with side effects (custom_call) would have to move: refused.
// CHECK-LABEL: func.func @side_effect_dependent
// CHECK-NOT: mhlo.fusion
// CHECK: stablehlo.custom_call @foo
func.func @side_effect_dependent(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = stablehlo.exponential %x {test.fuse = "g"} : tensor<4xf32>
  %1 = stablehlo.custom_call @foo(%0) {has_side_effect = true} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = stablehlo.negate %0 {test.fuse = "g"} : tensor<4xf32>
  return %1, %2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A member with a region that uses a value from outside the cluster (implicit
// capture): the value becomes a live-in, so the StableHLO decomposition (an
// isolated function) gets it as an argument.
// CHECK-LABEL: func.func @captured_in_region
// CHECK: "mhlo.fusion"(%arg0, %arg1, %arg2)
// SHLO-LABEL: func.func @captured_in_region
// SHLO: %[[C:.*]] = stablehlo.composite "neuron.Elementwise" %arg0, %arg1, %arg2 {{.*}} : (tensor<i32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// SHLO-LABEL: func.func private @neuron.Elementwise.impl(%arg0: tensor<i32>, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>) -> tensor<4xf32>
// SHLO:      "stablehlo.case"(%arg0)
// SHLO:        stablehlo.negate %arg1
// SHLO:        stablehlo.return %arg2
func.func @captured_in_region(%i: tensor<i32>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.case"(%i) ({
    %n = stablehlo.negate %x : tensor<4xf32>
    stablehlo.return %n : tensor<4xf32>
  }, {
    stablehlo.return %y : tensor<4xf32>
  }) {test.fuse = "g"} : (tensor<i32>) -> tensor<4xf32>
  %1 = stablehlo.abs %0 {test.fuse = "g"} : tensor<4xf32>
  return %1 : tensor<4xf32>
}
