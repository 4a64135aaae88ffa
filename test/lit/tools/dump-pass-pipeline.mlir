// --dump-pass-pipeline prints ONE textual pipeline (import step first, every
// option spelled out) that hilo-opt --pass-pipeline accepts unchanged and that
// reproduces hilo2penguin's penguin.py; --list-spine is the per-step table.
// RUN: hilo2penguin --dump-pass-pipeline | FileCheck %s --check-prefix=MHLO
// RUN: hilo2penguin --dump-pass-pipeline --spine stablehlo --preset all | FileCheck %s --check-prefix=SHLO
// RUN: hilo2penguin --list-spine | FileCheck %s --check-prefix=LIST
// RUN: hilo2penguin --list-spine --spine stablehlo --enable-op-fusion | FileCheck %s --check-prefix=LISTS

// The dump runs in hilo-opt and gives the same penguin.py as hilo2penguin (cmp, not
// lit's builtin diff: that one leaves PYTHONPATH pointing at lit for later RUN lines):
// RUN: rm -rf %t && mkdir -p %t
// RUN: hilo2penguin --dump-pass-pipeline --preset all > %t/pipeline.txt
// RUN: sh -c 'hilo-opt %examples/decoder_layer.stablehlo.mlir --pass-pipeline="$(cat %t/pipeline.txt)" -o %t/opt.py'
// RUN: hilo2penguin %examples/decoder_layer.stablehlo.mlir --preset all -o %t/out
// RUN: cmp %t/opt.py %t/out/penguin.py
// RUN: hilo2penguin --dump-pass-pipeline --spine stablehlo > %t/pipeline-s.txt
// RUN: sh -c 'hilo-opt %s --pass-pipeline="$(cat %t/pipeline-s.txt)" -o %t/opt-s.py'
// RUN: hilo2penguin %s --spine stablehlo -o %t/out-s
// RUN: cmp %t/opt-s.py %t/out-s/penguin.py
// hilo-opt's own --dump-pass-pipeline is mlir-opt's: to stderr, then the pipeline runs.
// RUN: hilo-opt %s --pass-pipeline='builtin.module(func.func(cse),canonicalize)' --dump-pass-pipeline 2>&1 >/dev/null | FileCheck %s --check-prefix=OPT

// MHLO: {{^}}builtin.module(hilo-import,call-inliner,collective-broadcast-to-all-gather,lower-complex,remove-dead-values{canonicalize=true},neuron-inst-combine,replace-token-type-with-u8,scatter-motion,prune-functions,sixty-four-hack,penguinize-io,canonicalize-for-tensorizer,tensorizer-legalization,legalize-alias,mlir-instruction-histogram{output=},mhlo-to-py-penguin{inline-constant-max-elements=256 model-type=generic output= root=neuronxcc.starfish.penguin}){{$}}
// SHLO: builtin.module(hilo-import,call-inliner,raise-logistic{report=},canonicalize{
// SHLO-SAME: hlo-legalize-to-stablehlo{allow-experimental-features=false allow-xla-features=true}
// SHLO-SAME: stablehlo-neuron-op-fusion{fuse-dot-logistic=true general-elementwise-fusion=true report=}
// SHLO-SAME: stablehlo-to-py-penguin{

// LIST: step  pass
// LIST-NEXT: pre   call-inliner {{ +}}call-inliner=on
// LIST-NEXT: pre   (raise-logistic) {{ +}}raise-logistic=off
// LIST-NEXT: 1     (canonicalize) {{ +}}canonicalize=off
// LIST: 3     collective-broadcast-to-all-gather {{ +}}-
// LIST: 15    (neuron-op-fusion) {{ +}}op-fusion=off
// LIST: 32    mhlo-to-py-penguin {{ +}}-
// LISTS: 1a    hlo-legalize-to-stablehlo{allow-xla-features=true}
// LISTS: 14a   fusion-to-composite
// LISTS: 15    stablehlo-neuron-op-fusion {{ +}}op-fusion=on

// OPT: Pass Manager with 2 passes:
// OPT-NEXT: builtin.module(func.func(cse),canonicalize{cse-between-iterations=false max-iterations=10 max-num-rewrites=-1 region-simplify=normal test-convergence=false top-down=true})

func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  %1 = stablehlo.exponential %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}
