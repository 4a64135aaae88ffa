// RUN: hilo-opt %s --split-input-file --canonicalize-conv | FileCheck %s
// RUN: hilo-opt %s --split-input-file --hlo-legalize-to-stablehlo --stablehlo-canonicalize-conv | FileCheck %s --check-prefix=SHLO

// A zero pad on the spatial dims folds into the conv padding (added to the
// existing padding, scaled by lhs_dilation); missing attributes become explicit.
// CHECK-LABEL: func.func @fold_pad
// CHECK-NOT: mhlo.pad
// CHECK: mhlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = {{\[\[}}1, 2], [4, 2]], lhs_dilate = [1, 2], rhs_dilate = [1, 1]}
// SHLO-LABEL: func.func @fold_pad
// SHLO-NOT: stablehlo.pad
// SHLO: stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = {{\[\[}}1, 2], [4, 2]], lhs_dilate = [1, 2], rhs_dilate = [1, 1]}
func.func @fold_pad(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x9x19x4xf32> {
  %z = mhlo.constant dense<0.0> : tensor<f32>
  %p = "mhlo.pad"(%x, %z) {edge_padding_low = dense<[0, 1, 2, 0]> : tensor<4xi64>, edge_padding_high = dense<[0, 1, 1, 0]> : tensor<4xi64>, interior_padding = dense<0> : tensor<4xi64>} : (tensor<1x8x8x3xf32>, tensor<f32>) -> tensor<1x10x11x3xf32>
  %0 = mhlo.convolution(%p, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[0, 1], [0, 0]], lhs_dilate = [1, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x10x11x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x9x19x4xf32>
  return %0 : tensor<1x9x19x4xf32>
}

// -----

// Only the defaults are written; the pad stays (value 1.0, or interior padding,
// or a padded feature dimension).
// CHECK-LABEL: func.func @keep_pads
// CHECK: %[[P1:.*]] = "mhlo.pad"(%arg0, %[[ONE:.*]]) <{edge_padding_high = dense<[0, 1, 1, 0]>
// CHECK: mhlo.convolution(%[[P1]], %arg1) {{.*}}window = {stride = [1, 1], pad = {{\[\[}}0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]}
// CHECK: %[[P2:.*]] = "mhlo.pad"(%arg0, %{{.*}}) {{.*}}interior_padding = dense<[0, 1, 0, 0]>
// CHECK: mhlo.convolution(%[[P2]], %arg1)
// CHECK: %[[P3:.*]] = "mhlo.pad"(%arg0, %{{.*}}) {{.*}}edge_padding_low = dense<[0, 0, 0, 1]>
// CHECK: mhlo.convolution(%[[P3]], %arg2)
func.func @keep_pads(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>, %w2: tensor<3x3x4x4xf32>) -> (tensor<1x8x8x4xf32>, tensor<1x13x6x4xf32>, tensor<1x6x6x4xf32>) {
  %one = mhlo.constant dense<1.0> : tensor<f32>
  %z = mhlo.constant dense<0.0> : tensor<f32>
  %p1 = "mhlo.pad"(%x, %one) {edge_padding_low = dense<[0, 1, 1, 0]> : tensor<4xi64>, edge_padding_high = dense<[0, 1, 1, 0]> : tensor<4xi64>, interior_padding = dense<0> : tensor<4xi64>} : (tensor<1x8x8x3xf32>, tensor<f32>) -> tensor<1x10x10x3xf32>
  %0 = mhlo.convolution(%p1, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x10x10x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  %p2 = "mhlo.pad"(%x, %z) {edge_padding_low = dense<0> : tensor<4xi64>, edge_padding_high = dense<0> : tensor<4xi64>, interior_padding = dense<[0, 1, 0, 0]> : tensor<4xi64>} : (tensor<1x8x8x3xf32>, tensor<f32>) -> tensor<1x15x8x3xf32>
  %1 = mhlo.convolution(%p2, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x15x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x13x6x4xf32>
  %p3 = "mhlo.pad"(%x, %z) {edge_padding_low = dense<[0, 0, 0, 1]> : tensor<4xi64>, edge_padding_high = dense<0> : tensor<4xi64>, interior_padding = dense<0> : tensor<4xi64>} : (tensor<1x8x8x3xf32>, tensor<f32>) -> tensor<1x8x8x4xf32>
  %2 = mhlo.convolution(%p3, %w2) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x4xf32>, tensor<3x3x4x4xf32>) -> tensor<1x6x6x4xf32>
  return %0, %1, %2 : tensor<1x8x8x4xf32>, tensor<1x13x6x4xf32>, tensor<1x6x6x4xf32>
}

// -----

// Already canonical: left exactly as it was.
// CHECK-LABEL: func.func @canonical
// CHECK-NEXT: mhlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [2], pad = {{\[\[}}1, 1]], lhs_dilate = [1], rhs_dilate = [1]}
// CHECK-NEXT: return
// SHLO-LABEL: func.func @canonical
// SHLO-NEXT: stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [2], pad = {{\[\[}}1, 1]], lhs_dilate = [1], rhs_dilate = [1]}
func.func @canonical(%x: tensor<2x3x16xf32>, %w: tensor<5x3x3xf32>) -> tensor<2x5x8xf32> {
  %0 = mhlo.convolution(%x, %w) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [2], pad = [[1, 1]], lhs_dilate = [1], rhs_dilate = [1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3x16xf32>, tensor<5x3x3xf32>) -> tensor<2x5x8xf32>
  return %0 : tensor<2x5x8xf32>
}
