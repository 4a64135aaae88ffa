// RUN: hilo-opt %s --split-input-file --stablehlo-schedule-fusion | FileCheck %s
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,schedule-fusion)' | FileCheck %s --check-prefix=MHLO

// An independent reduce_scatter / all_gather pair becomes one ScheduleFusion.
// CHECK-LABEL: func.func @pair
// CHECK: %[[F:.*]]:2 = stablehlo.composite "neuron.ScheduleFusion" %arg0, %arg1 {CompositeKind = "ScheduleFusion", decomposition = @neuron.ScheduleFusion.impl, version = 1 : i32}
// CHECK: return %[[F]]#0, %[[F]]#1
// CHECK-LABEL: func.func private @neuron.ScheduleFusion.impl
// CHECK: "stablehlo.reduce_scatter"
// CHECK: "stablehlo.all_gather"
// MHLO-LABEL: func.func @pair
// MHLO: %[[F:.*]]:2 = "mhlo.fusion"(%arg0, %arg1)
// MHLO: "mhlo.reduce_scatter"
// MHLO: "mhlo.all_gather"
// MHLO: mhlo.return
// MHLO: FusionKind = "ScheduleFusion"
// MHLO: return %[[F]]#0, %[[F]]#1
func.func @pair(%x: tensor<4xf32>, %y: tensor<2xf32>) -> (tensor<2xf32>, tensor<4xf32>) {
  %rs = "stablehlo.reduce_scatter"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<2xf32>
  %ag = "stablehlo.all_gather"(%y) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<4xf32>
  return %rs, %ag : tensor<2xf32>, tensor<4xf32>
}

// -----

// The all_gather reads the reduce_scatter's result (through a negate): never paired.
// CHECK-LABEL: func.func @dependent
// CHECK-NOT: composite
// CHECK: "stablehlo.reduce_scatter"
// CHECK: stablehlo.negate
// CHECK: "stablehlo.all_gather"
// MHLO-LABEL: func.func @dependent
// MHLO-NOT: mhlo.fusion
func.func @dependent(%x: tensor<4xf32>) -> tensor<4xf32> {
  %rs = "stablehlo.reduce_scatter"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<2xf32>
  %n = stablehlo.negate %rs : tensor<2xf32>
  %ag = "stablehlo.all_gather"(%n) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<4xf32>
  return %ag : tensor<4xf32>
}

// -----

// A side-effecting custom_call between them: pairing would reorder side effects.
// Two all_gathers are not a pair either.
// CHECK-LABEL: func.func @not_adjacent
// CHECK-NOT: composite
// MHLO-LABEL: func.func @not_adjacent
// MHLO-NOT: mhlo.fusion
func.func @not_adjacent(%x: tensor<4xf32>, %y: tensor<2xf32>) -> (tensor<2xf32>, tensor<4xf32>, tensor<4xf32>) {
  %rs = "stablehlo.reduce_scatter"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<2xf32>
  stablehlo.custom_call @barrier() {has_side_effect = true} : () -> ()
  %ag = "stablehlo.all_gather"(%y) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<4xf32>
  %ag2 = "stablehlo.all_gather"(%y) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<4xf32>
  return %rs, %ag, %ag2 : tensor<2xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// all_gather first, then an independent reduce_scatter; a pure op between
// them that uses the all_gather moves after the fused op.
// CHECK-LABEL: func.func @ag_first
// CHECK: %[[F:.*]]:2 = stablehlo.composite "neuron.ScheduleFusion" %arg1, %arg0
// CHECK-NEXT: stablehlo.negate %[[F]]#0
// MHLO-LABEL: func.func @ag_first
// MHLO: %[[F:.*]]:2 = "mhlo.fusion"(%arg1, %arg0)
// MHLO: FusionKind = "ScheduleFusion"
// MHLO-NEXT: mhlo.negate %[[F]]#0
func.func @ag_first(%x: tensor<4xf32>, %y: tensor<2xf32>) -> (tensor<2xf32>, tensor<4xf32>) {
  %ag = "stablehlo.all_gather"(%y) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<4xf32>
  %n = stablehlo.negate %ag : tensor<4xf32>
  %rs = "stablehlo.reduce_scatter"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<2xf32>
  return %rs, %n : tensor<2xf32>, tensor<4xf32>
}
