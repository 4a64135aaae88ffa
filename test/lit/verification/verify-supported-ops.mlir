// RUN: hilo-opt %s --split-input-file --verify-diagnostics --verify-supported-ops | FileCheck %s
// RUN: hilo-opt %s --split-input-file --verify-diagnostics --stablehlo-verify-supported-ops | FileCheck %s
// RUN: not hilo-opt %s --split-input-file --verify-supported-ops 2>&1 | FileCheck %s --check-prefix=ERR

// Everything printable: the IR is left exactly as it was.
// CHECK-LABEL: func.func @ok
// CHECK-NEXT: mhlo.add %arg0, %arg0
// CHECK-NEXT: mhlo.custom_call @AwsFSPattern5(%{{.*}})
// CHECK-NEXT: stablehlo.multiply
// CHECK-NEXT: return
func.func @ok(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = mhlo.add %a, %a : tensor<4x8xf32>
  %1 = mhlo.custom_call @AwsFSPattern5(%0) {backend_config = "{\"dim\": 1}"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = stablehlo.multiply %1, %1 : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// One error per op, each at its own location; nested ops are checked too.
func.func @bad(%a: tensor<4xf32>, %t: tensor<2xui32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  // expected-error@+1 {{'mhlo.custom_call' op cannot be emitted by the Penguin printer: unsupported custom_call target 'MyKernel'}}
  %0 = mhlo.custom_call @MyKernel(%a) : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error@+1 {{'stablehlo.rng_bit_generator' op cannot be emitted by the Penguin printer}}
  %s, %1 = stablehlo.rng_bit_generator %t, algorithm = DEFAULT : (tensor<2xui32>) -> (tensor<2xui32>, tensor<4xf32>)
  %2 = "mhlo.fusion"(%a) ({
  ^bb0(%x: tensor<4xf32>):
    // expected-error@+1 {{'chlo.erf_inv' op cannot be emitted by the Penguin printer: 'chlo.erf_inv' must be legalized}}
    %e = chlo.erf_inv %x : tensor<4xf32> -> tensor<4xf32>
    mhlo.return %e : tensor<4xf32>
  }) {FusionKind = "Elementwise"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// ERR: verify-supported-ops.mlir:23:8: error: 'mhlo.custom_call' op cannot be emitted by the Penguin printer: unsupported custom_call target 'MyKernel'
// ERR: verify-supported-ops.mlir:25:12: error: 'stablehlo.rng_bit_generator' op cannot be emitted by the Penguin printer

// -----

func.func @dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error@+1 {{dynamic shape tensor<?xf32> is not supported}}
  %0 = stablehlo.abs %a : tensor<?xf32>
  // expected-error@+1 {{'func.return' operand: dynamic shape}}
  return %0 : tensor<?xf32>
}
