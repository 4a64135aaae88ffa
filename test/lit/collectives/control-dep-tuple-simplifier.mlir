// RUN: hilo-opt %s --split-input-file --neuron-control-dep-tuple-simplifier | FileCheck %s
// RUN: hilo-opt %s --split-input-file --hlo-legalize-to-stablehlo --stablehlo-neuron-control-dep-tuple-simplifier | FileCheck %s --check-prefix=SHLO

// The tuple operand is flattened, the tuple result becomes two results and the
// get_tuple_element users read them directly; the tuple op dies.
// CHECK-LABEL: func.func @flatten
// CHECK-NOT: mhlo.tuple
// CHECK: %[[C:.*]]:2 = mhlo.custom_call @AwsNeuronControlDep(%arg0, %arg1) {backend_config = "x"} : (tensor<8xf32>, tensor<f32>) -> (tensor<8xf32>, tensor<f32>)
// CHECK-NOT: get_tuple_element
// CHECK: mhlo.add %[[C]]#0, %[[C]]#0
// CHECK: return {{.*}}, %[[C]]#1
// SHLO-LABEL: func.func @flatten
// SHLO-NOT: stablehlo.tuple
// SHLO: %[[C:.*]]:2 = stablehlo.custom_call @AwsNeuronControlDep(%arg0, %arg1) {backend_config = "x"} : (tensor<8xf32>, tensor<f32>) -> (tensor<8xf32>, tensor<f32>)
// SHLO-NOT: get_tuple_element
// SHLO: stablehlo.add %[[C]]#0, %[[C]]#0
func.func @flatten(%a: tensor<8xf32>, %b: tensor<f32>) -> (tensor<8xf32>, tensor<f32>) {
  %t = mhlo.tuple %a, %b : tuple<tensor<8xf32>, tensor<f32>>
  %c = mhlo.custom_call @AwsNeuronControlDep(%t) {backend_config = "x"} : (tuple<tensor<8xf32>, tensor<f32>>) -> tuple<tensor<8xf32>, tensor<f32>>
  %0 = mhlo.get_tuple_element %c[0] : (tuple<tensor<8xf32>, tensor<f32>>) -> tensor<8xf32>
  %1 = mhlo.get_tuple_element %c[1] : (tuple<tensor<8xf32>, tensor<f32>>) -> tensor<f32>
  %2 = mhlo.add %0, %0 : tensor<8xf32>
  return %2, %1 : tensor<8xf32>, tensor<f32>
}

// -----

// A tuple also used elsewhere stays; a result used as a whole is re-tupled.
// CHECK-LABEL: func.func @shared_tuple
// CHECK: %[[T:.*]] = mhlo.tuple %arg0, %arg1
// CHECK: %[[C:.*]]:2 = mhlo.custom_call @AwsNeuronControlDep(%arg0, %arg1, %arg0)
// CHECK: %[[R:.*]] = mhlo.tuple %[[C]]#0, %[[C]]#1
// CHECK: return %[[T]], %[[R]]
func.func @shared_tuple(%a: tensor<8xf32>, %b: tensor<f32>) -> (tuple<tensor<8xf32>, tensor<f32>>, tuple<tensor<8xf32>, tensor<f32>>) {
  %t = mhlo.tuple %a, %b : tuple<tensor<8xf32>, tensor<f32>>
  %c = mhlo.custom_call @AwsNeuronControlDep(%t, %a) : (tuple<tensor<8xf32>, tensor<f32>>, tensor<8xf32>) -> tuple<tensor<8xf32>, tensor<f32>>
  return %t, %c : tuple<tensor<8xf32>, tensor<f32>>, tuple<tensor<8xf32>, tensor<f32>>
}

// -----

// Left alone: no tuple operand, a tuple block argument, another target.
// CHECK-LABEL: func.func @untouched
// CHECK: mhlo.custom_call @AwsNeuronControlDep(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
// CHECK: mhlo.custom_call @AwsNeuronControlDep(%arg1) : (tuple<tensor<8xf32>>) -> tuple<tensor<8xf32>>
// CHECK: mhlo.custom_call @Other(%[[T:.*]]) : (tuple<tensor<8xf32>>) -> tensor<8xf32>
// SHLO-LABEL: func.func @untouched
// SHLO: stablehlo.custom_call @AwsNeuronControlDep(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
// SHLO: stablehlo.custom_call @Other(%{{.*}}) : (tuple<tensor<8xf32>>) -> tensor<8xf32>
func.func @untouched(%a: tensor<8xf32>, %t0: tuple<tensor<8xf32>>) -> (tensor<8xf32>, tuple<tensor<8xf32>>, tensor<8xf32>) {
  %0 = mhlo.custom_call @AwsNeuronControlDep(%a) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = mhlo.custom_call @AwsNeuronControlDep(%t0) : (tuple<tensor<8xf32>>) -> tuple<tensor<8xf32>>
  %t = mhlo.tuple %a : tuple<tensor<8xf32>>
  %2 = mhlo.custom_call @Other(%t) : (tuple<tensor<8xf32>>) -> tensor<8xf32>
  return %0, %1, %2 : tensor<8xf32>, tuple<tensor<8xf32>>, tensor<8xf32>
}
