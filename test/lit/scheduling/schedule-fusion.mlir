// RUN: hilo-opt %s --split-input-file --stablehlo-schedule-fusion | FileCheck %s
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,schedule-fusion)' | FileCheck %s --check-prefix=MHLO
// RUN: hilo-opt %s --split-input-file --stablehlo-schedule-fusion --debug 2>&1 | FileCheck %s --check-prefix=DBG

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

// -----

// The FSDP shape XLA writes: the all_gather of a rematerialized layer's
// parameters, that layer's reduce_scatter (which depends on it), then the
// previous layer's gradient (pure ops on the arguments) and its reduce_scatter.
// The independent reduce_scatter is brought next to the all_gather (its
// operand's ops hoisted above it) and the two are fused; the dependent one
// stays after the fused op.
// CHECK-LABEL: func.func @bring_partner
// CHECK: %[[G:.*]] = stablehlo.multiply %arg1, %arg1
// CHECK-NEXT: %[[F:.*]]:2 = stablehlo.composite "neuron.ScheduleFusion" %arg0, %[[G]]
// CHECK-NEXT: %[[N:.*]] = stablehlo.negate %[[F]]#0
// CHECK-NEXT: "stablehlo.reduce_scatter"(%[[N]])
// MHLO-LABEL: func.func @bring_partner
// MHLO: %[[G:.*]] = mhlo.multiply %arg1, %arg1
// MHLO-NEXT: %[[F:.*]]:2 = "mhlo.fusion"(%arg0, %[[G]])
// MHLO: FusionKind = "ScheduleFusion"
// MHLO-NEXT: mhlo.negate %[[F]]#0
// DBG: moved 'stablehlo.reduce_scatter' at {{.*}} next to 'stablehlo.all_gather' (1 pure op(s) hoisted above it)
func.func @bring_partner(%w: tensor<2xf32>, %x: tensor<4xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %ag = "stablehlo.all_gather"(%w) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<4xf32>
  %n = stablehlo.negate %ag : tensor<4xf32>
  %rs1 = "stablehlo.reduce_scatter"(%n) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<2xf32>
  %g = stablehlo.multiply %x, %x : tensor<4xf32>
  %rs2 = "stablehlo.reduce_scatter"(%g) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<2xf32>
  return %rs1, %rs2 : tensor<2xf32>, tensor<2xf32>
}

// -----

// Not brought: the partner's operand is computed from an all_reduce between
// the two (a side-effecting op cannot be hoisted), and nothing else pairs.
// CHECK-LABEL: func.func @partner_needs_effect
// CHECK-NOT: composite
// MHLO-LABEL: func.func @partner_needs_effect
// MHLO-NOT: mhlo.fusion
// DBG: cannot be brought next to 'stablehlo.all_gather' (its operands need a side-effecting op)
func.func @partner_needs_effect(%w: tensor<2xf32>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<2xf32>) {
  %ag = "stablehlo.all_gather"(%w) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<4xf32>
  %ar = "stablehlo.all_reduce"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  %rs = "stablehlo.reduce_scatter"(%ar) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<2xf32>
  return %ag, %rs : tensor<4xf32>, tensor<2xf32>
}
