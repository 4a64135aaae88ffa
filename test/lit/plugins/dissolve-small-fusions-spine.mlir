// The example plugin placed in the main job's spine, right after neuron-op-fusion,
// on a real JAX export: the dump shows it in place, its statistics are reported,
// and the edit errors name the step.
// RUN: rm -rf %t
// RUN: hilo2penguin --preset all --load-pass-plugin=%plugins/dissolve_small_fusions.py --insert-pass-after 'neuron-op-fusion=dissolve-small-fusions{max-ops=3}' --dump-pass-pipeline | FileCheck %s --check-prefix=DUMP
// RUN: hilo2penguin %examples/decoder_layer.stablehlo.mlir -o %t --preset all --load-pass-plugin=%plugins/dissolve_small_fusions.py --insert-pass-after 'neuron-op-fusion=dissolve-small-fusions{max-ops=3}' --mlir-pass-statistics 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: FileCheck %s --check-prefix=PY < %t/penguin.py
// RUN: not hilo2penguin --preset all --load-pass-plugin=%plugins/dissolve_small_fusions.py --insert-pass-after 'neuron-op-fuson=dissolve-small-fusions' --dump-pass-pipeline 2>&1 | FileCheck %s --check-prefix=STEP
// RUN: not hilo2penguin --insert-pass-after 'neuron-op-fusion=dissolve-small-fusions' --dump-pass-pipeline 2>&1 | FileCheck %s --check-prefix=GATE
// RUN: not hilo2penguin --preset all --insert-pass-after 'neuron-op-fusion=dissolve-small-fusions' --dump-pass-pipeline 2>&1 | FileCheck %s --check-prefix=NOPLUGIN

// DUMP: ,neuron-op-fusion{fuse-dot-logistic=true general-elementwise-fusion=true report=},dissolve-small-fusions{max-ops=3},fold-iota{
// STATS: DissolveSmallFusions
// STATS-NEXT:   (fusions-dissolved) 1
// STATS-NEXT:   (fusions-seen) 3
// STATS-NEXT:   (ops-unfused) 3
// STATS: wrote {{.*}}penguin.py
// PY-NOT: op='DotFusion'
// PY: op='MulRedSqrt'
// STEP: hilo2penguin: error: --insert-pass-after neuron-op-fuson=dissolve-small-fusions: unknown spine step 'neuron-op-fuson' (did you mean 'neuron-op-fusion'?)
// GATE: hilo2penguin: error: --insert-pass-after neuron-op-fusion=dissolve-small-fusions: step 15 'neuron-op-fusion' does not run: its gate op-fusion is off
// NOPLUGIN: hilo2penguin: error: --insert-pass-after neuron-op-fusion=dissolve-small-fusions: unknown pass 'dissolve-small-fusions'
