// Spine step 28: outputs are never entry arguments or repeats; output_names / neuron.symName.
// RUN: hilo-opt %s --split-input-file --tensorizer-legalization | FileCheck %s
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(hlo-legalize-to-stablehlo,stablehlo-tensorizer-legalization)' | FileCheck %s --check-prefix=SHLO

// An argument output and a repeated output get copies (mhlo.copy; on StableHLO a
// one-operand custom_call @AliasingCopy); each output's producer is named.
// CHECK-LABEL: func.func @main
// CHECK-SAME: output_names = ["output_0", "output_1", "output_2"]
// CHECK-NEXT: %[[E:.*]] = mhlo.exponential %arg1 {neuron.symName = "output_0"}
// CHECK-NEXT: %[[C0:.*]] = mhlo.copy %arg0 {neuron.symName = "output_1"}
// CHECK-NEXT: %[[C1:.*]] = mhlo.copy %[[E]] {neuron.symName = "output_2"}
// CHECK-NEXT: return %[[E]], %[[C0]], %[[C1]]
// SHLO-LABEL: func.func @main
// SHLO-NEXT: %[[E:.*]] = stablehlo.exponential %arg1 {neuron.symName = "output_0"}
// SHLO-NEXT: %[[C0:.*]] = stablehlo.custom_call @AliasingCopy(%arg0) {neuron.symName = "output_1"}
// SHLO-NEXT: %[[C1:.*]] = stablehlo.custom_call @AliasingCopy(%[[E]]) {neuron.symName = "output_2"}
// SHLO-NEXT: return %[[E]], %[[C0]], %[[C1]]
func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %0 = mhlo.exponential %arg1 : tensor<2xf32>
  return %0, %arg0, %0 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// Must not copy: distinct computed outputs. Names come from the module; a
// multi-result producer gets one name per result. Other functions are untouched.
// CHECK-LABEL: func.func private @other
// CHECK-NEXT: return %arg0
// CHECK-LABEL: func.func @main
// CHECK-SAME: output_names = ["sum", "max"]
// CHECK-NEXT: mhlo.constant
// CHECK-NEXT: %[[R:.*]]:2 = mhlo.reduce
// CHECK: {neuron.symName = ["sum", "max"]}
// CHECK-NOT: mhlo.copy
// CHECK: return %[[R]]#0, %[[R]]#1
// SHLO-LABEL: func.func private @other
// SHLO-NEXT: return %arg0
// SHLO-LABEL: func.func @main
// SHLO-SAME: output_names = ["sum", "max"]
// SHLO: {neuron.symName = ["sum", "max"]}
// SHLO-NOT: AliasingCopy
// SHLO: return %{{.*}}#0, %{{.*}}#1
module attributes {neuron.output_names = ["sum", "max"]} {
  func.func private @other(%arg0: tensor<f32>) -> tensor<f32> {
    return %arg0 : tensor<f32>
  }
  func.func @main(%arg0: tensor<4xf32>) -> (tensor<f32>, tensor<f32>) {
    %c = mhlo.constant dense<0.0> : tensor<f32>
    %0:2 = mhlo.reduce(%arg0 init: %c), (%arg0 init: %c) across dimensions = [0] : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
     reducer(%a: tensor<f32>, %b: tensor<f32>) (%x: tensor<f32>, %y: tensor<f32>) {
      %1 = mhlo.add %a, %b : tensor<f32>
      %2 = mhlo.maximum %x, %y : tensor<f32>
      mhlo.return %1, %2 : tensor<f32>, tensor<f32>
    }
    return %0#0, %0#1 : tensor<f32>, tensor<f32>
  }
}


// -----

// StableHLO twin only (seed 002: "strictly richer"): the zero-sized output
// becomes a constant, the 4096-element splat becomes scalar + broadcast_in_dim,
// the small splat stays. The MHLO pass leaves all of it alone.
// CHECK-LABEL: func.func @main
// CHECK: mhlo.constant dense<1.000000e+00> : tensor<64x64xf32>
// CHECK: mhlo.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK: %[[Z:.*]] = mhlo.add %arg1, %arg1 {neuron.symName = "output_1"} : tensor<0x3xf32>
// CHECK: return %{{.*}}, %[[Z]], %{{.*}}
// SHLO-LABEL: func.func @main
// SHLO-NEXT: %[[S:.*]] = stablehlo.constant dense<1.000000e+00> : tensor<f32>
// SHLO-NEXT: %[[B:.*]] = stablehlo.broadcast_in_dim %[[S]], dims = [] : (tensor<f32>) -> tensor<64x64xf32>
// SHLO-NEXT: %[[K:.*]] = stablehlo.constant dense<2.000000e+00> : tensor<4xf32>
// SHLO-NEXT: stablehlo.add %arg0, %[[B]] {neuron.symName = "output_0"}
// SHLO-NEXT: stablehlo.add %arg1, %arg1 : tensor<0x3xf32>
// SHLO-NEXT: stablehlo.multiply %[[K]], %[[K]] {neuron.symName = "output_2"}
// SHLO-NEXT: %[[E:.*]] = stablehlo.constant {neuron.symName = "output_1"} dense<> : tensor<0x3xf32>
// SHLO-NEXT: return %{{.*}}, %[[E]], %{{.*}}
func.func @main(%arg0: tensor<64x64xf32>, %arg1: tensor<0x3xf32>) -> (tensor<64x64xf32>, tensor<0x3xf32>, tensor<4xf32>) {
  %big = mhlo.constant dense<1.0> : tensor<64x64xf32>
  %small = mhlo.constant dense<2.0> : tensor<4xf32>
  %0 = mhlo.add %arg0, %big : tensor<64x64xf32>
  %1 = mhlo.add %arg1, %arg1 : tensor<0x3xf32>
  %2 = mhlo.multiply %small, %small : tensor<4xf32>
  return %0, %1, %2 : tensor<64x64xf32>, tensor<0x3xf32>, tensor<4xf32>
}

// -----

// A zero-sized complex output (found by the corpus run: fft_float32_14_15_0_17):
// the StableHLO twin rebuilds it from two empty real constants, since a complex
// dense attribute cannot be created through the binding. The MHLO pass leaves it.
// CHECK-LABEL: func.func @main
// CHECK: mhlo.complex %arg0, %arg1 {neuron.symName = "output_0"}
// SHLO-LABEL: func.func @main
// SHLO: %[[RE:.*]] = stablehlo.constant dense<> : tensor<2x0xf32>
// SHLO-NEXT: %[[IM:.*]] = stablehlo.constant dense<> : tensor<2x0xf32>
// SHLO-NEXT: %[[C:.*]] = stablehlo.complex %[[RE]], %[[IM]] {neuron.symName = "output_0"} : tensor<2x0xcomplex<f32>>
// SHLO-NEXT: return %[[C]]
func.func @main(%a: tensor<2x0xf32>, %b: tensor<2x0xf32>) -> tensor<2x0xcomplex<f32>> {
  %0 = mhlo.complex %a, %b : tensor<2x0xcomplex<f32>>
  return %0 : tensor<2x0xcomplex<f32>>
}
