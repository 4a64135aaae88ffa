// RUN: hilo-opt %s --split-input-file --coalesce-collective-ops | FileCheck %s
// RUN: hilo-opt %s --split-input-file --hlo-legalize-to-stablehlo --stablehlo-coalesce-collective-ops | FileCheck %s --check-prefix=SHLO
// RUN: hilo-opt %s --split-input-file --coalesce-collective-ops --debug 2>&1 | FileCheck %s --check-prefix=DBG

// The second all_gather (same groups, operand an argument) moves up next to
// the first; the all_reduce between them is a coalesced kind, so it may be passed.
// CHECK-LABEL: func.func @move_up
// CHECK: %[[G0:.*]] = "mhlo.all_gather"(%arg0)
// CHECK-NEXT: %[[G1:.*]] = "mhlo.all_gather"(%arg1)
// CHECK-NEXT: mhlo.add
// CHECK-NEXT: "mhlo.all_reduce"
// SHLO-LABEL: func.func @move_up
// SHLO: "stablehlo.all_gather"(%arg0)
// SHLO-NEXT: "stablehlo.all_gather"(%arg1)
// SHLO-NEXT: stablehlo.add
func.func @move_up(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<8xf32>, tensor<4xf32>, tensor<8xf32>) {
  %0 = "mhlo.all_gather"(%a) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<8xf32>
  %1 = mhlo.add %a, %b : tensor<4xf32>
  %2 = "mhlo.all_reduce"(%1) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = mhlo.add %x, %y : tensor<f32>
    mhlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "mhlo.all_gather"(%b) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<8xf32>
  return %0, %2, %3 : tensor<8xf32>, tensor<4xf32>, tensor<8xf32>
}

// -----

// Left alone: the second gather reads a value computed from the first
// (it depends on the window), the third has other groups, the fourth would
// cross a custom_call.
// CHECK-LABEL: func.func @blocked
// CHECK: %[[G0:.*]] = "mhlo.all_gather"(%arg0)
// CHECK-NEXT: %[[S:.*]] = "mhlo.slice"(%[[G0]])
// CHECK-NEXT: "mhlo.all_gather"(%[[S]])
// CHECK-NEXT: "mhlo.all_gather"(%arg1) {{.*}}dense<{{\[\[}}0], [1]]>
// CHECK-NEXT: mhlo.custom_call @Barrier
// CHECK-NEXT: "mhlo.all_gather"(%arg1) {{.*}}dense<{{\[\[}}0, 1]]>
// DBG: starts a new window (an operand depends on the window or is computed by a side-effecting op after it)
// DBG: starts a new window (a side-effecting op lies in between)
func.func @blocked(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<4xf32>, tensor<8xf32>) {
  %0 = "mhlo.all_gather"(%a) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<8xf32>
  %1 = "mhlo.slice"(%0) {start_indices = dense<0> : tensor<1xi64>, limit_indices = dense<4> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>} : (tensor<8xf32>) -> tensor<4xf32>
  %2 = "mhlo.all_gather"(%1) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<8xf32>
  %3 = "mhlo.all_gather"(%b) {all_gather_dim = 0 : i64, replica_groups = dense<[[0], [1]]> : tensor<2x1xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  mhlo.custom_call @Barrier() {has_side_effect = true} : () -> ()
  %4 = "mhlo.all_gather"(%b) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<8xf32>
  return %0, %2, %3, %4 : tensor<8xf32>, tensor<8xf32>, tensor<4xf32>, tensor<8xf32>
}

// -----

// The data-parallel step as XLA's SPMD partitioner writes it: each gradient's
// all_reduce right after the ops computing it, the update of the previous
// gradient in between. The pure ops computing the second all_reduce's operand
// (%m, %r with its reducer region, the constant) move above the window, in
// their order; the update (%u) stays where it was; the all_reduces become
// adjacent.
// CHECK-LABEL: func.func @hoist_operands
// CHECK: %[[M:.*]] = mhlo.multiply %arg0, %arg1
// CHECK-NEXT: %[[Z:.*]] = mhlo.constant
// CHECK-NEXT: %[[R:.*]] = mhlo.reduce(%[[M]] init: %[[Z]])
// CHECK-NEXT: %[[A0:.*]] = "mhlo.all_reduce"(%arg0)
// CHECK: %[[A1:.*]] = "mhlo.all_reduce"(%[[R]])
// CHECK: %[[U:.*]] = mhlo.subtract %arg1, %[[A0]]
// CHECK: return %[[U]], %[[A1]]
// SHLO-LABEL: func.func @hoist_operands
// SHLO: stablehlo.reduce
// SHLO-NEXT: "stablehlo.all_reduce"(%arg0)
// SHLO: "stablehlo.all_reduce"
// SHLO: stablehlo.subtract
// DBG: hoisted 3 pure op(s) computing the operands of mhlo.all_reduce
func.func @hoist_operands(%g: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>) {
  %0 = "mhlo.all_reduce"(%g) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = mhlo.add %x, %y : tensor<f32>
    mhlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  %u = mhlo.subtract %w, %0 : tensor<4xf32>
  %m = mhlo.multiply %g, %w : tensor<4xf32>
  %z = mhlo.constant dense<0.0> : tensor<f32>
  %r = mhlo.reduce(%m init: %z) applies mhlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  %1 = "mhlo.all_reduce"(%r) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = mhlo.add %x, %y : tensor<f32>
    mhlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<f32>) -> tensor<f32>
  return %u, %1 : tensor<4xf32>, tensor<f32>
}

