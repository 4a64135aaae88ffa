// What the printers reject: one error at the op, naming it and the reason (supported.unsupported_reason
// and the emitters); the IR of an accepted module is never changed.
// RUN: hilo-opt %s --split-input-file --verify-diagnostics --stablehlo-to-py-penguin -o /dev/null
// RUN: hilo-opt %s --split-input-file --verify-diagnostics --mhlo-to-py-penguin -o /dev/null
// Error codes (NCC_ISPP054 unknown kind) as hilo2penguin prints them; the MX path's errors: errors-mx.mlir.
// RUN: not hilo2penguin %S/Inputs/unknown-fusion-kind.mlir -o %t 2>&1 | FileCheck %s --check-prefix=ISPP
// ISPP: unknown-fusion-kind.mlir:2:8: error: NCC_ISPP054: unknown FusionKind 'FusedComposite' on 'mhlo.fusion'
// RUN: not hilo2penguin %S/Inputs/unknown-target.mlir -o %t 2>&1 | FileCheck %s --check-prefix=CLI
// CLI: unknown-target.mlir:2:8: error: unsupported custom_call target 'my_kernel'

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{unknown FusionKind 'FusedComposite' on 'mhlo.fusion'}}
  %0 = "mhlo.fusion"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    %e = mhlo.exponential %a : tensor<4xf32>
    mhlo.return %e : tensor<4xf32>
  }) {FusionKind = "FusedComposite"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{unknown FusionKind '' on 'mhlo.fusion'}}
  %0 = "mhlo.fusion"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    %e = mhlo.exponential %a : tensor<4xf32>
    mhlo.return %e : tensor<4xf32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{unknown CompositeKind 'FusedComposite' on 'stablehlo.composite'}}
  %0 = stablehlo.composite "neuron.FusedComposite" %x {decomposition = @impl, CompositeKind = "FusedComposite"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @impl(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{unsupported custom_call target 'my_kernel'}}
  %0 = stablehlo.custom_call @my_kernel(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{custom_call @AwsFSPattern5: backend_config has no 'dim'}}
  %0 = stablehlo.custom_call @AwsFSPattern5(%x) {backend_config = "{}"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'chlo.erf' must be legalized to stablehlo/mhlo before printing}}
  %0 = chlo.erf %x : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error@-1 {{entry argument 0: dynamic shape tensor<?xf32> is not supported}}
  %0 = stablehlo.abs %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @main(%x: tensor<4xf32>, %n: tensor<2xi32>) -> tensor<4xf32> {
  // expected-error@+1 {{'stablehlo.dynamic_broadcast_in_dim': dynamic shapes are not supported by the Penguin printers}}
  %0 = stablehlo.dynamic_broadcast_in_dim %x, %n, dims = [1] : (tensor<4xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  %1 = stablehlo.abs %x : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

func.func @main(%x: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // expected-error@+1 {{'stablehlo.fft': FFT has no Penguin equivalent}}
  %0 = stablehlo.fft %x, type = FFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{recursive call to @f cannot be printed (call chain: @main -> @f -> @f)}}
  %0 = call @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
