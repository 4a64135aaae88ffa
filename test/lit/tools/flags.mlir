// Flags as LLVM's cl spells them: no abbreviations, did-you-mean, boolean
// flags with =true/=false that never take the next argument, --version,
// --mlir-disable-threading accepted, --emit-bytecode.
// RUN: not hilo-opt %s --mlir-tim 2>&1 | FileCheck %s --check-prefix=ABBREV
// RUN: not hilo-opt %s --canonicalise 2>&1 | FileCheck %s --check-prefix=PASSFLAG
// RUN: not hilo2penguin %s -o %t --enable-op 2>&1 | FileCheck %s --check-prefix=GATE
// RUN: not hilo2penguin %s -o %t --mlir-print-ir-aft 2>&1 | FileCheck %s --check-prefix=H2P
// RUN: hilo-opt --mlir-timing=false --verify-each=true %s --cse --mlir-disable-threading | FileCheck %s
// RUN: not hilo-opt %s --verify-each=maybe 2>&1 | FileCheck %s --check-prefix=BADBOOL
// RUN: hilo-opt --version | FileCheck %s --check-prefix=VERSION
// RUN: hilo2penguin --version | FileCheck %s --check-prefix=VERSION2
// RUN: hilo-opt %s --cse --emit-bytecode -o %t.mlirbc
// RUN: %python -c "import sys; d = open(sys.argv[1], 'rb').read(); print(d[:4] == b'ML\xefR')" %t.mlirbc | FileCheck %s --check-prefix=MAGIC
// RUN: hilo-opt %t.mlirbc | FileCheck %s
// RUN: not hilo-opt %s --emit-bytecode --pass-pipeline='builtin.module(stablehlo-legalize-to-hlo,mhlo-to-py-penguin)' 2>&1 | FileCheck %s --check-prefix=BCPRINT

// ABBREV: hilo-opt: error: unrecognized arguments: --mlir-tim (did you mean '--mlir-timing'?)
// PASSFLAG: hilo-opt: error: unrecognized arguments: --canonicalise (did you mean '--canonicalize'?)
// GATE: hilo2penguin: error: unrecognized arguments: --enable-op (did you mean '--enable-op-fusion'?)
// H2P: hilo2penguin: error: unrecognized arguments: --mlir-print-ir-aft (did you mean '--mlir-print-ir-after'?)
// CHECK-LABEL: func.func @main
// CHECK: stablehlo.multiply
// BADBOOL: hilo-opt: error: invalid value for --verify-each: 'maybe' is not a boolean (use true or false)
// VERSION: hilo-opt (hilo_mlir {{[0-9.]+.*}})
// VERSION-NEXT: jaxlib {{[0-9.]+}}
// VERSION-NEXT: StableHLO {{[0-9]+\.[0-9]+\.[0-9]+}} (minimum {{[0-9.]+}}, API {{[0-9]+}})
// VERSION2: hilo2penguin (hilo_mlir
// MAGIC: True
// BCPRINT: hilo-opt: error: --emit-bytecode: the pipeline ends in a printer, whose output is a Penguin Python program, not IR

func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  %1 = stablehlo.add %a, %a : tensor<4xf32>
  %2 = stablehlo.multiply %0, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}
