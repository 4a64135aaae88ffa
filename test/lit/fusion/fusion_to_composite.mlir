// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(fusion-to-composite)' | FileCheck %s

// fusion-to-composite (StableHLO spine step 14a; DESIGN.md "StableHLO fusions are composites").

// Two fusions of one kind: deterministic unique names, operands in order,
// the return becomes func.return; a foreign composite is untouched.
// CHECK-LABEL: func.func @main
// CHECK:      %[[A:.*]] = stablehlo.composite "neuron.DotLogistic" %arg0, %arg1 {CompositeKind = "DotLogistic", decomposition = @neuron.DotLogistic.impl, version = 1 : i32} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[B:.*]] = stablehlo.composite "neuron.DotLogistic" %[[A]], %arg1 {CompositeKind = "DotLogistic", decomposition = @neuron.DotLogistic.impl.1, version = 1 : i32}
// CHECK-NEXT: %[[C:.*]] = stablehlo.composite "my.op" %[[B]] {decomposition = @my_impl}
// CHECK-NEXT: return %[[C]]
// CHECK-LABEL: func.func private @my_impl
// CHECK-LABEL: func.func private @neuron.DotLogistic.impl(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:   %[[M:.*]] = stablehlo.multiply %arg0, %arg1
// CHECK-NEXT:   %[[L:.*]] = stablehlo.logistic %[[M]]
// CHECK-NEXT:   return %[[L]]
// CHECK-LABEL: func.func private @neuron.DotLogistic.impl.1(
// CHECK-NOT: mhlo.fusion
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "mhlo.fusion"(%x, %y) ({
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %m = stablehlo.multiply %a, %b : tensor<4xf32>
    %l = stablehlo.logistic %m : tensor<4xf32>
    stablehlo.return %l : tensor<4xf32>
  }) {FusionKind = "DotLogistic"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "mhlo.fusion"(%0, %y) ({
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %m = stablehlo.multiply %a, %b : tensor<4xf32>
    %l = stablehlo.logistic %m : tensor<4xf32>
    stablehlo.return %l : tensor<4xf32>
  }) {FusionKind = "DotLogistic"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = stablehlo.composite "my.op" %1 {decomposition = @my_impl} : (tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
func.func private @my_impl(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// No FusionKind: mhlo's fusion_kind enum names the kind. A value captured from
// the enclosing function becomes an extra operand (a function is isolated);
// the nested fusion is converted first.
// CHECK-LABEL: func.func @enum_kind_capture_nested
// CHECK:      %[[O:.*]]:2 = stablehlo.composite "neuron.kLoop" %arg0, %arg1 {CompositeKind = "kLoop", decomposition = @neuron.kLoop.impl, version = 1 : i32} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK-LABEL: func.func private @neuron.Elementwise.impl(%arg0: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:   stablehlo.exponential %arg0
// CHECK-LABEL: func.func private @neuron.kLoop.impl(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT:   %[[I:.*]] = stablehlo.composite "neuron.Elementwise" %arg0
// CHECK-NEXT:   %[[S:.*]] = stablehlo.add %[[I]], %arg1
// CHECK-NEXT:   return %[[S]], %arg0
func.func @enum_kind_capture_nested(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0:2 = "mhlo.fusion"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    %i = "mhlo.fusion"(%a) ({
    ^bb0(%b: tensor<4xf32>):
      %e = stablehlo.exponential %b : tensor<4xf32>
      stablehlo.return %e : tensor<4xf32>
    }) {FusionKind = "Elementwise"} : (tensor<4xf32>) -> tensor<4xf32>
    %s = stablehlo.add %i, %y : tensor<4xf32>
    stablehlo.return %s, %a : tensor<4xf32>, tensor<4xf32>
  }) {fusion_kind = #mhlo<fusion_kind kLoop>} : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %0#0, %0#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Nothing to convert.
// CHECK-LABEL: func.func @none
// CHECK-NEXT: stablehlo.abs
// CHECK-NEXT: return
func.func @none(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.abs %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
