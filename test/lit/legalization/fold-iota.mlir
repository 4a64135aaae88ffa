// RUN: hilo-opt %s --split-input-file --stablehlo-fold-iota | FileCheck %s
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,fold-iota)' | FileCheck %s --check-prefix=MHLO
// RUN: hilo-opt %s --split-input-file --stablehlo-fold-iota --debug 2>&1 >/dev/null | FileCheck %s --check-prefix=DBG

// RoPE inverse frequencies: 10000 ** (iota * -0.25) for iota = 0..3.
// CHECK-LABEL: func.func @rope
// CHECK-NEXT: %[[C:.*]] = stablehlo.constant dense<[1.000000e+00, 1.000000e-01, 0.00999999977, 1.000000e-03]> : tensor<4xf32>
// CHECK-NEXT: return %[[C]]
// MHLO-LABEL: func.func @rope
// MHLO-NEXT: %[[C:.*]] = mhlo.constant dense<[1.000000e+00, 1.000000e-01, 0.00999999977, 1.000000e-03]> : tensor<4xf32>
// MHLO-NEXT: return %[[C]]
func.func @rope() -> tensor<4xf32> {
  %c = stablehlo.constant dense<10000.0> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %i = stablehlo.iota dim = 0 : tensor<4xf32>
  %s = stablehlo.constant dense<-0.25> : tensor<4xf32>
  %m = stablehlo.multiply %i, %s : tensor<4xf32>
  %p = stablehlo.power %b, %m : tensor<4xf32>
  return %p : tensor<4xf32>
}

// -----

// 2-D, iota along dim 1, scale through a broadcast; the shared iota survives.
// CHECK-LABEL: func.func @rope_2d
// CHECK-DAG: stablehlo.constant dense<{{\[\[}}1.000000e+00, 5.000000e-01], [1.000000e+00, 5.000000e-01]]> : tensor<2x2xbf16>
// CHECK-DAG: %[[I:.*]] = stablehlo.iota dim = 1 : tensor<2x2xbf16>
// CHECK-NOT: stablehlo.power
// CHECK: return {{.*}}, %[[I]]
// MHLO-LABEL: func.func @rope_2d
// MHLO-NOT: mhlo.power
// MHLO: return
func.func @rope_2d() -> (tensor<2x2xbf16>, tensor<2x2xbf16>) {
  %c = stablehlo.constant dense<2.0> : tensor<bf16>
  %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<bf16>) -> tensor<2x2xbf16>
  %i = stablehlo.iota dim = 1 : tensor<2x2xbf16>
  %s0 = stablehlo.constant dense<-1.0> : tensor<bf16>
  %s = stablehlo.broadcast_in_dim %s0, dims = [] : (tensor<bf16>) -> tensor<2x2xbf16>
  %m = stablehlo.multiply %i, %s : tensor<2x2xbf16>
  %p = stablehlo.power %b, %m : tensor<2x2xbf16>
  return %p, %i : tensor<2x2xbf16>, tensor<2x2xbf16>
}

// -----

// Rejection 1: the base is not a broadcast_in_dim.
// CHECK-LABEL: func.func @base_not_broadcast
// CHECK: stablehlo.power
// MHLO-LABEL: func.func @base_not_broadcast
// MHLO: mhlo.power
// DBG: [stablehlo-fold-iota] fold-iota: stablehlo.power at {{.*}}: powOp arg0 is not a BroadcastInDimOp
func.func @base_not_broadcast(%x: tensor<4xf32>) -> tensor<4xf32> {
  %i = stablehlo.iota dim = 0 : tensor<4xf32>
  %s = stablehlo.constant dense<-0.25> : tensor<4xf32>
  %m = stablehlo.multiply %i, %s : tensor<4xf32>
  %p = stablehlo.power %x, %m : tensor<4xf32>
  return %p : tensor<4xf32>
}

// -----

// Rejection 2: the exponent is not a multiply.
// CHECK-LABEL: func.func @exp_not_mul
// CHECK: stablehlo.power
// MHLO-LABEL: func.func @exp_not_mul
// MHLO: mhlo.power
// DBG: [stablehlo-fold-iota] fold-iota: stablehlo.power at {{.*}}: powOp arg1 is not a MulOp
func.func @exp_not_mul() -> tensor<4xf32> {
  %c = stablehlo.constant dense<10000.0> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %i = stablehlo.iota dim = 0 : tensor<4xf32>
  %s = stablehlo.constant dense<-0.25> : tensor<4xf32>
  %m = stablehlo.add %i, %s : tensor<4xf32>
  %p = stablehlo.power %b, %m : tensor<4xf32>
  return %p : tensor<4xf32>
}

// -----

// Rejection 3: the multiply's first operand is not an iota (operand order as in the seed).
// CHECK-LABEL: func.func @mul_not_iota
// CHECK: stablehlo.power
// MHLO-LABEL: func.func @mul_not_iota
// MHLO: mhlo.power
// DBG: [stablehlo-fold-iota] fold-iota: stablehlo.power at {{.*}}: mulOp arg0 is not a IotaOp
func.func @mul_not_iota() -> tensor<4xf32> {
  %c = stablehlo.constant dense<10000.0> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %i = stablehlo.iota dim = 0 : tensor<4xf32>
  %s = stablehlo.constant dense<-0.25> : tensor<4xf32>
  %m = stablehlo.multiply %s, %i : tensor<4xf32>
  %p = stablehlo.power %b, %m : tensor<4xf32>
  return %p : tensor<4xf32>
}

// -----

// A non-constant scale is not folded.
// CHECK-LABEL: func.func @scale_not_constant
// CHECK: stablehlo.power
// DBG: [stablehlo-fold-iota] fold-iota: stablehlo.power at {{.*}}: mulOp arg1 is not a constant
func.func @scale_not_constant(%s: tensor<4xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<10000.0> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %i = stablehlo.iota dim = 0 : tensor<4xf32>
  %m = stablehlo.multiply %i, %s : tensor<4xf32>
  %p = stablehlo.power %b, %m : tensor<4xf32>
  return %p : tensor<4xf32>
}
