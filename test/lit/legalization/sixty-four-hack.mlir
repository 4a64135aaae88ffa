// RUN: hilo-opt %s --split-input-file --stablehlo-sixty-four-hack | FileCheck %s
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,sixty-four-hack)' | FileCheck %s --check-prefix=MHLO

// Arguments, results, constants (splat and not), iota, convert, compare,
// reduce bodies, tuples and calls: every 64-bit integer tensor becomes 32-bit.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%arg0: tensor<4xi32>, %arg1: tensor<2xui32>, %arg2: tensor<4xf32>) -> (tensor<i32>, tuple<tensor<2xui32>, tensor<i1>>, tensor<4xi32>)
// CHECK-DAG: stablehlo.constant dense<[1, -2, 3, 2147483647]> : tensor<4xi32>
// CHECK-DAG: stablehlo.constant dense<4294967295> : tensor<2xui32>
// CHECK-DAG: stablehlo.iota dim = 0 : tensor<4xi32>
// CHECK-DAG: stablehlo.convert %arg2 : (tensor<4xf32>) -> tensor<4xi32>
// CHECK-DAG: applies stablehlo.add across dimensions = [0] : (tensor<4xi32>, tensor<i32>) -> tensor<i32>
// CHECK-DAG: stablehlo.compare GT, {{.*}} : (tensor<i32>, tensor<i32>) -> tensor<i1>
// CHECK-DAG: call @twice({{.*}}) : (tensor<4xi32>) -> tensor<4xi32>
// CHECK-LABEL: func.func private @twice
// CHECK-SAME: (%arg0: tensor<4xi32>) -> tensor<4xi32>
// MHLO-LABEL: func.func @main
// MHLO-SAME: (%arg0: tensor<4xi32>, %arg1: tensor<2xui32>, %arg2: tensor<4xf32>) -> (tensor<i32>, tuple<tensor<2xui32>, tensor<i1>>, tensor<4xi32>)
// MHLO-NOT: xi64>
// MHLO-NOT: tensor<i64>
// MHLO-NOT: xui64>
// MHLO: func.func private @twice
func.func @main(%a: tensor<4xi64>, %u: tensor<2xui64>, %f: tensor<4xf32>) -> (tensor<i64>, tuple<tensor<2xui64>, tensor<i1>>, tensor<4xi64>) {
  %c = stablehlo.constant dense<[1, -2, 3, 2147483647]> : tensor<4xi64>
  %us = stablehlo.constant dense<4294967295> : tensor<2xui64>
  %i = stablehlo.iota dim = 0 : tensor<4xi64>
  %fc = stablehlo.convert %f : (tensor<4xf32>) -> tensor<4xi64>
  %0 = stablehlo.add %a, %c : tensor<4xi64>
  %1 = stablehlo.add %0, %i : tensor<4xi64>
  %2 = stablehlo.add %1, %fc : tensor<4xi64>
  %z = stablehlo.constant dense<0> : tensor<i64>
  %r = stablehlo.reduce(%2 init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
  %cmp = stablehlo.compare GT, %r, %z : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %u2 = stablehlo.and %u, %us : tensor<2xui64>
  %t = stablehlo.tuple %u2, %cmp : tuple<tensor<2xui64>, tensor<i1>>
  %tw = func.call @twice(%2) : (tensor<4xi64>) -> tensor<4xi64>
  return %r, %t, %tw : tensor<i64>, tuple<tensor<2xui64>, tensor<i1>>, tensor<4xi64>
}
func.func private @twice(%x: tensor<4xi64>) -> tensor<4xi64> {
  %0 = stablehlo.add %x, %x : tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// Index attributes are not tensors and stay 64-bit (MHLO keeps its
// dense<...> : tensor<2xi64> permutation); no i64 value: unchanged.
// CHECK-LABEL: func.func @indices_stay
// CHECK-NEXT: stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-NEXT: stablehlo.slice
// MHLO-LABEL: func.func @indices_stay
// MHLO-NEXT: permutation = dense<[1, 0]> : tensor<2xi64>
// MHLO-NEXT: start_indices = dense<0> : tensor<2xi64>
func.func @indices_stay(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %s = stablehlo.slice %t [0:2, 0:2] : (tensor<3x2xf32>) -> tensor<2x2xf32>
  return %s : tensor<2x2xf32>
}

// -----

// Width-dependent ops are narrowed when the value ranges prove the 32-bit
// result equal. JAX's threefry counter: iotas scaled and added stay in
// [0, 63], so its high half (>> 32) is 0 at both widths.
// CHECK-LABEL: func.func @threefry_counter
// CHECK: %[[HI:.*]] = stablehlo.shift_right_logical %{{.*}}, %{{.*}} : tensor<4x16xui32>
// CHECK: stablehlo.convert %[[HI]] : tensor<4x16xui32>
// MHLO-LABEL: func.func @threefry_counter
// MHLO: mhlo.shift_right_logical %{{.*}}, %{{.*}} : tensor<4x16xui32>
func.func @threefry_counter() -> (tensor<4x16xui32>, tensor<4x16xui32>) {
  %c32 = stablehlo.constant dense<32> : tensor<ui64>
  %c1 = stablehlo.constant dense<1> : tensor<ui64>
  %c16 = stablehlo.constant dense<16> : tensor<ui64>
  %i0 = stablehlo.iota dim = 0 : tensor<4x16xui64>
  %i1 = stablehlo.iota dim = 1 : tensor<4x16xui64>
  %b16 = stablehlo.broadcast_in_dim %c16, dims = [] : (tensor<ui64>) -> tensor<4x16xui64>
  %m0 = stablehlo.multiply %b16, %i0 : tensor<4x16xui64>
  %b1 = stablehlo.broadcast_in_dim %c1, dims = [] : (tensor<ui64>) -> tensor<4x16xui64>
  %m1 = stablehlo.multiply %b1, %i1 : tensor<4x16xui64>
  %ctr = stablehlo.add %m0, %m1 : tensor<4x16xui64>
  %b32 = stablehlo.broadcast_in_dim %c32, dims = [] : (tensor<ui64>) -> tensor<4x16xui64>
  %hi = stablehlo.shift_right_logical %ctr, %b32 : tensor<4x16xui64>
  %lo32 = stablehlo.convert %ctr : (tensor<4x16xui64>) -> tensor<4x16xui32>
  %hi32 = stablehlo.convert %hi : (tensor<4x16xui64>) -> tensor<4x16xui32>
  return %hi32, %lo32 : tensor<4x16xui32>, tensor<4x16xui32>
}

// -----

// Each width-dependent op on values proven to fit (converted from 32 bits or
// masked), with its own condition: srl of a non-negative i64; sra of any i64
// in range and of a ui64 below 2^31; shl whose result fits; popcnt of a
// non-negative i64 and of a ui64 from ui32; clz of a negative i64; not of an
// i64 in range.
// CHECK-LABEL: func.func @proven
// CHECK-SAME: (%[[X:.*]]: tensor<4xi32>, %[[U:.*]]: tensor<4xui32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xui32>, tensor<4xi32>, tensor<4xi32>, tensor<4xui32>, tensor<4xi32>, tensor<4xi32>)
// CHECK: %[[XW:.*]] = stablehlo.convert %[[X]] : tensor<4xi32>
// CHECK: %[[UW:.*]] = stablehlo.convert %[[U]] : tensor<4xui32>
// CHECK: %[[NN:.*]] = stablehlo.and %[[XW]], %{{.*}} : tensor<4xi32>
// CHECK: stablehlo.shift_right_logical %[[NN]], %{{.*}} : tensor<4xi32>
// CHECK: stablehlo.shift_right_arithmetic %[[XW]], %{{.*}} : tensor<4xi32>
// CHECK: stablehlo.shift_right_arithmetic %{{.*}}, %{{.*}} : tensor<4xui32>
// CHECK: stablehlo.shift_left %{{.*}}, %{{.*}} : tensor<4xi32>
// CHECK: stablehlo.popcnt %[[NN]] : tensor<4xi32>
// CHECK: stablehlo.popcnt %[[UW]] : tensor<4xui32>
// CHECK: stablehlo.count_leading_zeros %{{.*}} : tensor<4xi32>
// CHECK: stablehlo.not %[[XW]] : tensor<4xi32>
func.func @proven(%x: tensor<4xi32>, %u: tensor<4xui32>) -> (tensor<4xi64>, tensor<4xi64>, tensor<4xui64>, tensor<4xi64>, tensor<4xi64>, tensor<4xui64>, tensor<4xi64>, tensor<4xi64>) {
  %xw = stablehlo.convert %x : (tensor<4xi32>) -> tensor<4xi64>
  %uw = stablehlo.convert %u : (tensor<4xui32>) -> tensor<4xui64>
  %mask = stablehlo.constant dense<65535> : tensor<4xi64>
  %s3 = stablehlo.constant dense<3> : tensor<4xi64>
  %s40 = stablehlo.constant dense<40> : tensor<4xi64>
  %umask = stablehlo.constant dense<1048575> : tensor<4xui64>
  %us = stablehlo.constant dense<5> : tensor<4xui64>
  %neg = stablehlo.constant dense<-2147483648> : tensor<4xi64>
  %nn = stablehlo.and %xw, %mask : tensor<4xi64>
  %0 = stablehlo.shift_right_logical %nn, %s40 : tensor<4xi64>
  %1 = stablehlo.shift_right_arithmetic %xw, %s40 : tensor<4xi64>
  %um = stablehlo.and %uw, %umask : tensor<4xui64>
  %2 = stablehlo.shift_right_arithmetic %um, %us : tensor<4xui64>
  %3 = stablehlo.shift_left %nn, %s3 : tensor<4xi64>
  %4 = stablehlo.popcnt %nn : tensor<4xi64>
  %5 = stablehlo.popcnt %uw : tensor<4xui64>
  %ng = stablehlo.or %xw, %neg : tensor<4xi64>
  %6 = stablehlo.count_leading_zeros %ng : tensor<4xi64>
  %7 = stablehlo.not %xw : tensor<4xi64>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4xi64>, tensor<4xi64>, tensor<4xui64>, tensor<4xi64>, tensor<4xi64>, tensor<4xui64>, tensor<4xi64>, tensor<4xi64>
}

// -----

// A loop-carried value bounded by a mask in the body stays bounded (fixed
// point), so the shift after the loop is proven.
// CHECK-LABEL: func.func @loop_bounded
// CHECK: stablehlo.while{{.*}}tensor<4xui32>
// CHECK: stablehlo.shift_right_logical %{{.*}}, %{{.*}} : tensor<4xui32>
func.func @loop_bounded(%n: tensor<i32>) -> tensor<4xui64> {
  %z = stablehlo.iota dim = 0 : tensor<4xui64>
  %i0 = stablehlo.constant dense<0> : tensor<i32>
  %w:2 = stablehlo.while(%i = %i0, %x = %z) : tensor<i32>, tensor<4xui64>
   cond {
    %c = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    %k = stablehlo.constant dense<7> : tensor<4xui64>
    %m = stablehlo.constant dense<255> : tensor<4xui64>
    %s = stablehlo.add %x, %k : tensor<4xui64>
    %x2 = stablehlo.and %s, %m : tensor<4xui64>
    stablehlo.return %i2, %x2 : tensor<i32>, tensor<4xui64>
  }
  %c4 = stablehlo.constant dense<4> : tensor<4xui64>
  %r = stablehlo.shift_right_logical %w#1, %c4 : tensor<4xui64>
  return %r : tensor<4xui64>
}

// -----

// Out-of-range constants whose every use gets the same result from the
// narrowed value: a 48-bit mask of a bounded value (value mod 2^32), a min with
// INT64_MAX, a clamp to the i64 bounds and a comparison with 2^40 of a
// bounded value (saturated to the 32-bit bounds), broadcast first.
// CHECK-LABEL: func.func @constants_proven
// CHECK-DAG: stablehlo.constant dense<-1> : tensor<4xi32>
// CHECK-DAG: stablehlo.constant dense<2147483647> : tensor<i32>
// CHECK-DAG: stablehlo.constant dense<-2147483648> : tensor<4xi32>
// CHECK-DAG: stablehlo.constant dense<2147483647> : tensor<4xi32>
// CHECK-DAG: stablehlo.constant dense<2147483647> : tensor<4xi32>
// MHLO-LABEL: func.func @constants_proven
// MHLO-SAME: -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi1>)
// MHLO-NOT: {{<[1-9][0-9]*xi64>}}
// MHLO-NOT: tensor<i64>
func.func @constants_proven(%x: tensor<4xi32>) -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi1>) {
  %xw = stablehlo.convert %x : (tensor<4xi32>) -> tensor<4xi64>
  %m48 = stablehlo.constant dense<281474976710655> : tensor<4xi64>
  %big = stablehlo.constant dense<9223372036854775807> : tensor<i64>
  %lo = stablehlo.constant dense<-9223372036854775808> : tensor<4xi64>
  %hi = stablehlo.constant dense<9223372036854775807> : tensor<4xi64>
  %p40 = stablehlo.constant dense<1099511627776> : tensor<4xi64>
  %c255 = stablehlo.constant dense<255> : tensor<4xi64>
  %small = stablehlo.and %xw, %c255 : tensor<4xi64>
  %0 = stablehlo.and %small, %m48 : tensor<4xi64>
  %bb = stablehlo.broadcast_in_dim %big, dims = [] : (tensor<i64>) -> tensor<4xi64>
  %1 = stablehlo.minimum %xw, %bb : tensor<4xi64>
  %2 = stablehlo.clamp %lo, %xw, %hi : tensor<4xi64>
  %3 = stablehlo.compare LT, %small, %p40 : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  return %0, %1, %2, %3 : tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi1>
}

// -----

// Modular uses take the value modulo 2^32: a convert to a narrower integer
// (the low bits are the same), negate (-2^31 fits although 2^31 does not), and
// two out-of-range constants whose difference fits.
// CHECK-LABEL: func.func @constants_modular
// CHECK-DAG: %[[M:.*]] = stablehlo.constant dense<1> : tensor<4xui32>
// CHECK-DAG: stablehlo.convert %[[M]] : (tensor<4xui32>) -> tensor<4xui8>
// CHECK-DAG: %[[P:.*]] = stablehlo.constant dense<-2147483648> : tensor<4xi32>
// CHECK-DAG: stablehlo.negate %[[P]] : tensor<4xi32>
// CHECK-DAG: %[[A:.*]] = stablehlo.constant dense<-1> : tensor<4xi32>
// CHECK-DAG: %[[B:.*]] = stablehlo.constant dense<0> : tensor<4xi32>
// CHECK-DAG: stablehlo.subtract %[[A]], %[[B]] : tensor<4xi32>
func.func @constants_modular() -> (tensor<4xui8>, tensor<4xi64>, tensor<4xi64>) {
  %m = stablehlo.constant dense<4294967297> : tensor<4xui64>
  %0 = stablehlo.convert %m : (tensor<4xui64>) -> tensor<4xui8>
  %p = stablehlo.constant dense<2147483648> : tensor<4xi64>
  %1 = stablehlo.negate %p : tensor<4xi64>
  %n = stablehlo.constant dense<4294967295> : tensor<4xi64>
  %one = stablehlo.constant dense<4294967296> : tensor<4xi64>
  %2 = stablehlo.subtract %n, %one : tensor<4xi64>
  return %0, %1, %2 : tensor<4xui8>, tensor<4xi64>, tensor<4xi64>
}
