// RUN: hilo-opt %s --split-input-file --stablehlo-analyze-schedule | FileCheck %s
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,analyze-schedule)' | FileCheck %s
// RUN: hilo-opt %s --split-input-file --stablehlo-schedule-postorder --stablehlo-analyze-schedule | FileCheck %s --check-prefix=SCHED

// Two broadcasts (1024 bytes each) live together in this order:
// point 1 holds %y(4) + %a(1024) + %b(1024) = 2052 bytes.
// After schedule-postorder each broadcast is sliced before the next one is made:
// the peak is %y(4) + %a(1024) + %sa(4) = 1032 bytes.
// CHECK-LABEL: func.func @two_chains
// CHECK-SAME: attributes {neuron.peak_live_bytes = 2052 : i64}
// CHECK-NEXT: broadcast_in_dim{{.*}}%arg0
// CHECK-NEXT: broadcast_in_dim{{.*}}%arg1
// SCHED-LABEL: func.func @two_chains
// SCHED-SAME: attributes {neuron.peak_live_bytes = 1032 : i64}
func.func @two_chains(%x: tensor<f32>, %y: tensor<f32>) -> tensor<1xf32> {
  %a = stablehlo.broadcast_in_dim %x, dims = [] : (tensor<f32>) -> tensor<256xf32>
  %b = stablehlo.broadcast_in_dim %y, dims = [] : (tensor<f32>) -> tensor<256xf32>
  %sa = stablehlo.slice %a [0:1] : (tensor<256xf32>) -> tensor<1xf32>
  %sb = stablehlo.slice %b [0:1] : (tensor<256xf32>) -> tensor<1xf32>
  %s = stablehlo.add %sa, %sb : tensor<1xf32>
  return %s : tensor<1xf32>
}

// -----

// i1 counts one byte per element; a tuple counts its elements; %k, used only
// inside the reduce body, stays live until the reduce. Peak at the reduce:
// %p(8) + %k(4) + %m(1024) + %z(4) + %r(256) = 1296 (1292 if %k were not counted).
// CHECK-LABEL: func.func @types_and_regions
// CHECK-SAME: attributes {neuron.peak_live_bytes = 1296 : i64}
// SCHED-LABEL: func.func @types_and_regions
// SCHED-SAME: attributes {neuron.peak_live_bytes = 1296 : i64}
func.func @types_and_regions(%p: tensor<8xi1>, %x: tensor<f32>, %k: tensor<f32>) -> tuple<tensor<8xi1>, tensor<64xf32>> {
  %m = stablehlo.broadcast_in_dim %x, dims = [] : (tensor<f32>) -> tensor<4x64xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%m init: %z) across dimensions = [0] : (tensor<4x64xf32>, tensor<f32>) -> tensor<64xf32>
   reducer(%a: tensor<f32>, %b: tensor<f32>) {
    %s = stablehlo.add %a, %b : tensor<f32>
    %t = stablehlo.multiply %s, %k : tensor<f32>
    stablehlo.return %t : tensor<f32>
  }
  %t = stablehlo.tuple %p, %r : tuple<tensor<8xi1>, tensor<64xf32>>
  return %t : tuple<tensor<8xi1>, tensor<64xf32>>
}

// -----

// A declaration has no schedule: no attribute, IR unchanged.
// CHECK-LABEL: func.func private @decl
// CHECK-NOT: neuron.peak_live_bytes
// CHECK-SAME: tensor<4xf32>
func.func private @decl(%x: tensor<4xf32>) -> tensor<4xf32>
