// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(neuron-op-fusion{general-elementwise-fusion=true})' | FileCheck %s
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(neuron-op-fusion)' | FileCheck %s --check-prefix=OFF

// fuseSubExp (always on), fuseExpm1Op, fuseLog1pOp: seed 000; DESIGN.md decision 1.

// The 8-op log-add-exp tree max(a,b) + log(exp(a-max) + exp(b-max)): one
// Elementwise fusion, even with the gates off.
// CHECK-LABEL: func.func @log_add_exp
// CHECK:      %[[F:.*]] = "mhlo.fusion"(%arg0, %arg1) ({
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>):
// CHECK-NEXT:   %[[M:.*]] = mhlo.maximum %[[A]], %[[B]]
// CHECK-NEXT:   %[[S1:.*]] = mhlo.subtract %[[A]], %[[M]]
// CHECK-NEXT:   %[[E1:.*]] = mhlo.exponential %[[S1]]
// CHECK-NEXT:   %[[S2:.*]] = mhlo.subtract %[[B]], %[[M]]
// CHECK-NEXT:   %[[E2:.*]] = mhlo.exponential %[[S2]]
// CHECK-NEXT:   %[[I:.*]] = mhlo.add %[[E1]], %[[E2]]
// CHECK-NEXT:   %[[L:.*]] = mhlo.log %[[I]]
// CHECK-NEXT:   %[[R:.*]] = mhlo.add %[[M]], %[[L]]
// CHECK-NEXT:   mhlo.return %[[R]]
// CHECK-NEXT: }) {FusionKind = "Elementwise"}
// CHECK-NEXT: return %[[F]]
// OFF-LABEL: func.func @log_add_exp
// OFF: {FusionKind = "Elementwise"}
func.func @log_add_exp(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %m = mhlo.maximum %a, %b : tensor<8xf32>
  %s1 = mhlo.subtract %a, %m : tensor<8xf32>
  %e1 = mhlo.exponential %s1 : tensor<8xf32>
  %s2 = mhlo.subtract %b, %m : tensor<8xf32>
  %e2 = mhlo.exponential %s2 : tensor<8xf32>
  %i = mhlo.add %e1, %e2 : tensor<8xf32>
  %l = mhlo.log %i : tensor<8xf32>
  %r = mhlo.add %m, %l : tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// The other operand order of both adds (log first in the root, exp(b-max) first inside).
// CHECK-LABEL: func.func @log_add_exp_swapped
// CHECK:      "mhlo.fusion"(%arg0, %arg1)
// CHECK-COUNT-2: mhlo.exponential
// CHECK:      mhlo.return
// CHECK-NEXT: }) {FusionKind = "Elementwise"}
// CHECK-NOT:  mhlo.log
func.func @log_add_exp_swapped(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %m = mhlo.maximum %a, %b : tensor<8xf32>
  %s2 = mhlo.subtract %b, %m : tensor<8xf32>
  %e2 = mhlo.exponential %s2 : tensor<8xf32>
  %s1 = mhlo.subtract %a, %m : tensor<8xf32>
  %e1 = mhlo.exponential %s1 : tensor<8xf32>
  %i = mhlo.add %e2, %e1 : tensor<8xf32>
  %l = mhlo.log %i : tensor<8xf32>
  %r = mhlo.add %l, %m : tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// exp(a-max) has a second user: the seed's hasOneUse gate fails, no fusion.
// CHECK-LABEL: func.func @log_add_exp_exp_escapes
// CHECK-NOT: mhlo.fusion
func.func @log_add_exp_exp_escapes(%a: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %m = mhlo.maximum %a, %b : tensor<8xf32>
  %s1 = mhlo.subtract %a, %m : tensor<8xf32>
  %e1 = mhlo.exponential %s1 : tensor<8xf32>
  %s2 = mhlo.subtract %b, %m : tensor<8xf32>
  %e2 = mhlo.exponential %s2 : tensor<8xf32>
  %i = mhlo.add %e1, %e2 : tensor<8xf32>
  %l = mhlo.log %i : tensor<8xf32>
  %r = mhlo.add %m, %l : tensor<8xf32>
  return %r, %e1 : tensor<8xf32>, tensor<8xf32>
}

// -----

// What jnp.logaddexp really lowers to (log1p + select): not the 8-op tree, no
// SubExp fusion (only the Log1p expansion, under its gate).
// CHECK-LABEL: func.func @jnp_logaddexp
// CHECK-NOT: FusionKind = "Elementwise"
// CHECK: {FusionKind = "Log1p"}
// CHECK-NOT: FusionKind = "Elementwise"
// OFF-LABEL: func.func @jnp_logaddexp
// OFF-NOT: mhlo.fusion
func.func @jnp_logaddexp(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %0 = mhlo.maximum %x, %y : tensor<8xf32>
  %1 = mhlo.subtract %x, %y : tensor<8xf32>
  %2 = mhlo.compare NE, %1, %1, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
  %3 = mhlo.add %x, %y : tensor<8xf32>
  %4 = mhlo.abs %1 : tensor<8xf32>
  %5 = mhlo.negate %4 : tensor<8xf32>
  %6 = mhlo.exponential %5 : tensor<8xf32>
  %7 = mhlo.log_plus_one %6 : tensor<8xf32>
  %8 = mhlo.add %0, %7 : tensor<8xf32>
  %9 = mhlo.select %2, %3, %8 : tensor<8xi1>, tensor<8xf32>
  return %9 : tensor<8xf32>
}

// -----

// expm1 in bf16: exp(x) - 1.0 with the 1.0 splat in bf16 itself (no convert).
// CHECK-LABEL: func.func @expm1_bf16
// CHECK:      %[[F:.*]] = "mhlo.fusion"(%arg0) ({
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<4xbf16>):
// CHECK-NEXT:   %[[C:.*]] = mhlo.constant dense<1.000000e+00> : tensor<4xbf16>
// CHECK-NEXT:   %[[E:.*]] = mhlo.exponential %[[X]] : tensor<4xbf16>
// CHECK-NEXT:   %[[S:.*]] = mhlo.subtract %[[E]], %[[C]] : tensor<4xbf16>
// CHECK-NEXT:   mhlo.return %[[S]]
// CHECK-NEXT: }) {FusionKind = "Expm1"}
// CHECK-NOT: mhlo.convert
// CHECK-NOT: exponential_minus_one
// OFF-LABEL: func.func @expm1_bf16
// OFF: mhlo.exponential_minus_one
func.func @expm1_bf16(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = mhlo.exponential_minus_one %x : tensor<4xbf16>
  %1 = mhlo.negate %0 : tensor<4xbf16>
  return %1 : tensor<4xbf16>
}

// -----

// CHECK-LABEL: func.func @expm1_f16
// CHECK: mhlo.constant dense<1.000000e+00> : tensor<2x3xf16>
// CHECK: {FusionKind = "Expm1"}
func.func @expm1_f16(%x: tensor<2x3xf16>) -> tensor<2x3xf16> {
  %0 = mhlo.exponential_minus_one %x : tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}

// -----

// CHECK-LABEL: func.func @expm1_f32
// CHECK: mhlo.constant dense<1.000000e+00> : tensor<f32>
// CHECK: {FusionKind = "Expm1"}
func.func @expm1_f32(%x: tensor<f32>) -> tensor<f32> {
  %0 = mhlo.exponential_minus_one %x : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// log1p in bf16: log(x + 1.0), 1.0 in bf16.
// CHECK-LABEL: func.func @log1p_bf16
// CHECK:      "mhlo.fusion"(%arg0) ({
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<4xbf16>):
// CHECK-NEXT:   %[[C:.*]] = mhlo.constant dense<1.000000e+00> : tensor<4xbf16>
// CHECK-NEXT:   %[[A:.*]] = mhlo.add %[[X]], %[[C]] : tensor<4xbf16>
// CHECK-NEXT:   %[[L:.*]] = mhlo.log %[[A]] : tensor<4xbf16>
// CHECK-NEXT:   mhlo.return %[[L]]
// CHECK-NEXT: }) {FusionKind = "Log1p"}
// CHECK-NOT: log_plus_one
func.func @log1p_bf16(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = mhlo.log_plus_one %x : tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// CHECK-LABEL: func.func @log1p_f16
// CHECK: mhlo.constant dense<1.000000e+00> : tensor<3xf16>
// CHECK: {FusionKind = "Log1p"}
func.func @log1p_f16(%x: tensor<3xf16>) -> tensor<3xf16> {
  %0 = mhlo.log_plus_one %x : tensor<3xf16>
  return %0 : tensor<3xf16>
}

// -----

// CHECK-LABEL: func.func @log1p_f32
// CHECK: mhlo.constant dense<1.000000e+00> : tensor<3xf32>
// CHECK: {FusionKind = "Log1p"}
func.func @log1p_f32(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = mhlo.log_plus_one %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Two uses: hasOneUse fails, the expm1 stays. A complex log1p is not a float: stays.
// CHECK-LABEL: func.func @expm1_two_uses
// CHECK-NOT: mhlo.fusion
// CHECK: mhlo.exponential_minus_one
// CHECK: mhlo.log_plus_one {{.*}} : tensor<2xcomplex<f32>>
func.func @expm1_two_uses(%x: tensor<4xf32>, %z: tensor<2xcomplex<f32>>) -> (tensor<4xf32>, tensor<4xf32>, tensor<2xcomplex<f32>>) {
  %0 = mhlo.exponential_minus_one %x : tensor<4xf32>
  %1 = mhlo.negate %0 : tensor<4xf32>
  %2 = mhlo.log_plus_one %z : tensor<2xcomplex<f32>>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<2xcomplex<f32>>
}
