// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(neuron-op-fusion{fuse-dot-logistic=true})' | FileCheck %s
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(neuron-op-fusion)' | FileCheck %s --check-prefix=OFF

// fuseDotLogisticOp Pass A, seed 000; DESIGN.md decision 2.

// The SiLU form multiply(logistic(dot), dot): one 3-op DotLogistic fusion.
// CHECK-LABEL: func.func @silu_dot_general
// CHECK:      %[[F:.*]] = "mhlo.fusion"(%arg0, %arg1) ({
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x16xf32>):
// CHECK-NEXT:   %[[D:.*]] = "mhlo.dot_general"(%[[A]], %[[B]])
// CHECK-NEXT:   %[[L:.*]] = mhlo.logistic %[[D]]
// CHECK-NEXT:   %[[M:.*]] = mhlo.multiply %[[L]], %[[D]]
// CHECK-NEXT:   mhlo.return %[[M]] : tensor<4x16xf32>
// CHECK-NEXT: }) {FusionKind = "DotLogistic"} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: return %[[F]]
// OFF-LABEL: func.func @silu_dot_general
// OFF-NOT: mhlo.fusion
func.func @silu_dot_general(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = "mhlo.dot_general"(%x, %w) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = mhlo.logistic %0 : tensor<4x16xf32>
  %2 = mhlo.multiply %1, %0 : tensor<4x16xf32>
  return %2 : tensor<4x16xf32>
}

// -----

// The fallback producer mhlo.dot, multiply operands in the other order.
// CHECK-LABEL: func.func @silu_dot
// CHECK:      "mhlo.fusion"(%arg0, %arg1)
// CHECK:        "mhlo.dot"
// CHECK-NEXT:   mhlo.logistic
// CHECK-NEXT:   mhlo.multiply
// CHECK-NEXT:   mhlo.return
// CHECK-NEXT: }) {FusionKind = "DotLogistic"}
func.func @silu_dot(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = "mhlo.dot"(%x, %w) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = mhlo.logistic %0 : tensor<4x16xf32>
  %2 = mhlo.multiply %0, %1 : tensor<4x16xf32>
  return %2 : tensor<4x16xf32>
}

// -----

// The multiply's other operand is not the dot: 2-op fusion, the multiply stays outside.
// CHECK-LABEL: func.func @gate_other
// CHECK:      %[[F:.*]] = "mhlo.fusion"(%arg0, %arg1) ({
// CHECK:        "mhlo.dot_general"
// CHECK-NEXT:   %[[L:.*]] = mhlo.logistic
// CHECK-NEXT:   mhlo.return %[[L]]
// CHECK-NEXT: }) {FusionKind = "DotLogistic"}
// CHECK-NEXT: %[[M:.*]] = mhlo.multiply %[[F]], %arg2
// CHECK-NEXT: return %[[M]]
func.func @gate_other(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %u: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = "mhlo.dot_general"(%x, %w) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = mhlo.logistic %0 : tensor<4x16xf32>
  %2 = mhlo.multiply %1, %u : tensor<4x16xf32>
  return %2 : tensor<4x16xf32>
}

// -----

