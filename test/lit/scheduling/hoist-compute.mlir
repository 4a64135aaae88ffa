// RUN: hilo-opt %s --split-input-file --stablehlo-hoist-compute | FileCheck %s
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,hoist-compute)' | FileCheck %s --check-prefix=MHLO

// %arg1 is a parameter (slowChangingIns): the weight transpose, the constant
// and the multiply move to the top; the custom_call that reads only the
// parameter is side-effecting and stays; compute on %arg0 stays.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[T:.*]] = stablehlo.transpose %arg1
// CHECK-NEXT: %[[C:.*]] = stablehlo.constant
// CHECK-NEXT: %[[B:.*]] = stablehlo.multiply %[[T]], %[[C]]
// CHECK-NEXT: %[[A:.*]] = stablehlo.exponential %arg0
// CHECK-NEXT: stablehlo.custom_call @side(%arg1)
// CHECK-NEXT: stablehlo.add %[[A]], %[[B]]
// MHLO-LABEL: func.func @main
// MHLO-NEXT: mhlo.transpose
// MHLO-NEXT: mhlo.constant
// MHLO-NEXT: mhlo.multiply
// MHLO-NEXT: mhlo.exponential %arg0
// MHLO-NEXT: mhlo.custom_call @side(%arg1)
// MHLO-NEXT: mhlo.add
func.func @main(%x: tensor<2x2xf32>, %w: tensor<2x2xf32>) -> tensor<2x2xf32> attributes {slowChangingIns = dense<1> : tensor<1xi32>} {
  %a = stablehlo.exponential %x : tensor<2x2xf32>
  %t = stablehlo.transpose %w, dims = [1, 0] : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %c = stablehlo.constant dense<2.0> : tensor<2x2xf32>
  %b = stablehlo.multiply %t, %c : tensor<2x2xf32>
  stablehlo.custom_call @side(%w) {has_side_effect = true} : (tensor<2x2xf32>) -> ()
  %r = stablehlo.add %a, %b : tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

// No slowChangingIns: arguments are not parameters; only constant compute moves.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: stablehlo.iota
// CHECK-NEXT: stablehlo.negate
// CHECK-NEXT: stablehlo.exponential %arg0
// CHECK-NEXT: stablehlo.transpose %arg1
// MHLO-LABEL: func.func @main
// MHLO-NEXT: mhlo.iota
// MHLO-NEXT: mhlo.negate
// MHLO-NEXT: mhlo.exponential %arg0
// MHLO-NEXT: mhlo.transpose{{.*}}%arg1
func.func @main(%x: tensor<2x2xf32>, %w: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %a = stablehlo.exponential %x : tensor<2x2xf32>
  %t = stablehlo.transpose %w, dims = [1, 0] : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %i = stablehlo.iota dim = 0 : tensor<2x2xf32>
  %n = stablehlo.negate %i : tensor<2x2xf32>
  %b = stablehlo.add %t, %n : tensor<2x2xf32>
  %r = stablehlo.add %a, %b : tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

// Nothing depends only on parameters or constants: unchanged.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: stablehlo.exponential %arg0
// CHECK-NEXT: stablehlo.multiply
// CHECK-NEXT: stablehlo.transpose %arg1
// CHECK-NEXT: stablehlo.add
// MHLO-LABEL: func.func @main
// MHLO-NEXT: mhlo.exponential %arg0
// MHLO-NEXT: mhlo.multiply
// MHLO-NEXT: mhlo.transpose
// MHLO-NEXT: mhlo.add
func.func @main(%x: tensor<2x2xf32>, %w: tensor<2x2xf32>) -> tensor<2x2xf32> attributes {slowChangingIns = dense<0> : tensor<1xi32>} {
  %a = stablehlo.exponential %x : tensor<2x2xf32>
  %m = stablehlo.multiply %a, %w : tensor<2x2xf32>
  %t = stablehlo.transpose %w, dims = [1, 0] : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = stablehlo.add %m, %t : tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

// %arg1 is a parameter because a slow-changing-input marker names it (the rule
// penguinize-io applies at step 26; no slowChangingIns yet): the marker is a
// tag, not an effect, and moves with the weight-only compute it precedes.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: stablehlo.custom_call @AwsNeuronTransferWithStaticRing(%arg1)
// CHECK-NEXT: %[[T:.*]] = stablehlo.transpose %arg1
// CHECK-NEXT: %[[C:.*]] = stablehlo.constant
// CHECK-NEXT: %[[B:.*]] = stablehlo.multiply %[[T]], %[[C]]
// CHECK-NEXT: %[[A:.*]] = stablehlo.exponential %arg0
// CHECK-NEXT: stablehlo.add %[[A]], %[[B]]
// MHLO-LABEL: func.func @main
// MHLO-NEXT: mhlo.custom_call @AwsNeuronTransferWithStaticRing(%arg1)
// MHLO-NEXT: mhlo.transpose
// MHLO-NEXT: mhlo.constant
// MHLO-NEXT: mhlo.multiply
// MHLO-NEXT: mhlo.exponential %arg0
// MHLO-NEXT: mhlo.add
func.func @main(%x: tensor<2x2xf32>, %w: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %a = stablehlo.exponential %x : tensor<2x2xf32>
  stablehlo.custom_call @AwsNeuronTransferWithStaticRing(%w) {has_side_effect = true} : (tensor<2x2xf32>) -> ()
  %t = stablehlo.transpose %w, dims = [1, 0] : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %c = stablehlo.constant dense<2.0> : tensor<2x2xf32>
  %b = stablehlo.multiply %t, %c : tensor<2x2xf32>
  %r = stablehlo.add %a, %b : tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

// The marker's result is the loaded parameter: compute on it is weight-only.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[L:.*]] = stablehlo.custom_call @AwsNeuronTransferWithStaticRing(%arg1)
// CHECK-NEXT: %[[N:.*]] = stablehlo.negate %[[L]]
// CHECK-NEXT: %[[A:.*]] = stablehlo.exponential %arg0
// CHECK-NEXT: stablehlo.add %[[A]], %[[N]]
// MHLO-LABEL: func.func @main
// MHLO-NEXT: mhlo.custom_call @AwsNeuronTransferWithStaticRing(%arg1)
// MHLO-NEXT: mhlo.negate
// MHLO-NEXT: mhlo.exponential %arg0
// MHLO-NEXT: mhlo.add
func.func @main(%x: tensor<2x2xf32>, %w: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %a = stablehlo.exponential %x : tensor<2x2xf32>
  %l = stablehlo.custom_call @AwsNeuronTransferWithStaticRing(%w) {has_side_effect = true} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %n = stablehlo.negate %l : tensor<2x2xf32>
  %r = stablehlo.add %a, %n : tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

// A marker outside main names no parameter (penguinize-io reads main only):
// the callee's compute on its argument stays, and so does the marker.
// CHECK-LABEL: func.func private @callee
// CHECK-NEXT: stablehlo.exponential %arg0
// CHECK-NEXT: stablehlo.custom_call @AwsNeuronTransferWithStaticRing(%arg1)
// CHECK-NEXT: stablehlo.transpose %arg1
// MHLO-LABEL: func.func private @callee
// MHLO-NEXT: mhlo.exponential %arg0
// MHLO-NEXT: mhlo.custom_call @AwsNeuronTransferWithStaticRing(%arg1)
// MHLO-NEXT: mhlo.transpose
func.func private @callee(%x: tensor<2x2xf32>, %w: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %a = stablehlo.exponential %x : tensor<2x2xf32>
  stablehlo.custom_call @AwsNeuronTransferWithStaticRing(%w) {has_side_effect = true} : (tensor<2x2xf32>) -> ()
  %t = stablehlo.transpose %w, dims = [1, 0] : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = stablehlo.add %a, %t : tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
