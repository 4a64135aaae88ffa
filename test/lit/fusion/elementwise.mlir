// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(neuron-op-fusion{general-elementwise-fusion=true})' | FileCheck %s
// RUN: hilo-opt %s --split-input-file --pass-pipeline='builtin.module(neuron-op-fusion)' | FileCheck %s --check-prefix=OFF

// fuseElementwiseOps, seed 000: reduce/concatenate seeds, upward growth under
// R2 (boundaries), R3 (is_elementwise_op, decision 3), R4 (all users inside).

// A concatenate seed absorbs its elementwise producers; the broadcast of the
// constant is a boundary and stays a live-in producer.
// CHECK-LABEL: func.func @concat_seed
// CHECK:      %[[BC:.*]] = "mhlo.broadcast_in_dim"
// CHECK-NEXT: %[[F:.*]] = "mhlo.fusion"(%arg0, %[[BC]], %arg1) ({
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<4x16xf32>, %[[C:.*]]: tensor<4x16xf32>, %[[Y:.*]]: tensor<4x16xf32>):
// CHECK-NEXT:   %[[M:.*]] = mhlo.multiply %[[X]], %[[C]]
// CHECK-NEXT:   %[[E:.*]] = mhlo.exponential %[[Y]]
// CHECK-NEXT:   %[[K:.*]] = "mhlo.concatenate"(%[[M]], %[[E]])
// CHECK-NEXT:   mhlo.return %[[K]]
// CHECK-NEXT: }) {FusionKind = "Elementwise"}
// CHECK-NEXT: mhlo.tanh %[[F]]
// OFF-LABEL: func.func @concat_seed
// OFF-NOT: mhlo.fusion
func.func @concat_seed(%a: tensor<4x16xf32>, %b: tensor<4x16xf32>) -> tensor<4x32xf32> {
  %cst = mhlo.constant dense<2.000000e+00> : tensor<f32>
  %0 = "mhlo.broadcast_in_dim"(%cst) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>) -> tensor<4x16xf32>
  %1 = mhlo.multiply %a, %0 : tensor<4x16xf32>
  %2 = mhlo.exponential %b : tensor<4x16xf32>
  %3 = "mhlo.concatenate"(%1, %2) {dimension = 1 : i64} : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x32xf32>
  %4 = mhlo.tanh %3 : tensor<4x32xf32>
  return %4 : tensor<4x32xf32>
}

// -----

// R4: e = exponential feeds the reduce and a negate that sits between e and the
// reduce; e stays outside, only its single-use consumer chain is absorbed.
// CHECK-LABEL: func.func @r4_user_outside
// OFF-LABEL: func.func @r4_user_outside
// CHECK:      %[[E:.*]] = mhlo.exponential %arg0
// CHECK-NEXT: %[[N:.*]] = mhlo.negate %[[E]]
// CHECK:      %[[F:.*]] = "mhlo.fusion"(%[[E]], %{{.*}}) ({
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<4x8xf32>, %[[I:.*]]: tensor<f32>):
// CHECK-NEXT:   %[[S:.*]] = mhlo.sqrt %[[A]]
// CHECK-NEXT:   mhlo.reduce(%[[S]] init: %[[I]])
// CHECK:      }) {FusionKind = "Elementwise"}
// CHECK-NEXT: return %[[F]], %[[N]]
func.func @r4_user_outside(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
  %e = mhlo.exponential %x : tensor<4x8xf32>
  %n = mhlo.negate %e : tensor<4x8xf32>
  %s = mhlo.sqrt %e : tensor<4x8xf32>
  %z = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %r = mhlo.reduce(%s init: %z) applies mhlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  return %r, %n : tensor<4xf32>, tensor<4x8xf32>
}

// -----

// e = exponential(x) is used inside a branch of a case and by the reduce: the
// user's ancestor in the block is the case, which is outside, so e stays out.
// CHECK-LABEL: func.func @user_in_case_region
// CHECK:      %[[E:.*]] = mhlo.exponential %arg0
// CHECK:      "mhlo.fusion"(%[[E]], %{{.*}}) ({
// CHECK-NOT:    mhlo.exponential
// CHECK:        mhlo.reduce
// CHECK:      }) {FusionKind = "Elementwise"}
// CHECK:      "mhlo.case"(%arg1)
// CHECK:        mhlo.negate %[[E]]
func.func @user_in_case_region(%x: tensor<4x8xf32>, %i: tensor<i32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
  %e = mhlo.exponential %x : tensor<4x8xf32>
  %z = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %r = mhlo.reduce(%e init: %z) applies mhlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %c = "mhlo.case"(%i) ({
    %n = mhlo.negate %e : tensor<4x8xf32>
    mhlo.return %n : tensor<4x8xf32>
  }, {
    mhlo.return %x : tensor<4x8xf32>
  }) : (tensor<i32>) -> tensor<4x8xf32>
  return %r, %c : tensor<4xf32>, tensor<4x8xf32>
}

// -----

