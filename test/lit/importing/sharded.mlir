// Issue 22 item 5a: the per-device program of a sharded jax.jit, as XLA writes it after SPMD
// partitioning (a pass dump, or the compiled module's text); the global program before
// partitioning is one located error with the recipe.
// RUN: hilo-opt %S/Inputs/sharded.after_spmd-partitioning.txt | FileCheck %s
// RUN: hilo-opt %S/Inputs/sharded.compiled.txt | FileCheck %s
// RUN: rm -rf %t && hilo2penguin %S/Inputs/sharded.after_spmd-partitioning.txt -o %t/a | FileCheck %s --check-prefix=WROTE
// RUN: hilo2penguin %S/Inputs/sharded.compiled.txt -o %t/b --spine stablehlo --preset all | FileCheck %s --check-prefix=WROTE
// RUN: FileCheck %s --check-prefix=PENGUIN < %t/a/penguin.py
// RUN: not hilo2penguin %S/Inputs/sharded.before_optimizations.txt -o %t/c 2>&1 | FileCheck %s --check-prefix=GLOBAL
// RUN: not test -e %t/c

// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<16x4xf32>) -> tensor<4xf32>
// CHECK-NOT: mhlo.sharding
// CHECK: %[[S:.*]] = stablehlo.reduce
// CHECK: %[[AR:.*]] = "stablehlo.all_reduce"(%[[S]]) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>, use_global_device_ids}>
// CHECK: return %[[AR]]

// WROTE: wrote {{.*}}penguin.py
// PENGUIN: input_0 = m1.Tensor(name='input_0', spec=m1.TensorSpec(shape=(4, 16), dtype='float32'))
// PENGUIN: m1.AllReduceOp(
// PENGUIN-SAME: replica_groups=

// GLOBAL: sharded.before_optimizations.txt:{{[0-9]+}}:3: error: this module is sharded (argument 0: {devices=[2,1]<=[2]}) but was not partitioned: compile the per-device program instead: the module after SPMD partitioning (XLA_FLAGS='--xla_dump_to=DIR --xla_dump_hlo_as_text --xla_dump_hlo_pass_re=spmd-partitioning'
// GLOBAL-NOT: Traceback
