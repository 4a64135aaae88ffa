// RUN: hilo-opt %s --split-input-file --stablehlo-prune-functions | FileCheck %s
// RUN: hilo-opt %s --split-input-file --prune-functions | FileCheck %s --check-prefix=MHLO

// Reachable: @helper (call), @leaf (called by @helper), @dec (composite
// decomposition), @cc_body (custom_call called_computations). Unreachable:
// @dead and @dead_cycle_a/@dead_cycle_b (they only call each other).
// CHECK-LABEL: func.func @main
// CHECK-DAG: func.func private @helper
// CHECK-DAG: func.func private @leaf
// CHECK-DAG: func.func private @dec
// CHECK-DAG: func.func private @cc_body
// CHECK-NOT: @dead
// MHLO-LABEL: func.func @main
// MHLO-COUNT-4: func.func private
// MHLO-NOT: @dead
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @helper(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = stablehlo.composite "my.op" %0 {decomposition = @dec} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = stablehlo.custom_call @target(%1) {called_computations = [@cc_body]} : (tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @leaf(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @leaf(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func private @dec(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.negate %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @cc_body(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @dead(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func private @dead_cycle_a(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @dead_cycle_b(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @dead_cycle_b(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @dead_cycle_a(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// An mhlo module: a call inside an mhlo.fusion body keeps its callee.
// MHLO-LABEL: func.func @main
// MHLO: func.func private @in_fusion
// MHLO-NOT: @unused
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "mhlo.fusion"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    %1 = func.call @in_fusion(%a) : (tensor<4xf32>) -> tensor<4xf32>
    mhlo.return %1 : tensor<4xf32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @in_fusion(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mhlo.negate %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @unused(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// No main: nothing anchors reachability, the module is left alone.
// CHECK-LABEL: func.func @entry
// CHECK: func.func private @unused_but_kept
// MHLO-LABEL: func.func @entry
// MHLO: func.func private @unused_but_kept
func.func @entry(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func private @unused_but_kept(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