// transpose / broadcast_in_dim / slice / reshape / concatenate between
// elementwise ops and a reduce seed are boundaries (R2): they and everything
// above them stay outside as live-in producers.
// CHECK-LABEL: func.func @boundaries
// CHECK:      %[[T:.*]] = "mhlo.transpose"
// CHECK:      %[[B:.*]] = "mhlo.broadcast_in_dim"
// CHECK:      %[[S:.*]] = "mhlo.slice"
// CHECK:      %[[R:.*]] = mhlo.reshape
// The concatenate is itself a seed; its producers are arguments: a one-op cluster.
// CHECK:      %[[K:.*]] = "mhlo.fusion"(%arg4) ({
// CHECK-NEXT: ^bb0(
// CHECK-NEXT:   "mhlo.concatenate"
// CHECK-NEXT:   mhlo.return
// CHECK-NEXT: }) {FusionKind = "Elementwise"}
// CHECK:      "mhlo.fusion"(%[[T]], %[[B]], %[[S]], %[[R]], %[[K]], %{{.*}}) ({
// CHECK-NEXT: ^bb0(
// CHECK-NEXT:   mhlo.add
// CHECK-NEXT:   mhlo.add
// CHECK-NEXT:   mhlo.add
// CHECK-NEXT:   mhlo.add
// CHECK-NEXT:   mhlo.reduce
// CHECK:      }) {FusionKind = "Elementwise"}
// CHECK-NOT:  mhlo.exponential
// CHECK-NOT:  mhlo.negate
func.func @boundaries(%x: tensor<8x4xf32>, %v: tensor<4xf32>, %w: tensor<4x16xf32>, %q: tensor<32xf32>, %p: tensor<4x4xf32>) -> tensor<4xf32> {
  %e = mhlo.exponential %x : tensor<8x4xf32>
  %t = "mhlo.transpose"(%e) {permutation = dense<[1, 0]> : tensor<2xi64>} : (tensor<8x4xf32>) -> tensor<4x8xf32>
  %n = mhlo.negate %v : tensor<4xf32>
  %b = "mhlo.broadcast_in_dim"(%n) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<4xf32>) -> tensor<4x8xf32>
  %a = mhlo.abs %w : tensor<4x16xf32>
  %s = "mhlo.slice"(%a) {start_indices = dense<[0, 0]> : tensor<2xi64>, limit_indices = dense<[4, 8]> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} : (tensor<4x16xf32>) -> tensor<4x8xf32>
  %f = mhlo.floor %q : tensor<32xf32>
  %r = mhlo.reshape %f : (tensor<32xf32>) -> tensor<4x8xf32>
  %k = "mhlo.concatenate"(%p, %p) {dimension = 1 : i64} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x8xf32>
  %0 = mhlo.add %t, %b : tensor<4x8xf32>
  %1 = mhlo.add %0, %s : tensor<4x8xf32>
  %2 = mhlo.add %1, %r : tensor<4x8xf32>
  %3 = mhlo.add %2, %k : tensor<4x8xf32>
  %z = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %red = mhlo.reduce(%3 init: %z) applies mhlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  return %red : tensor<4xf32>
}

// -----

// A reduce inside an existing fusion is not re-seeded; the fusion is untouched.
// CHECK-LABEL: func.func @inside_existing_fusion
// CHECK:      "mhlo.fusion"(%arg0) ({
// CHECK-NEXT: ^bb0(
// CHECK-NEXT:   mhlo.exponential
// CHECK-NEXT:   mhlo.constant
// CHECK-NEXT:   mhlo.reduce
// CHECK:      }) {FusionKind = "Custom"}
// CHECK-NOT:  mhlo.fusion
func.func @inside_existing_fusion(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = "mhlo.fusion"(%x) ({
  ^bb0(%a: tensor<4x8xf32>):
    %e = mhlo.exponential %a : tensor<4x8xf32>
    %z = mhlo.constant dense<0.000000e+00> : tensor<f32>
    %r = mhlo.reduce(%e init: %z) applies mhlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
    mhlo.return %r : tensor<4xf32>
  }) {FusionKind = "Custom"} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Decision 4: a reduce seed whose input is a multiply inside the cluster gives MulRedSqrt.
// CHECK-LABEL: func.func @reduce_of_multiply
// CHECK:      "mhlo.fusion"(%arg0, %arg1, %{{.*}}) ({
// CHECK-NEXT: ^bb0(
// CHECK-NEXT:   mhlo.multiply
// CHECK-NEXT:   mhlo.reduce
// CHECK:      }) {FusionKind = "MulRedSqrt"}
func.func @reduce_of_multiply(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4xf32> {
  %m = mhlo.multiply %x, %y : tensor<4x8xf32>
  %z = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %r = mhlo.reduce(%m init: %z) applies mhlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Softmax: exp(x - max) feeds the sum and the divide (R4 fails), so both
// reduces become one-op Elementwise clusters; nothing else moves in.
// CHECK-LABEL: func.func @softmax
// CHECK:      "mhlo.fusion"(%arg0, %{{.*}}) ({
// CHECK-NEXT: ^bb0(
// CHECK-NEXT:   mhlo.reduce
// CHECK:      }) {FusionKind = "Elementwise"}
// CHECK:      %[[E:.*]] = mhlo.exponential
// CHECK:      "mhlo.fusion"(%[[E]], %{{.*}}) ({
// CHECK-NEXT: ^bb0(
// CHECK-NEXT:   mhlo.reduce
// CHECK:      }) {FusionKind = "Elementwise"}
// CHECK:      mhlo.divide %[[E]]
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %ninf = mhlo.constant dense<0xFF800000> : tensor<f32>
  %zero = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %m = mhlo.reduce(%x init: %ninf) applies mhlo.maximum across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %mb = "mhlo.broadcast_in_dim"(%m) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<4xf32>) -> tensor<4x8xf32>
  %d = mhlo.subtract %x, %mb : tensor<4x8xf32>
  %e = mhlo.exponential %d : tensor<4x8xf32>
  %s = mhlo.reduce(%e init: %zero) applies mhlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %sb = "mhlo.broadcast_in_dim"(%s) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<4xf32>) -> tensor<4x8xf32>
  %r = mhlo.divide %e, %sb : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// A function with no reduce or concatenate: nothing to seed.
// CHECK-LABEL: func.func @no_seed
// CHECK-NOT: mhlo.fusion
func.func @no_seed(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = mhlo.exponential %x : tensor<4x8xf32>
  %1 = mhlo.negate %0 : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