// -----

// Not hoisted: the operand is computed by a side-effecting custom_call after the window.
// CHECK-LABEL: func.func @no_hoist_effect
// CHECK: "mhlo.all_reduce"(%arg0)
// CHECK: mhlo.custom_call @Rng
// CHECK-NEXT: "mhlo.all_reduce"
// DBG: starts a new window (a side-effecting op lies in between)
func.func @no_hoist_effect(%g: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "mhlo.all_reduce"(%g) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = mhlo.add %x, %y : tensor<f32>
    mhlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  %c = mhlo.custom_call @Rng(%g) {has_side_effect = true} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "mhlo.all_reduce"(%c) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = mhlo.add %x, %y : tensor<f32>
    mhlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Already partially coalesced all_gathers in the input: that kind is skipped.
// CHECK-LABEL: func.func @partial
// CHECK: "mhlo.all_gather"(%arg0, %arg1)
// CHECK-NEXT: mhlo.add
// CHECK-NEXT: "mhlo.all_gather"(%arg1)
// DBG: Not Coalescing AllGathers as we have partially coalesced AllGathers in input.
func.func @partial(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<4xf32>, tensor<8xf32>) {
  %0:2 = "mhlo.all_gather"(%a, %b) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<8xf32>, tensor<8xf32>)
  %1 = mhlo.add %a, %b : tensor<4xf32>
  %2 = "mhlo.all_gather"(%b) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<8xf32>
  return %0#0, %0#1, %1, %2 : tensor<8xf32>, tensor<8xf32>, tensor<4xf32>, tensor<8xf32>
}

// -----

// A side effect nested in a region counts: the while's body calls a
// side-effecting custom_call, so the second gather is not moved above it.
// CHECK-LABEL: func.func @nested_effect
// CHECK: "mhlo.all_gather"(%arg0)
// CHECK-NEXT: mhlo.while
// CHECK: mhlo.custom_call @Barrier
// CHECK: "mhlo.all_gather"(%arg1)
// DBG: starts a new window (a side-effecting op lies in between)
func.func @nested_effect(%a: tensor<4xf32>, %b: tensor<4xf32>, %n: tensor<i32>) -> (tensor<8xf32>, tensor<i32>, tensor<8xf32>) {
  %0 = "mhlo.all_gather"(%a) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<8xf32>
  %w = mhlo.while(%i = %n) : tensor<i32>
    cond {
    %c = mhlo.compare LT, %i, %i : (tensor<i32>, tensor<i32>) -> tensor<i1>
    mhlo.return %c : tensor<i1>
  } do {
    mhlo.custom_call @Barrier() {has_side_effect = true} : () -> ()
    mhlo.return %i : tensor<i32>
  }
  %1 = "mhlo.all_gather"(%b) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<8xf32>
  return %0, %w, %1 : tensor<8xf32>, tensor<i32>, tensor<8xf32>
}
