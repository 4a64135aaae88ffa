// The issue-2 "done when": stablehlo -> mhlo + canonicalize prints mhlo that parses again.
// RUN: hilo-opt %examples/decoder_layer.stablehlo.mlir --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,canonicalize)' > %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: hilo-opt %t.mlir | FileCheck %s

// CHECK-LABEL: func.func public @main
// CHECK-NOT: stablehlo.
// CHECK: mhlo.dot_general
// CHECK: return
