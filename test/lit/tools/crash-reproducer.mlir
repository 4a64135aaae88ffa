// --mlir-pass-pipeline-crash-reproducer: when a pass fails, the IR as it was
// before that pass (with locations) followed by MLIR's mlir_reproducer resource;
// hilo-opt --run-reproducer replays it and fails the same way.
// RUN: rm -rf %t && mkdir -p %t
// RUN: not hilo-opt %s --pass-pipeline='builtin.module(func.func(cse),call-inliner,canonicalize)' --mlir-pass-pipeline-crash-reproducer=%t/repro.mlir 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: FileCheck %s --check-prefix=REPRO < %t/repro.mlir
// RUN: not hilo-opt %t/repro.mlir --run-reproducer 2>&1 | FileCheck %s --check-prefix=REPLAY
// The reproducer is also an ordinary input: its resource block is read, not warned about.
// RUN: hilo-opt %t/repro.mlir --cse 2>&1 | FileCheck %s --check-prefix=PLAIN
// Errors of the flag itself:
// RUN: not hilo-opt %s --run-reproducer 2>&1 | FileCheck %s --check-prefix=NOREPRO
// RUN: not hilo-opt %t/repro.mlir --run-reproducer --cse 2>&1 | FileCheck %s --check-prefix=BOTH
// hilo2penguin writes one too (its failure is in the spine's call-inliner):
// RUN: not hilo2penguin %s -o %t/out --mlir-pass-pipeline-crash-reproducer=%t/repro2.mlir 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: FileCheck %s --check-prefix=REPRO2 < %t/repro2.mlir
// RUN: not hilo-opt %t/repro2.mlir --run-reproducer 2>&1 | FileCheck %s --check-prefix=REPLAY

// ERR: crash-reproducer.mlir:45:8: error: 'func.call' op cannot inline recursive call to '@loop'
// ERR: note: Pipeline failed while executing [`CallInliner` on 'builtin.module' operation]: reproducer generated at `{{.*}}repro{{2?}}.mlir`

// REPRO: func.func private @loop(
// REPRO: call @loop({{.*}} loc(
// REPRO: {-#
// REPRO-NEXT:   external_resources: {
// REPRO-NEXT:     mlir_reproducer: {
// REPRO-NEXT:       pipeline: "builtin.module(call-inliner)",
// REPRO-NEXT:       disable_threading: true,
// REPRO-NEXT:       verify_each: true
// REPRO-NEXT:     }
// REPRO-NEXT:   }
// REPRO-NEXT: #-}
// REPRO2: pipeline: "builtin.module(call-inliner)",
// REPRO2: verify_each: {{true|false}}

// REPLAY: crash-reproducer.mlir:{{[0-9]+}}:8: error: 'func.call' op cannot inline recursive call to '@loop'
// A reproducer is untrusted: the replay quotes a line only of a .mlir file beside it that its locations name;
// this one names its source in another folder, which is not read:
// REPLAY-NOT: {{^}}  %0 = func.call
// PLAIN-NOT: warning
// PLAIN: func.func private @loop
// NOREPRO: crash-reproducer.mlir: error: --run-reproducer: the input has no mlir_reproducer resource
// BOTH: hilo-opt: error: --run-reproducer runs the reproducer's own pipeline: do not give passes too

func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @loop(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @loop(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @loop(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
