// Spine step 27: the eight rewrites of canonicalize-for-tensorizer, both dialects.
// RUN: hilo-opt %s --split-input-file --canonicalize-for-tensorizer | FileCheck %s
// The StableHLO twin runs by the seed's argument, canonicalize-for-penguin, and by its alias.
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(hlo-legalize-to-stablehlo,canonicalize-for-penguin)' | FileCheck %s --check-prefix=SHLO
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(hlo-legalize-to-stablehlo,stablehlo-canonicalize-for-tensorizer)' | FileCheck %s --check-prefix=SHLO

// 1. transpose-to-reshape: only size-1 dims move -> reshape; identity -> gone.
// CHECK-LABEL: func.func @transpose_unit_dims
// CHECK-NEXT: %[[R:.*]] = mhlo.reshape %arg0 : (tensor<1x4x1x3xf32>) -> tensor<4x1x3x1xf32>
// CHECK-NEXT: return %[[R]], %arg1
// SHLO-LABEL: func.func @transpose_unit_dims
// SHLO-NEXT: %[[R:.*]] = stablehlo.reshape %arg0 : (tensor<1x4x1x3xf32>) -> tensor<4x1x3x1xf32>
// SHLO-NEXT: return %[[R]], %arg1
func.func @transpose_unit_dims(%arg0: tensor<1x4x1x3xf32>, %arg1: tensor<2x3xf32>) -> (tensor<4x1x3x1xf32>, tensor<2x3xf32>) {
  %0 = "mhlo.transpose"(%arg0) {permutation = dense<[1, 0, 3, 2]> : tensor<4xi64>} : (tensor<1x4x1x3xf32>) -> tensor<4x1x3x1xf32>
  %1 = "mhlo.transpose"(%arg1) {permutation = dense<[0, 1]> : tensor<2xi64>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<4x1x3x1xf32>, tensor<2x3xf32>
}

// -----

// Must not touch a transpose that moves data.
// CHECK-LABEL: func.func @transpose_real
// CHECK-NEXT: mhlo.transpose
// SHLO-LABEL: func.func @transpose_real
// SHLO-NEXT: stablehlo.transpose
func.func @transpose_real(%arg0: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = "mhlo.transpose"(%arg0) {permutation = dense<[1, 0]> : tensor<2xi64>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// 2. reshape-fold: a chain of three reshapes becomes one; a same-type reshape goes.
// CHECK-LABEL: func.func @reshape_chain
// CHECK-NEXT: %[[R:.*]] = mhlo.reshape %arg0 : (tensor<2x6xf32>) -> tensor<12xf32>
// CHECK-NEXT: return %[[R]], %arg0
// SHLO-LABEL: func.func @reshape_chain
// SHLO-NEXT: %[[R:.*]] = stablehlo.reshape %arg0 : (tensor<2x6xf32>) -> tensor<12xf32>
// SHLO-NEXT: return %[[R]], %arg0
func.func @reshape_chain(%arg0: tensor<2x6xf32>) -> (tensor<12xf32>, tensor<2x6xf32>) {
  %0 = mhlo.reshape %arg0 : (tensor<2x6xf32>) -> tensor<3x4xf32>
  %1 = mhlo.reshape %0 : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %2 = mhlo.reshape %1 : (tensor<4x3xf32>) -> tensor<12xf32>
  %3 = mhlo.reshape %arg0 : (tensor<2x6xf32>) -> tensor<2x6xf32>
  return %2, %3 : tensor<12xf32>, tensor<2x6xf32>
}

// -----

// An inner reshape with another user stays.
// CHECK-LABEL: func.func @reshape_shared
// CHECK-NEXT: %[[A:.*]] = mhlo.reshape %arg0 : (tensor<6xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[B:.*]] = mhlo.reshape %arg0 : (tensor<6xf32>) -> tensor<3x2xf32>
// CHECK-NEXT: return %[[B]], %[[A]]
func.func @reshape_shared(%arg0: tensor<6xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>) {
  %0 = mhlo.reshape %arg0 : (tensor<6xf32>) -> tensor<2x3xf32>
  %1 = mhlo.reshape %0 : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %1, %0 : tensor<3x2xf32>, tensor<2x3xf32>
}

// -----

// 3. broadcast-to-reshape (size-1 insertion) and the identity broadcast; a real broadcast stays.
// CHECK-LABEL: func.func @broadcasts
// CHECK-NEXT: %[[R:.*]] = mhlo.reshape %arg0 : (tensor<4xf32>) -> tensor<1x4x1xf32>
// CHECK-NEXT: %[[B:.*]] = "mhlo.broadcast_in_dim"(%arg0) <{broadcast_dimensions = dense<1> : tensor<1xi64>}> : (tensor<4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT: return %[[R]], %arg0, %[[B]]
// SHLO-LABEL: func.func @broadcasts
// SHLO-NEXT: stablehlo.reshape %arg0 : (tensor<4xf32>) -> tensor<1x4x1xf32>
// SHLO-NEXT: stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<4xf32>) -> tensor<3x4xf32>
func.func @broadcasts(%arg0: tensor<4xf32>) -> (tensor<1x4x1xf32>, tensor<4xf32>, tensor<3x4xf32>) {
  %0 = "mhlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<4xf32>) -> tensor<1x4x1xf32>
  %1 = "mhlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "mhlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<4xf32>) -> tensor<3x4xf32>
  return %0, %1, %2 : tensor<1x4x1xf32>, tensor<4xf32>, tensor<3x4xf32>
}

// -----

// 4. convert-noop; a widening convert stays.
// CHECK-LABEL: func.func @converts
// CHECK-NEXT: %[[C:.*]] = mhlo.convert %arg0 : (tensor<3xbf16>) -> tensor<3xf32>
// CHECK-NEXT: return %arg0, %[[C]]
// SHLO-LABEL: func.func @converts
// SHLO-NEXT: stablehlo.convert %arg0 : (tensor<3xbf16>) -> tensor<3xf32>
// SHLO-NEXT: return %arg0
func.func @converts(%arg0: tensor<3xbf16>) -> (tensor<3xbf16>, tensor<3xf32>) {
  %0 = mhlo.convert %arg0 : tensor<3xbf16>
  %1 = mhlo.convert %arg0 : (tensor<3xbf16>) -> tensor<3xf32>
  return %0, %1 : tensor<3xbf16>, tensor<3xf32>
}

// -----

// 5. dot-to-dot-general (matrix-vector and matrix-matrix, precision kept); dot_general stays.
// CHECK-LABEL: func.func @dots
// CHECK-NEXT: %[[A:.*]] = "mhlo.dot_general"(%arg0, %arg1) <{dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
// CHECK-NEXT: %[[B:.*]] = "mhlo.dot_general"(%arg0, %arg2) <{dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#mhlo<precision HIGHEST>, #mhlo<precision HIGHEST>]}>
// CHECK-NEXT: %[[C:.*]] = "mhlo.dot_general"(%arg0, %arg2) <{dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}>
// CHECK-NOT: mhlo.dot"
// SHLO-LABEL: func.func @dots
// SHLO-NEXT: stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
// SHLO-NEXT: stablehlo.dot_general %arg0, %arg2, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST]
// SHLO-NEXT: stablehlo.dot_general %arg0, %arg2, contracting_dims = [1] x [0] :
func.func @dots(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<3x5xf32>) -> (tensor<2xf32>, tensor<2x5xf32>, tensor<2x5xf32>) {
  %0 = "mhlo.dot"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  %1 = "mhlo.dot"(%arg0, %arg2) {precision_config = [#mhlo<precision HIGHEST>, #mhlo<precision HIGHEST>]} : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  %2 = "mhlo.dot_general"(%arg0, %arg2) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  return %0, %1, %2 : tensor<2xf32>, tensor<2x5xf32>, tensor<2x5xf32>
}

// -----

// 6. compare-constant-rhs: LT with the constant on the left -> GT with it on the right;
// both-constant and constant-rhs compares stay.
// CHECK-LABEL: func.func @compares
// CHECK: %[[K:.*]] = mhlo.constant dense<1.000000e+00>
// CHECK-NEXT: %[[A:.*]] = mhlo.compare GT, %arg0, %[[K]], FLOAT
// CHECK-NEXT: %[[B:.*]] = mhlo.compare GE, %arg0, %[[K]]
// CHECK-NEXT: %[[C:.*]] = mhlo.compare EQ, %[[K]], %[[K]]
// SHLO-LABEL: func.func @compares
// SHLO: stablehlo.compare GT, %arg0, %{{.*}}, FLOAT
// SHLO-NEXT: stablehlo.compare GE, %arg0,
func.func @compares(%arg0: tensor<3xf32>) -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>) {
  %k = mhlo.constant dense<1.0> : tensor<3xf32>
  %0 = mhlo.compare LT, %k, %arg0, FLOAT : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %1 = mhlo.compare GE, %arg0, %k : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %2 = mhlo.compare EQ, %k, %k : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  return %0, %1, %2 : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>
}

// -----

// 7. select-splat-predicate (splat true / splat false); a non-splat predicate stays.
// CHECK-LABEL: func.func @selects
// CHECK: %[[S:.*]] = mhlo.select %{{.*}}, %arg0, %arg1
// CHECK-NEXT: return %arg0, %arg1, %[[S]]
// SHLO-LABEL: func.func @selects
// SHLO: %[[S:.*]] = stablehlo.select
// SHLO-NEXT: return %arg0, %arg1, %[[S]]
func.func @selects(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %t = mhlo.constant dense<true> : tensor<2xi1>
  %f = mhlo.constant dense<false> : tensor<i1>
  %m = mhlo.constant dense<[true, false]> : tensor<2xi1>
  %0 = mhlo.select %t, %arg0, %arg1 : tensor<2xi1>, tensor<2xf32>
  %1 = mhlo.select %f, %arg0, %arg1 : tensor<i1>, tensor<2xf32>
  %2 = mhlo.select %m, %arg0, %arg1 : tensor<2xi1>, tensor<2xf32>
  return %0, %1, %2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// 8. slice-full; a partial or strided slice stays.
// CHECK-LABEL: func.func @slices
// CHECK-NEXT: %[[P:.*]] = "mhlo.slice"(%arg0)
// CHECK-NEXT: return %arg0, %[[P]]
// SHLO-LABEL: func.func @slices
// SHLO-NEXT: %[[P:.*]] = stablehlo.slice %arg0 [0:2, 0:3:2]
// SHLO-NEXT: return %arg0, %[[P]]
func.func @slices(%arg0: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x2xf32>) {
  %0 = "mhlo.slice"(%arg0) {start_indices = dense<0> : tensor<2xi64>, limit_indices = dense<[2, 3]> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "mhlo.slice"(%arg0) {start_indices = dense<0> : tensor<2xi64>, limit_indices = dense<[2, 3]> : tensor<2xi64>, strides = dense<[1, 2]> : tensor<2xi64>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x2xf32>
}

// -----

// Rewrites apply inside nested regions (a reduce body) too.
// CHECK-LABEL: func.func @nested
// CHECK: mhlo.reduce
// CHECK-NOT: mhlo.convert
// CHECK: mhlo.add
func.func @nested(%arg0: tensor<4xf32>) -> tensor<f32> {
  %c = mhlo.constant dense<0.0> : tensor<f32>
  %0 = mhlo.reduce(%arg0 init: %c) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
   reducer(%a: tensor<f32>, %b: tensor<f32>) {
    %1 = mhlo.convert %a : tensor<f32>
    %2 = mhlo.add %1, %b : tensor<f32>
    mhlo.return %2 : tensor<f32>
  }
  return %0 : tensor<f32>
}