// The logistic has two users: no fusion at all.
// CHECK-LABEL: func.func @logistic_two_users
// CHECK-NOT: mhlo.fusion
// CHECK: mhlo.logistic
func.func @logistic_two_users(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %0 = "mhlo.dot_general"(%x, %w) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = mhlo.logistic %0 : tensor<4x16xf32>
  %2 = mhlo.multiply %1, %0 : tensor<4x16xf32>
  return %1, %2 : tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// The logistic's operand is not a dot: nothing to do.
// CHECK-LABEL: func.func @not_a_dot
// CHECK-NOT: mhlo.fusion
func.func @not_a_dot(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = mhlo.exponential %x : tensor<4x16xf32>
  %1 = mhlo.logistic %0 : tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
}

// -----

// Dominance repair: b = add(a, c) sits between the dot and the logistic and is
// returned. The fusion goes where the logistic was; b moves after it and reads
// the fusion's dot result (recursivelyMoveDependentOps), and so does b's user.
// CHECK-LABEL: func.func @dependent_moves_after
// CHECK:      %[[F:.*]]:2 = "mhlo.fusion"(%arg0, %arg1)
// CHECK:        %[[D:.*]] = "mhlo.dot_general"
// CHECK-NEXT:   %[[L:.*]] = mhlo.logistic %[[D]]
// CHECK-NEXT:   mhlo.return %[[D]], %[[L]]
// CHECK-NEXT: }) {FusionKind = "DotLogistic"}
// CHECK-NEXT: %[[B:.*]] = mhlo.add %[[F]]#0, %arg2
// CHECK-NEXT: %[[B2:.*]] = mhlo.negate %[[B]]
// CHECK-NEXT: %[[U:.*]] = mhlo.subtract %[[F]]#1, %arg2
// CHECK-NEXT: return %[[B2]], %[[U]]
func.func @dependent_moves_after(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %a = "mhlo.dot_general"(%x, %w) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %b = mhlo.add %a, %c : tensor<4x16xf32>
  %b2 = mhlo.negate %b : tensor<4x16xf32>
  %l = mhlo.logistic %a : tensor<4x16xf32>
  %u = mhlo.subtract %l, %c : tensor<4x16xf32>
  return %b2, %u : tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// A producer with three uses (logistic, multiply, return): every use is
// rewired -- the two inside to the block's values, the return to the fusion.
// CHECK-LABEL: func.func @three_uses
// CHECK:      %[[F:.*]]:2 = "mhlo.fusion"(%arg0, %arg1)
// CHECK:        %[[D:.*]] = "mhlo.dot_general"
// CHECK-NEXT:   %[[L:.*]] = mhlo.logistic %[[D]]
// CHECK-NEXT:   %[[M:.*]] = mhlo.multiply %[[D]], %[[L]]
// CHECK-NEXT:   mhlo.return %[[D]], %[[M]]
// CHECK:      return %[[F]]#1, %[[F]]#0
func.func @three_uses(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %0 = "mhlo.dot_general"(%x, %w) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = mhlo.logistic %0 : tensor<4x16xf32>
  %2 = mhlo.multiply %0, %1 : tensor<4x16xf32>
  return %2, %0 : tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// Pass B: dot -> reshape (2 users) -> logistic -> multiply(reshape, logistic)
// becomes dot -> logistic -> multiply -> reshape; the dot is kept.
// CHECK-LABEL: func.func @reshape_sinks
// CHECK:      %[[D:.*]] = "mhlo.dot_general"
// CHECK-NEXT: %[[L:.*]] = mhlo.logistic %[[D]] : tensor<4x16xf32>
// CHECK-NEXT: %[[M:.*]] = mhlo.multiply %[[D]], %[[L]] : tensor<4x16xf32>
// CHECK-NEXT: %[[R:.*]] = mhlo.reshape %[[M]] : (tensor<4x16xf32>) -> tensor<64xf32>
// CHECK-NEXT: return %[[R]]
// OFF-LABEL: func.func @reshape_sinks
// OFF: mhlo.reshape %{{.*}} : (tensor<4x16xf32>) -> tensor<64xf32>
// OFF-NEXT: mhlo.logistic %{{.*}} : tensor<64xf32>
func.func @reshape_sinks(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<64xf32> {
  %0 = "mhlo.dot_general"(%x, %w) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = mhlo.reshape %0 : (tensor<4x16xf32>) -> tensor<64xf32>
  %2 = mhlo.logistic %1 : tensor<64xf32>
  %3 = mhlo.multiply %1, %2 : tensor<64xf32>
  return %3 : tensor<64xf32>
}

// -----

// Pass B's exact count: a reshape with three users is left alone.
// CHECK-LABEL: func.func @reshape_three_users
// CHECK: mhlo.reshape %{{.*}} : (tensor<4x16xf32>) -> tensor<64xf32>
// CHECK-NEXT: mhlo.logistic %{{.*}} : tensor<64xf32>
func.func @reshape_three_users(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %0 = "mhlo.dot_general"(%x, %w) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = mhlo.reshape %0 : (tensor<4x16xf32>) -> tensor<64xf32>
  %2 = mhlo.logistic %1 : tensor<64xf32>
  %3 = mhlo.multiply %1, %2 : tensor<64xf32>
  return %3, %1 : tensor<64xf32>, tensor<64xf32>
}
