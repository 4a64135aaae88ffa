// Shape-computing ops are refused before any rewrite, even with static types:
// upstream hlo-legalize-to-stablehlo aborts the process (LLVM ERROR) on some of
// them (mhlo.dynamic_conv with a non-spatial dimension layout), so they must never reach it.
// RUN: rm -rf %t && not hilo2penguin %s -o %t --spine stablehlo 2>&1 | FileCheck %s
// RUN: not hilo2penguin %s -o %t --spine mhlo 2>&1 | FileCheck %s
// RUN: not test -e %t/penguin.py

// CHECK: dynamic-shape-ops.mlir:12:8: error: 'mhlo.dynamic_conv' op computes a dynamic shape: dynamic-shape ops are not supported
// CHECK-NOT: LLVM ERROR
func.func @main(%arg0: tensor<1x8x8x32x207xf32>, %arg1: tensor<3x3x32x207x16xf32>) -> tensor<32x1x8x8x16xf32> {
  %pad = mhlo.constant dense<[2, 0, 1, 1]> : tensor<4xi64>
  %0 = "mhlo.dynamic_conv"(%arg0, %arg1, %pad) {batch_group_count = 1 : i64,
    dimension_numbers = #mhlo.conv<raw
      input_batch_dimension = 0,
      input_feature_dimension = 4,
      input_spatial_dimensions = [1, 2],
      kernel_input_feature_dimension = 3,
      kernel_output_feature_dimension = 4,
      kernel_spatial_dimensions = [0, 1],
      output_batch_dimension = 0,
      output_feature_dimension = 4,
      output_spatial_dimensions = [1, 2]
    >, feature_group_count = 1 : i64, lhs_dilation = dense<1> : tensor<2xi64>,
    rhs_dilation = dense<1> : tensor<2xi64>, window_strides = dense<1> : tensor<2xi64>}
    : (tensor<1x8x8x32x207xf32>, tensor<3x3x32x207x16xf32>, tensor<4xi64>) -> tensor<32x1x8x8x16xf32>
  return %0 : tensor<32x1x8x8x16xf32>
}
