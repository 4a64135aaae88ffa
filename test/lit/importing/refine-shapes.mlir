// refine-shapes{input-types=...}: hilo2penguin --input-types makes it the first step of its one
// pipeline (before hilo-import), so the dumped pipeline is what runs: hilo-opt given that pipeline
// writes the same penguin.py. Alone, it gives main the static types and refines every shape.
// RUN: hilo-opt %s --pass-pipeline='builtin.module(refine-shapes{input-types=tensor<4x3xf32>,tensor<3xf32>})' | FileCheck %s
// RUN: hilo2penguin --dump-pass-pipeline --input-types='tensor<4x3xf32>,tensor<3xf32>' | FileCheck %s --check-prefix=DUMP
// RUN: rm -rf %t && mkdir -p %t
// RUN: hilo2penguin --dump-pass-pipeline --input-types='tensor<4x3xf32>,tensor<3xf32>' --spine stablehlo --preset all > %t/pipeline.txt
// RUN: sh -c 'hilo-opt %s --pass-pipeline="$(cat %t/pipeline.txt)" -o %t/opt.py'
// RUN: hilo2penguin %s --input-types='tensor<4x3xf32>,tensor<3xf32>' --spine stablehlo --preset all -o %t/out
// RUN: cmp %t/opt.py %t/out/penguin.py
// RUN: FileCheck %s --check-prefix=PENGUIN < %t/out/penguin.py
// A wrong count of types: one error naming the file, nothing written.
// RUN: not hilo2penguin %s --input-types='tensor<4x3xf32>' -o %t/bad 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not ls %t/bad/penguin.py
// RUN: not hilo-opt %s --pass-pipeline='builtin.module(refine-shapes{input-types=tensor<4x2xf32>,tensor<3xf32>})' 2>&1 | FileCheck %s --check-prefix=FIT

// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:.*]]: tensor<4x3xf32>, %[[B:.*]]: tensor<3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT: %[[BB:.*]] = stablehlo.broadcast_in_dim %[[B]], dims = [1] : (tensor<3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT: %[[S:.*]] = stablehlo.add %[[X]], %[[BB]] : tensor<4x3xf32>
// CHECK-NEXT: return %[[S]] : tensor<4x3xf32>

// DUMP: {{^}}builtin.module(refine-shapes{input-types='tensor<4x3xf32>,tensor<3xf32>'},hilo-import,call-inliner,

// PENGUIN: input_0 = {{.*}}shape=(4, 3), dtype='float32'
// PENGUIN: m1.AddOp(srcs=[input_0, v1], dsts=[m1.TensorSpec(shape=(4, 3)

// COUNT: refine-shapes.mlir:31:1: error: --input-types gives 1 type but @main takes 2 arguments
// FIT: refine-shapes.mlir:31:1: error: input type #0 tensor<4x2xf32> does not fit @main argument #0 of type tensor<?x3xf32>

func.func @main(%x: tensor<?x3xf32>, %b: tensor<3xf32>) -> tensor<?x3xf32> {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %c3 = stablehlo.constant dense<3> : tensor<1xi32>
  %shape = stablehlo.concatenate %n1, %c3, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %bb = stablehlo.dynamic_broadcast_in_dim %b, %shape, dims = [1] : (tensor<3xf32>, tensor<2xi32>) -> tensor<?x3xf32>
  %s = stablehlo.add %x, %bb : tensor<?x3xf32>
  return %s : tensor<?x3xf32>
}
