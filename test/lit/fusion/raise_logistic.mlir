// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(raise-logistic)' | FileCheck %s
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(raise-logistic,stablehlo-neuron-op-fusion{fuse-dot-logistic=true})' | FileCheck %s --check-prefix=FUSE

// raise-logistic (ours, issue 3): 1/(1+exp(-x)) -> logistic(x), both dialects.

// The jax.nn.silu lowering after a dot: raised, then one 3-op DotLogistic.
// CHECK-LABEL: func.func @silu_stablehlo
// CHECK:      %[[D:.*]] = stablehlo.dot_general
// CHECK-NEXT: %[[L:.*]] = stablehlo.logistic %[[D]] : tensor<4x16xbf16>
// CHECK-NEXT: %[[M:.*]] = stablehlo.multiply %[[D]], %[[L]]
// CHECK-NEXT: return %[[M]]
// FUSE-LABEL: func.func @silu_stablehlo
// FUSE: stablehlo.composite "neuron.DotLogistic" %arg0, %arg1
// FUSE-LABEL: func.func private @neuron.DotLogistic.impl
// FUSE-COUNT-3: stablehlo.
func.func @silu_stablehlo(%x: tensor<4x8xbf16>, %w: tensor<8x16xbf16>) -> tensor<4x16xbf16> {
  %cst = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x8xbf16>, tensor<8x16xbf16>) -> tensor<4x16xbf16>
  %1 = stablehlo.negate %0 : tensor<4x16xbf16>
  %2 = stablehlo.exponential %1 : tensor<4x16xbf16>
  %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<4x16xbf16>
  %4 = stablehlo.add %3, %2 : tensor<4x16xbf16>
  %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<4x16xbf16>
  %6 = stablehlo.divide %5, %4 : tensor<4x16xbf16>
  %7 = stablehlo.multiply %0, %6 : tensor<4x16xbf16>
  return %7 : tensor<4x16xbf16>
}

// -----

// MHLO, add operands in the other order, a full-shape splat constant.
// CHECK-LABEL: func.func @sigmoid_mhlo
// CHECK-NEXT: %[[L:.*]] = mhlo.logistic %arg0 : tensor<4xf32>
// CHECK-NEXT: return %[[L]]
func.func @sigmoid_mhlo(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = mhlo.constant dense<1.000000e+00> : tensor<4xf32>
  %0 = mhlo.negate %x : tensor<4xf32>
  %1 = mhlo.exponential %0 : tensor<4xf32>
  %2 = mhlo.add %1, %one : tensor<4xf32>
  %3 = mhlo.divide %one, %2 : tensor<4xf32>
  return %3 : tensor<4xf32>
}

// -----

// Not the idiom: numerator 2, exp(x) without negate, a shared exp. Left alone.
// CHECK-LABEL: func.func @not_sigmoid
// CHECK-NOT: logistic
func.func @not_sigmoid(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %one = stablehlo.constant dense<1.000000e+00> : tensor<4xf32>
  %two = stablehlo.constant dense<2.000000e+00> : tensor<4xf32>
  %0 = stablehlo.negate %x : tensor<4xf32>
  %1 = stablehlo.exponential %0 : tensor<4xf32>
  %2 = stablehlo.add %one, %1 : tensor<4xf32>
  %3 = stablehlo.divide %two, %2 : tensor<4xf32>
  %4 = stablehlo.exponential %x : tensor<4xf32>
  %5 = stablehlo.add %one, %4 : tensor<4xf32>
  %6 = stablehlo.divide %one, %5 : tensor<4xf32>
  %7 = stablehlo.negate %x : tensor<4xf32>
  %8 = stablehlo.exponential %7 : tensor<4xf32>
  %9 = stablehlo.add %one, %8 : tensor<4xf32>
  %10 = stablehlo.divide %one, %9 : tensor<4xf32>
  return %3, %6, %10, %8 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// The numerator is a broadcast of the very constant the add uses: erasing the
// broadcast's dead chain erases that constant too (it must not be touched again).
// CHECK-LABEL: func.func @shared_one_through_broadcast
// CHECK-NEXT:    %[[L:.*]] = mhlo.logistic %arg0 : tensor<4xf32>
// CHECK-NEXT:    return %[[L]]
func.func @shared_one_through_broadcast(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = mhlo.constant dense<1.0> : tensor<4xf32>
  %b = "mhlo.broadcast_in_dim"(%c) {broadcast_dimensions = dense<[0]> : tensor<1xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  %n = mhlo.negate %x : tensor<4xf32>
  %e = mhlo.exponential %n : tensor<4xf32>
  %a = mhlo.add %c, %e : tensor<4xf32>
  %d = mhlo.divide %b, %a : tensor<4xf32>
  return %d : tensor<4xf32>
}
