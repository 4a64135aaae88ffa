// hilo-opt output and input forms, as a user of mlir-opt expects.
// Output errors are one line naming the path, exit 1:
// RUN: rm -rf %t && mkdir -p %t/adir && touch %t/afile
// RUN: not hilo-opt %s --cse -o %t/afile/out.mlir 2>&1 | FileCheck %s --check-prefix=NODIR
// RUN: not hilo-opt %s --cse -o %t/adir 2>&1 | FileCheck %s --check-prefix=ISDIR
// RUN: not hilo-opt %s --cse -o %t/missing/out.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not test -e %t/missing
// The written file gets the usual 0666 & ~umask mode (not mkstemp's 0600):
// RUN: sh -c 'umask 022 && hilo-opt %s --cse -o %t/out.mlir' && %python -c "import os,sys; print(oct(os.stat(sys.argv[1]).st_mode & 0o777))" %t/out.mlir | FileCheck %s --check-prefix=MODE
// Pass flags and --pass-pipeline do not mix (as in mlir-opt):
// RUN: not hilo-opt %s --cse --pass-pipeline='builtin.module(canonicalize)' 2>&1 | FileCheck %s --check-prefix=MIX
// MLIR bytecode is accepted as input:
// RUN: %python %S/Inputs/write_bytecode.py %s %t/bc.mlirbc
// RUN: hilo-opt %t/bc.mlirbc --cse | FileCheck %s
// The printer writing to stdout does not append the module:
// RUN: hilo-opt %s --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,mhlo-to-py-penguin{output=-})' | FileCheck %s --check-prefix=PENGUIN

// NODIR: error: cannot write output file '{{.*}}afile/out.mlir': '{{.*}}afile' is not a directory
// ISDIR: error: cannot write output file '{{.*}}adir': is a directory
// MISSING: error: cannot write output file '{{.*}}missing/out.mlir': no such directory
// MODE: 0o644
// MIX: error: --pass-pipeline cannot be combined with individual pass flags (--cse)
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[A:.*]] = stablehlo.add
// CHECK-NEXT: stablehlo.multiply %[[A]], %[[A]]
// PENGUIN: v0.markOutput
// PENGUIN-NOT: module

func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  %1 = stablehlo.add %a, %a : tensor<4xf32>
  %2 = stablehlo.multiply %0, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}
