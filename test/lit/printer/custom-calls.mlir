// The custom-call table of both printers (docs/penguin_format.md section 8).
// RUN: hilo-opt %s --split-input-file --stablehlo-to-py-penguin=output=- -o /dev/null | FileCheck %s --check-prefixes=CHECK,BOTH
// The MX path (QuantizeMX, the scaled matmul) is StableHLO-only (seed 002 section 3): the MHLO printer refuses it
// with one located error and prints the other splits.
// RUN: not hilo-opt %s --split-input-file --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,mhlo-to-py-penguin{output=-})' -o /dev/null 2> %t.err | FileCheck %s --check-prefix=BOTH
// RUN: FileCheck %s --check-prefix=MHLO < %t.err
// Errors (missing / malformed backend_config, unknown target): errors.mlir.

// CHECK: import neuronxcc.starfish.support as m2
// CHECK: import neuronxcc.starfish.penguin.ir.Intrinsics as m3
// The scaled matmuls: 4*8 result elements x K=64, twice.
// CHECK-LABEL: attrs=('model-type=generic', 'mac-count=4096', 'module=custom_calls'))
// QuantizeMX: the seed's keywords in the seed's order; negative dim normalised, block_size/scale_method
// defaults, a ui32 result with an FP8 dtype -> the x4-packed container dtype of the support module.
// CHECK: [[Q:v[0-9]+]], {{v[0-9]+}} = m3.QuantizeMXTensorOp(srcs=[input_0], dsts=[m1.TensorSpec(shape=(4, 16), dtype=m2.dtype.float8_e4m3fn_x4), m1.TensorSpec(shape=(4, 2), dtype='float8_e8m0fnu')], mx_dtype='float8_e4m3fn', dim=1, block_size=32, scale_method='EMAX', target_name='QuantizeMX', dl=m2.DebugLocation(file='{{.*}}custom-calls.mlir', line={{[0-9]+}}
// CHECK-NEXT: {{v[0-9]+}}, {{v[0-9]+}} = m3.QuantizeMXTensorOp(srcs=[input_0], dsts=[m1.TensorSpec(shape=(4, 64), dtype='float8_e5m2'), m1.TensorSpec(shape=(4, 4), dtype='float8_e8m0fnu')], mx_dtype='float8_e5m2', dim=1, block_size=16, scale_method='FLOOR', target_name='QuantizeMX', dl=
// A dictionary config (api_version = 4) is read the same way.
// CHECK-NEXT: {{v[0-9]+}}, {{v[0-9]+}} = m3.QuantizeMXTensorOp(srcs=[input_0], {{.*}}mx_dtype='float8_e5m2', dim=1, block_size=32, scale_method='EMAX', target_name='QuantizeMX', dl=
// A ui32 result whose dtype is not an FP8 name keeps its own dtype (no error).
// CHECK-NEXT: {{v[0-9]+}}, {{v[0-9]+}} = m3.QuantizeMXTensorOp(srcs=[input_0], dsts=[m1.TensorSpec(shape=(4, 16), dtype='uint32'), {{.*}}mx_dtype='int8', dim=1,
// Scaled matmul: an ordinary DotOp with the four dimension lists then op='mhlo.scaled_dot'; an empty
// config gives the (M,K)x(N,K) defaults.
// CHECK-NEXT: [[D:v[0-9]+]] = m1.DotOp(srcs=[input_0, input_1, input_2, input_3], dsts=[m1.TensorSpec(shape=(4, 8), dtype='float32')], lhs_batch_dimensions=[], rhs_batch_dimensions=[], lhs_contracting_dimensions=[1], rhs_contracting_dimensions=[1], op='mhlo.scaled_dot', element_dtype='float32', xla_op='{{(stablehlo|mhlo)}}.custom_call', dl=
// CHECK-NEXT: [[E:v[0-9]+]] = m1.DotOp(srcs=[input_0, input_1, input_2, input_3], {{.*}}lhs_batch_dimensions=[], rhs_batch_dimensions=[], lhs_contracting_dimensions=[1], rhs_contracting_dimensions=[1], op='mhlo.scaled_dot', element_dtype='float32', xla_op=
// CHECK-NEXT: v0.markOutput([[Q]], index=0,
// CHECK-NEXT: v0.markOutput([[E]], index=1,
// MHLO: custom-calls.mlir:{{[0-9]+}}:10: error: custom_call @QuantizeMX is printed on the StableHLO spine only (the MX path has no MHLO printer); compile with --spine stablehlo (printer stablehlo-to-py-penguin)
// MHLO-NOT: error:
module @custom_calls {
func.func @main(%x: tensor<4x64xf32>, %w: tensor<8x64xf32>, %sx: tensor<4x2xf8E8M0FNU>, %sw: tensor<8x2xf8E8M0FNU>) -> (tensor<4x16xui32>, tensor<4x8xf32>) {
  %q:2 = stablehlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1}"} : (tensor<4x64xf32>) -> (tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>)
  %r:2 = stablehlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e5m2\", \"dim\": 1, \"block_size\": 16, \"scale_method\": \"FLOOR\"}"} : (tensor<4x64xf32>) -> (tensor<4x64xf8E5M2>, tensor<4x4xf8E8M0FNU>)
  %s:2 = stablehlo.custom_call @QuantizeMX(%x) {api_version = 4 : i32, backend_config = {dtype = "float8_e5m2", dim = 1 : i64}} : (tensor<4x64xf32>) -> (tensor<4x64xf8E5M2>, tensor<4x2xf8E8M0FNU>)
  %u:2 = stablehlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"int8\", \"dim\": 1}"} : (tensor<4x64xf32>) -> (tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>)
  %d = stablehlo.custom_call @__op$block_scaled_dot(%x, %w, %sx, %sw) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [1], \"element_dtype\": \"float32\"}}"} : (tensor<4x64xf32>, tensor<8x64xf32>, tensor<4x2xf8E8M0FNU>, tensor<8x2xf8E8M0FNU>) -> tensor<4x8xf32>
  %e = stablehlo.custom_call @__op$block_scaled_dot(%x, %w, %sx, %sw) : (tensor<4x64xf32>, tensor<8x64xf32>, tensor<4x2xf8E8M0FNU>, tensor<8x2xf8E8M0FNU>) -> tensor<4x8xf32>
  return %q#0, %e : tensor<4x16xui32>, tensor<4x8xf32>
}
}


