// RUN: hilo-opt %s --split-input-file --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @first
// CHECK-NOT: stablehlo.add
// CHECK: return %arg0
func.func @first(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----
// CHECK: // -----
// CHECK-LABEL: func.func @second
// CHECK: stablehlo.multiply
func.func @second(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.multiply %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// A chunk that fails does not hide the others (mlir-opt): the good chunks
// print, the bad one reports its error with its line, the exit code is 1,
// and no output file is written.
// RUN: not hilo-opt %S/Inputs/split-bad-chunk.mlir --split-input-file --canonicalize 2>%t.err | FileCheck %s --check-prefix=GOOD
// RUN: FileCheck %s --check-prefix=BAD --input-file=%t.err
// RUN: rm -f %t.out && not hilo-opt %S/Inputs/split-bad-chunk.mlir --split-input-file --canonicalize -o %t.out 2>/dev/null
// RUN: not test -e %t.out
// GOOD: func.func @good_first
// GOOD-NOT: stablehlo.add
// GOOD: // -----
// GOOD-NEXT: // -----
// GOOD-NEXT: module
// GOOD-NEXT: func.func @good_last
// GOOD-NOT: @broken
// BAD: split-bad-chunk.mlir:8:{{[0-9]+}}: error: use of undeclared SSA value name
