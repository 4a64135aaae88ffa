// penguinize-io: diagnostics and the mhlo.input_output_alias remap.
// RUN: hilo-opt %s --split-input-file --verify-diagnostics --penguinize-io
// RUN: not hilo-opt %s --split-input-file --penguinize-io 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: hilo-opt %S/Inputs/io-alias.mlir --stablehlo-penguinize-io | FileCheck %s --check-prefix=ALIAS

// expected-error@+1 {{'input_names' has 1 names but @main has 2 arguments}}
func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> tensor<2xf32> attributes {input_names = ["x"]} {
  return %arg0 : tensor<2xf32>
}

// -----

func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{result #0 (tensor<2xi32>) has no operand of the same type}}
  %0 = mhlo.custom_call @AwsNeuronTransferWithStaticRing(%arg0) {api_version = 0 : i32} : (tensor<2xf32>) -> tensor<2xi32>
  %1 = mhlo.convert %0 : (tensor<2xi32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}

// -----

// expected-error@+1 {{tf.aliasing_output = 0 names a tuple output with 2 leaves}}
func.func @main(%arg0: tensor<2xf32> {tf.aliasing_output = 0 : i32}) -> tuple<tensor<2xf32>, tensor<2xf32>> {
  %t = mhlo.tuple %arg0, %arg0 : tuple<tensor<2xf32>, tensor<2xf32>>
  return %t : tuple<tensor<2xf32>, tensor<2xf32>>
}

// -----

// ERR: penguinize-io-errors.mlir:32:1: error: module has no 'func.func @main' {{.*}}functions: @not_main)
// expected-error@+1 {{module has no 'func.func @main'}}
func.func @not_main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  return %arg0 : tensor<2xf32>
}

// ALIAS: module attributes {mhlo.input_output_alias = [{alias = {kind = "may_alias", parameter_index = array<i64>, parameter_number = 1 : i64}, output_index = array<i64: 1>}]}
// ALIAS-LABEL: func.func @main
// ALIAS-SAME: -> (tensor<2xf32>, tensor<3xf32>)
// ALIAS: return %arg0, %{{.*}} : tensor<2xf32>, tensor<3xf32>
