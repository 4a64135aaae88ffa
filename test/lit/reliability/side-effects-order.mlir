// One side-effect model (hilo_mlir/ir/effects.py) for the fusion core and the
// scheduling passes: side-effecting ops keep their relative order.
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(stablehlo-neuron-op-fusion{fuse-dot-logistic=true})' | FileCheck %s --check-prefix=FUSE
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(schedule-postorder))' | FileCheck %s --check-prefix=SCHED
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(stablehlo-schedule-postorder))' | FileCheck %s --check-prefix=SSCHED

// The composite's decomposition prints (@foo): fusing dot+logistic would sink
// the composite (a dependent op) below the fused op, after @bar. Refused.
// FUSE-LABEL: func.func @composite_effect
// FUSE: %[[D:.*]] = stablehlo.dot_general
// FUSE-NEXT: %[[C:.*]] = stablehlo.composite "foo.print" %[[D]]
// FUSE-NEXT: stablehlo.custom_call @bar
// FUSE-NEXT: %[[L:.*]] = stablehlo.logistic %[[D]]
// FUSE-NEXT: stablehlo.add %[[L]], %[[C]]
// FUSE-NOT: neuron.DotLogistic
// SCHED-LABEL: func.func @composite_effect
// SCHED: stablehlo.composite "foo.print"
// SCHED: stablehlo.custom_call @bar
// SSCHED-LABEL: func.func @composite_effect
// SSCHED: stablehlo.composite "foo.print"
// SSCHED: stablehlo.custom_call @bar
func.func @composite_effect(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %c = stablehlo.composite "foo.print" %d {decomposition = @foo.print.impl} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  stablehlo.custom_call @bar(%a) {has_side_effect = true} : (tensor<4x8xf32>) -> ()
  %l = stablehlo.logistic %d : tensor<4x16xf32>
  %s = stablehlo.add %l, %c : tensor<4x16xf32>
  return %s : tensor<4x16xf32>
}
func.func private @foo.print.impl(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  stablehlo.custom_call @foo(%x) {has_side_effect = true} : (tensor<4x16xf32>) -> ()
  return %x : tensor<4x16xf32>
}

// -----

// The same shape with a pure decomposition: dot+logistic are fused (the
// composite is a plain dependent op and moves below the fused op).
// FUSE-LABEL: func.func @composite_pure
// FUSE: %[[F:.*]]:2 = stablehlo.composite "neuron.DotLogistic"
// FUSE-NEXT: %[[C:.*]] = stablehlo.composite "foo.scale" %[[F]]#0
// FUSE-NEXT: stablehlo.add %[[F]]#1, %[[C]]
func.func @composite_pure(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %c = stablehlo.composite "foo.scale" %d {decomposition = @foo.scale.impl} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %l = stablehlo.logistic %d : tensor<4x16xf32>
  %s = stablehlo.add %l, %c : tensor<4x16xf32>
  return %s : tensor<4x16xf32>
}
func.func private @foo.scale.impl(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %y = stablehlo.add %x, %x : tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// Two RNG state updates returned in reverse order: the post-order of the
// returned values would swap them; they are stateful, so they keep their order.
// SCHED-LABEL: func.func @rng_state
// SCHED-NEXT: %[[A:.*]] = mhlo.xla.rng_get_and_update_state {delta = 1 : i64}
// SCHED-NEXT: %[[B:.*]] = mhlo.xla.rng_get_and_update_state {delta = 7 : i64}
// SCHED-NEXT: return %[[B]], %[[A]]
func.func @rng_state() -> (tensor<2xui64>, tensor<2xui64>) {
  %0 = "mhlo.xla.rng_get_and_update_state"() {delta = 1 : i64} : () -> tensor<2xui64>
  %1 = "mhlo.xla.rng_get_and_update_state"() {delta = 7 : i64} : () -> tensor<2xui64>
  return %1, %0 : tensor<2xui64>, tensor<2xui64>
}

// -----

// Pure ops are reordered into post-order (the pass does rewrite): the negate
// returned first is scheduled first.
// SCHED-LABEL: func.func @pure_reordered
// SCHED-NEXT: %[[N:.*]] = mhlo.negate %arg0
// SCHED-NEXT: %[[E:.*]] = mhlo.exponential %arg0
// SCHED-NEXT: return %[[N]], %[[E]]
func.func @pure_reordered(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = mhlo.exponential %a : tensor<4xf32>
  %1 = mhlo.negate %a : tensor<4xf32>
  return %1, %0 : tensor<4xf32>, tensor<4xf32>
}

// -----

// add_dependency (token ordering, mhlo) keeps its order as well.
// SCHED-LABEL: func.func @token_order
// SCHED-NEXT: mhlo.after_all
// SCHED-NEXT: mhlo.add_dependency %arg0, %{{.*}} {tag = 1
// SCHED-NEXT: mhlo.add_dependency %arg0, %{{.*}} {tag = 2
func.func @token_order(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %t = mhlo.after_all : !mhlo.token
  %0 = "mhlo.add_dependency"(%a, %t) {tag = 1 : i64} : (tensor<4xf32>, !mhlo.token) -> tensor<4xf32>
  %1 = "mhlo.add_dependency"(%a, %t) {tag = 2 : i64} : (tensor<4xf32>, !mhlo.token) -> tensor<4xf32>
  return %1, %0 : tensor<4xf32>, tensor<4xf32>
}
