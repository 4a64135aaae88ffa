// The MX path (QuantizeMX, the scaled matmul) is printed on the StableHLO spine only (seed 002 section 3:
// "genuinely StableHLO-exclusive output", "There is no MHLO twin for this path").
// The StableHLO printer's errors, one at the op:
// RUN: hilo-opt %s --split-input-file --verify-diagnostics --stablehlo-to-py-penguin -o /dev/null
// The MHLO printer refuses each of them with one error naming the StableHLO spine:
// RUN: not hilo-opt %s --split-input-file --mhlo-to-py-penguin -o /dev/null 2>&1 | FileCheck %s --check-prefix=MHLO
// MHLO: errors-mx.mlir:{{[0-9]+}}:10: error: custom_call @QuantizeMX is printed on the StableHLO spine only (the MX path has no MHLO printer); compile with --spine stablehlo (printer stablehlo-to-py-penguin)
// MHLO: errors-mx.mlir:{{[0-9]+}}:10: error: custom_call @QuantizeMX is printed on the StableHLO spine only
// MHLO: errors-mx.mlir:{{[0-9]+}}:8: error: custom_call @__op$block_scaled_dot is printed on the StableHLO spine only
// Error codes (NCC_EVRF036 backend_config) as hilo2penguin prints them on the StableHLO spine:
// RUN: not hilo2penguin %S/Inputs/quantize-mx-no-config.mlir --spine stablehlo -o %t 2>&1 | FileCheck %s --check-prefix=EVRF
// EVRF: quantize-mx-no-config.mlir:2:10: error: NCC_EVRF036: custom_call @QuantizeMX: backend_config is missing
// RUN: not hilo2penguin %S/Inputs/quantize-mx-bad-json.mlir --spine stablehlo -o %t 2>&1 | FileCheck %s --check-prefix=JSON
// JSON: quantize-mx-bad-json.mlir:2:10: error: NCC_EVRF036: custom_call @QuantizeMX: malformed JSON backend_config (Expecting ',' delimiter: line 1 column 15 (char 14))
// On the MHLO spine (the default) the spine is the first error, found before any pass of the spine runs
// (the only IR dump is the one before the import step; no output): the printability check, in the
// import step, asks the spine's printer.
// RUN: rm -rf %t.d && not hilo2penguin %S/Inputs/quantize-mx-bad-json.mlir -o %t.d --mlir-print-ir-before-all 2>&1 | FileCheck %s --check-prefix=SPINE
// RUN: not test -e %t.d/penguin.py
// SPINE: IR Dump Before HiloImport: hilo-import
// SPINE-NOT: IR Dump
// SPINE: quantize-mx-bad-json.mlir:2:10: error: custom_call @QuantizeMX is printed on the StableHLO spine only (the MX path has no MHLO printer); compile with --spine stablehlo (printer stablehlo-to-py-penguin)
// SPINE-NOT: error:
// SPINE-NOT: IR Dump

func.func @main(%x: tensor<4xf32>) -> tensor<1xui32> {
  // expected-error@+1 {{custom_call @QuantizeMX: backend_config is missing}}
  %0:2 = stablehlo.custom_call @QuantizeMX(%x) : (tensor<4xf32>) -> (tensor<1xui32>, tensor<1xf8E8M0FNU>)
  return %0#0 : tensor<1xui32>
}

// -----
func.func @main(%x: tensor<4x32xf32>) -> tensor<4x8xui32> {
  // expected-error@+1 {{custom_call @QuantizeMX: dim 2 is out of range for rank 2}}
  %0:2 = stablehlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e5m2\", \"dim\": 2}"} : (tensor<4x32xf32>) -> (tensor<4x8xui32>, tensor<4x1xf8E8M0FNU>)
  return %0#0 : tensor<4x8xui32>
}

// -----
func.func @main(%x: tensor<4x64xf32>, %w: tensor<8x64xf32>, %sx: tensor<4x2xf8E8M0FNU>, %sw: tensor<8x2xf8E8M0FNU>) -> tensor<4x8xf32> {
  // expected-error@+1 {{custom_call @__op$block_scaled_dot: lhs_contracting_dimensions [2] is out of range for rank 2}}
  %d = stablehlo.custom_call @__op$block_scaled_dot(%x, %w, %sx, %sw) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_contracting_dimensions\": [2]}}"} : (tensor<4x64xf32>, tensor<8x64xf32>, tensor<4x2xf8E8M0FNU>, tensor<8x2xf8E8M0FNU>) -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}
