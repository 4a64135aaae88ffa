// Spine step 26 (seed 002 section 4, issue 4 item 3): PenguinizeFunctions.
// RUN: hilo-opt %s --split-input-file --penguinize-io | FileCheck %s
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(canonicalize,remove-dead-values,penguinize-io)' | FileCheck %s --check-prefix=DCE
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(hlo-legalize-to-stablehlo,stablehlo-penguinize-io)' | FileCheck %s --check-prefix=SHLO
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(hlo-legalize-to-stablehlo,stablehlo-legalize-to-hlo)' | FileCheck %s --check-prefix=RT
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(hlo-legalize-to-stablehlo)' | FileCheck %s --check-prefix=TOS

// The issue's marker case: a marker on %arg0 (api_version = 0), a marker on a
// reduce result that feeds the returned tuple, an unmarked argument.
// Only the argument marker counts for the inputs; the reduce marker records
// the flattened output position 1; both markers are gone, the loaded values stay.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[A0:.*]]: tensor<4xf32>, %[[A1:.*]]: tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>)
// CHECK-SAME: input_names = ["input_0", "input_1"]
// CHECK-SAME: slowChangingIns = dense<0> : tensor<1xi32>
// CHECK-SAME: slowChangingOuts = dense<1> : tensor<1xi32>
// CHECK-NOT: AwsNeuronTransferWithStaticRing
// CHECK: %[[R:.*]] = mhlo.reduce
// CHECK: %[[S:.*]] = mhlo.add %[[A0]], %[[A1]]
// CHECK-NOT: mhlo.tuple
// CHECK: return %[[S]], %[[R]] : tensor<4xf32>, tensor<f32>
// The markers survive canonicalize and remove-dead-values (custom_call has
// side effects), so step 26 still sees them:
// DCE-LABEL: func.func @main
// DCE-SAME: slowChangingIns = dense<0> : tensor<1xi32>
// DCE-SAME: slowChangingOuts = dense<1> : tensor<1xi32>
// SHLO-LABEL: func.func @main
// SHLO-SAME: slowChangingIns = dense<0> : tensor<1xi32>
// SHLO-SAME: slowChangingOuts = dense<1> : tensor<1xi32>
// SHLO-NOT: custom_call
// SHLO: return
// api_version survives mhlo -> stablehlo -> mhlo:
// RT-LABEL: func.func @main
// RT: mhlo.custom_call @AwsNeuronTransferWithStaticRing(%arg0) {api_version = 0 : i32}
// RT: mhlo.custom_call @AwsNeuronTransferWithStaticRing(%{{.*}}) {api_version = 0 : i32}
// TOS-LABEL: func.func @main
// TOS: stablehlo.custom_call @AwsNeuronTransferWithStaticRing(%arg0) {api_version = 0 : i32}
// TOS: stablehlo.custom_call @AwsNeuronTransferWithStaticRing(%{{.*}}) {api_version = 0 : i32}
func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<f32>> {
  %m = mhlo.custom_call @AwsNeuronTransferWithStaticRing(%arg0) {api_version = 0 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  %c = mhlo.constant dense<0.0> : tensor<f32>
  %r = mhlo.reduce(%arg1 init: %c) applies mhlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  %m2 = mhlo.custom_call @AwsNeuronTransferWithStaticRing(%r) {api_version = 0 : i32} : (tensor<f32>) -> tensor<f32>
  %s = mhlo.add %arg0, %arg1 : tensor<4xf32>
  %t = mhlo.tuple %s, %r : tuple<tensor<4xf32>, tensor<f32>>
  return %t : tuple<tensor<4xf32>, tensor<f32>>
}

// -----

// A marker whose result is used: the use is rewired to the loaded value (%arg1).
// A marker on a value that is not returned records nothing.
// CHECK-LABEL: func.func @main
// CHECK-SAME: slowChangingIns = dense<1> : tensor<1xi32>
// CHECK-SAME: slowChangingOuts = dense<> : tensor<0xi32>
// CHECK-NEXT: %[[E:.*]] = mhlo.exponential %arg0
// CHECK-NEXT: %[[M:.*]] = mhlo.multiply %[[E]], %arg1
// CHECK-NEXT: return %[[M]]
// DCE-LABEL: func.func @main
// DCE-SAME: slowChangingIns = dense<1> : tensor<1xi32>
func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> tensor<2xf32> {
  %w = mhlo.custom_call @AwsNeuronTransferWithStaticRing(%arg1) {api_version = 0 : i32} : (tensor<2xf32>) -> tensor<2xf32>
  %e = mhlo.exponential %arg0 : tensor<2xf32>
  %u = mhlo.custom_call @AwsNeuronTransferWithStaticRing(%e) {api_version = 0 : i32} : (tensor<2xf32>) -> tensor<2xf32>
  %p = mhlo.multiply %e, %w : tensor<2xf32>
  return %p : tensor<2xf32>
}

// -----

// No tuple: a marker on a value main returns directly records that output
// position; a marker inside a nested region on an argument of main counts too.
// CHECK-LABEL: func.func @main
// CHECK-SAME: slowChangingIns = dense<2> : tensor<1xi32>
// CHECK-SAME: slowChangingOuts = dense<[0, 2]> : tensor<2xi32>
// CHECK-NOT: AwsNeuronTransferWithStaticRing
// CHECK: return %{{.*}}, %{{.*}}, %{{.*}} : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>, %arg2: tensor<f32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %a = mhlo.add %arg0, %arg1 : tensor<2xf32>
  %b = mhlo.subtract %arg0, %arg1 : tensor<2xf32>
  %c = mhlo.multiply %arg0, %arg1 : tensor<2xf32>
  %ma = mhlo.custom_call @AwsNeuronTransferWithStaticRing(%a) {api_version = 0 : i32} : (tensor<2xf32>) -> tensor<2xf32>
  %mc = mhlo.custom_call @AwsNeuronTransferWithStaticRing(%c) {api_version = 0 : i32} : (tensor<2xf32>) -> tensor<2xf32>
  %r = mhlo.reduce(%arg0 init: %arg2) across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
   reducer(%x: tensor<f32>, %y: tensor<f32>) {
    %w = mhlo.custom_call @AwsNeuronTransferWithStaticRing(%arg2) {api_version = 0 : i32} : (tensor<f32>) -> tensor<f32>
    %s = mhlo.add %x, %w : tensor<f32>
    mhlo.return %s : tensor<f32>
  }
  return %ma, %b, %c : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// Nested tuples flatten depth-first; the one-element tuple gives its leaf
// (and its attributes); the empty tuple gives nothing; a plain result keeps its
// attributes at its new position; the attributes of a many-leaf tuple are dropped.
// CHECK-LABEL: func.func @main
// CHECK-SAME: -> (tensor<1xf32>, tensor<2xf32>, tensor<3xf32>, tensor<5xf32>, tensor<4xf32> {jax.result_info = "d"}, tensor<6xf32> {jax.result_info = "e"})
// CHECK-SAME: slowChangingIns = dense<> : tensor<0xi32>
// CHECK-NOT: mhlo.tuple
// CHECK: return %arg0, %arg1, %arg2, %arg4, %arg3, %arg5 : tensor<1xf32>, tensor<2xf32>, tensor<3xf32>, tensor<5xf32>, tensor<4xf32>, tensor<6xf32>
func.func @main(%arg0: tensor<1xf32>, %arg1: tensor<2xf32>, %arg2: tensor<3xf32>, %arg3: tensor<4xf32>, %arg4: tensor<5xf32>, %arg5: tensor<6xf32>)
    -> (tuple<tensor<1xf32>, tuple<tensor<2xf32>, tuple<tensor<3xf32>, tensor<5xf32>>>> {jax.result_info = "abc"},
        tuple<tensor<4xf32>> {jax.result_info = "d"}, tuple<>, tensor<6xf32> {jax.result_info = "e"}) {
  %c = mhlo.tuple %arg2, %arg4 : tuple<tensor<3xf32>, tensor<5xf32>>
  %bc = mhlo.tuple %arg1, %c : tuple<tensor<2xf32>, tuple<tensor<3xf32>, tensor<5xf32>>>
  %a = mhlo.tuple %arg0, %bc : tuple<tensor<1xf32>, tuple<tensor<2xf32>, tuple<tensor<3xf32>, tensor<5xf32>>>>
  %d = mhlo.tuple %arg3 : tuple<tensor<4xf32>>
  %e = mhlo.tuple : tuple<>
  return %a, %d, %e, %arg5 : tuple<tensor<1xf32>, tuple<tensor<2xf32>, tuple<tensor<3xf32>, tensor<5xf32>>>>, tuple<tensor<4xf32>>, tuple<>, tensor<6xf32>
}

// -----

// A tuple also read by get_tuple_element stays; only the return is rewritten.
// A tuple-typed argument is taken apart with get_tuple_element.
// tf.aliasing_output (output 1 before, flattened position 2 after) is remapped.
// CHECK-LABEL: func.func @main
// CHECK-SAME: %arg0: tensor<2xf32> {tf.aliasing_output = 2 : i32}
// CHECK: %[[T:.*]] = mhlo.tuple %arg0, %arg1
// CHECK: %[[G:.*]] = mhlo.get_tuple_element %[[T]][1]
// CHECK: %[[N:.*]] = mhlo.negate %[[G]]
// CHECK: %[[P0:.*]] = mhlo.get_tuple_element %arg2[0]
// CHECK: return %arg0, %arg1, %[[N]], %[[P0]] : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<i32>
// SHLO-LABEL: func.func @main(%arg0: tensor<2xf32> {tf.aliasing_output = 2 : i32}
// SHLO: %[[T:.*]] = stablehlo.tuple %arg0, %arg1
// SHLO: stablehlo.get_tuple_element %[[T]][1]
// SHLO: %[[P0:.*]] = stablehlo.get_tuple_element %arg2[0]
// SHLO: return %arg0, %arg1, %{{.*}}, %[[P0]] : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<i32>
func.func @main(%arg0: tensor<2xf32> {tf.aliasing_output = 1 : i32}, %arg1: tensor<2xf32>, %arg2: tuple<tensor<i32>>)
    -> (tuple<tensor<2xf32>, tensor<2xf32>>, tensor<2xf32>, tuple<tensor<i32>>) {
  %t = mhlo.tuple %arg0, %arg1 : tuple<tensor<2xf32>, tensor<2xf32>>
  %g = mhlo.get_tuple_element %t[1] : (tuple<tensor<2xf32>, tensor<2xf32>>) -> tensor<2xf32>
  %n = mhlo.negate %g : tensor<2xf32>
  return %t, %n, %arg2 : tuple<tensor<2xf32>, tensor<2xf32>>, tensor<2xf32>, tuple<tensor<i32>>
}

// -----

// Must not touch: no markers, no tuples, names from the module's input_names;
// the body and the signature stay as they are; other functions are not visited.
// CHECK-LABEL: func.func private @helper
// CHECK-NEXT: mhlo.custom_call @AwsNeuronTransferWithStaticRing
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%arg0: tensor<3xi32>) -> tensor<3xi32>
// CHECK-SAME: input_names = ["tokens"]
// CHECK-SAME: slowChangingIns = dense<> : tensor<0xi32>, slowChangingOuts = dense<> : tensor<0xi32>
// CHECK-NEXT: %[[A:.*]] = mhlo.abs %arg0
// CHECK-NEXT: return %[[A]] : tensor<3xi32>
module attributes {neuron.input_names = ["tokens"]} {
  func.func private @helper(%x: tensor<3xi32>) -> tensor<3xi32> {
    %0 = mhlo.custom_call @AwsNeuronTransferWithStaticRing(%x) {api_version = 0 : i32} : (tensor<3xi32>) -> tensor<3xi32>
    return %0 : tensor<3xi32>
  }
  func.func @main(%arg0: tensor<3xi32>) -> tensor<3xi32> {
    %0 = mhlo.abs %arg0 : tensor<3xi32>
    return %0 : tensor<3xi32>
  }
}
