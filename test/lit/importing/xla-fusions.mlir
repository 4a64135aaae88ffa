// Issue 22 item 3: a module after XLA's optimizations. XLA's own fusions (kLoop, and the CPU
// backend's kCustom dot fusion) are inlined back into plain ops at import; a backend-only
// custom call is one error naming it and the dump to use instead.
// RUN: hilo-opt %S/Inputs/mlp.after_optimizations.txt | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t && hilo2penguin %S/Inputs/mlp.after_optimizations.txt -o %t/m --debug 2>%t/err | FileCheck %s --check-prefix=WROTE
// RUN: FileCheck %s --check-prefix=DEBUG < %t/err
// RUN: hilo2penguin %S/Inputs/mlp.after_optimizations.txt -o %t/s --spine stablehlo --preset all | FileCheck %s --check-prefix=WROTE
// RUN: FileCheck %s --check-prefix=PENGUIN < %t/s/penguin.py
// RUN: not hilo2penguin %S/Inputs/backend-call.txt -o %t/b 2>&1 | FileCheck %s --check-prefix=BACKEND
// RUN: not hilo-opt %S/Inputs/backend-call.txt 2>&1 | FileCheck %s --check-prefix=BACKEND
// RUN: hilo2penguin --dump-pass-pipeline > %t/pipeline.txt
// RUN: sh -c 'hilo-opt %S/Inputs/mlp.after_optimizations.txt --pass-pipeline="$(cat %t/pipeline.txt)" -o %t/opt.py'
// RUN: cmp %t/opt.py %t/m/penguin.py
// RUN: not test -e %t/b

// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<16x4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[D:.*]] = stablehlo.dot %[[X]], %[[W]]
// CHECK-NEXT: %[[T:.*]] = stablehlo.tanh %[[D]]
// CHECK-NEXT: %[[Z:.*]] = stablehlo.constant dense<0.000000e+00>
// CHECK-NEXT: %[[R:.*]] = stablehlo.reduce(%[[T]] init: %[[Z]]) applies stablehlo.add across dimensions = [0]
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: mhlo.fusion

// WROTE: wrote {{.*}}penguin.py
// DEBUG: [hlo-import] inlined 2 XLA fusion(s) back into plain ops (the spine forms Neuron's fusions itself)
// PENGUIN-NOT: FusionOp
// PENGUIN: m1.TanhOp(
// PENGUIN-NOT: kLoop

// BACKEND: backend-call.txt:6:9: error: custom call '__onednn$matmul' is a backend-only call of an XLA-optimized module; there is no portable meaning to compile: use the module before XLA's optimizations (the *.before_optimizations.txt dump, or jax.jit(f).lower(...).compiler_ir('hlo')), or, for a sharded program, the dump after spmd-partitioning
