// Bad input through the hilo2penguin binary (issue 6): one located error line, exit 1,
// no traceback, nothing written; or correct output. Inputs are in Inputs/.
// RUN: rm -rf %t && mkdir -p %t
// RUN: not hilo2penguin %S/Inputs/syntax-error.mlir -o %t/o 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not hilo2penguin %S/Inputs/unknown-dialect.mlir -o %t/o 2>&1 | FileCheck %s --check-prefix=DIALECT
// RUN: not hilo2penguin %S/Inputs/unknown-dialect.mlir -o %t/o --allow-unregistered-dialect 2>&1 | FileCheck %s --check-prefix=ALLOWED
// RUN: not hilo2penguin %S/Inputs/no-main.mlir -o %t/o 2>&1 | FileCheck %s --check-prefix=NOMAIN
// RUN: not hilo2penguin %S/Inputs/two-entries.mlir -o %t/o 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not hilo2penguin %S/Inputs/dynamic-shape.mlir -o %t/o --preset all 2>&1 | FileCheck %s --check-prefix=DYN
// RUN: not hilo2penguin %S/Inputs/dynamic-arg.mlir -o %t/o --spine stablehlo 2>&1 | FileCheck %s --check-prefix=DYNARG
// RUN: not hilo2penguin %S/Inputs/tuple-arg.mlir -o %t/o 2>&1 | FileCheck %s --check-prefix=TUPLE
// RUN: not hilo2penguin %S/Inputs/bad-terminator.mlir -o %t/o 2>&1 | FileCheck %s --check-prefix=TERM
// RUN: not hilo2penguin %S/Inputs/memref-arg.mlir -o %t/o --spine stablehlo 2>&1 | FileCheck %s --check-prefix=MEMREF
// RUN: not hilo2penguin %S/Inputs/quantized.mlir -o %t/o 2>&1 | FileCheck %s --check-prefix=QUANT
// RUN: not hilo2penguin %S/Inputs/complex.mlir -o %t/o --disable-lower-complex 2>&1 | FileCheck %s --check-prefix=COMPLEX
// RUN: not hilo2penguin %S/Inputs/composite-missing.mlir -o %t/o 2>&1 | FileCheck %s --check-prefix=COMPOSITE
// RUN: not hilo2penguin %S/Inputs/sdy-constraint.mlir -o %t/o 2>&1 | FileCheck %s --check-prefix=SDY
// RUN: not hilo2penguin %S/Inputs/custom-call-unknown.mlir -o %t/o 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not hilo2penguin %S/Inputs/not-a-proto.pb -o %t/o 2>&1 | FileCheck %s --check-prefix=PROTO
// RUN: not hilo2penguin %S/Inputs/not-utf8.mlir -o %t/o 2>&1 | FileCheck %s --check-prefix=UTF8
// RUN: not hilo2penguin %S/Inputs/empty.mlir -o %t/o 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not test -e %t/o
// RUN: not hilo2penguin %S/Inputs/sharded.mlir -o %t/sharded --preset all 2>&1 | FileCheck %s --check-prefix=SHARDED
// RUN: not test -e %t/sharded
// RUN: hilo2penguin %S/Inputs/sharded-replicated.mlir -o %t/replicated --preset all | FileCheck %s --check-prefix=WROTE
// RUN: hilo2penguin %S/Inputs/token.mlir -o %t/token --spine stablehlo | FileCheck %s --check-prefix=WROTE
// RUN: hilo2penguin %S/Inputs/barrier-mixed.mlir -o %t/barrier --preset all | FileCheck %s --check-prefix=WROTE

// SYNTAX: syntax-error.mlir:2:24: error: expected ','
// SYNTAX-NOT: Traceback
// DIALECT: unknown-dialect.mlir:2:17: error: operation being parsed with an unregistered dialect (use --allow-unregistered-dialect to accept unknown dialects)
// ALLOWED: unknown-dialect.mlir:2:8: error: 'foo.bar' is not an mhlo/stablehlo op; the Penguin printers cannot emit it
// NOMAIN: no-main.mlir:1:1: error: no 'main' function: the entry function must be named 'main' (found public function @forward)
// TWO: two-entries.mlir:1:1: error: no 'main' and 2 candidate entry functions: @forward ({{.*}}two-entries.mlir:1:1), @backward ({{.*}}two-entries.mlir:4:1); name the entry function 'main'
// DYN: dynamic-shape.mlir:3:8: error: 'stablehlo.convert' op result #0 has dynamic shape tensor<?xf32>: dynamic shapes are not supported
// DYNARG: dynamic-arg.mlir:1:1: error: 'func.func' op @main argument #0 has dynamic shape tensor<?x4xf32>
// TUPLE: tuple-arg.mlir:1:1: error: 'func.func' op entry function @main argument #0 has tuple type tuple<tensor<4xf32>, tensor<2xi32>>: tuple-typed arguments are not supported
// TERM: bad-terminator.mlir:3:3: error: 'mhlo.return' op cannot terminate function @main (expected 'func.return')
// MEMREF: memref-arg.mlir:1:1: error: 'func.func' op @main argument #1 has buffer type memref<2xf32>: memref types are not supported (tensors only)
// QUANT: quantized.mlir:2:75: error: quantized types are not supported (found !quant.uniform<i8:f32, 0.5>)
// COMPLEX: complex.mlir:2:8: error: 'stablehlo.complex' op result #0 has complex element type tensor<4xcomplex<f32>>: complex types need the lower-complex pass (LowerComplex is off; remove --disable-lower-complex)
// COMPOSITE: composite-missing.mlir:2:8: error: 'neuron.Elementwise.impl' does not reference a valid function
// SDY: sdy-constraint.mlir:4:10: error: 'sdy.sharding_constraint' op: Shardy ops are not supported
// SHARDED: sharded.mlir:3:26: error: this module is sharded (argument 0: {devices=[2,1]<=[2]}) but was not partitioned: compile the per-device program instead
// TARGET: custom-call-unknown.mlir:2:8: error: unsupported custom_call target 'my_runtime_hook'
// PROTO: not-a-proto.pb: error: NCC_DRV001: the input is not a serialized XLA HloModuleProto (a '.pb' file is read as one): its bytes do not parse as that message
// UTF8: not-utf8.mlir:2:9: error: input is not valid UTF-8: byte 0xe9 at offset 28
// EMPTY: empty.mlir: error: input file '{{.*}}empty.mlir' is empty
// WROTE: wrote {{.*}}penguin.py
