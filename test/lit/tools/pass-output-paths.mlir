// Pass options that write files follow -o's rule: a missing directory is an
// error naming the path (never created), exit 1.
// RUN: rm -rf %t && mkdir -p %t
// RUN: not hilo-opt %s --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,mhlo-to-py-penguin{output=%t/missing/penguin.py})' 2>&1 | FileCheck %s --check-prefix=PRINTER
// RUN: not test -e %t/missing
// RUN: not hilo-opt %s --pass-pipeline='builtin.module(mlir-instruction-histogram{output=%t/missing/h.txt})' 2>&1 | FileCheck %s --check-prefix=HIST
// RUN: not test -e %t/missing
// RUN: hilo-opt %s --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,mhlo-to-py-penguin{output=%t/penguin.py})' -o /dev/null
// RUN: FileCheck %s --check-prefix=WRITTEN < %t/penguin.py

// PRINTER: error: cannot write output file '{{.*}}missing/penguin.py': no such directory
// HIST: error: cannot write output file '{{.*}}missing/h.txt': no such directory
// WRITTEN: v0.markOutput(

func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