// -----

// BOTH-LABEL: attrs=('model-type=generic', 'mac-count=0', 'module=custom_calls_other'))
// Device print: exactly xla_op='mhlo.device_print' then prefix= the backend_config text.
// BOTH: [[P:v[0-9]+]] = m1.DevicePrintOp(srcs=[input_0], dsts=[m1.TensorSpec(shape=(4, 8), dtype='float32')], xla_op='mhlo.device_print', prefix='scores: ', dl=m2.DebugLocation(
// BOTH-NEXT: [[F:v[0-9]+]] = m1.SoftmaxOp(srcs=[[[P]]], {{.*}}dim=1, target_name='AwsFSPattern5', xla_op='{{(stablehlo|mhlo)}}.custom_call',
// BOTH-NEXT: [[A:v[0-9]+]] = m1.CopyOp(srcs=[[[F]]], {{.*}}target_name='AliasingCopy', xla_op=
// BOTH-NEXT: [[T:v[0-9]+]] = m1.CopyOp(srcs=[[[A]]], {{.*}}target_name='AwsNeuronTransferWithStaticRing', xla_op=
// BOTH-NEXT: [[H:v[0-9]+]] = m1.CopyOp(srcs=[[[T]]], {{.*}}target_name='Sharding', xla_op=
// A dictionary config prints as a Python dict with its integers kept as int.
// BOTH-NEXT: [[C0:v[0-9]+]], [[C1:v[0-9]+]] = m1.ControlDepOp(srcs=[[[H]], input_0, [[A]]], {{.*}}target_name='AwsNeuronControlDep', backend_config={'order': 2, 'tag': 'x'}, xla_op=
// An op without results is a bare call.
// BOTH-NEXT: m1.CheckOp(srcs=[[[C0]], [[C1]]], dsts=[], check='expect_close', target_name='check.expect_close', xla_op=
// BOTH-NEXT: v0.markOutput([[C0]], index=0,
module @custom_calls_other {
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %p = stablehlo.custom_call @AwsNeuronDevicePrint(%x) {backend_config = "scores: ", has_side_effect = true} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %f = stablehlo.custom_call @AwsFSPattern5(%p) {backend_config = "{\"dim\": -1}"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %a = stablehlo.custom_call @AliasingCopy(%f) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %t = stablehlo.custom_call @AwsNeuronTransferWithStaticRing(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %h = stablehlo.custom_call @Sharding(%t) {mhlo.sharding = "{replicated}"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %c:2 = stablehlo.custom_call @AwsNeuronControlDep(%h, %x, %a) {api_version = 4 : i32, backend_config = {order = 2 : i32, tag = "x"}} : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
  stablehlo.custom_call @check.expect_close(%c#0, %c#1) {has_side_effect = true} : (tensor<4x8xf32>, tensor<4x8xf32>) -> ()
  return %c#0 : tensor<4x8xf32>
}
}

// -----

// AliasingCopy as legalize-alias writes it: (value, donated input), result 0 aliases operand 1;
// the one-operand form (tensorizer-legalization's StableHLO copy) is a plain copy.
// BOTH-LABEL: 'module=aliasing'))
// BOTH: [[S:v[0-9]+]] = m1.AddOp(srcs=[input_0, input_0],
// BOTH-NEXT: [[C:v[0-9]+]] = m1.CopyOp(srcs=[[[S]], input_1], dsts=[m1.TensorSpec(shape=(4,), dtype='float32')], target_name='AliasingCopy', output_operand_aliases=[dict(output_tuple_indices=[], operand_index=1, operand_tuple_indices=[])], xla_op=
// BOTH-NEXT: [[D:v[0-9]+]] = m1.CopyOp(srcs=[[[C]]], dsts=[m1.TensorSpec(shape=(4,), dtype='float32')], target_name='AliasingCopy', xla_op=
// BOTH-NEXT: v0.markOutput([[D]], index=0,
module @aliasing {
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  %1 = stablehlo.custom_call @AliasingCopy(%0, %b) {output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>]} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = stablehlo.custom_call @AliasingCopy(%1) : (tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
}

