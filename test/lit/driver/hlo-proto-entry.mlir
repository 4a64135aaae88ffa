// The HLO-proto entry (seed 004 ConvertHloToMLIR; issue 4 "done when"):
// hilo2penguin on a serialized HloModuleProto, both spines (examples/: runs without ../shared).
// RUN: rm -rf %t && hilo2penguin %examples/decoder_layer.hlo.pb -o %t | FileCheck %s --check-prefix=WROTE
// RUN: %python -c "import ast,sys; ast.parse(open(sys.argv[1]).read())" %t/penguin.py
// RUN: FileCheck %s < %t/penguin.py
// RUN: rm -rf %t.s && hilo2penguin %examples/decoder_layer.hlo.pb -o %t.s --spine stablehlo --preset all
// RUN: FileCheck %s < %t.s/penguin.py
// RUN: printf 'not a proto' > %t.bad.pb && not hilo2penguin %t.bad.pb -o %t.bad 2>&1 | FileCheck %s --check-prefix=BAD

// WROTE: wrote {{.*}}penguin.py
// CHECK: input_0 = {{.*}}.markInput(
// CHECK: input_7 = {{.*}}.markInput(
// CHECK-NOT: input_8 =
// CHECK: .markOutput(
// BAD: error: NCC_DRV001: the input is not a serialized XLA HloModuleProto (a '.pb' file is read as one): its bytes do not parse as that message
